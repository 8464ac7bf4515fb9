import COpenSSL

/// An X.509 certificate read by OpenSSL from PEM, for mutual TLS client authentication (RFC 8705): its validity
/// period, its SHA-256 thumbprint as a certificate-bound token names it (`x5t#S256`), and whether a private key is
/// the one its public key belongs to. Only what authdeck checks before presenting it; the TLS handshake is libcurl's.
public struct X509Certificate: Sendable, Equatable {
    /// The certificate's DER encoding.
    public let der: [UInt8]
    /// Its validity period, in seconds since 1970 (UTC).
    public let notBefore: Int64
    public let notAfter: Int64
    /// The subject as OpenSSL prints it on one line (`CN=…, O=…`).
    public let subject: String
    /// Whether it is signed by its own key (issuer and subject the same and the signature its own).
    public let isSelfSigned: Bool

    /// The first certificate of a PEM text (a chain may follow it; the client's own comes first, as for TLS).
    public init(pem: String) throws(CryptoError) {
        let text = Array(pem.utf8)
        let parsed: OpaquePointer? = text.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let certificate = parsed else {
            clearOpenSSLErrors()
            if pem.contains("PRIVATE KEY") { throw .invalidKey("the PEM holds a private key, not a certificate") }
            throw .invalidKey("not a PEM certificate")
        }
        defer { X509_free(certificate) }
        var encoded: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(certificate, &encoded)
        guard length > 0, let encoded else { throw openSSLFailure("i2d_X509") }
        der = Array(UnsafeBufferPointer(start: encoded, count: Int(length)))
        copenssl_free(encoded)
        guard let start = Self.seconds(X509_get0_notBefore(certificate)),
            let end = Self.seconds(X509_get0_notAfter(certificate))
        else { throw .invalidKey("the certificate's validity dates cannot be read") }
        notBefore = start
        notAfter = end
        subject = Self.oneLine(X509_get_subject_name(certificate))
        isSelfSigned = X509_check_issued(certificate, certificate) == X509_V_OK
        clearOpenSSLErrors()
    }

    /// `x5t#S256`: the base64url SHA-256 of the DER certificate (RFC 8705 3.1).
    public var thumbprint: String { Base64URL.encode(SHA256.hash(der)) }

    /// Whether `privateKeyPEM` (unencrypted PEM, any type OpenSSL reads) is the private half of this certificate's key.
    public func matches(privateKeyPEM pem: String) throws(CryptoError) -> Bool {
        if pem.contains("ENCRYPTED") { throw .invalidKey("the PEM key is encrypted") }
        guard let key = P256PrivateKey.openSSLKey(pem: pem) else {
            clearOpenSSLErrors()
            if pem.contains("CERTIFICATE") { throw .invalidKey("the file holds a certificate, not the private key") }
            throw .invalidKey("not an unencrypted PEM private key")
        }
        defer { EVP_PKEY_free(key) }
        let found: Int32 = der.withUnsafeBufferPointer { buffer in
            var start = buffer.baseAddress
            guard let certificate = d2i_X509(nil, &start, buffer.count) else { return -1 }
            defer { X509_free(certificate) }
            return X509_check_private_key(certificate, key)
        }
        clearOpenSSLErrors()
        guard found >= 0 else { throw .invalidKey("the certificate cannot be read again") }
        return found == 1
    }

    /// An ASN.1 time as seconds since 1970.
    private static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        var days: Int32 = 0
        var seconds: Int32 = 0
        // The difference from the epoch, computed by OpenSSL (no time zone or libc's timegm involved).
        var epoch = tm()
        epoch.tm_year = 70
        epoch.tm_mday = 1
        guard OPENSSL_gmtime_diff(&days, &seconds, &epoch, &parts) == 1 else { return nil }
        return Int64(days) * 86_400 + Int64(seconds)
    }

    private static func oneLine(_ name: OpaquePointer?) -> String {
        guard let name, let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard X509_NAME_print_ex(bio, name, 0, copenssl_name_flags_oneline()) >= 0 else {
            return ""
        }
        var bytes = [UInt8](repeating: 0, count: 512)
        let count = BIO_read(bio, &bytes, Int32(bytes.count))
        return count > 0 ? String(decoding: bytes[0..<Int(count)], as: UTF8.self) : ""
    }
}
