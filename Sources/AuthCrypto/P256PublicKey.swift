import COpenSSL

/// A P-256 public key, always a valid point on the curve. Turnkey identifies session keys by
/// `compressedHex`; JWKs carry the x and y of `x963Representation`.
public struct P256PublicKey: Sendable, Equatable {
    /// 04 ‖ x ‖ y; checked on the curve when created.
    public let x963Representation: [UInt8]

    /// From the 33-byte SEC1 compressed form (02 or 03 ‖ x).
    public init(compressedRepresentation: [UInt8]) throws(CryptoError) {
        guard compressedRepresentation.count == P256Curve.compressedByteCount,
            compressedRepresentation[0] == 2 || compressedRepresentation[0] == 3
        else {
            throw .invalidKey("P-256 compressed key must be 33 bytes starting 02 or 03")
        }
        x963Representation = try P256Curve.convert(compressedRepresentation, to: POINT_CONVERSION_UNCOMPRESSED)
    }

    /// From the 65-byte uncompressed form 04 ‖ x ‖ y.
    public init(x963Representation: [UInt8]) throws(CryptoError) {
        guard x963Representation.count == P256Curve.x963ByteCount, x963Representation[0] == 4 else {
            throw .invalidKey("P-256 uncompressed key must be 65 bytes starting 04")
        }
        self.x963Representation = try P256Curve.convert(x963Representation, to: POINT_CONVERSION_UNCOMPRESSED)
    }

    /// 02 or 03 (the parity of y) ‖ x: 33 bytes.
    public var compressedRepresentation: [UInt8] {
        [2 | (x963Representation[64] & 1)] + x963Representation[1...32]
    }

    /// The compressed key as 66 lower-case hex characters, the form Turnkey puts in nonces and requests.
    public var compressedHex: String { Hex.encode(compressedRepresentation) }

    /// Whether `der` (an ASN.1 SEQUENCE of r and s, as WebAuthn's ES256 and Turnkey's enclave bundles carry it) is an
    /// ECDSA P-256 signature of SHA-256(message) by this key. A DER that does not decode is no signature.
    public func isValidSignature(der: [UInt8], for message: [UInt8]) -> Bool {
        guard let raw = try? ECDSASignature.raw(fromDER: der) else {
            clearOpenSSLErrors()
            return false
        }
        // Only the one encoding of (r, s) counts, so a signature has no second form that verifies too.
        guard ECDSASignature.der(fromRaw: raw) == der else { return false }
        return isValidSignature(raw, for: message)
    }

    /// Whether `rawRS` (r‖s, 64 bytes) is an ECDSA P-256 signature of SHA-256(message) by this key.
    public func isValidSignature(_ rawRS: [UInt8], for message: [UInt8]) -> Bool {
        guard rawRS.count == 2 * P256Curve.scalarByteCount, let der = ECDSASignature.der(fromRaw: rawRS) else {
            return false
        }
        guard let key = try? P256Curve.makeKey(publicX963: x963Representation, privateScalar: nil) else {
            return false
        }
        defer { EVP_PKEY_free(key) }
        guard let digestContext = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(digestContext) }
        let valid =
            EVP_DigestVerifyInit(digestContext, nil, EVP_sha256(), nil, key) == 1
            && EVP_DigestVerify(digestContext, der, der.count, message, message.count) == 1
        // A bad signature leaves entries in the queue; they are expected, not news for the next caller.
        clearOpenSSLErrors()
        return valid
    }
}
