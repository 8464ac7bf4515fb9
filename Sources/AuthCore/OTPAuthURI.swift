/// An `otpauth://totp/…` enrolment link (the Key URI Format authenticator apps read): the base32 secret, the
/// account label, and the code parameters.
public struct OTPAuthURI: Equatable, Sendable {
    public var label: String
    public var issuer: String?
    public var secretBase32: String
    public var algorithm: String
    public var digits: Int
    public var period: Int

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case notOTPAuth
        case missingSecret
        case unsupported(String)

        public var description: String {
            switch self {
            case .notOTPAuth: return "not an otpauth://totp/ link"
            case .missingSecret: return "the otpauth link has no secret"
            case .unsupported(let what): return "the otpauth link has an unsupported \(what)"
            }
        }
    }

    public init(_ text: String) throws(Failure) {
        let trimmed = text.trimmed
        let prefix = "otpauth://totp/"
        guard trimmed.lowercased().hasPrefix(prefix) else { throw .notOTPAuth }
        let rest = trimmed.dropFirst(prefix.count)
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        label = FormEncoding.unescape(parts[0], plusIsSpace: false) ?? String(parts[0])
        let pairs = parts.count > 1 ? (FormEncoding.decode(parts[1]) ?? []) : []
        let values = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
        guard let secret = values["secret"], !secret.isEmpty else { throw .missingSecret }
        secretBase32 = secret
        issuer = values["issuer"]
        algorithm = (values["algorithm"] ?? "SHA1").uppercased()
        guard ["SHA1", "SHA256", "SHA512"].contains(algorithm) else { throw .unsupported("algorithm") }
        guard let digits = Int(values["digits"] ?? "6"), (6...8).contains(digits) else {
            throw .unsupported("digit count")
        }
        guard let period = Int(values["period"] ?? "30"), (15...120).contains(period) else {
            throw .unsupported("period")
        }
        self.digits = digits
        self.period = period
    }

    /// The account part of the label (`Issuer:account` → `account`).
    public var account: String {
        label.split(separator: ":", maxSplits: 1).last.map { String($0).trimmed } ?? label
    }
}
