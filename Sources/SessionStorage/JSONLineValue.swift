import CJansson

/// A value inside one import line as jansson parsed it, read where it lies: no `[String: Any]` and no boxed
/// `Any` per field (JSONSerialization building those was the largest part of `store import`). Valid only while the
/// line's tree lives; `SessionJSON.parseTransfer` frees it after reading the line.
///
/// The reads answer as `JSONSerialization`'s casts did, so an import file means what it meant before: a string is
/// only a string, `null` is nobody's value, and `true`/`false` (and the numbers 0 and 1, which Foundation's
/// `NSNumber` also gives as a `Bool`) are booleans.
struct JSONLineValue {
    let pointer: UnsafeMutablePointer<json_t>

    /// The member named `name` (the last one, when a line repeats it), nil when absent or when this is no object.
    func member(_ name: StaticString) -> JSONLineValue? {
        guard pointer.pointee.type == JSON_OBJECT else { return nil }
        let found = name.withUTF8Buffer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { json_object_getn(pointer, $0.baseAddress, $0.count) }
        }
        return found.map(JSONLineValue.init)
    }

    var isObject: Bool { pointer.pointee.type == JSON_OBJECT }

    var isNull: Bool { pointer.pointee.type == JSON_NULL }

    /// The text of a string (which may hold U+0000: lines are parsed with `JSON_ALLOW_NUL`), else nil.
    var string: String? {
        guard pointer.pointee.type == JSON_STRING, let text = json_string_value(pointer) else { return nil }
        let count = json_string_length(pointer)
        return text.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
            // jansson has checked the bytes are UTF-8, so nothing is replaced here.
            String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
    }

    /// `true` or `false`, or a number that is exactly 1 or 0; else nil.
    var bool: Bool? {
        switch pointer.pointee.type {
        case JSON_TRUE: return true
        case JSON_FALSE: return false
        case JSON_REAL:
            let number = json_real_value(pointer)
            return number == 1 ? true : number == 0 ? false : nil
        case JSON_INTEGER:
            let number = json_integer_value(pointer)
            return number == 1 ? true : number == 0 ? false : nil
        default: return nil
        }
    }

    /// A number that is a whole one (lines are parsed with `JSON_DECODE_INT_AS_REAL`, so integers arrive as reals),
    /// else nil.
    var integer: Int64? {
        switch pointer.pointee.type {
        case JSON_INTEGER: return Int64(json_integer_value(pointer))
        case JSON_REAL: return Int64(exactly: json_real_value(pointer))
        default: return nil
        }
    }

    /// An array whose elements are all strings, else nil.
    var strings: [String]? {
        guard pointer.pointee.type == JSON_ARRAY else { return nil }
        let count = json_array_size(pointer)
        var result: [String] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            guard let element = json_array_get(pointer, index), let text = JSONLineValue(pointer: element).string
            else { return nil }
            result.append(text)
        }
        return result
    }
}
