import AuthCore
import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

/// Writing the per-directory session file (`use --here`); finding it is `DirectorySessionFile` in Keyring, which
/// the lean `authdeck` binary shares.
enum DirectorySession {
    /// Writes `key` to `.authdeck-session` in the working directory.
    static func write(_ key: String) throws(CommandFailure) -> String {
        let folder = DirectorySessionFile.currentDirectory()
        let path = folder + "/" + DirectorySessionFile.fileName
        // A file there would be ignored (others could replace it); a planted symlink is never written through.
        if let unsafe = DirectorySessionFile.unsafeFolder(folder) {
            throw CommandFailure(
                .failed,
                "\(unsafe) is writable by other users; \(DirectorySessionFile.fileName) "
                    + "is not trusted there")
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            throw CommandFailure(.failed, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let line = Array((key + "\n").utf8)
        guard line.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, $0.count) }) == line.count else {
            throw CommandFailure(.failed, "cannot write \(path)")
        }
        return path
    }

    /// `authdeck use KEY`, and `use --here KEY`, which names the session for this directory instead of selecting it.
    static func use(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard arguments.has("here") else { return try StoreCommands.use(arguments, global) }
        guard let key = try arguments.positionals(atMost: 1).first else {
            throw .usage("use --here needs a session KEY")
        }
        if let problem = SessionKeyRule.problem(key) { throw .usage(problem) }
        let store = try StoreCommands.requireStore(global)
        _ = try StoreCommands.attempt { () throws(StoreError) in try store.entry(key) }
        let path = try write(key)
        if !global.quiet {
            global.err("commands run under \(DirectorySessionFile.currentDirectory()) now use '\(key)' (\(path))\n")
        }
        return .done
    }
}
