import Foundation

/// JSON in and out of the sandbox. Parsing never traps (request bodies come from anyone); encoding only ever
/// sees the strings, numbers, booleans, arrays and objects the routes build.
enum JSONText {
    /// One JSON object from request bytes, or nil for anything else: arrays, scalars, bad UTF-8, garbage.
    static func object(_ bytes: [UInt8]) -> [String: Any]? {
        guard !bytes.isEmpty else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    /// Sorted keys and unescaped slashes, so URLs read naturally and output is stable.
    static func encode(_ value: Any) -> [UInt8] {
        guard JSONSerialization.isValidJSONObject(value),
            let data = try? JSONSerialization.data(
                withJSONObject: value,
                options: [.sortedKeys, .withoutEscapingSlashes])
        else {
            // Unreachable with what the routes build; an empty object beats a trap in a server.
            return Array("{}".utf8)
        }
        return Array(data)
    }

    /// One JSON line with its newline, for JSON-lines files.
    static func line(_ value: [String: Any]) -> String {
        String(decoding: encode(value), as: UTF8.self) + "\n"
    }

    /// A string field, nil when absent or of another type.
    static func string(_ object: [String: Any], _ key: String) -> String? {
        object[key] as? String
    }
}
