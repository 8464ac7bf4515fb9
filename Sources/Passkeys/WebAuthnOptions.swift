import AuthCore
import AuthCrypto
import Foundation

/// What a relying party asks of an authenticator, in the JSON form of WebAuthn Level 3 (section 5.1.8's
/// `PublicKeyCredentialCreationOptionsJSON` and `PublicKeyCredentialRequestOptionsJSON`): binary members are
/// base64url. Either wrapped in `{"publicKey": …}`, as `navigator.credentials` takes them, or bare.
public struct CreationOptions: Sendable, Equatable {
    public var relyingPartyID: String
    public var relyingPartyName: String
    public var userHandle: [UInt8]
    public var userName: String
    public var challenge: [UInt8]
    /// The COSE algorithms the relying party accepts, in its order of preference.
    public var algorithms: [Int]
    public var excludeCredentials: [[UInt8]]
    /// `none`, `indirect`, `direct` or `enterprise`; nil is `none`.
    public var attestation: String?
    public var userVerification: String?
}

public struct RequestOptions: Sendable, Equatable {
    /// Nil: the caller's origin's domain.
    public var relyingPartyID: String?
    public var challenge: [UInt8]
    /// Empty: any credential for the relying party.
    public var allowCredentials: [[UInt8]]
    public var userVerification: String?
}

/// Why options or an authenticator's step were refused, in one line naming what is wrong.
public struct PasskeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension CreationOptions {
    public init(json: [UInt8]) throws(PasskeyError) {
        let root = try PasskeyJSON.object(json, "registration options")
        let options = root["publicKey"] ?? root
        guard let rp = options["rp"], let rpID = rp["id"]?.string, !rpID.isEmpty else {
            throw PasskeyError("the registration options name no rp.id")
        }
        guard let user = options["user"], let name = user["name"]?.string else {
            throw PasskeyError("the registration options name no user")
        }
        let handle = try PasskeyJSON.binary(user["id"], "user.id")
        guard (1...64).contains(handle.count) else { throw PasskeyError("user.id must be 1 to 64 bytes") }
        var algorithms: [Int] = []
        for parameter in options["pubKeyCredParams"]?.arrayValue ?? [] where parameter["type"]?.string == "public-key" {
            if let alg = parameter["alg"]?.integer { algorithms.append(alg) }
        }
        self.init(
            relyingPartyID: rpID, relyingPartyName: rp["name"]?.string ?? rpID, userHandle: handle, userName: name,
            challenge: try PasskeyJSON.challenge(options["challenge"]), algorithms: algorithms,
            excludeCredentials: try PasskeyJSON.descriptors(options["excludeCredentials"]),
            attestation: options["attestation"]?.string,
            userVerification: options["authenticatorSelection"]?["userVerification"]?.string)
    }
}

extension RequestOptions {
    public init(json: [UInt8]) throws(PasskeyError) {
        let root = try PasskeyJSON.object(json, "assertion options")
        let options = root["publicKey"] ?? root
        self.init(
            relyingPartyID: options["rpId"]?.string, challenge: try PasskeyJSON.challenge(options["challenge"]),
            allowCredentials: try PasskeyJSON.descriptors(options["allowCredentials"]),
            userVerification: options["userVerification"]?.string)
    }
}

/// Reading the options' JSON members.
enum PasskeyJSON {
    static func object(_ json: [UInt8], _ what: String) throws(PasskeyError) -> JSONValue {
        guard let value = try? JSONValue.parse(json), case .object = value else {
            throw PasskeyError("the \(what) are not a JSON object")
        }
        return value
    }

    static func binary(_ value: JSONValue?, _ name: String) throws(PasskeyError) -> [UInt8] {
        guard let text = value?.string, let bytes = Base64URL.decode(text) else {
            throw PasskeyError("\(name) must be base64url")
        }
        return bytes
    }

    /// WebAuthn section 13.4.3: at least 16 random bytes.
    static func challenge(_ value: JSONValue?) throws(PasskeyError) -> [UInt8] {
        let challenge = try binary(value, "challenge")
        guard challenge.count >= 16 else { throw PasskeyError("the challenge is shorter than 16 bytes") }
        return challenge
    }

    static func descriptors(_ value: JSONValue?) throws(PasskeyError) -> [[UInt8]] {
        var ids: [[UInt8]] = []
        for descriptor in value?.arrayValue ?? [] where descriptor["type"]?.string == "public-key" {
            ids.append(try binary(descriptor["id"], "a credential descriptor's id"))
        }
        return ids
    }
}

extension JSONValue {
    var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
