import AuthCore
import Foundation

/// A session's secrets as the plaintext of its blob, in the layout of `SecretFields` (StoreCore), which walks it.
enum SecretsCodec {
    static let version = SecretFields.version

    private typealias Tag = SecretFields.Tag

    static func encode(_ secrets: SessionSecrets) -> [UInt8] {
        var output: [UInt8] = [version]
        func append(_ tag: Tag, _ bytes: [UInt8]) {
            output.append(tag.rawValue)
            let count = UInt32(bytes.count)
            for shift in stride(from: 0, to: 32, by: 8) { output.append(UInt8(truncatingIfNeeded: count >> shift)) }
            output += bytes
        }
        if let value = secrets.accessToken { append(.accessToken, Array(value.utf8)) }
        if let value = secrets.refreshToken { append(.refreshToken, Array(value.utf8)) }
        if let value = secrets.idToken { append(.idToken, Array(value.utf8)) }
        if let value = secrets.sessionJwt { append(.sessionJwt, Array(value.utf8)) }
        if let value = secrets.privateKeyHex { append(.privateKeyHex, Array(value.utf8)) }
        if let value = secrets.refreshExpiresAt {
            let bits = value.timeIntervalSince1970.bitPattern
            append(.refreshExpiresAt, (0..<8).map { UInt8(truncatingIfNeeded: bits >> ($0 * 8)) })
        }
        // Endpoints are read only when refreshing or revoking, so JSON here costs `token` nothing.
        if let value = secrets.endpoints { append(.endpoints, endpointsJSON(value)) }
        if let value = secrets.portalClient { append(.portalClient, portalClientJSON(value)) }
        if let value = secrets.dpopKeyHex { append(.dpopKeyHex, Array(value.utf8)) }
        if let value = secrets.dpopNonce { append(.dpopNonce, Array(value.utf8)) }
        if let value = secrets.tokenType { append(.tokenType, Array(value.utf8)) }
        if let value = secrets.browser { append(.browser, Array(value.utf8)) }
        if let value = secrets.passkey, let json = try? JSONEncoder().encode(value) { append(.passkey, Array(json)) }
        return output
    }

    /// The endpoints as the JSON object `JSONDecoder` reads back into `SessionEndpoints` (absent fields left out, as
    /// `JSONEncoder` left them out). Written by hand: a `JSONEncoder` per session was most of a `store import` of
    /// exported sessions.
    static func endpointsJSON(_ endpoints: SessionEndpoints) -> [UInt8] {
        var buffer = JSONBuffer(capacity: 256)
        buffer.strings([("{\"clientID\":", endpoints.clientID), (",\"token\":", endpoints.token)])
        buffer.strings(
            [
                (",\"revocation\":", endpoints.revocation), (",\"user\":", endpoints.user),
                (",\"clientSecretFile\":", endpoints.clientSecretFile),
                (",\"tokenAuthMethod\":", endpoints.tokenAuthMethod),
                (",\"revocationAuthMethod\":", endpoints.revocationAuthMethod),
                (",\"privateKeyFile\":", endpoints.privateKeyFile), (",\"keyID\":", endpoints.keyID),
                (",\"signingAlg\":", endpoints.signingAlg), (",\"assertionAudience\":", endpoints.assertionAudience),
                (",\"clientCertificateFile\":", endpoints.clientCertificateFile),
                (",\"clientCertificateKeyFile\":", endpoints.clientCertificateKeyFile),
                (",\"grant\":", endpoints.grant), (",\"parentSession\":", endpoints.parentSession),
            ], skippingUnset: true)
        if let fromSignIn = endpoints.clientSecretFileFromSignIn {
            buffer.raw(",\"clientSecretFileFromSignIn\":")
            buffer.bool(fromSignIn)
        }
        buffer.raw("}")
        return buffer.bytes
    }

    /// What Portal said of its client, as the JSON object `JSONDecoder` reads back into `PortalClientInfo`.
    static func portalClientJSON(_ client: PortalClientInfo) -> [UInt8] {
        var buffer = JSONBuffer(capacity: 64)
        buffer.raw("{")
        if let clientID = client.clientID {
            buffer.raw("\"clientID\":")
            buffer.string(clientID)
        }
        if let abstracted = client.isAccountAbstracted {
            buffer.raw(client.clientID == nil ? "\"isAccountAbstracted\":" : ",\"isAccountAbstracted\":")
            buffer.bool(abstracted)
        }
        buffer.raw("}")
        return buffer.bytes
    }

    /// Nil when the bytes are not a secrets blob this version can read.
    static func decode(_ bytes: [UInt8]) -> SessionSecrets? {
        var secrets = SessionSecrets()
        let valid = SecretFields.walk(bytes) { tag, field in
            switch Tag(rawValue: tag) {
            case .accessToken: secrets.accessToken = String(decoding: field, as: UTF8.self)
            case .refreshToken: secrets.refreshToken = String(decoding: field, as: UTF8.self)
            case .idToken: secrets.idToken = String(decoding: field, as: UTF8.self)
            case .sessionJwt: secrets.sessionJwt = String(decoding: field, as: UTF8.self)
            case .privateKeyHex: secrets.privateKeyHex = String(decoding: field, as: UTF8.self)
            case .refreshExpiresAt:
                guard field.count == 8 else { return false }
                var bits: UInt64 = 0
                for (offset, byte) in field.enumerated() { bits |= UInt64(byte) << (offset * 8) }
                secrets.refreshExpiresAt = Date(timeIntervalSince1970: Double(bitPattern: bits))
            case .endpoints:
                secrets.endpoints = try? JSONDecoder().decode(SessionEndpoints.self, from: Data(field))
            case .portalClient:
                secrets.portalClient = try? JSONDecoder().decode(PortalClientInfo.self, from: Data(field))
            case .dpopKeyHex: secrets.dpopKeyHex = String(decoding: field, as: UTF8.self)
            case .dpopNonce: secrets.dpopNonce = String(decoding: field, as: UTF8.self)
            case .tokenType: secrets.tokenType = String(decoding: field, as: UTF8.self)
            case .browser: secrets.browser = String(decoding: field, as: UTF8.self)
            case .passkey: secrets.passkey = try? JSONDecoder().decode(PasskeyCredential.self, from: Data(field))
            case nil:
                break  // A field from a later version: kept in the blob, not understood here.
            }
            return true
        }
        return valid ? secrets : nil
    }
}
