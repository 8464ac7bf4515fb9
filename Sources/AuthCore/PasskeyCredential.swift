/// A WebAuthn credential authdeck made for an account at a relying party, kept with the session it signed in
/// (sealed with the other secrets): a software passkey holds its P-256 private key here; a security key's stays on
/// the key, and only its id is kept, to name it in the next assertion.
public struct PasskeyCredential: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A P-256 key authdeck made and keeps in the store; user verification is the store's unlock.
        case software
        /// A FIDO2 security key reached through libfido2.
        case hardware
    }

    public var kind: Kind
    /// The relying party's id (`rp.id`), the domain the credential is scoped to.
    public var relyingPartyID: String
    /// The credential id, base64url without padding.
    public var credentialID: String
    /// The user handle the relying party gave at registration (`user.id`), base64url without padding.
    public var userHandle: String
    /// The account the credential was made for (the relying party's `user.name`).
    public var userName: String
    /// software: the private scalar as 64 hex characters.
    public var privateKeyHex: String?
    /// The signature counter the last authenticator data carried.
    public var signCount: UInt32

    public init(
        kind: Kind, relyingPartyID: String, credentialID: String, userHandle: String, userName: String,
        privateKeyHex: String?, signCount: UInt32
    ) {
        self.kind = kind
        self.relyingPartyID = relyingPartyID
        self.credentialID = credentialID
        self.userHandle = userHandle
        self.userName = userName
        self.privateKeyHex = privateKeyHex
        self.signCount = signCount
    }

    public var description: String { "PasskeyCredential(\(kind.rawValue), \(relyingPartyID), redacted)" }
    public var debugDescription: String { description }
}
