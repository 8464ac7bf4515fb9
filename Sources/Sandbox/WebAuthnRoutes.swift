import AuthCore
import AuthCrypto
import Foundation
import LoopbackHTTP
import Synchronization

/// The sandbox as a WebAuthn relying party for Para's flow, under `/webauthn/<route>`: POST, a JSON object
/// body, the Auth Proxy's error shape (`{"code", "message", "details"}`). Its accounts are the proxy's.
///
/// - `registration_options` `{"verificationToken"}`: creation options (section 5.4) for the account of the email
///   the token proves, so a passkey is only made after the email is verified.
/// - `registration` `{"credential": RegistrationResponseJSON}`: section 7.1's checks, then the credential is kept.
/// - `authentication_options` `{"email"}`: request options (section 5.5) naming the account's credentials; 404 when
///   it has none.
/// - `authentication` `{"credential": AuthenticationResponseJSON}`: section 7.2's checks; `{"verified": true,
///   "email"}`.
///
/// The relying party's id is the sandbox's host and the origin its base URL (the origin of the pages that would
/// ask). Challenges are single-use and last two minutes. Credentials live as long as the sandbox process.
final class WebAuthnRoutes: Sendable {
    let context: SandboxContext
    let proxy: TurnkeyProxyRoutes
    private let state = Mutex(RelyingPartyState())

    static let challengeLifetime = 120.0
    static let es256 = Int64(-7)

    struct Credential {
        let id: [UInt8]
        let email: String
        let publicKey: P256PublicKey
        var signCount: UInt32
    }

    struct Challenge {
        let email: String
        let ceremony: String
        let expiresAt: Double
        let userHandle: [UInt8]?
    }

    struct RelyingPartyState {
        var credentials: [Credential] = []
        var challenges: [String: Challenge] = [:]
        var spentVerificationTokens = Set<String>()
    }

    init(context: SandboxContext, proxy: TurnkeyProxyRoutes) {
        self.context = context
        self.proxy = proxy
    }

    var relyingPartyID: String { URLComponents(string: context.baseURL)?.host ?? "127.0.0.1" }
    var origin: String { context.baseURL }

    /// `path` is what follows `/webauthn`.
    func handle(_ request: HTTPRequest, path: String) -> HTTPResponse {
        guard request.method == "POST" else { return ProxyError(status: 405, code: 12, message: "use POST").response }
        guard let body = request.jsonObject else {
            return ProxyError.invalidArgument("the body must be a JSON object sent as application/json").response
        }
        do throws(ProxyError) {
            let answer: [String: Any]
            switch path {
            case "/registration_options": answer = try registrationOptions(body)
            case "/registration": answer = try registration(body)
            case "/authentication_options": answer = try authenticationOptions(body)
            case "/authentication": answer = try authentication(body)
            default: throw .notFound("no such WebAuthn path \(path.prefix(200))")
            }
            return .json(200, object: answer)
        } catch {
            return error.response
        }
    }

    // MARK: - Options

    private func registrationOptions(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let verified = try proxy.verifiedVerificationToken(try TurnkeyProxyRoutes.required(body, "verificationToken"))
        guard verified.otpType == "OTP_TYPE_EMAIL" else {
            throw .invalidArgument("a passkey is registered after verifying an email, not a phone number")
        }
        guard let account = proxy.state.withLock({ $0.account(email: verified.contact) }) else {
            throw .notFound("no account for this email; sign up first")
        }
        let userHandle = Array(account.userID.utf8)
        let challenge = try newChallenge(
            Challenge(
                email: verified.contact, ceremony: "webauthn.create",
                expiresAt: context.clock.now + Self.challengeLifetime,
                userHandle: userHandle),
            spending: verified.id)
        let existing = state.withLock { $0.credentials.filter { $0.email == verified.contact } }
        let options: [String: Any] = [
            "rp": ["id": relyingPartyID, "name": "authdeck sandbox (Para)"],
            "user": ["id": Base64URL.encode(userHandle), "name": verified.contact, "displayName": verified.contact],
            "challenge": challenge,
            "pubKeyCredParams": [["type": "public-key", "alg": -7], ["type": "public-key", "alg": -257]],
            "timeout": Int(Self.challengeLifetime * 1000),
            "excludeCredentials": existing.map { ["type": "public-key", "id": Base64URL.encode($0.id)] },
            "authenticatorSelection": ["residentKey": "preferred", "userVerification": "preferred"],
            "attestation": "none",
        ]
        return ["publicKey": options]
    }

    private func authenticationOptions(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let email = try TurnkeyProxyRoutes.contact(
            try TurnkeyProxyRoutes.required(body, "email"), otpType: "OTP_TYPE_EMAIL")
        let credentials = state.withLock { $0.credentials.filter { $0.email == email } }
        guard !credentials.isEmpty else { throw .notFound("no passkey is registered for this account") }
        let challenge = try newChallenge(
            Challenge(
                email: email, ceremony: "webauthn.get", expiresAt: context.clock.now + Self.challengeLifetime,
                userHandle: nil),
            spending: nil)
        let options: [String: Any] = [
            "challenge": challenge, "rpId": relyingPartyID, "timeout": Int(Self.challengeLifetime * 1000),
            "allowCredentials": credentials.map { ["type": "public-key", "id": Base64URL.encode($0.id)] },
            "userVerification": "preferred",
        ]
        return ["publicKey": options]
    }

