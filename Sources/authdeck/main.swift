import StoreCore

#if canImport(Glibc)
    import Glibc
#endif

// The `authdeck` users run. `authdeck token` is what scripts call in loops, so this binary loads only the store's
// core (SQLite, Nettle, keyutils; no Foundation, no libcrypto) and answers `token` from the kernel-keyring cache
// itself; everything else, and every case it does not handle plainly (a locked store, a token to refresh, an error
// to explain), is handed to authdeck-full, which does it all and says what went wrong.
ProcessHardening.apply()
SQLiteDatabase.configureForOneShortProcess()
var arguments = Array(CommandLine.arguments.dropFirst())
// Installed as docker-credential-authdeck too (a symlink), the name Docker, skopeo and podman run a helper by; read
// before the fast path, which would otherwise answer the helper's `list` with the sessions' list.
if CommandLine.arguments.first?.split(separator: "/").last == "docker-credential-authdeck" {
    arguments.insert("docker-credential", at: 0)
}
if let status = FastPath.run(arguments, variable: ProcessEnvironment.variable) {
    // Everything was written with write(2) and the database is closed: exit handlers have nothing left to do.
    _exit(status)
}
FullBinary.exec(arguments)
