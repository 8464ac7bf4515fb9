import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A temporary folder for one test (mkdtemp, so only this user may enter it), removed when the test lets go of it.
public final class TemporaryFolder: @unchecked Sendable {
    public let path: String

    /// A new folder `/tmp/<prefix>.XXXXXX`.
    public init(prefix: String = "authdeck-test") {
        var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = made.map { String(cString: $0) } ?? "/tmp/\(prefix)-\(UUID().uuidString)"
        if made == nil { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `text` to `name` in this folder and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let file = path + "/" + name
        // 0600: passphrase files open to others are refused, and nothing a test writes is for other users.
        FileManager.default.createFile(atPath: file, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        return file
    }

    /// Writes `text` to `name` as a program (a `$BROWSER`, a helper script) and returns its
    /// path.
    @discardableResult
    public func writeScript(_ name: String, _ text: String) -> String {
        let file = write(name, text)
        chmod(file, 0o755)
        return file
    }

    public func bytes(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path + "/" + name).map { [UInt8]($0) }
    }
}
