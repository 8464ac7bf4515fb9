import AuthCore
import AuthCrypto
import Foundation

/// What the authenticator answers, as WebAuthn Level 3's `RegistrationResponseJSON` and
/// `AuthenticationResponseJSON` (section 5.1): `{"id", "rawId", "type": "public-key", "response": {…}}`, binary
/// members base64url.
public struct RegistrationResponse: Sendable {
    public let credentialID: [UInt8]
    public let clientDataJSON: [UInt8]
    public var attestationObject: [UInt8]

    public var json: JSONValue {
        PasskeyResponseJSON.credential(
            credentialID,
            [
                "clientDataJSON": .string(Base64URL.encode(clientDataJSON)),
                "attestationObject": .string(Base64URL.encode(attestationObject)),
            ])
    }
}

public struct AssertionResponse: Sendable {
    public let credentialID: [UInt8]
    public let clientDataJSON: [UInt8]
    public let authenticatorData: [UInt8]
    /// DER-encoded ECDSA (WebAuthn section 6.5.5 for ES256).
    public var signature: [UInt8]
    public let userHandle: [UInt8]?

    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "clientDataJSON": .string(Base64URL.encode(clientDataJSON)),
            "authenticatorData": .string(Base64URL.encode(authenticatorData)),
            "signature": .string(Base64URL.encode(signature)),
        ]
        if let userHandle { members["userHandle"] = .string(Base64URL.encode(userHandle)) }
        return PasskeyResponseJSON.credential(credentialID, members)
    }
}

enum PasskeyResponseJSON {
    static func credential(_ id: [UInt8], _ response: [String: JSONValue]) -> JSONValue {
        let encodedID = JSONValue.string(Base64URL.encode(id))
        return .object([
            "id": encodedID, "rawId": encodedID, "type": .string("public-key"), "response": .object(response),
        ])
    }
}

/// The client's half of a ceremony (WebAuthn section 5.8.1): the collected client data the authenticator signs a
/// hash of. Written member by member in the spec's order (`type`, `challenge`, `origin`, `crossOrigin`), as
/// section 5.8.1.1's serialization does.
public enum ClientData {
    public static let create = "webauthn.create"
    public static let get = "webauthn.get"

    public static func json(type: String, challenge: [UInt8], origin: String) -> [UInt8] {
        Array(
            "{\"type\":\(quoted(type)),\"challenge\":\(quoted(Base64URL.encode(challenge))),\"origin\":\(quoted(origin)),\"crossOrigin\":false}"
                .utf8)
    }

    /// A JSON string (section 5.8.1.2's CCDToString: `"` and `\` escaped, control characters as \u escapes).
    static func quoted(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case _ where scalar.value < 0x20: output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    /// Whether `relyingPartyID` may be used from `origin` (WebAuthn sections 5.1.3 step 8 and 5.1.4.1 step 7): it
    /// is the origin's host or a domain the host lies under. A relying party cannot ask for another site's passkeys.
    public static func allows(relyingPartyID: String, from origin: String) -> Bool {
        guard let host = URLComponents(string: origin)?.host?.lowercased(), !relyingPartyID.isEmpty else {
            return false
        }
        let id = relyingPartyID.lowercased()
        return host == id || host.hasSuffix("." + id)
    }

    static func check(relyingPartyID: String, origin: String) throws(PasskeyError) {
        guard allows(relyingPartyID: relyingPartyID, from: origin) else {
            throw PasskeyError("the relying party id \(relyingPartyID) does not belong to the origin \(origin)")
        }
    }
}
