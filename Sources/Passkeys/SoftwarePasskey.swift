import AuthCore
import AuthCrypto

/// The authenticator data every ceremony signs (WebAuthn section 6.1): SHA-256 of the rp id, the flags, the
/// signature counter, and at registration the attested credential data (AAGUID, the credential id, its COSE key).
public enum AuthenticatorData {
    public static let userPresent: UInt8 = 0x01
    public static let userVerified: UInt8 = 0x04
    public static let attestedCredentialData: UInt8 = 0x40

    public static func bytes(
        relyingPartyID: String, flags: UInt8, signCount: UInt32, attested: (aaguid: [UInt8], id: [UInt8], key: CBOR)?
    ) -> [UInt8] {
        var output = SHA256.hash(relyingPartyID)
        output.append(flags | (attested == nil ? 0 : attestedCredentialData))
        output += bigEndian(UInt64(signCount), width: 4)
        if let attested {
            output += attested.aaguid
            output += bigEndian(UInt64(attested.id.count), width: 2)
            output += attested.id
            output += attested.key.encoded
        }
        return output
    }

    /// A P-256 public key as COSE_Key (RFC 9053 section 7.1.1; WebAuthn section 5.8.5): kty EC2 (2), alg ES256
    /// (-7), crv P-256 (1), x and y; in canonical key order 1, 3, -1, -2, -3.
    public static func coseKey(_ key: P256PublicKey) -> CBOR {
        let point = key.x963Representation
        return .map([
            (.integer(1), .integer(2)), (.integer(3), .integer(-7)), (.integer(-1), .integer(1)),
            (.integer(-2), .bytes(Array(point[1...32]))), (.integer(-3), .bytes(Array(point[33...64]))),
        ])
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }
}

/// A passkey kept in authdeck's store: a P-256 key made with OpenSSL, its private scalar sealed with the session
/// it signed in. User verification is the store's unlock: the key can only be read from an unlocked store, so every
/// ceremony sets UV as well as UP.
public enum SoftwarePasskey {
    /// COSE's ES256, the only algorithm this authenticator makes keys for.
    public static let es256 = -7
    /// No model is claimed: attestation `none` and packed self-attestation carry no certificate, so the AAGUID is
    /// zero (WebAuthn section 6.5.1).
    static let aaguid = [UInt8](repeating: 0, count: 16)

    /// authenticatorMakeCredential (WebAuthn section 6.3.2) with the client's steps (section 5.1.3) before it:
    /// a new key and credential id, the attestation object (`none`, or `packed` self-attestation when the relying
    /// party asked for attestation) and the client data for `origin`.
    public static func register(
        _ options: CreationOptions, origin: String, known: [PasskeyCredential] = []
    ) throws(PasskeyError) -> (credential: PasskeyCredential, response: RegistrationResponse) {
        try ClientData.check(relyingPartyID: options.relyingPartyID, origin: origin)
        guard options.algorithms.isEmpty || options.algorithms.contains(es256) else {
            throw PasskeyError("the relying party accepts no ES256 (P-256) key, the only kind authdeck makes")
        }
        let excluded = Set(options.excludeCredentials.map(Base64URL.encode))
        if known.contains(where: { $0.relyingPartyID == options.relyingPartyID && excluded.contains($0.credentialID) })
        {
            throw PasskeyError("this store already holds a passkey the relying party has registered for the account")
        }
        let key: P256PrivateKey
        let credentialID: [UInt8]
        do {
            key = try P256PrivateKey()
            credentialID = try SecureRandom.bytes(32)
        } catch {
            throw PasskeyError("cannot make a P-256 key: \(error)")
        }
        let clientData = ClientData.json(type: ClientData.create, challenge: options.challenge, origin: origin)
        let authenticatorData = AuthenticatorData.bytes(
            relyingPartyID: options.relyingPartyID,
            flags: AuthenticatorData.userPresent | AuthenticatorData.userVerified, signCount: 0,
            attested: (aaguid, credentialID, AuthenticatorData.coseKey(key.publicKey)))
        let statement: (format: String, statement: CBOR)
        if options.attestation == nil || options.attestation == "none" {
            statement = ("none", .map([]))
        } else {
            // Packed self-attestation (section 8.2): the credential's own key signs authData ‖ hash(clientData).
            let signature = try sign(authenticatorData + SHA256.hash(clientData), with: key)
            statement = ("packed", .map([(.text("alg"), .integer(Int64(es256))), (.text("sig"), .bytes(signature))]))
        }
        let attestationObject = CBOR.map([
            (.text("fmt"), .text(statement.format)), (.text("attStmt"), statement.statement),
            (.text("authData"), .bytes(authenticatorData)),
        ]).encoded
        let credential = PasskeyCredential(
            kind: .software, relyingPartyID: options.relyingPartyID, credentialID: Base64URL.encode(credentialID),
            userHandle: Base64URL.encode(options.userHandle), userName: options.userName,
            privateKeyHex: Hex.encode(key.rawRepresentation), signCount: 0)
        return (
            credential,
            RegistrationResponse(
                credentialID: credentialID, clientDataJSON: clientData, attestationObject: attestationObject)
        )
    }

