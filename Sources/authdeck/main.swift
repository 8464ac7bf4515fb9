#if canImport(Glibc)
import Glibc
#endif
import Keyring

exit(CommandLineApp.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.current()))
