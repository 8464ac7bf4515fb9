import AuthCore
import AuthCrypto
import Foundation

/// How one sign-in's authorization request travels and how its answer comes back: pushed first (PAR, RFC 9126),
/// carried in a signed request object (JAR, RFC 9101), answered in the query, as a form post or as a signed JWT
/// (JARM). Resolved from config.json, `login` flags and discovery before anything is sent.
public struct AuthorizationShape: Sendable {
    public var pushed: Bool
    public var requestObject: RequestObjectSigner?
    public var responseMode: ResponseMode

    public init(pushed: Bool = false, requestObject: RequestObjectSigner? = nil, responseMode: ResponseMode = .query) {
        self.pushed = pushed
        self.requestObject = requestObject
        self.responseMode = responseMode
    }

    /// config.json's `responseMode`.
    public enum ResponseMode: String, Sendable, CaseIterable {
        case query
        case formPost = "form_post"
        /// JARM: the response is a JWT signed by the issuer; its default delivery for `code` is the query.
        case jwt

        public static func parse(_ configured: String) throws(SignInError) -> ResponseMode {
            guard let mode = ResponseMode(rawValue: configured) else {
                throw .unavailable(
                    reason: "responseMode '\(OAuthErrorResponse.printable(configured))' is not one of "
                        + allCases.map(\.rawValue).joined(separator: ", "))
            }
            return mode
        }
    }

    /// The parameters the browser carries to the authorization endpoint, given the full request: all of them; with a
    /// request object, the object plus what OpenID Connect Core 6.1 wants outside it too (the same values).
    public func frontChannel(_ request: AuthorizationRequest, signed object: String?) -> [(String, String)] {
        guard let object else { return request.parameters }
        let outside: Set<String> = ["response_type", "client_id", "scope"]
        return request.parameters.filter { outside.contains($0.0) } + [("request", object)]
    }
}

/// Signs request objects (RFC 9101) with the client's key: iss = client_id, aud = the issuer, a unique jti, iat,
/// nbf and exp (FAPI 2.0 wants nbf and at most 60 minutes), the `oauth-authz-req+jwt` type, and every
/// authorization parameter as a claim.
public struct RequestObjectSigner: Sendable {
    public let key: JWK
    public let algorithm: String
    /// How long a request object is good for.
    public static let lifetime: TimeInterval = 300

    public init(key: JWK, algorithm: String) {
        self.key = key
        self.algorithm = algorithm
    }

    public func claims(
        _ parameters: [(String, String)], clientID: String, issuer: String, now: Date, jti: String
    ) -> JSONValue {
        var claims: [String: JSONValue] = [:]
        for (name, value) in parameters {
            switch claims[name] {
            case nil: claims[name] = Self.claim(name, value)
            case .array(let values)? where name == "resource": claims[name] = .array(values + [.string(value)])
            case .some(let first): claims[name] = .array([first, Self.claim(name, value)])
            }
        }
        let issued = Double(Int(now.timeIntervalSince1970))
        claims["iss"] = .string(clientID)
        claims["client_id"] = .string(clientID)
        claims["aud"] = .string(issuer)
        claims["jti"] = .string(jti)
        claims["iat"] = .number(issued)
        claims["nbf"] = .number(issued)
        claims["exp"] = .number(issued + Self.lifetime)
        return .object(claims)
    }

    /// A parameter as a request object's claim: a string, except what OpenID Connect and RFC 9396 define as JSON
    /// (`claims`, `authorization_details`) or a number (`max_age`), which go in as such. A parameter named more than
    /// once (RFC 8707's `resource`) becomes an array.
    static func claim(_ name: String, _ value: String) -> JSONValue {
        switch name {
        case "claims", "authorization_details": return (try? JSONValue.parse(value)) ?? .string(value)
        case "max_age": return Int(value).map { .number(Double($0)) } ?? .string(value)
        default: return .string(value)
        }
    }

    public func sign(
        _ parameters: [(String, String)], clientID: String, issuer: String, now: Date
    ) throws(SignInError) -> String {
        do {
            let jti = Base64URL.encode(try SecureRandom.bytes(18))
            let claims = claims(parameters, clientID: clientID, issuer: issuer, now: now, jti: jti)
            let payload = Array(try JSONEncoder().encode(claims))
            return try JWS.sign(payload: payload, key: key, algorithm: algorithm, type: "oauth-authz-req+jwt")
        } catch let error as CryptoError {
            throw .unavailable(reason: "the request object cannot be signed: \(error.description)")
        } catch {
            throw .unavailable(reason: "the request object cannot be built")
        }
    }

    /// The signing key from config.json's `privateKeyFile`, read as `private_key_jwt` reads it: an owner-only,
    /// unencrypted PEM RSA key (RS256, or PS256 by `signingAlg`) or P-256 key (ES256).
    public static func load(file: String, keyID: String?, signingAlg: String?) throws(SignInError)
        -> RequestObjectSigner
    {
        let (key, algorithm) = try ClientAssertion.loadKey(file: file, keyID: keyID, signingAlg: signingAlg)
        return RequestObjectSigner(key: key, algorithm: algorithm)
    }
}

/// The provider's answer to a pushed authorization request (RFC 9126 section 2.2).
public struct PushedAuthorization: Equatable, Sendable {
    public let requestURI: String
    public let expiresIn: Int
}
