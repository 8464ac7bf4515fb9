#if canImport(Glibc)
import Glibc
#endif

exit(CommandLineApp.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.current()))
