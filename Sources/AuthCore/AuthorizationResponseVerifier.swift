import AuthCrypto
import Foundation

/// Verifies a JWT-secured authorization response (JARM, `response_mode=jwt`): the signature against the issuer's
/// JWKS with the algorithms ID tokens are held to, `iss` the issuer, `aud` this client, `exp` not passed (60 s of
/// skew, as for ID tokens). What it returns are the response's parameters only, for the same callback checks a
/// plain redirect goes through (state, RFC 9207 `iss`). Pure: the JWKS and the time come in as values.
public struct AuthorizationResponseVerifier: Sendable {
    public let issuer: String
    public let clientID: String

    public init(issuer: String, clientID: String) {
        self.issuer = issuer
        self.clientID = clientID
    }

    /// The claims that are the JWT's own (JARM section 4.1) rather than parameters of the authorization response.
    static let envelopeClaims: Set<String> = ["aud", "exp", "iat", "nbf", "jti"]

    /// - Throws: `unknownKeyID` (the caller refetches the JWKS once) or `invalid(reason)`.
    public func parameters(of response: String, jwks: String, now: Date) throws(IDTokenFailure) -> [(String, String)] {
        let claims = try IDTokenVerifier.signedClaims(response, jwks: jwks)
        guard case .string(let iss)? = claims["iss"], iss == issuer else { throw .invalid("wrong issuer") }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let single)?: audiences = [single]
        case .array(let many)?: audiences = many.compactMap(\.string)
        default: audiences = []
        }
        guard audiences.contains(clientID) else { throw .invalid("wrong audience") }
        guard let exp = claims["exp"]?.number else { throw .invalid("no expiry") }
        guard now.timeIntervalSince1970 - exp < IDTokenVerifier.allowedSkew else { throw .invalid("expired") }
        var pairs: [(String, String)] = []
        for name in claims.keys.sorted() where !Self.envelopeClaims.contains(name) {
            // Authorization response parameters are strings; anything else is not one of them.
            if case .string(let value)? = claims[name] { pairs.append((name, value)) }
        }
        return pairs
    }
}
