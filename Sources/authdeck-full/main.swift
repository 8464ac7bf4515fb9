import AuthdeckCommands
import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

// No core dumps and no same-user ptrace: this process holds the master key and tokens (exec reset what the
// launcher set).
ProcessHardening.apply()
exit(CommandLineApp.main(Array(CommandLine.arguments.dropFirst()), environment: .process()))
