/// One challenge of a `WWW-Authenticate` header (RFC 9110 section 11.6.1): its scheme and auth-params (names
/// lower-cased, as they are case-insensitive; values unquoted), or a token68.
public struct AuthenticateChallenge: Equatable, Sendable {
    public var scheme: String
    public var parameters: [(name: String, value: String)]
    public var token68: String?

    public init(scheme: String, parameters: [(name: String, value: String)] = [], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = parameters
        self.token68 = token68
    }

    /// The value of parameter `name` (any case); the first when it is repeated.
    public subscript(name: String) -> String? {
        let wanted = name.lowercased()
        return parameters.first { $0.name == wanted }?.value
    }

    public static func == (lhs: AuthenticateChallenge, rhs: AuthenticateChallenge) -> Bool {
        lhs.scheme.lowercased() == rhs.scheme.lowercased() && lhs.token68 == rhs.token68
            && lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Every challenge of a header's value (RFC 9110 11.6.1: `#challenge`, where commas separate both challenges
    /// and a challenge's auth-params); nil when the value does not follow the grammar (an unterminated quoted
    /// string, a parameter without `=`).
    public static func parse(_ header: String) -> [AuthenticateChallenge]? {
        var scanner = Scanner(Array(header.utf8))
        var challenges: [AuthenticateChallenge] = []
        while true {
            scanner.skipListSeparators()
            if scanner.atEnd { return challenges }
            guard let scheme = scanner.token() else { return nil }
            var challenge = AuthenticateChallenge(scheme: scheme)
            // After the scheme: one space then a token68 or auth-params, or the next challenge, or the end.
            let spaced = scanner.skipWhitespace()
            var separated = false
            if spaced, let token68 = scanner.token68() {
                challenge.token68 = token68
                separated = scanner.skipListSeparators()
            } else if spaced {
                // A comma then either another auth-param of this challenge or the next challenge's scheme.
                while let name = scanner.parameterName() {
                    guard let value = scanner.parameterValue() else { return nil }
                    challenge.parameters.append((name.lowercased(), value))
                    separated = scanner.skipListSeparators()
                    if !separated { break }
                }
                if challenge.parameters.isEmpty { separated = scanner.skipListSeparators() }
            } else {
                separated = scanner.skipListSeparators()
            }
            scanner.skipWhitespace()
            if !scanner.atEnd, !separated { return nil }
            challenges.append(challenge)
        }
    }

    /// Reads a header value byte by byte.
    struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }

        /// tchar (RFC 9110 5.6.2).
        static func isTokenCharacter(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
        }

        @discardableResult
        mutating func skipWhitespace() -> Bool {
            let start = index
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
            return index > start
        }

        /// Commas and the whitespace around them (empty list elements are allowed, RFC 9110 5.6.1); true when at
        /// least one comma was passed.
        @discardableResult
        mutating func skipListSeparators() -> Bool {
            var passed = false
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return passed }
                index += 1
                passed = true
            }
        }

        mutating func token() -> String? {
            let start = index
            while index < bytes.count, Self.isTokenCharacter(bytes[index]) { index += 1 }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        /// token68: letters, digits, `-._~+/`, then `=` padding, and nothing but whitespace, a comma or the end
        /// after it. A token followed by `=` and more is an auth-param instead, and is left unread.
        mutating func token68() -> String? {
            let start = index
            let characters = Array("-._~+/".utf8)
            while index < bytes.count,
                Self.isAlphanumeric(bytes[index]) || characters.contains(bytes[index])
            {
                index += 1
            }
            guard index > start else { return nil }
            while index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
            var probe = self
            probe.skipWhitespace()
            guard probe.atEnd || probe.bytes[probe.index] == UInt8(ascii: ",") else {
                index = start
                return nil
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// An auth-param's name and its `=` (whitespace allowed around it, RFC 9110 11.2); nil, reading nothing,
        /// when what follows is not one (the next challenge's scheme).
        mutating func parameterName() -> String? {
            let start = index
            guard let name = token() else { return nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                index = start
                return nil
            }
            index += 1
            skipWhitespace()
            return name
        }

        /// A token or a quoted-string with its quoted-pairs undone (RFC 9110 5.6.4).
        mutating func parameterValue() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return token() }
            index += 1
            var value: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { return String(decoding: value, as: UTF8.self) }
                if byte == UInt8(ascii: "\\") {
                    guard index < bytes.count else { return nil }
                    value.append(bytes[index])
                    index += 1
                } else {
                    value.append(byte)
                }
            }
            return nil
        }

        static func isAlphanumeric(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
        }
    }
}

/// RFC 9470's step-up challenge: a Bearer challenge with `error="insufficient_user_authentication"`, and what it
/// asks for (`acr_values`, space-separated, and `max_age` in seconds).
public struct StepUpChallenge: Equatable, Sendable {
    public var acrValues: [String]
    public var maxAge: Int?
    public var errorDescription: String?

    public init(acrValues: [String] = [], maxAge: Int? = nil, errorDescription: String? = nil) {
        self.acrValues = acrValues
        self.maxAge = maxAge
        self.errorDescription = errorDescription
    }

    /// The step-up challenge among a `WWW-Authenticate` value's challenges; nil when there is none.
    public static func find(in header: String) -> StepUpChallenge? {
        guard let challenges = AuthenticateChallenge.parse(header) else { return nil }
        for challenge in challenges
        where challenge.scheme.lowercased() == "bearer" && challenge["error"] == "insufficient_user_authentication" {
            let maxAge = challenge["max_age"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
            return StepUpChallenge(
                acrValues: (challenge["acr_values"] ?? "").split(separator: " ").map(String.init),
                maxAge: maxAge, errorDescription: challenge["error_description"])
        }
        return nil
    }

    /// What the resource asked for, in words: `acr_values "A B"` and `max_age 5 s`.
    public var summary: String {
        var parts: [String] = []
        if !acrValues.isEmpty { parts.append("acr_values \"\(acrValues.joined(separator: " "))\"") }
        if let maxAge { parts.append("max_age \(maxAge) s") }
        return parts.isEmpty ? "a stronger sign-in" : parts.joined(separator: " and ")
    }

    /// The `authdeck login --step-up` command that answers this challenge for session `key`, quoted for a POSIX
    /// shell.
    public func command(key: String) -> String {
        var words = ["authdeck", "login", "--step-up", ShellWord.posixTyped(key)]
        if !acrValues.isEmpty { words += ["--acr-values", ShellWord.posixTyped(acrValues.joined(separator: " "))] }
        if let maxAge { words += ["--max-age", String(maxAge)] }
        return words.joined(separator: " ")
    }
}