    /// authenticatorGetAssertion (WebAuthn section 6.3.3): the counter goes up by one, and the credential signs
    /// authData ‖ SHA-256(clientData). The credential comes back with its new counter, to be stored again.
    public static func assert(
        _ options: RequestOptions, origin: String, credential: PasskeyCredential
    ) throws(PasskeyError) -> (credential: PasskeyCredential, response: AssertionResponse) {
        try PasskeyChoice.check(options, credential: credential)
        try ClientData.check(relyingPartyID: credential.relyingPartyID, origin: origin)
        guard let hex = credential.privateKeyHex, let scalar = Hex.decode(hex),
            let key = try? P256PrivateKey(rawRepresentation: scalar)
        else {
            throw PasskeyError("the stored passkey has no usable private key; sign in with --passkey again to make one")
        }
        var updated = credential
        updated.signCount &+= 1
        let clientData = ClientData.json(type: ClientData.get, challenge: options.challenge, origin: origin)
        let authenticatorData = AuthenticatorData.bytes(
            relyingPartyID: credential.relyingPartyID,
            flags: AuthenticatorData.userPresent | AuthenticatorData.userVerified, signCount: updated.signCount,
            attested: nil)
        let signature = try sign(authenticatorData + SHA256.hash(clientData), with: key)
        return (
            updated,
            AssertionResponse(
                credentialID: Base64URL.decode(credential.credentialID) ?? [], clientDataJSON: clientData,
                authenticatorData: authenticatorData, signature: signature,
                userHandle: Base64URL.decode(credential.userHandle))
        )
    }

    private static func sign(_ message: [UInt8], with key: P256PrivateKey) throws(PasskeyError) -> [UInt8] {
        do {
            return try key.derSignature(for: message)
        } catch {
            throw PasskeyError("cannot sign with the passkey: \(error)")
        }
    }
}

/// Which stored credential answers a relying party's request.
public enum PasskeyChoice {
    /// The credential for `options`, among `known`: the relying party's id must match, and its allow list, when
    /// it has one, must name the credential.
    public static func pick(_ options: RequestOptions, from known: [PasskeyCredential])
        -> PasskeyCredential?
    {
        known.first { (try? check(options, credential: $0)) != nil }
    }

    static func check(_ options: RequestOptions, credential: PasskeyCredential) throws(PasskeyError) {
        if let rpID = options.relyingPartyID, rpID != credential.relyingPartyID {
            throw PasskeyError("the passkey belongs to \(credential.relyingPartyID), not to \(rpID)")
        }
        let allowed = options.allowCredentials.map(Base64URL.encode)
        guard allowed.isEmpty || allowed.contains(credential.credentialID) else {
            throw PasskeyError("the relying party does not list this store's passkey for the account")
        }
    }
}
