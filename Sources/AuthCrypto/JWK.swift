import CCjose
import COpenSSL
import Synchronization

/// A JSON Web Key held by cjose (public or private; EC P-256/P-384 or RSA of at least 2048 bits).
/// Symmetric ("oct") keys are refused: ID tokens and sessions here are only ever signed asymmetrically.
// Unchecked: the cjose handle is not Sendable; it never changes, and every call that uses it holds `lock`.
public final class JWK: @unchecked Sendable {
    /// Owned cjose key; released in deinit. Never mutated after init.
    private let handle: OpaquePointer
    /// cjose makes no thread-safety promise for one key used from several threads; one call at a time.
    private let lock = Mutex<Void>(())
    public let keyID: String?
    /// "EC" or "RSA".
    public let keyType: String
    /// "P-256" or "P-384" for EC keys, nil for RSA.
    public let curve: String?
    /// Whether the key holds its private part, so it can sign.
    public let hasPrivateKey: Bool

    /// Imports a single JWK JSON object.
    public convenience init(json: String) throws(CryptoError) {
        var parseError = json_error_t()
        let bytes = Array(json.utf8)
        let root: UnsafeMutablePointer<json_t>? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { json_loadb($0.baseAddress, $0.count, 0, &parseError) }
        }
        guard let root else { throw .invalidKey("not a usable JWK") }
        defer { ccjose_json_decref(root) }
        var error = cjose_err()
        guard Self.hasPlainBase64URLMembers(root), let imported = cjose_jwk_import_json(root, &error) else {
            ERR_clear_error()
            throw .invalidKey("not a usable JWK")
        }
        try self.init(taking: imported, keyID: nil)
    }

    /// The members cjose decodes as base64url.
    private static let base64URLMembers = ["n", "e", "d", "p", "q", "dp", "dq", "qi", "x", "y", "k"]

    /// cjose 0.6 (Debian's) asserts, aborting the whole process, when a `=` follows 4n+1 base64url symbols
    /// (found by `make fuzz`). A key from a provider's JWKS reaches cjose only when every member it decodes is
    /// plain base64url, which is also all RFC 7518 allows there.
    static func hasPlainBase64URLMembers(_ object: UnsafeMutablePointer<json_t>) -> Bool {
        base64URLMembers.allSatisfy { name in
            guard let value = json_object_get(object, name), let text = json_string_value(value) else { return true }
            var symbol = text
            while symbol.pointee != 0 {
                switch UInt8(bitPattern: symbol.pointee) {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    symbol += 1
                default:
                    return false
                }
            }
            return true
        }
    }

    /// A fresh P-256 key pair for ES256.
    public static func generateES256(keyID: String) throws(CryptoError) -> JWK {
        var error = cjose_err()
        guard let created = cjose_jwk_create_EC_random(CJOSE_JWK_EC_P_256, &error) else {
            throw cjoseFailure("EC key generation", error)
        }
        return try JWK(taking: created, keyID: keyID)
    }

    /// A fresh RSA key pair for RS256 with public exponent 65537.
    public static func generateRS256(keyID: String, bits: Int = 2048) throws(CryptoError) -> JWK {
        guard bits >= minimumRSABits, bits <= 16384 else { throw .invalidKey("RSA size must be 2048 to 16384 bits") }
        var error = cjose_err()
        let exponent: [UInt8] = [0x01, 0x00, 0x01]
        guard let created = cjose_jwk_create_RSA_random(bits, exponent, exponent.count, &error) else {
            throw cjoseFailure("RSA key generation", error)
        }
        return try JWK(taking: created, keyID: keyID)
    }

    /// The JWK form of a P-256 private key (for the sandbox's ES256 signing key, or an Apple .p8 key).
    public convenience init(p256: P256PrivateKey, keyID: String?) throws(CryptoError) {
        var d = p256.rawRepresentation
        var x = Array(p256.publicKey.x963Representation[1...32])
        var y = Array(p256.publicKey.x963Representation[33...64])
        defer { d.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        var error = cjose_err()
        let created: OpaquePointer? = d.withUnsafeMutableBufferPointer { dBuffer in
            x.withUnsafeMutableBufferPointer { xBuffer in
                y.withUnsafeMutableBufferPointer { yBuffer in
                    var spec = cjose_jwk_ec_keyspec(
                        crv: CJOSE_JWK_EC_P_256,
                        d: dBuffer.baseAddress, dlen: dBuffer.count,
                        x: xBuffer.baseAddress, xlen: xBuffer.count,
                        y: yBuffer.baseAddress, ylen: yBuffer.count)
                    return cjose_jwk_create_EC_spec(&spec, &error)
                }
            }
        }
        guard let created else { throw cjoseFailure("EC key import", error) }
        try self.init(taking: created, keyID: keyID)
    }

    static let minimumRSABits = 2048

    /// Takes ownership of a cjose key: releases it when validation fails, else in deinit.
    init(taking key: OpaquePointer, keyID newKeyID: String?) throws(CryptoError) {
        var error = cjose_err()
        let kind = cjose_jwk_get_kty(key, &error)
        var curveName: String?
        switch kind {
        case CJOSE_JWK_KTY_EC:
            switch cjose_jwk_EC_get_curve(key, &error) {
            case CJOSE_JWK_EC_P_256: curveName = "P-256"
            case CJOSE_JWK_EC_P_384: curveName = "P-384"
            default:
                cjose_jwk_release(key)
                throw .invalidKey("unsupported EC curve")
            }
        case CJOSE_JWK_KTY_RSA:
            guard cjose_jwk_get_keysize(key, &error) >= Self.minimumRSABits else {
                cjose_jwk_release(key)
                throw .invalidKey("RSA key shorter than 2048 bits")
            }
        default:
            cjose_jwk_release(key)
            throw .invalidKey("only EC and RSA keys are supported")
        }
        if let newKeyID {
            guard cjose_jwk_set_kid(key, newKeyID, newKeyID.utf8.count, &error) else {
                cjose_jwk_release(key)
                throw cjoseFailure("setting kid", error)
            }
        }
        handle = key
        keyType = kind == CJOSE_JWK_KTY_EC ? "EC" : "RSA"
        curve = curveName
        keyID = cjose_jwk_get_kid(key, &error).map { String(cString: $0) }
        // cjose has no accessor for "is private"; its private export differs from the public one exactly then.
        let publicForm = Self.json(of: key, includingPrivate: false)
        let privateForm = Self.json(of: key, includingPrivate: true)
        hasPrivateKey = publicForm != nil && privateForm != nil && publicForm != privateForm
    }

    deinit {
        cjose_jwk_release(handle)
    }

    /// The public JWK as JSON; never includes private parts.
    public func publicJSON() throws(CryptoError) -> String {
        guard let json = lock.withLock({ _ in Self.json(of: handle, includingPrivate: false) }) else {
            throw .library("JWK export failed")
        }
        return json
    }

    /// The full JWK as JSON, private parts included. Throws for a public-only key.
    public func privateJSON() throws(CryptoError) -> String {
        guard hasPrivateKey else { throw .invalidKey("JWK has no private part") }
        guard let json = lock.withLock({ _ in Self.json(of: handle, includingPrivate: true) }) else {
            throw .library("JWK export failed")
        }
        return json
    }

    /// Runs `body` with the cjose key while no other thread uses it.
    func withKey<T: Sendable>(_ body: (OpaquePointer) throws(CryptoError) -> T) throws(CryptoError) -> T {
        let result: Result<T, CryptoError> = lock.withLock { _ in
            do throws(CryptoError) {
                return .success(try body(handle))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func json(of key: OpaquePointer, includingPrivate: Bool) -> String? {
        var error = cjose_err()
        guard let text = cjose_jwk_to_json(key, includingPrivate, &error) else {
            ERR_clear_error()
            return nil
        }
        defer {
            // The private form holds key material; wipe it before handing the memory back.
            if includingPrivate { OPENSSL_cleanse(text, strlen(text)) }
            ccjose_dealloc(text)
        }
        return String(cString: text)
    }
}
