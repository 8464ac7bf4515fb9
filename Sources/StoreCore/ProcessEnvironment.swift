#if canImport(Glibc)
    import Glibc
#endif

/// The process environment (both binaries read it; the store's location comes from it).
public enum ProcessEnvironment {
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let pair = String(cString: entry)
            if let equals = pair.firstIndex(of: "=") {
                result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// One variable of the process environment, as `current()[name]` gives it (the last entry of that name), without
    /// building the dictionary: the lean binary's `token` reads a handful of variables, and hashing every variable
    /// into a `[String: String]` (with the runtime's set-up of that type) was a sixth of its CPU time.
    public static func variable(_ name: String) -> String? {
        var found: UnsafeMutablePointer<CChar>?
        name.withCString { wanted in
            let length = strlen(wanted)
            var pointer = environ
            while let entry = pointer.pointee {
                if strncmp(entry, wanted, length) == 0 && entry[length] == 0x3D {  // "NAME="
                    found = entry + length + 1
                }
                pointer += 1
            }
        }
        return found.map { String(cString: $0) }
    }
}
