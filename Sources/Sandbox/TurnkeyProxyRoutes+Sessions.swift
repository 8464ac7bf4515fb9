import AuthCore
import AuthCrypto
import Foundation

/// The `purpose` claim of tokens the sandbox signs for itself, so one kind is never accepted as another.
enum Purpose {
    static let verification = "otp_verification"
    static let turnkeyTOTP = "turnkey_totp"
    static let portalUser = "portal_user"
}

/// A verificationToken that checked out.
struct VerifiedVerification {
    let id: String
    let contact: String
    let otpType: String
    /// The key `otp_verify` bound the token to; nil when none was given.
    let publicKey: String?
}

extension TurnkeyProxyRoutes {
    func sign(_ claims: [String: Any]) throws(ProxyError) -> String {
        do {
            return try context.keys.sign(claims, algorithm: "ES256")
        } catch {
            throw .internal("the sandbox could not sign a token")
        }
    }

    /// The claims of a token the proxy signed for `purpose`, unexpired; UNAUTHENTICATED otherwise.
    func ownClaims(_ token: String, purpose: String, name: String) throws(ProxyError) -> [String: Any] {
        guard let claims = context.keys.verifiedClaims(token), claims["iss"] as? String == issuer,
            claims["purpose"] as? String == purpose
        else {
            throw .unauthenticated("the \(name) is not valid")
        }
        guard let expiry = claims["exp"] as? Int, Double(expiry) > context.clock.now else {
            throw .unauthenticated("the \(name) has expired")
        }
        return claims
    }

    func verifiedVerificationToken(_ token: String) throws(ProxyError) -> VerifiedVerification {
        let claims = try ownClaims(token, purpose: Purpose.verification, name: "verificationToken")
        guard let id = claims["id"] as? String, let contact = claims["contact"] as? String,
            let otpType = claims["verification_type"] as? String
        else {
            throw .unauthenticated("the verificationToken is not valid")
        }
        return VerifiedVerification(
            id: id, contact: contact, otpType: otpType,
            publicKey: claims["public_key"] as? String)
    }

    /// The request's `clientSignature`, checked: by `boundKey`, over the token-usage message of `type` for the
    /// token `tokenID`. Answers the message's usage object (`login` or `signup`) for the caller to compare.
    func checkedClientSignature(
        _ body: [String: Any], boundKey: String, tokenID: String, type: String,
        usage: String
    ) throws(ProxyError) -> [String: Any] {
        guard let signature = body["clientSignature"] as? [String: Any] else {
            throw .invalidArgument("clientSignature is required: the verificationToken is bound to a public key")
        }
        guard JSONText.string(signature, "publicKey") == boundKey else {
            throw .unauthenticated("clientSignature.publicKey is not the key the verificationToken is bound to")
        }
        let message = try Self.required(signature, "message")
        guard let signatureHex = JSONText.string(signature, "signature"), signatureHex.utf8.count == 128,
            let rawSignature = Hex.decode(signatureHex)
        else {
            throw .invalidArgument("clientSignature.signature must be raw r‖s as 128 hex characters")
        }
        guard let key = try? P256PublicKey(compressedRepresentation: Hex.decode(boundKey) ?? []),
            key.isValidSignature(rawSignature, for: Array(message.utf8))
        else {
            throw .unauthenticated("clientSignature does not verify with the bound key")
        }
        guard let signed = JSONText.object(Array(message.utf8)), JSONText.string(signed, "type") == type,
            JSONText.string(signed, "tokenId") == tokenID, let used = signed[usage] as? [String: Any]
        else {
            throw .unauthenticated(
                "clientSignature.message must be the \(type) token usage for this "
                    + "verificationToken")
        }
        return used
    }

