import CCjose
import COpenSSL

/// A JWS whose signature checked out: the decoded protected header and payload, and what signed it.
public struct VerifiedJWS: Sendable {
    public let header: [UInt8]
    public let payload: [UInt8]
    public let algorithm: String
    public let keyID: String?
}

/// Compact JWS signing and verification through cjose. Only asymmetric algorithms are accepted:
/// "none" and the HMAC family are refused, as is any algorithm that does not fit the key's type.
public enum JWS {
    /// The algorithms authdeck verifies, with the key each one needs.
    enum Algorithm: String, CaseIterable {
        case es256 = "ES256"
        case es384 = "ES384"
        case rs256 = "RS256"
        case rs384 = "RS384"
        case rs512 = "RS512"
        /// RSASSA-PSS with SHA-256 (RFC 7518 3.5): what FAPI asks of RSA keys.
        case ps256 = "PS256"

        var keyType: String {
            switch self {
            case .es256, .es384: return "EC"
            case .rs256, .rs384, .rs512, .ps256: return "RSA"
            }
        }

        var curve: String? {
            switch self {
            case .es256: return "P-256"
            case .es384: return "P-384"
            case .rs256, .rs384, .rs512, .ps256: return nil
            }
        }

        /// Raw r‖s length for ECDSA; RSA lengths follow the modulus and are checked by OpenSSL.
        var signatureByteCount: Int? {
            switch self {
            case .es256: return 64
            case .es384: return 96
            case .rs256, .rs384, .rs512, .ps256: return nil
            }
        }

        func fits(_ key: JWK) -> Bool {
            key.keyType == keyType && key.curve == curve
        }
    }

    /// Compact JWS with protected header {"alg","kid"?,"typ"?,"jwk"?}. alg "ES256" or "RS256" (or ES384, RS384,
    /// RS512, PS256). `publicJWK` (a JSON object holding only public members) goes into the header as `jwk`, as DPoP
    /// proofs carry their key (RFC 9449 4.2).
    public static func sign(
        payload: [UInt8], key: JWK, algorithm: String, type: String? = "JWT", publicJWK: String? = nil
    ) throws(CryptoError) -> String {
        guard let chosen = Algorithm(rawValue: algorithm) else {
            throw .invalidKey("unsupported JWS algorithm \(printable(algorithm))")
        }
        guard chosen.fits(key) else { throw .invalidKey("\(chosen.rawValue) does not fit a \(key.keyType) key") }
        guard key.hasPrivateKey else { throw .invalidKey("signing needs a private key") }

        var error = cjose_err()
        guard let header = cjose_header_new(&error) else { throw cjoseFailure("JWS header", error) }
        defer { cjose_header_release(header) }
        guard cjose_header_set(header, "alg", chosen.rawValue, &error) else { throw cjoseFailure("JWS header", error) }
        if let keyID = key.keyID {
            guard cjose_header_set(header, "kid", keyID, &error) else { throw cjoseFailure("JWS header", error) }
        }
        if let type {
            guard cjose_header_set(header, "typ", type, &error) else { throw cjoseFailure("JWS header", error) }
        }
        if let publicJWK {
            guard cjose_header_set_raw(header, "jwk", publicJWK, &error) else {
                throw cjoseFailure("JWS header", error)
            }
        }
        return try key.withKey { (jwk) throws(CryptoError) -> String in try compact(payload, header: header, key: jwk) }
    }

    /// The compact serialisation of `payload` signed by cjose with `key` (a cjose JWK) under `header`.
    static func compact(
        _ payload: [UInt8], header: UnsafeMutablePointer<cjose_header_t>, key: OpaquePointer
    ) throws(CryptoError) -> String {
        var error = cjose_err()
        // cjose refuses a NULL payload pointer even for an empty payload.
        let input = payload.isEmpty ? [0] : payload
        let signed: OpaquePointer? = input.withUnsafeBufferPointer { buffer in
            cjose_jws_sign(key, header, buffer.baseAddress, payload.count, &error)
        }
        guard let signed else { throw cjoseFailure("JWS signing", error) }
        defer { cjose_jws_release(signed) }
        var compact: UnsafePointer<CChar>?
        guard cjose_jws_export(signed, &compact, &error), let compact else { throw cjoseFailure("JWS export", error) }
        return String(cString: compact)
    }

