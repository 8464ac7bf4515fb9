import AuthCrypto

/// One person the sandbox knows: who appears on the consent page, who can receive one-time codes, and
/// whether the auth proxy already has an account for them. Read from the users file.
public struct SandboxUser: Sendable, Equatable, Codable {
    /// A short handle, unique in the file; `sandbox_user=NAME` picks it.
    public var name: String
    public var email: String?
    /// E.164.
    public var phone: String?
    /// Base32 TOTP seed; a user with one must pass a TOTP second factor at the proxies.
    public var totpSecret: String?
    /// Whether the auth proxy already holds an account for this user (login) or not (signup).
    public var existing: Bool

    public init(
        name: String, email: String? = nil, phone: String? = nil, totpSecret: String? = nil,
        existing: Bool = true
    ) {
        self.name = name
        self.email = email
        self.phone = phone
        self.totpSecret = totpSecret
        self.existing = existing
    }

    enum CodingKeys: String, CodingKey {
        case name, email, phone, totpSecret, existing
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        phone = try container.decodeIfPresent(String.self, forKey: .phone)
        totpSecret = try container.decodeIfPresent(String.self, forKey: .totpSecret)
        // A user listed without `existing` is taken to have an account: the file lists known people.
        existing = try container.decodeIfPresent(Bool.self, forKey: .existing) ?? true
    }

    /// The display name providers put in `name` claims: the handle with a capital first letter.
    var displayName: String {
        name.prefix(1).uppercased() + name.dropFirst()
    }

    /// The provider's subject for this user: digits derived from the profile and the name, so the same user
    /// keeps the same `sub` across restarts (as at a real provider) but differs between providers.
    func subject(at profile: OIDCProfile) -> String {
        let digest = SHA256.hash("authdeck-sandbox subject \(profile.rawValue) \(name)")
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return String(100_000_000_000_000_000 + value % 900_000_000_000_000_000)
    }

    /// The TOTP seed's bytes, when the user has one.
    var totpSeed: [UInt8]? {
        totpSecret.flatMap(Base32.decode)
    }
}