    /// The session key: a compressed P-256 point as 66 lower-case hex characters, the form the nonce is built from.
    static func sessionPublicKey(_ body: [String: Any]) throws(ProxyError) -> String {
        let text = try required(body, "publicKey")
        guard text.utf8.count == 66, text == text.lowercased(), let bytes = Hex.decode(text),
            (try? P256PublicKey(compressedRepresentation: bytes)) != nil
        else {
            throw .invalidArgument("publicKey must be a compressed P-256 key as 66 lower-case hex characters")
        }
        return text
    }

    /// A session, or a TOTP challenge first when the account's user has a TOTP seed.
    func sessionOrChallenge(account: ProxyAccounts.Account, publicKey: String) throws(ProxyError) -> [String: Any] {
        guard context.configuration.turnkeyTOTPExtension, let user = account.userName.flatMap(context.user(named:)),
            let seed = user.totpSeed, let secret = user.totpSecret
        else {
            return [
                "session": try session(
                    userID: account.userID, organizationID: account.organizationID,
                    publicKey: publicKey)
            ]
        }
        guard let challengeID = try? context.randomToken(bytes: 16) else {
            throw .internal("the sandbox could not draw random bytes")
        }
        let seconds = context.clock.seconds
        let expiresAt = seconds + 300
        let userJwt = try sign([
            "iss": issuer, "purpose": Purpose.turnkeyTOTP, "jti": challengeID, "user_id": account.userID,
            "organization_id": account.organizationID, "public_key": publicKey, "iat": seconds, "exp": expiresAt,
        ])
        let now = context.clock.now
        state.withLock { $0.totp.add(id: challengeID, seed: seed, expiresAt: Double(expiresAt), now: now) }
        let link = TOTPLink.make(secret: secret, account: user.email ?? user.phone ?? user.name)
        return ["totpRequired": ["userJwt": userJwt, "totpLink": link]]
    }

    func totpVerify(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let claims = try ownClaims(try Self.required(body, "userJwt"), purpose: Purpose.turnkeyTOTP, name: "userJwt")
        let code = try Self.required(body, "code")
        guard let challengeID = claims["jti"] as? String, let userID = claims["user_id"] as? String,
            let organizationID = claims["organization_id"] as? String,
            let publicKey = claims["public_key"] as? String
        else {
            throw .unauthenticated("the userJwt is not valid")
        }
        let now = context.clock.now
        switch state.withLock({ $0.totp.check(id: challengeID, code: code, now: now) }) {
        case .accepted:
            return ["session": try session(userID: userID, organizationID: organizationID, publicKey: publicKey)]
        case .wrongCode(let left):
            if left == 0 { throw .exhausted("invalid TOTP code; too many attempts, sign in again") }
            throw .unauthenticated("invalid TOTP code (\(left) attempts left)")
        case .tooManyAttempts:
            throw .exhausted("too many attempts; sign in again")
        case .unknown:
            throw .unauthenticated("the userJwt was already used or has expired")
        }
    }

    /// The session JWT (ES256): `exp`, `public_key`, `session_type`, `user_id`, `organization_id`.
    private func session(userID: String, organizationID: String, publicKey: String) throws(ProxyError) -> String {
        let seconds = context.clock.seconds
        return try sign([
            "iss": issuer, "iat": seconds, "exp": seconds + context.configuration.sessionLifetime,
            "public_key": publicKey, "session_type": "SESSION_TYPE_READ_WRITE", "user_id": userID,
            "organization_id": organizationID,
        ])
    }
}

/// The `otpauth://` enrolment link authenticator apps read (Key Uri Format).
enum TOTPLink {
    static func make(secret: String, account: String) -> String {
        let label = FormEncoding.escape("authdeck sandbox") + ":" + FormEncoding.escape(account)
        let cleaned = secret.uppercased().filter { $0 != " " && $0 != "=" }
        return "otpauth://totp/\(label)?secret=\(cleaned)&issuer=\(FormEncoding.escape("authdeck sandbox"))"
            + "&algorithm=SHA1&digits=6&period=30"
    }
}
