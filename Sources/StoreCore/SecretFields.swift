/// The plaintext layout of a session's secret blob: a version byte, then tag ‖ length (u32, little endian) ‖ bytes
/// per field. Walked here without Foundation, so `token` reads its one field and never decodes the rest (the
/// endpoints JSON is decoded only by the store's `SecretsCodec`, when a refresh or revocation needs it).
package enum SecretFields {
    package static let version: UInt8 = 1

    /// The field tags. Unknown tags are skipped, so a later version can add fields this one carries through unread.
    package enum Tag: UInt8 {
        case accessToken = 1
        case refreshToken
        case idToken
        case sessionJwt
        case privateKeyHex
        case refreshExpiresAt
        case endpoints
        case portalClient
        case dpopKeyHex
        case dpopNonce
        case tokenType
        case browser
        case passkey
    }

    /// Calls `visit` with each field's raw tag and bytes, in order; returns false (having stopped) when the bytes are
    /// not a blob of this version or `visit` returned false.
    package static func walk(_ bytes: [UInt8], _ visit: (UInt8, ArraySlice<UInt8>) -> Bool) -> Bool {
        guard bytes.first == version else { return false }
        var index = 1
        while index < bytes.count {
            guard index + 5 <= bytes.count else { return false }
            let tag = bytes[index]
            var count = 0
            for offset in 0..<4 { count |= Int(bytes[index + 1 + offset]) << (offset * 8) }
            index += 5
            guard count <= bytes.count - index else { return false }
            let field = bytes[index..<(index + count)]
            index += count
            guard visit(tag, field) else { return false }
        }
        return true
    }

    /// The text fields a token is read from: access token, session JWT and ID token. Nil when malformed.
    package static func tokens(_ bytes: [UInt8]) -> (access: String?, sessionJwt: String?, idToken: String?)? {
        var access: String?
        var sessionJwt: String?
        var idToken: String?
        let valid = walk(bytes) { tag, field in
            switch Tag(rawValue: tag) {
            case .accessToken: access = String(decoding: field, as: UTF8.self)
            case .sessionJwt: sessionJwt = String(decoding: field, as: UTF8.self)
            case .idToken: idToken = String(decoding: field, as: UTF8.self)
            case .refreshExpiresAt: return field.count == 8
            default: break
            }
            return true
        }
        return valid ? (access, sessionJwt, idToken) : nil
    }
}
