import StoreCore

#if canImport(Glibc)
    import Glibc
#endif

/// The `authdeck` users run. `authdeck token` is what scripts call in loops, so this binary loads only the store's
/// core (SQLite, Nettle, keyutils; no Foundation, no libcrypto) and answers `token` from the kernel-keyring cache
/// itself; everything else, and every case it does not handle plainly (a locked store, a token to refresh, an error
/// to explain), is handed to authdeck-full, which does it all and says what went wrong.
///
/// An entry point of its own rather than top-level code: top-level code runs on the main actor, and checking that
/// started the concurrency runtime and libdispatch on every call (a tenth of `--version`'s page faults).
@main
enum LeanMain {
    nonisolated static func main() {
        ProcessHardening.apply()
        SQLiteDatabase.configuresOnFirstOpen = true
        // Read from argv one by one rather than through `CommandLine.arguments`, whose array the standard library
        // sets up through a mangled type name: that demangling was a fifth of a cached `token`'s profile (perf).
        var arguments: [String] = []
        arguments.reserveCapacity(Int(CommandLine.argc))
        for index in 1..<max(1, Int(CommandLine.argc)) {
            arguments.append(CommandLine.unsafeArgv[index].map { String(cString: $0) } ?? "")
        }
        // Installed as docker-credential-authdeck too (a symlink), the name Docker, skopeo and podman run a helper
        // by; read before the fast path, which would otherwise answer the helper's `list` with the sessions' list.
        if let name = CommandLine.unsafeArgv[0].map({ String(cString: $0) }),
            name == "docker-credential-authdeck" || name.hasSuffix("/docker-credential-authdeck")
        {
            arguments.insert("docker-credential", at: 0)
        }
        if let status = FastPath.run(arguments, variable: ProcessEnvironment.variable) {
            // Everything was written with write(2) and the database is closed: exit handlers have nothing left to do.
            _exit(status)
        }
        FullBinary.exec(arguments)
    }
}
