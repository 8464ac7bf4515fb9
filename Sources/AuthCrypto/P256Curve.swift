import COpenSSL

/// The P-256 arithmetic AuthCrypto needs, done by OpenSSL: point checks and conversions, and
/// short-lived EVP_PKEY objects built from raw bytes for one signature or one verification.
/// Every OpenSSL object lives for one call, so concurrent use shares nothing.
enum P256Curve {
    static let scalarByteCount = 32
    static let x963ByteCount = 65
    static let compressedByteCount = 33

    static func withGroup<T>(
        _ body: (_ group: OpaquePointer, _ context: OpaquePointer) throws(CryptoError) -> T
    ) throws(CryptoError) -> T {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            throw openSSLFailure("P-256 group")
        }
        defer { EC_GROUP_free(group) }
        guard let context = BN_CTX_new() else { throw openSSLFailure("BN_CTX_new") }
        defer { BN_CTX_free(context) }
        return try body(group, context)
    }

    /// The uncompressed public point d·G for a private scalar, refusing scalars outside 1..<n.
    static func publicPoint(forScalar scalar: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard scalar.count == scalarByteCount else { throw .invalidKey("P-256 private key must be 32 bytes") }
        return try withGroup { (group, context) throws(CryptoError) -> [UInt8] in
            guard let d = BN_bin2bn(scalar, Int32(scalar.count), nil) else { throw openSSLFailure("BN_bin2bn") }
            defer { BN_clear_free(d) }
            guard BN_is_zero(d) == 0, BN_cmp(d, EC_GROUP_get0_order(group)) < 0 else {
                throw .invalidKey("P-256 private scalar out of range")
            }
            guard let point = EC_POINT_new(group) else { throw openSSLFailure("EC_POINT_new") }
            defer { EC_POINT_free(point) }
            guard EC_POINT_mul(group, point, d, nil, nil, context) == 1 else { throw openSSLFailure("EC_POINT_mul") }
            return try encode(point, group: group, form: POINT_CONVERSION_UNCOMPRESSED, context: context)
        }
    }

    /// Parses an encoded point (compressed or uncompressed), checks it lies on the curve, and re-encodes it.
    static func convert(_ encoded: [UInt8], to form: point_conversion_form_t) throws(CryptoError) -> [UInt8] {
        try withGroup { (group, context) throws(CryptoError) -> [UInt8] in
            guard let point = EC_POINT_new(group) else { throw openSSLFailure("EC_POINT_new") }
            defer { EC_POINT_free(point) }
            guard EC_POINT_oct2point(group, point, encoded, encoded.count, context) == 1,
                EC_POINT_is_at_infinity(group, point) == 0,
                EC_POINT_is_on_curve(group, point, context) == 1
            else {
                clearOpenSSLErrors()
                throw .invalidKey("not a point on P-256")
            }
            return try encode(point, group: group, form: form, context: context)
        }
    }

    private static func encode(
        _ point: OpaquePointer, group: OpaquePointer, form: point_conversion_form_t, context: OpaquePointer
    ) throws(CryptoError) -> [UInt8] {
        let count = form == POINT_CONVERSION_COMPRESSED ? compressedByteCount : x963ByteCount
        var output = [UInt8](repeating: 0, count: count)
        guard EC_POINT_point2oct(group, point, form, &output, count, context) == count else {
            throw openSSLFailure("EC_POINT_point2oct")
        }
        return output
    }

    /// An EVP_PKEY for P-256 from raw parts; the caller frees it with EVP_PKEY_free.
    static func makeKey(publicX963: [UInt8], privateScalar: [UInt8]?) throws(CryptoError) -> OpaquePointer {
        guard let builder = OSSL_PARAM_BLD_new() else { throw openSSLFailure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        // The builder keeps the key names and values by pointer until OSSL_PARAM_BLD_to_param copies them.
        guard OSSL_PARAM_BLD_push_utf8_string(builder, staticCString("group"), staticCString("prime256v1"), 0) == 1
        else { throw openSSLFailure("P-256 key parameters") }
        var privateNumber: OpaquePointer?
        defer { if let privateNumber { BN_clear_free(privateNumber) } }
        if let privateScalar {
            privateNumber = BN_bin2bn(privateScalar, Int32(privateScalar.count), nil)
            guard let privateNumber, OSSL_PARAM_BLD_push_BN(builder, staticCString("priv"), privateNumber) == 1 else {
                throw openSSLFailure("P-256 key parameters")
            }
        }
        let params: UnsafeMutablePointer<OSSL_PARAM>? = publicX963.withUnsafeBytes { pub in
            guard OSSL_PARAM_BLD_push_octet_string(builder, staticCString("pub"), pub.baseAddress, pub.count) == 1
            else { return nil }
            return OSSL_PARAM_BLD_to_param(builder)
        }
        guard let params else { throw openSSLFailure("P-256 key parameters") }
        defer { OSSL_PARAM_free(params) }

        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw openSSLFailure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        let selection = privateScalar == nil ? copenssl_selection_public_key() : copenssl_selection_keypair()
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &key, selection, params) == 1, let key
        else {
            throw openSSLFailure("P-256 key import")
        }
        return key
    }

    /// The private scalar of an EC EVP_PKEY, left-padded to 32 bytes, after checking the curve is P-256.
    static func privateScalar(of key: OpaquePointer) throws(CryptoError) -> [UInt8] {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { throw .invalidKey("not an EC key") }
        var name = [CChar](repeating: 0, count: 64)
        var nameLength = 0
        guard EVP_PKEY_get_utf8_string_param(key, "group", &name, name.count, &nameLength) == 1 else {
            throw openSSLFailure("EC key group")
        }
        let group = String(decoding: name.prefix(nameLength).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard group == "prime256v1" || group == "P-256" else { throw .invalidKey("EC key is not on P-256") }
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, "priv", &number) == 1, let number else {
            clearOpenSSLErrors()
            throw .invalidKey("EC key has no private part")
        }
        defer { BN_clear_free(number) }
        var scalar = [UInt8](repeating: 0, count: scalarByteCount)
        guard BN_bn2binpad(number, &scalar, Int32(scalarByteCount)) == Int32(scalarByteCount) else {
            throw openSSLFailure("BN_bn2binpad")
        }
        return scalar
    }
}
