/// Where a one-time code goes: an email address or an E.164 phone number, validated before any request.
public enum Contact: Equatable, Sendable, CustomStringConvertible {
    case email(String)
    case phone(String)

    /// An email address: one `@`, a non-empty local part without spaces, a dotted domain of letters, digits
    /// and hyphens. Surrounding spaces are trimmed; the domain is lower-cased.
    public static func validatedEmail(_ text: String) throws(SignInError) -> Contact {
        let trimmed = text.trimmed
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard trimmed.utf8.count <= 254, parts.count == 2 else { throw .invalidContact }
        let local = parts[0]
        let domain = parts[1].lowercased()
        // No space or line break of any script (U+00A0, U+0085, U+2028…), control or invisible format character
        // (bidi overrides, zero-width space): such an address cannot be typed back and would break or disguise the
        // one-line messages that name it (found by `make fuzz`).
        let localAllowed = local.unicodeScalars.allSatisfy { scalar in
            let category = scalar.properties.generalCategory
            return scalar.value > 0x20 && !scalar.properties.isWhitespace && category != .control
                && category != .format && !"()<>[]\\,;:\"".unicodeScalars.contains(scalar)
        }
        guard !local.isEmpty, local.utf8.count <= 64, localAllowed, !local.hasPrefix("."), !local.hasSuffix("."),
            !local.contains("..")
        else {
            throw .invalidContact
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { throw .invalidContact }
        for label in labels {
            guard !label.isEmpty, label.count <= 63, !label.hasPrefix("-"), !label.hasSuffix("-"),
                label.unicodeScalars.allSatisfy({ $0.isASCIIAlphanumeric || $0 == "-" })
            else {
                throw .invalidContact
            }
        }
        guard let top = labels.last, top.count >= 2, top.unicodeScalars.allSatisfy({ $0.isASCIILetter }) else {
            throw .invalidContact
        }
        return .email(String(local) + "@" + domain)
    }

    /// A phone number normalised to E.164: `+` then 8–15 digits. Spaces, dots, dashes and parentheses are
    /// dropped; a leading `00` counts as `+`. Without a country code the number is refused, never guessed.
    public static func validatedPhone(_ text: String) throws(SignInError) -> Contact {
        var rest = Substring(text.trimmed)
        if rest.hasPrefix("+") {
            rest = rest.dropFirst()
        } else if rest.hasPrefix("00") {
            rest = rest.dropFirst(2)
        } else {
            throw .invalidContact
        }
        var digits = ""
        for character in rest {
            if let ascii = character.asciiValue, ascii >= UInt8(ascii: "0"), ascii <= UInt8(ascii: "9") {
                digits.append(character)
            } else if " .-()".contains(character) {
                continue
            } else {
                throw .invalidContact
            }
        }
        guard (8...15).contains(digits.count), !digits.hasPrefix("0") else { throw .invalidContact }
        return .phone("+" + digits)
    }

    /// Email when the text has an `@`, else phone.
    public static func parse(_ text: String) throws(SignInError) -> Contact {
        text.contains("@") ? try validatedEmail(text) : try validatedPhone(text)
    }

    public var value: String {
        switch self {
        case .email(let address): return address
        case .phone(let number): return number
        }
    }

    public var description: String { value }
}

/// The shape of a one-time or TOTP code: its length and alphabet, from the backend's config.
public struct OTPCodeFormat: Equatable, Sendable, Codable {
    public let length: Int
    /// Letters A–Z as well as digits; input is upper-cased before checking.
    public let alphanumeric: Bool

    /// TOTP codes: 6 digits (RFC 6238 as the backends use it).
    public static let totp = OTPCodeFormat(uncheckedLength: 6, alphanumeric: false)

    /// `length` must be 6–9 (the proxies' `otpLength` range).
    public init(length: Int, alphanumeric: Bool) throws(SignInError) {
        guard (6...9).contains(length) else {
            throw .unavailable(reason: "the backend asks for \(length)-character codes; 6 to 9 are supported")
        }
        self.init(uncheckedLength: length, alphanumeric: alphanumeric)
    }

    private init(uncheckedLength: Int, alphanumeric: Bool) {
        self.length = uncheckedLength
        self.alphanumeric = alphanumeric
    }

    /// The code as it will be sent (spaces and dashes removed, upper-cased), or nil when its length or
    /// alphabet is wrong.
    public func validate(_ code: String) -> String? {
        let cleaned = code.trimmed.filter { $0 != " " && $0 != "-" }.uppercased()
        guard cleaned.count == length else { return nil }
        let allowed = cleaned.unicodeScalars.allSatisfy {
            alphanumeric ? $0.isASCIIDigit || $0.isASCIIUpper : $0.isASCIIDigit
        }
        return allowed ? cleaned : nil
    }

    /// Whether `character` can be part of a code, for fields that filter keys as they are typed.
    public func accepts(_ character: Character) -> Bool {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else { return false }
        if scalar.isASCIIDigit { return true }
        return alphanumeric && (scalar.isASCIIUpper || (scalar.value >= 0x61 && scalar.value <= 0x7A))
    }
}

extension Unicode.Scalar {
    var isASCIIDigit: Bool { value >= 0x30 && value <= 0x39 }
    var isASCIIUpper: Bool { value >= 0x41 && value <= 0x5A }
    var isASCIILetter: Bool { isASCIIUpper || (value >= 0x61 && value <= 0x7A) }
    var isASCIIAlphanumeric: Bool { isASCIIDigit || isASCIILetter }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and newlines.
    var trimmed: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
