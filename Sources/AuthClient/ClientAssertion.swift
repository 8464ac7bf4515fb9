import AuthCore
import AuthCrypto
import Foundation

/// A client that authenticates with a signed JWT (RFC 7523 2.2, OpenID Connect Core 9): `client_secret_jwt` (HS256
/// over the client secret) or `private_key_jwt` (RS256, PS256 or ES256 with the operator's key). A fresh assertion is
/// signed for every request, addressed to the endpoint it goes to.
public struct ClientAssertion: Sendable, Equatable {
    /// What signs the assertion.
    public enum Signer: Sendable {
        case secret(String)
        /// The key, its JWS algorithm, and the file it came from (which names it in messages and sessions).
        case key(JWK, algorithm: String, file: String)
    }

    /// Whom the assertion is for: `aud` (RFC 7523 3, item 3).
    public enum Audience: Sendable, Equatable {
        /// The URL of the endpoint the request goes to, as OpenID Connect Core 9 says (glewlwyd takes only this).
        case endpoint
        /// The issuer identifier, as FAPI 2.0 and RFC 7523's newer text prefer.
        case issuer(String)
    }

    /// The type of assertion `client_assertion_type` names (RFC 7523 2.2).
    public static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// How long an assertion is good for; servers refuse ones that live longer (glewlwyd's default is 10 minutes).
    public static let lifetime = 300

    public let signer: Signer
    public let audience: Audience

    public init(signer: Signer, audience: Audience) {
        self.signer = signer
        self.audience = audience
    }

    public var method: ClientAuthMethod {
        switch signer {
        case .secret: return .clientSecretJWT
        case .key: return .privateKeyJWT
        }
    }

    /// The JWS `alg` this client signs with.
    public var algorithm: String {
        switch signer {
        case .secret: return "HS256"
        case .key(_, let algorithm, _): return algorithm
        }
    }

    /// The private key file, for `private_key_jwt`.
    public var keyFile: String? {
        if case .key(_, _, let file) = signer { return file }
        return nil
    }

    public static func == (left: ClientAssertion, right: ClientAssertion) -> Bool {
        guard left.audience == right.audience else { return false }
        switch (left.signer, right.signer) {
        case (.secret(let one), .secret(let other)): return one == other
        case (.key(let one, let oneAlgorithm, let oneFile), .key(let other, let otherAlgorithm, let otherFile)):
            return oneFile == otherFile && oneAlgorithm == otherAlgorithm && one.keyID == other.keyID
        case (.secret, .key), (.key, .secret): return false
        }
    }

    /// The claims of an assertion for `endpoint` (RFC 7523 3): iss = sub = the client id, `aud`, a unique `jti`,
    /// `iat`, and `exp` `lifetime` seconds on.
    public func claims(clientID: String, endpoint: String, now: Date, jti: String) -> JSONValue {
        let issued = Double(Int(now.timeIntervalSince1970))
        let audience: String
        switch self.audience {
        case .endpoint: audience = endpoint
        case .issuer(let issuer): audience = issuer
        }
        return .object([
            "iss": .string(clientID), "sub": .string(clientID), "aud": .string(audience), "jti": .string(jti),
            "iat": .number(issued), "exp": .number(issued + Double(Self.lifetime)),
        ])
    }

    /// A signed assertion for one request to `endpoint`.
    public func signed(clientID: String, endpoint: String, now: Date) throws(SignInError) -> String {
        do {
            let jti = Base64URL.encode(try SecureRandom.bytes(18))
            let payload = Array(
                try JSONEncoder().encode(claims(clientID: clientID, endpoint: endpoint, now: now, jti: jti)))
            switch signer {
            case .secret(let secret): return try JWS.signHS256(payload: payload, secret: secret)
            case .key(let key, let algorithm, _): return try JWS.sign(payload: payload, key: key, algorithm: algorithm)
            }
        } catch let error as CryptoError {
            throw .unavailable(reason: "the client assertion cannot be signed: \(error.description)")
        } catch {
            throw .unavailable(reason: "the client assertion cannot be built")
        }
    }

    // MARK: - Loading

    /// The audience config.json's `assertionAudience` names: unset or `token-endpoint` for the endpoint's URL,
    /// `issuer` for the issuer identifier.
    public static func audience(_ configured: String?, issuer: String) throws(SignInError) -> Audience {
        switch configured {
        case nil, "endpoint": return .endpoint
        case "issuer": return .issuer(issuer)
        case .some(let other):
            throw .unavailable(
                reason: "assertionAudience '\(OAuthErrorResponse.printable(other))' is not endpoint or issuer")
        }
    }

    /// The signing key of `private_key_jwt` from an owner-only PEM file, with the algorithm for it: RS256 for RSA
    /// (PS256 when `signingAlg` says so), ES256 for P-256. Every failure is one line naming the fix.
    public static func loadKey(
        file: String, keyID: String?, signingAlg: String?
    ) throws(SignInError) -> (JWK, algorithm: String) {
        let pem = String(decoding: try OwnerOnlyFile.read(file, what: "private key file"), as: UTF8.self)
        let key: JWK
        do {
            key = try JWK(privateKeyPEM: pem, keyID: keyID)
        } catch {
            let why: String
            switch error {
            case .invalidKey(let reason): why = reason
            case .randomUnavailable, .authenticationFailed, .malformedInput, .invalidSignature, .library:
                why = error.description
            }
            throw .unavailable(
                reason: "the private key file \(file) cannot sign (\(why)): give an unencrypted PEM RSA (2048 bits or "
                    + "more) or P-256 private key, e.g. `openssl pkcs8 -topk8 -nocrypt -in KEY -out \(file)`")
        }
        let algorithm: String
        switch (key.keyType, signingAlg) {
        case ("RSA", nil), ("RSA", "RS256"): algorithm = "RS256"
        case ("RSA", "PS256"): algorithm = "PS256"
        case ("EC", nil), ("EC", "ES256"): algorithm = key.curve == "P-256" ? "ES256" : ""
        case (_, .some(let asked)):
            throw .unavailable(
                reason: "signingAlg \(OAuthErrorResponse.printable(asked)) does not fit the \(key.keyType) key in "
                    + "\(file): use RS256 or PS256 with an RSA key, ES256 with a P-256 key")
        default: algorithm = ""
        }
        guard !algorithm.isEmpty else {
            throw .unavailable(reason: "the private key file \(file) holds no RSA or P-256 key")
        }
        return (key, algorithm)
    }
}