    /// Hands `body` the JWS cjose parses from `compact` (its signature not yet checked), released when `body`
    /// returns.
    static func withParsed<T>(
        _ compact: String, _ body: (OpaquePointer) throws(CryptoError) -> T
    ) throws(CryptoError) -> T {
        var error = cjose_err()
        let bytes = Array(compact.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { cjose_jws_import($0.baseAddress, $0.count, &error) }
        }
        guard let parsed else {
            ERR_clear_error()
            throw .malformedInput("JWS could not be parsed")
        }
        defer { cjose_jws_release(parsed) }
        return try body(parsed)
    }

    /// Verifies a compact JWS against one key and returns its header and payload.
    public static func verify(_ compact: String, key: JWK) throws(CryptoError) -> VerifiedJWS {
        let token = try Token(compact)
        guard token.algorithm.fits(key) else {
            throw .invalidKey("\(token.algorithm.rawValue) token does not fit a \(key.keyType) key")
        }
        let payload = try key.withKey { (jwk) throws(CryptoError) -> [UInt8] in
            try withParsed(compact) { (parsed) throws(CryptoError) -> [UInt8] in
                var error = cjose_err()
                guard cjose_jws_verify(parsed, jwk, &error) else {
                    ERR_clear_error()
                    throw .invalidSignature
                }
                var plaintext: UnsafeMutablePointer<UInt8>?
                var length = 0
                guard cjose_jws_get_plaintext(parsed, &plaintext, &length, &error) else {
                    throw cjoseFailure("JWS payload", error)
                }
                guard length > 0, let plaintext else { return [] }
                return Array(UnsafeBufferPointer(start: plaintext, count: length))
            }
        }
        return VerifiedJWS(
            header: token.header, payload: payload, algorithm: token.algorithm.rawValue,
            keyID: token.keyID)
    }

