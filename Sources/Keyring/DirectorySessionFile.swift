#if canImport(Glibc)
import Glibc
#endif

/// The per-directory session: a `.authdeck-session` file in the working directory or a parent names the session
/// for commands run there (after `--session` and `$AUTHDECK_SESSION`, before the selected one), as `.nvmrc`
/// does for Node versions. The file holds the key on its first line.
public enum DirectorySessionFile {
    public static let fileName = ".authdeck-session"

    /// The nearest file and the key it names, searching from the working directory up to `/`.
    public static func find() -> (key: String, path: String)? {
        var directory = currentDirectory()
        while true {
            let path = (directory == "/" ? "" : directory) + "/" + fileName
            if let key = readKey(path) { return (key, path) }
            guard directory != "/", let slash = directory.lastIndex(of: "/") else { return nil }
            directory = slash == directory.startIndex ? "/" : String(directory[..<slash])
        }
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
    func trimmingSpacesAndTabs() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
