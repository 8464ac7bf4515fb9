import AuthCrypto
import Foundation

/// The confidential client `authdeck sandbox` registers so `make run` can show JWT client authentication and signed
/// request objects: a P-256 key kept in the data folder (an owner-only PEM file the config.json it writes names),
/// whose public half the sandbox holds for `private_key_jwt` assertions (RFC 7523) and request objects (RFC 9101).
public struct SandboxJWTClient: Sendable {
    public static let clientID = "sandbox-jwt-client"
    /// The backend config.json names for it: direct sign-in at the generic profile, its endpoints from discovery.
    public static let backendName = "sandbox-jwt"
    /// The PEM file (SEC1 "EC PRIVATE KEY"), mode 0600.
    public let keyFile: String
    public let keyID: String
    /// `{"keys":[…]}` with the public half only.
    public let jwks: String

    init(keyFile: String, key: P256PrivateKey) throws(CryptoError) {
        self.keyFile = keyFile
        let point = key.publicKey.x963Representation
        keyID = "sandbox-jwt-" + Hex.encode(Array(SHA256.hash(point).prefix(6)))
        guard var object = JSONText.object(Array(try JWK(p256: key, keyID: keyID).publicJSON().utf8)) else {
            throw .malformedInput("public JWK is not a JSON object")
        }
        object["alg"] = "ES256"
        object["use"] = "sig"
        jwks = String(decoding: JSONText.encode(["keys": [object]]), as: UTF8.self)
    }

    /// RFC 5915's ECPrivateKey for a P-256 key: version 1, the scalar, the curve's OID and the public point.
    static func pem(_ key: P256PrivateKey) -> String {
        let curve: [UInt8] = [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        let der: [UInt8] =
            [0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20] + key.rawRepresentation + curve
            + [0xA1, 0x44, 0x03, 0x42, 0x00] + key.publicKey.x963Representation
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN EC PRIVATE KEY-----\n\(body)\n-----END EC PRIVATE KEY-----\n"
    }
}

extension SandboxConfiguration {
    /// Registers `client` for `private_key_jwt` and signed request objects, and has config.json name it.
    public mutating func register(_ client: SandboxJWTClient) {
        assertionClients[SandboxJWTClient.clientID] = .jwks(client.jwks)
        requestObjectKeys[SandboxJWTClient.clientID] = client.jwks
        jwtClient = client
    }
}

extension SandboxDataFolder {
    var jwtClientKeyFile: String { path + "/jwt-client-key.pem" }

    /// The JWT client's key kept in the folder, or a new one written there (owner-only) when it has none. A key file
    /// that cannot be read is an error rather than replaced: sessions signed in with it would stop refreshing.
    public func jwtClient() throws(SandboxServer.Failure) -> SandboxJWTClient {
        let file = jwtClientKeyFile
        do {
            if FileManager.default.fileExists(atPath: file) {
                guard let data = FileManager.default.contents(atPath: file),
                    let key = try? P256PrivateKey(pemRepresentation: String(decoding: data, as: UTF8.self))
                else {
                    throw SandboxServer.Failure(
                        description: "\(file) is not a P-256 PEM key; move it away to start with a new one")
                }
                return try SandboxJWTClient(keyFile: file, key: key)
            }
            let key = try P256PrivateKey()
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            guard
                FileManager.default.createFile(
                    atPath: file, contents: Data(SandboxJWTClient.pem(key).utf8),
                    attributes: [.posixPermissions: 0o600])
            else {
                throw SandboxServer.Failure(description: "cannot write \(file)")
            }
            return try SandboxJWTClient(keyFile: file, key: key)
        } catch let error as SandboxServer.Failure {
            throw error
        } catch {
            throw SandboxServer.Failure(description: "cannot make the JWT client's key: \(error)")
        }
    }
}
