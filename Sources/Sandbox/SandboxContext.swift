import AuthCrypto
import Foundation

/// What every route shares once the server is listening: the configuration, the keys, the base URL (known only
/// after the port is bound), the outbox and the clock.
final class SandboxContext: Sendable {
    let configuration: SandboxConfiguration
    let keys: SandboxKeys
    /// `http://127.0.0.1:PORT`, no trailing slash.
    let baseURL: String
    /// The port the sandbox listens on.
    let port: UInt16
    let outbox: Outbox
    let faults: SandboxFaults

    init(configuration: SandboxConfiguration, keys: SandboxKeys, baseURL: String, port: UInt16) {
        self.configuration = configuration
        self.keys = keys
        self.baseURL = baseURL
        self.port = port
        outbox = Outbox(path: configuration.outboxPath, announce: configuration.announce)
        faults = SandboxFaults(configuration.faults)
    }

    var clock: SandboxClock { configuration.clock }
    var users: [SandboxUser] { configuration.users }

    func user(named name: String) -> SandboxUser? {
        users.first { $0.name == name }
    }

    /// The profile's issuer, which is also the base of its endpoints.
    func issuer(_ profile: OIDCProfile) -> String {
        "\(baseURL)/oidc/\(profile.rawValue)"
    }

    func profile(issuer: String) -> OIDCProfile? {
        OIDCProfile.allCases.first { self.issuer($0) == issuer }
    }

    /// The users-file entry behind a provider subject, if any.
    func user(subject: String, at profile: OIDCProfile) -> SandboxUser? {
        users.first { $0.subject(at: profile) == subject }
    }

    /// An unguessable token: `bytes` random bytes as base64url.
    func randomToken(bytes: Int = 32) throws(CryptoError) -> String {
        Base64URL.encode(try SecureRandom.bytes(bytes))
    }

    /// An id in UUID form, as the proxies hand out for users, organizations and one-time codes.
    func randomID() throws(CryptoError) -> String {
        Self.uuidString(try SecureRandom.bytes(16))
    }

    /// UUID text for 16 bytes, with the version-4 and variant bits set.
    static func uuidString(_ input: [UInt8]) -> String {
        var bytes = Array(input.prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Hex.encode(bytes)
        let cuts = [8, 12, 16, 20]
        var text = ""
        for (index, character) in hex.enumerated() {
            if cuts.contains(index) { text.append("-") }
            text.append(character)
        }
        return text
    }
}
