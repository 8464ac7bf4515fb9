import AuthBase

#if canImport(Glibc)
    import Glibc
#endif

/// The per-directory session: a `.authdeck-session` file in the working directory or a parent names the session
/// for commands run there (after `--session` and `$AUTHDECK_SESSION`, before the selected one), as `.nvmrc`
/// does for Node versions. The file holds the key on its first line.
public enum DirectorySessionFile {
    public static let fileName = ".authdeck-session"

    /// The nearest file and the key it names, searching from the working directory up to `$HOME` (or `/` outside
    /// it). As git does since CVE-2022-24765, a file another user could have planted is ignored with a warning:
    /// one not owned by this user, writable by others, or in a folder others can write to (a sticky one like /tmp
    /// aside, where nobody can replace another's file).
    public static func find(
        home: String? = homeDirectory(),
        warn: (String) -> Void = warnOnStandardError
    ) -> (key: String, path: String)? {
        var directory = currentDirectory()
        while true {
            let path = (directory == "/" ? "" : directory) + "/" + fileName
            var info = stat()
            if lstat(path, &info) != 0 {
                // None here (the common case): nothing to check or open.
            } else if let why = refusal(path, folder: directory) {
                warn("ignoring \(path): \(why)")
            } else if let key = readKey(path) {
                return (key, path)
            }
            guard directory != "/", directory != home, let slash = directory.lastIndex(of: "/") else { return nil }
            directory = slash == directory.startIndex ? "/" : String(directory[..<slash])
        }
    }

    /// Why the file at `path` (in `folder`) must not be trusted, or nil when it may be read (or is absent).
    package static func refusal(_ path: String, folder: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        if info.st_uid != geteuid() { return "it belongs to uid \(info.st_uid), not to you" }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 { return "it is writable by other users" }
        if let unsafe = unsafeFolder(folder) { return "\(unsafe) is writable by other users" }
        return nil
    }

    /// The first of `folder` and its parents that users other than its owner may change (group- or
    /// world-writable and not sticky), or nil when none is.
    public static func unsafeFolder(_ folder: String) -> String? {
        var directory = folder
        while true {
            var info = stat()
            if stat(directory, &info) == 0, info.st_mode & (S_IWGRP | S_IWOTH) != 0, info.st_mode & S_ISVTX == 0 {
                return directory
            }
            guard directory != "/", let slash = directory.lastIndex(of: "/") else { return nil }
            directory = slash == directory.startIndex ? "/" : String(directory[..<slash])
        }
    }

    /// `$HOME` without a trailing slash; nil when unset or `/` (then the search goes up to `/`).
    public static func homeDirectory() -> String? {
        guard let value = getenv("HOME") else { return nil }
        return homeDirectory(String(cString: value))
    }

    /// `value` (a `$HOME`) without a trailing slash; nil when nil, empty or `/`.
    public static func homeDirectory(_ value: String?) -> String? {
        guard var home = value else { return nil }
        while home.count > 1 && home.hasSuffix("/") { home.removeLast() }
        return home.isEmpty || home == "/" ? nil : home
    }

    public static func warnOnStandardError(_ message: String) {
        var line = "authdeck: " + TerminalText.sanitized(message) + "\n"
        line.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
    }

    public static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The first line of a small regular file, trimmed; nil when absent, empty or not a plain short file. The key is
    /// returned as written: callers check it against the key rule and refuse it rather than look further up.
    private static func readKey(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        let key = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).first.map {
            String($0).trimmingSpacesAndTabs()
        }
        guard let key, !key.isEmpty else { return nil }
        return key
    }
}

extension String {
    package func trimmingSpacesAndTabs() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
