import Foundation

/// A parsed JSON value, for documents whose shape is only partly known (claims, provider answers).
public enum JSONValue: Equatable, Sendable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public struct ParseFailure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// How deep arrays and objects may nest. No provider answer or claim set comes near it; a document that does
    /// is refused before decoding, whose cost grows with the square of the depth.
    public static let maximumDepth = 64

    public static func parse(_ bytes: [UInt8]) throws(ParseFailure) -> JSONValue {
        guard nestingDepth(of: bytes) <= maximumDepth else {
            throw ParseFailure(description: "JSON nested deeper than \(maximumDepth) levels")
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw ParseFailure(description: "not valid JSON")
        }
    }

    public static func parse(_ text: String) throws(ParseFailure) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// The deepest nesting of `[` and `{` outside strings; malformed documents are left to the decoder.
    static func nestingDepth(of bytes: [UInt8]) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// A number or a numeric string as a whole number (providers disagree on `expires_in`'s type).
    public var integer: Int? {
        switch self {
        case .number(let value) where value.rounded() == value && abs(value) < 1e15: return Int(value)
        case .string(let text): return Int(text)
        default: return nil
        }
    }
}
