#if canImport(Glibc)
    import Glibc
#endif

/// authdeck-full: next to this binary (a build folder), or in lib/authdeck beside bin (an install).
enum FullBinary {
    static let name = "authdeck-full"

    static func path() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let me = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let folder = me.hasSuffix("/") ? me : String(me[..<(me.lastIndex(of: "/") ?? me.endIndex)])
        let candidates = [
            folder + "/" + name, folder + "/../lib/authdeck/" + name, folder + "/../libexec/authdeck/" + name,
        ]
        for candidate in candidates where access(candidate, X_OK) == 0 {
            return candidate
        }
        return nil
    }

    /// Replaces this process with authdeck-full and the same arguments; returns only to exit on failure.
    static func exec(_ arguments: [String]) -> Never {
        guard let path = path() else {
            FastPath.write("authdeck: \(name) is missing next to this binary; reinstall authdeck\n", to: STDERR_FILENO)
            exit(1)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        execv(path, &argv)
        FastPath.write("authdeck: cannot start \(path): \(String(cString: strerror(errno)))\n", to: STDERR_FILENO)
        exit(1)
    }
}