    private func newChallenge(_ challenge: Challenge, spending token: String?) throws(ProxyError) -> String {
        guard let value = try? context.randomToken(bytes: 32) else {
            throw .internal("the sandbox could not draw random bytes")
        }
        try state.withLock { (rp) throws(ProxyError) in
            let now = context.clock.now
            rp.challenges = rp.challenges.filter { $0.value.expiresAt > now }
            if let token, !rp.spentVerificationTokens.insert(token).inserted {
                throw .unauthenticated("the verificationToken was already used to register a passkey")
            }
            rp.challenges[value] = challenge
        }
        return value
    }

    // MARK: - Ceremonies

    /// Section 7.1, registering a new credential.
    private func registration(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let response = try Self.response(body)
        let (clientData, challenge) = try checkedClientData(response, type: "webauthn.create")
        guard let attestationBytes = Self.binary(response, "attestationObject"),
            let attestation = try? CBORReader.item(attestationBytes),
            let format = attestation[.text("fmt")]?.textValue,
            let statement = attestation[.text("attStmt")],
            let authenticatorData = attestation[.text("authData")]?.bytesValue
        else {
            throw .invalidArgument("attestationObject is not a CBOR map of fmt, attStmt and authData")
        }
        let parsed = try checkedAuthenticatorData(authenticatorData)
        guard parsed.flags & 0x40 != 0, let attested = parsed.attested else {
            throw .invalidArgument("the authenticator data has no attested credential data (AT flag)")
        }
        // Step 20: the credential's algorithm must be one the options offered; only ES256 is verified here.
        guard attested.key.algorithm == Self.es256 else {
            throw .invalidArgument("the credential key is not ES256 on P-256")
        }
        let signed = authenticatorData + SHA256.hash(clientData)
        switch format {
        case "none":
            guard case .map(let members) = statement, members.isEmpty else {
                throw .invalidArgument("attestation 'none' must have an empty attStmt")
            }
        case "packed":
            // Section 8.2, self attestation: no x5c, alg equal to the credential's, sig by the credential key.
            guard statement[.text("x5c")] == nil, statement[.text("alg")]?.integerValue == attested.key.algorithm,
                let signature = statement[.text("sig")]?.bytesValue,
                attested.key.publicKey.isValidSignature(der: signature, for: signed)
            else {
                throw .invalidArgument("the packed self-attestation does not verify")
            }
        default:
            throw .invalidArgument("attestation format \(format.prefix(40)) is not accepted here")
        }
        guard let credentialID = Self.binary(body["credential"] as? [String: Any] ?? [:], "rawId"),
            credentialID == attested.id
        else {
            throw .invalidArgument("rawId is not the attested credential id")
        }
        return try state.withLock { (rp) throws(ProxyError) -> [String: Any] in
            guard let pending = rp.challenges.removeValue(forKey: challenge), pending.ceremony == "webauthn.create",
                pending.expiresAt > context.clock.now
            else {
                throw .unauthenticated("the challenge is unknown, used or expired")
            }
            // Step 25: a credential id registered already is refused.
            guard !rp.credentials.contains(where: { $0.id == attested.id }) else {
                throw .alreadyExists("this credential is registered already")
            }
            rp.credentials.append(
                Credential(
                    id: attested.id, email: pending.email, publicKey: attested.key.publicKey,
                    signCount: parsed.signCount))
            return ["verified": true, "credentialId": Base64URL.encode(attested.id)]
        }
    }

    /// Section 7.2, verifying an authentication assertion.
    private func authentication(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let response = try Self.response(body)
        guard let credentialID = Self.binary(body["credential"] as? [String: Any] ?? [:], "rawId") else {
            throw .invalidArgument("credential.rawId is required")
        }
        let (clientData, challenge) = try checkedClientData(response, type: "webauthn.get")
        guard let authenticatorData = Self.binary(response, "authenticatorData"),
            let signature = Self.binary(response, "signature")
        else {
            throw .invalidArgument("authenticatorData and signature are required")
        }
        let parsed = try checkedAuthenticatorData(authenticatorData)
        return try state.withLock { (rp) throws(ProxyError) -> [String: Any] in
            guard let pending = rp.challenges.removeValue(forKey: challenge), pending.ceremony == "webauthn.get",
                pending.expiresAt > context.clock.now
            else {
                throw .unauthenticated("the challenge is unknown, used or expired")
            }
            // Steps 5-6: the credential must be one of the account's.
            guard let index = rp.credentials.firstIndex(where: { $0.id == credentialID && $0.email == pending.email })
            else {
                throw .unauthenticated("the credential is not registered for this account")
            }
            // Step 21: the signature over authData ‖ SHA-256(clientDataJSON) by the stored key.
            guard
                rp.credentials[index].publicKey.isValidSignature(
                    der: signature, for: authenticatorData + SHA256.hash(clientData))
            else {
                throw .unauthenticated("the assertion's signature does not verify")
            }
            // Step 22: a counter that does not move up (when either side counts) signals a cloned authenticator.
            let stored = rp.credentials[index].signCount
            if parsed.signCount != 0 || stored != 0, parsed.signCount <= stored {
                throw .unauthenticated("the signature counter went backwards: the authenticator may be cloned")
            }
            rp.credentials[index].signCount = parsed.signCount
            return ["verified": true, "email": pending.email]
        }
    }

