import AuthCrypto
import Foundation

/// The sandbox's signing keys, made fresh at start (or kept in its data folder): one ES256 and one RS256 key,
/// published together as the JWKS of every OIDC profile so clients exercise both
/// algorithms and key choice by `kid`.
/// Tests share one instance because RSA key generation takes a noticeable moment.
public final class SandboxKeys: Sendable {
    let es256: JWK
    let rs256: JWK
    /// `{"keys":[…]}` with the public halves only.
    let jwksJSON: String
    /// The proxy's stand-in for Turnkey's enclave signer (the ES256 key's scalar): it signs otp_init_v2's bundles.
    let otpSigner: P256PrivateKey
    /// Its public key as config.json's `otpSignerPublicKey` names it: uncompressed, hex.
    public var otpSignerPublicKeyHex: String { Hex.encode(otpSigner.publicKey.x963Representation) }

    public convenience init() throws(CryptoError) {
        let tag = Hex.encode(try SecureRandom.bytes(4))
        try self.init(
            es256: JWK.generateES256(keyID: "sandbox-es256-\(tag)"),
            rs256: JWK.generateRS256(keyID: "sandbox-rs256-\(tag)"))
    }

    /// Keys kept from an earlier run (`SandboxDataFolder`).
    init(es256: JWK, rs256: JWK) throws(CryptoError) {
        guard es256.hasPrivateKey, rs256.hasPrivateKey, es256.keyType == "EC", rs256.keyType == "RSA" else {
            throw .invalidKey("the sandbox needs a private EC key and a private RSA key")
        }
        self.es256 = es256
        self.rs256 = rs256
        let privateScalar = JSONText.object(Array(try es256.privateJSON().utf8))?["d"] as? String
        guard let scalar = privateScalar.flatMap(Base64URL.decode) else {
            throw .invalidKey("the sandbox's EC key has no private scalar")
        }
        otpSigner = try P256PrivateKey(rawRepresentation: scalar)
        var keys: [Any] = []
        for (key, algorithm) in [(es256, "ES256"), (rs256, "RS256")] {
            guard var object = JSONText.object(Array(try key.publicJSON().utf8)) else {
                throw .malformedInput("public JWK is not a JSON object")
            }
            object["alg"] = algorithm
            object["use"] = "sig"
            keys.append(object)
        }
        jwksJSON = String(decoding: JSONText.encode(["keys": keys]), as: UTF8.self)
    }

    /// A compact JWS over the JSON of `claims`.
    func sign(_ claims: [String: Any], algorithm: String) throws(CryptoError) -> String {
        let key = algorithm == "RS256" ? rs256 : es256
        return try JWS.sign(payload: JSONText.encode(claims), key: key, algorithm: algorithm)
    }

    /// The claims of a token this sandbox signed, or nil when the signature does not check out against either
    /// key or the payload is not a JSON object. Expiry and purpose are the caller's to check.
    func verifiedClaims(_ token: String) -> [String: Any]? {
        guard token.utf8.count <= 8192, let verified = try? JWS.verify(token, jwks: jwksJSON) else { return nil }
        return JSONText.object(verified.payload)
    }
}
