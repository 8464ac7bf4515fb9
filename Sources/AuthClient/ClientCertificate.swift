import AuthCore
import AuthCrypto
import Foundation

/// The certificate and private key a client presents in the TLS handshake to authenticate (RFC 8705 2:
/// `tls_client_auth` with one a CA issued, `self_signed_tls_client_auth` with a self-signed one). Read from
/// config.json's `clientCertificateFile` and `clientCertificateKeyFile` and checked before anything is sent: the key
/// file owner-only, the certificate within its validity period, the key its own. The key's bytes go to libcurl
/// only; descriptions, traces and sessions name the files and the certificate's thumbprint, never the key.
public struct ClientCertificate: Sendable, Equatable, CustomStringConvertible {
    public let method: ClientAuthMethod
    public let certificateFile: String
    public let keyFile: String
    public let certificate: X509Certificate
    /// The PEM texts libcurl presents (SSLCERT_BLOB, SSLKEY_BLOB).
    let certificatePEM: [UInt8]
    let keyPEM: [UInt8]

    /// `x5t#S256`, the SHA-256 thumbprint a certificate-bound token's `cnf` carries (RFC 8705 3.1).
    public var thumbprint: String { certificate.thumbprint }

    public var description: String { "ClientCertificate(\(certificateFile), x5t#S256 \(thumbprint))" }

    public static func == (left: ClientCertificate, right: ClientCertificate) -> Bool {
        left.method == right.method && left.certificateFile == right.certificateFile
            && left.keyFile == right.keyFile && left.certificate == right.certificate
    }

    /// The certificate in `certificateFile` (public: no mode rule) with its PEM bytes; one line naming the fix when
    /// it cannot be read or holds no certificate.
    public static func read(_ certificateFile: String) throws(SignInError) -> (X509Certificate, pem: [UInt8]) {
        let path = (certificateFile as NSString).expandingTildeInPath
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else {
            let why = FileManager.default.fileExists(atPath: path) ? "it is empty or unreadable" : "no such file"
            throw .unavailable(reason: "cannot read the client certificate file \(certificateFile) (\(why))")
        }
        guard data.count <= 65_536 else {
            throw .unavailable(reason: "the client certificate file \(certificateFile) is too large")
        }
        let pem = Array(data)
        do {
            return (try X509Certificate(pem: String(decoding: pem, as: UTF8.self)), pem)
        } catch {
            throw .unavailable(
                reason: "the client certificate file \(certificateFile) holds no certificate (\(reason(error))): give "
                    + "the PEM certificate (BEGIN CERTIFICATE) as clientCertificateFile, its key as "
                    + "clientCertificateKeyFile")
        }
    }

    /// Reads and checks both files; every failure is one line naming the fix.
    public static func load(
        method: ClientAuthMethod, certificateFile: String, keyFile: String, now: Date = Date()
    ) throws(SignInError) -> ClientCertificate {
        let (certificate, certificatePEM) = try read(certificateFile)
        let seconds = Int64(now.timeIntervalSince1970)
        if seconds > certificate.notAfter {
            throw .unavailable(
                reason: "the client certificate in \(certificateFile) expired on \(day(certificate.notAfter)): "
                    + "have it renewed and point clientCertificateFile at the new one")
        }
        if seconds < certificate.notBefore {
            throw .unavailable(
                reason: "the client certificate in \(certificateFile) is not valid before "
                    + "\(day(certificate.notBefore)): check the clock or use a certificate valid now")
        }
        let keyPEM = try OwnerOnlyFile.read(keyFile, what: "client certificate key file")
        let matches: Bool
        do {
            matches = try certificate.matches(privateKeyPEM: String(decoding: keyPEM, as: UTF8.self))
        } catch {
            throw .unavailable(
                reason: "the client certificate key file \(keyFile) holds no usable key (\(reason(error))): give "
                    + "the certificate's unencrypted PEM private key, e.g. "
                    + "`openssl pkey -in KEY -out \(keyFile)`")
        }
        guard matches else {
            throw .unavailable(
                reason: "the key in \(keyFile) is not the key of the certificate in \(certificateFile): give the "
                    + "private key the certificate was issued for")
        }
        return ClientCertificate(
            method: method, certificateFile: certificateFile, keyFile: keyFile, certificate: certificate,
            certificatePEM: certificatePEM, keyPEM: keyPEM)
    }

    private static func reason(_ error: CryptoError) -> String {
        if case .invalidKey(let reason) = error { return reason }
        return error.description
    }

    /// A date as YYYY-MM-DD HH:MM UTC.
    public static func day(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