    // MARK: - Checks both ceremonies make

    private static func response(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        guard let credential = body["credential"] as? [String: Any], credential["type"] as? String == "public-key",
            let response = credential["response"] as? [String: Any]
        else {
            throw .invalidArgument("credential must be a public-key credential with a response")
        }
        return response
    }

    private static func binary(_ object: [String: Any], _ key: String) -> [UInt8]? {
        (object[key] as? String).flatMap(Base64URL.decode)
    }

    /// Steps 5-12 (7.1) and 10-15 (7.2): clientDataJSON is JSON with the ceremony's type, a challenge and this
    /// relying party's origin, not cross-origin. Answers the bytes (their hash is signed) and the challenge.
    private func checkedClientData(
        _ response: [String: Any], type: String
    ) throws(ProxyError) -> (bytes: [UInt8], challenge: String) {
        guard let bytes = Self.binary(response, "clientDataJSON"), let clientData = JSONText.object(bytes) else {
            throw .invalidArgument("clientDataJSON is not base64url JSON")
        }
        guard clientData["type"] as? String == type else {
            throw .invalidArgument("clientDataJSON.type is not \(type)")
        }
        guard let challenge = clientData["challenge"] as? String else {
            throw .invalidArgument("clientDataJSON has no challenge")
        }
        guard clientData["origin"] as? String == origin else {
            throw .permissionDenied("clientDataJSON.origin is not this relying party's origin \(origin)")
        }
        if let crossOrigin = clientData["crossOrigin"] as? Bool, crossOrigin {
            throw .permissionDenied("a cross-origin ceremony is not accepted")
        }
        return (bytes, challenge)
    }

    struct AttestedKey {
        let algorithm: Int64
        let publicKey: P256PublicKey
    }

    struct ParsedAuthenticatorData {
        let flags: UInt8
        let signCount: UInt32
        let attested: (id: [UInt8], key: AttestedKey)?
    }

    /// Section 6.1's layout, with steps 13-16 (7.1) and 15-17 (7.2): the rp id hash is this relying party's, UP is
    /// set. UV is not required (the options ask `preferred`). The attested credential data's COSE key must be an
    /// EC2 P-256 key (RFC 9053 section 7.1.1).
    private func checkedAuthenticatorData(_ data: [UInt8]) throws(ProxyError) -> ParsedAuthenticatorData {
        guard data.count >= 37 else { throw .invalidArgument("the authenticator data is shorter than 37 bytes") }
        guard ConstantTime.equals(Array(data[0..<32]), SHA256.hash(relyingPartyID)) else {
            throw .permissionDenied("the authenticator data is for another relying party")
        }
        let flags = data[32]
        guard flags & 0x01 != 0 else { throw .invalidArgument("the user was not present (UP flag clear)") }
        let signCount = data[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard flags & 0x40 != 0 else {
            guard flags & 0x80 == 0, data.count == 37 else {
                throw .invalidArgument("extensions and trailing bytes are not accepted")
            }
            return ParsedAuthenticatorData(flags: flags, signCount: signCount, attested: nil)
        }
        guard data.count >= 55 else { throw .invalidArgument("the attested credential data is cut short") }
        let idLength = Int(data[53]) << 8 | Int(data[54])
        guard idLength <= 1023, data.count >= 55 + idLength else {
            throw .invalidArgument("the credential id is cut short or longer than 1023 bytes")
        }
        let id = Array(data[55..<55 + idLength])
        var reader = CBORReader(data, offset: 55 + idLength)
        guard let key = try? reader.read(), reader.offset == data.count, flags & 0x80 == 0 else {
            throw .invalidArgument("the credential public key is not one CBOR map ending the data")
        }
        guard key[.integer(1)]?.integerValue == 2, key[.integer(-1)]?.integerValue == 1,
            let algorithm = key[.integer(3)]?.integerValue,
            let x = key[.integer(-2)]?.bytesValue, let y = key[.integer(-3)]?.bytesValue, x.count == 32, y.count == 32,
            let publicKey = try? P256PublicKey(x963Representation: [4] + x + y)
        else {
            throw .invalidArgument("the credential public key is not a COSE EC2 P-256 key")
        }
        return ParsedAuthenticatorData(
            flags: flags, signCount: signCount, attested: (id, AttestedKey(algorithm: algorithm, publicKey: publicKey)))
    }
}