    /// Picks the key by `kid` from a JWKS JSON document ({"keys":[...]}); without kid, the one key that fits the
    /// algorithm (several such keys are refused as ambiguous). Throws CryptoError.invalidKey("no key with kid …") when no key matches (callers refetch the JWKS
    /// once on that).
    public static func verify(_ compact: String, jwks: String) throws(CryptoError) -> VerifiedJWS {
        let token = try Token(compact)
        let candidates = try keys(in: jwks).filter { entry in
            if let wanted = entry.algorithm, wanted != token.algorithm.rawValue { return false }
            if let keyID = token.keyID { return entry.key.keyID == keyID }
            return token.algorithm.fits(entry.key)
        }
        guard !candidates.isEmpty else {
            let label = token.keyID.map(printable) ?? "(none)"
            throw .invalidKey("no key with kid \(label) for \(token.algorithm.rawValue)")
        }
        // OpenID Connect Core 10.1: with several keys a signer must name its `kid`. Trying each key would also find
        // the signer, but a token that does not say which key signed it is refused rather than guessed at.
        guard token.keyID != nil || candidates.count == 1 else {
            throw .invalidKey(
                "the token names no kid and the JWKS has \(candidates.count) keys for \(token.algorithm.rawValue)")
        }
        var lastError = CryptoError.invalidSignature
        for candidate in candidates {
            do throws(CryptoError) {
                return try verify(compact, key: candidate.key)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// Decodes header and payload WITHOUT verifying (for display/tracing only).
    public static func decodeUnverified(
        _ compact: String
    ) throws(CryptoError) -> (header: [UInt8], payload: [UInt8]) {
        let parts = try segments(of: compact)
        return (parts.header, parts.payload)
    }

    // MARK: - Parsing

    /// What verification needs to know before touching a key.
    struct Token {
        let header: [UInt8]
        let algorithm: Algorithm
        let keyID: String?

        init(_ compact: String) throws(CryptoError) {
            let parts = try segments(of: compact)
            // jansson (cjose's JSON parser) reads the header; duplicate names would let two readers disagree.
            var error = json_error_t()
            let root: UnsafeMutablePointer<json_t>? = parts.header.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    json_loadb($0.baseAddress, $0.count, Int(JSON_REJECT_DUPLICATES), &error)
                }
            }
            guard let root else { throw .malformedInput("JWS header is not a JSON object") }
            defer { ccjose_json_decref(root) }
            guard let algorithmName = string(root, "alg") else { throw .malformedInput("JWS header has no alg") }
            guard let algorithm = Algorithm(rawValue: algorithmName) else {
                throw .malformedInput("unsupported JWS algorithm \(printable(algorithmName))")
            }
            // RFC 7515 4.1.11: extensions we do not implement must make the token invalid.
            guard json_object_get(root, "crit") == nil else { throw .malformedInput("JWS uses crit extensions") }
            guard let signature = Base64URL.decode(parts.signature), !signature.isEmpty else {
                throw .malformedInput("JWS signature is not base64url")
            }
            if let expected = algorithm.signatureByteCount, signature.count != expected {
                throw .invalidSignature
            }
            if json_object_get(root, "kid") != nil, string(root, "kid") == nil {
                throw .malformedInput("JWS kid is not a string")
            }
            self.header = parts.header
            self.algorithm = algorithm
            self.keyID = string(root, "kid")
        }
    }

    private static func segments(
        of compact: String
    ) throws(CryptoError) -> (header: [UInt8], payload: [UInt8], signature: String) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformedInput("a compact JWS has three parts") }
        // Strict base64url: padding or the standard alphabet would let one token have several spellings.
        for part in parts where !part.utf8.allSatisfy(isBase64URLSymbol) {
            throw .malformedInput("JWS part is not base64url")
        }
        guard !parts[0].isEmpty, let header = Base64URL.decode(String(parts[0])),
            let payload = Base64URL.decode(String(parts[1]))
        else {
            throw .malformedInput("JWS part is not base64url")
        }
        return (header, payload, String(parts[2]))
    }

    private static func isBase64URLSymbol(_ symbol: UInt8) -> Bool {
        switch symbol {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// One usable key of a JWKS with the algorithm it is pinned to, if any.
    struct SetEntry {
        let key: JWK
        let algorithm: String?
    }

    /// The signing keys of a JWKS; entries cjose cannot use (unknown kty, "use":"enc", small RSA) are skipped,
    /// since providers publish keys for other purposes next to the ones that sign ID tokens.
    static func keys(in jwks: String) throws(CryptoError) -> [SetEntry] {
        var error = json_error_t()
        let bytes = Array(jwks.utf8)
        let root: UnsafeMutablePointer<json_t>? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                json_loadb($0.baseAddress, $0.count, Int(JSON_REJECT_DUPLICATES), &error)
            }
        }
        guard let root else { throw .malformedInput("JWKS is not JSON") }
        defer { ccjose_json_decref(root) }
        guard let list = json_object_get(root, "keys"), isArray(list) else {
            throw .malformedInput("JWKS has no keys array")
        }
        var entries: [SetEntry] = []
        for index in 0..<json_array_size(list) {
            guard let element = json_array_get(list, index) else { continue }
            if let use = string(element, "use"), use != "sig" { continue }
            guard JWK.hasPlainBase64URLMembers(element) else { continue }
            var cjoseError = cjose_err()
            guard let imported = cjose_jwk_import_json(element, &cjoseError) else {
                ERR_clear_error()
                continue
            }
            guard let key = try? JWK(taking: imported, keyID: nil) else { continue }
            entries.append(SetEntry(key: key, algorithm: string(element, "alg")))
        }
        return entries
    }

    private static func isArray(_ value: UnsafeMutablePointer<json_t>) -> Bool {
        value.pointee.type == JSON_ARRAY
    }

    private static func string(_ object: UnsafeMutablePointer<json_t>, _ name: String) -> String? {
        guard let value = json_object_get(object, name), let text = json_string_value(value) else { return nil }
        return String(cString: text)
    }

    /// Attacker-chosen header values go into error messages only as short printable ASCII.
    static func printable(_ text: String) -> String {
        let kept = text.unicodeScalars.prefix(64).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? $0 : "?" }
        return "\"" + String(String.UnicodeScalarView(kept)) + "\""
    }
}

extension CryptoError {
    /// True when a JWKS held no key for the token's `kid`: the one case where refetching the JWKS may help.
    public var isUnknownKeyID: Bool {
        if case .invalidKey(let why) = self { return why.hasPrefix("no key with kid") }
        return false
    }
}
