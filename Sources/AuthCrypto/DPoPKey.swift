import CCjose
import Glibc

/// A session's DPoP key (RFC 9449): a P-256 key pair made at sign-in, whose public half every proof carries in its
/// header and whose RFC 7638 thumbprint (`jkt`) the server binds the tokens to. Proofs are ES256 JWS made by cjose.
public struct DPoPKey: Sendable {
    public let privateKey: P256PrivateKey

    /// A fresh key from OpenSSL's generator.
    public init() throws(CryptoError) {
        privateKey = try P256PrivateKey()
    }

    /// The key a session stored (its 32-byte scalar).
    public init(rawRepresentation: [UInt8]) throws(CryptoError) {
        privateKey = try P256PrivateKey(rawRepresentation: rawRepresentation)
    }

    /// The public key as a JWK holding exactly RFC 7638's required EC members in lexicographic order, without
    /// whitespace: the `jwk` header member, and the thumbprint's input as it stands.
    public var publicJWK: String {
        let point = privateKey.publicKey.x963Representation
        let x = Base64URL.encode(Array(point[1...32]))
        let y = Base64URL.encode(Array(point[33...64]))
        return "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(x)\",\"y\":\"\(y)\"}"
    }

    /// The JWK SHA-256 thumbprint (RFC 7638 section 3), base64url: `dpop_jkt` and the tokens' `cnf.jkt`.
    public var thumbprint: String {
        Base64URL.encode(SHA256.hash(Array(publicJWK.utf8)))
    }

    /// `ath`: base64url(SHA-256(access token)) (RFC 9449 4.2), binding a resource request's proof to its token.
    public static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(SHA256.hash(Array(accessToken.utf8)))
    }

    /// One proof (RFC 9449 4.2): header {typ: dpop+jwt, alg: ES256, jwk}, claims jti (fresh random), htm, htu (the
    /// URL without query and fragment), iat, and `nonce` and `ath` when given.
    /// - Parameter issuedAt: seconds since 1970, the caller's clock.
    public func proof(
        method: String, url: String, issuedAt: Int64, nonce: String? = nil, accessToken: String? = nil
    ) throws(CryptoError) -> String {
        let jti = Base64URL.encode(try SecureRandom.bytes(16))
        var claims: [(String, ClaimValue)] = [
            ("jti", .text(jti)), ("htm", .text(method)), ("htu", .text(Self.targetURI(url))),
            ("iat", .number(issuedAt)),
        ]
        if let nonce { claims.append(("nonce", .text(nonce))) }
        if let accessToken { claims.append(("ath", .text(Self.accessTokenHash(accessToken)))) }
        let payload = try Self.json(claims)
        let key = try JWK(p256: privateKey, keyID: nil)
        return try JWS.sign(
            payload: payload, key: key, algorithm: "ES256", type: "dpop+jwt", publicJWK: publicJWK)
    }

    /// `htu`: the request's URI without its query and fragment (RFC 9449 4.2).
    public static func targetURI(_ url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }

    private enum ClaimValue {
        case text(String)
        case number(Int64)
    }

    /// The claims as a JSON object, written by jansson so every string is escaped as JSON requires.
    private static func json(_ claims: [(String, ClaimValue)]) throws(CryptoError) -> [UInt8] {
        guard let object = json_object() else { throw .malformedInput("DPoP claims could not be built") }
        defer { ccjose_json_decref(object) }
        for (name, value) in claims {
            let member: UnsafeMutablePointer<json_t>?
            switch value {
            case .text(let text): member = json_string(text)
            case .number(let number): member = json_integer(json_int_t(number))
            }
            guard let member, json_object_set_new(object, name, member) == 0 else {
                throw .malformedInput("DPoP claim \(name) is not valid UTF-8")
            }
        }
        guard let dumped = json_dumps(object, Int(JSON_COMPACT)) else {
            throw .malformedInput("DPoP claims could not be written")
        }
        defer { free(dumped) }
        return Array(String(cString: dumped).utf8)
    }
}
