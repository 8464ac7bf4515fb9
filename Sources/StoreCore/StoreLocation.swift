#if canImport(Glibc)
    import Glibc
#endif

/// Where the store lives: the data folder and the database inside it.
public struct StoreLocation: Sendable, Equatable {
    /// The data folder (mode 0700).
    public var directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// `$AUTHDECK_HOME`, else `$XDG_DATA_HOME/authdeck`, else `~/.local/share/authdeck`.
    public static func resolve(environment: [String: String]) -> StoreLocation {
        resolve(variable: { environment[$0] })
    }

    /// As `resolve(environment:)`, reading each variable through `variable` (`ProcessEnvironment.variable`).
    public static func resolve(variable: (String) -> String?) -> StoreLocation {
        func nonEmpty(_ name: String) -> String? {
            guard let value = variable(name), !value.isEmpty else { return nil }
            return value
        }
        if let home = nonEmpty("AUTHDECK_HOME") { return StoreLocation(directory: home) }
        if let data = nonEmpty("XDG_DATA_HOME") { return StoreLocation(directory: data + "/authdeck") }
        // The account's home only when HOME is unset: the lean binary is linked statically, where the password
        // database is read through glibc's NSS modules at run time.
        let home =
            nonEmpty("HOME") ?? getpwuid(getuid()).flatMap { $0.pointee.pw_dir.map { String(cString: $0) } } ?? "/"
        return StoreLocation(directory: home + "/.local/share/authdeck")
    }

    /// The SQLite database (mode 0600); `-wal` and `-shm` sit next to it with the same mode.
    public var databasePath: String { directory + "/sessions.db" }

    package var databaseExists: Bool { access(databasePath, F_OK) == 0 }

    /// Creates the folder (and its parents) when missing. The folder itself gets 0700.
    package func createDirectory() throws(StoreError) {
        let absolute = directory.hasPrefix("/")
        var path = ""
        let components = directory.split(separator: "/", omittingEmptySubsequences: true)
        for (index, component) in components.enumerated() {
            path += (path.isEmpty && !absolute ? "" : "/") + component
            let isLast = index == components.count - 1
            if mkdir(path, isLast ? 0o700 : 0o755) != 0 && errno != EEXIST {
                throw .storage("cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Checks the folder is 0700 and the database files 0600, repairs them when not, and reports each repair
    /// through `warn`: a store others can read would leak who is signed in where.
    package func enforcePermissions(warn: (String) -> Void) throws(StoreError) {
        try enforce(directory, mode: 0o700, warn: warn)
        for suffix in ["", "-wal", "-shm"] {
            try enforce(databasePath + suffix, mode: 0o600, warn: warn)
        }
    }

    /// Whether the folder is 0700 and the database files 0600 already (what `enforcePermissions` would leave
    /// unchanged): a reader that must not write checks this and leaves any repair, and its warning, to the store.
    package var permissionsAreRight: Bool {
        func right(_ path: String, _ mode: mode_t) -> Bool {
            var info = stat()
            return stat(path, &info) != 0 || info.st_mode & 0o7777 == mode
        }
        return right(directory, 0o700) && ["", "-wal", "-shm"].allSatisfy { right(databasePath + $0, 0o600) }
    }

    private func enforce(_ path: String, mode: mode_t, warn: (String) -> Void) throws(StoreError) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let actual = info.st_mode & 0o7777
        guard actual != mode else { return }
        guard chmod(path, mode) == 0 else {
            throw .storage("\(path) has mode \(octal(actual)) and cannot be changed to \(octal(mode))")
        }
        warn("warning: \(path) had mode \(octal(actual)); changed it to \(octal(mode))")
    }

    private func octal(_ mode: mode_t) -> String { "0" + String(mode, radix: 8) }
}
