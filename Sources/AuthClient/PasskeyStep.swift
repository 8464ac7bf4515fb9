import AuthCore
import AuthCrypto
import Foundation
import Passkeys

/// Para's passkey step against a WebAuthn relying party (the sandbox's `/webauthn/…`): a verified new account
/// registers a passkey, an existing one signs in with the one it has. The authenticator is the software passkey or
/// a security key; the credentials this store already holds for the backend come in with the request.
public struct PasskeyStep: Sendable {
    /// The relying party's base URL (the sandbox's is `http://127.0.0.1:PORT/webauthn`).
    public let baseURL: String
    public let transport: HTTPTransport
    public let authenticator: PasskeyCredential.Kind
    /// The store's passkeys for this backend, for the assertion.
    public let known: [PasskeyCredential]

    public init(
        baseURL: String, transport: HTTPTransport, authenticator: PasskeyCredential.Kind, known: [PasskeyCredential]
    ) {
        self.baseURL = baseURL.trimmingSuffix("/")
        self.transport = transport
        self.authenticator = authenticator
        self.known = known
    }

    /// The origin the ceremonies claim: the relying party's own (scheme, host and port of its URL), as a browser
    /// on its pages would; the authenticator refuses an rp id that does not belong to it.
    var origin: String {
        guard let url = URLComponents(string: baseURL), let scheme = url.scheme, let host = url.host else {
            return baseURL
        }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// Registers a new passkey for the account whose email `verificationToken` proves; answers it to be stored with
    /// the session.
    public func register(verificationToken: String) throws(SignInError) -> PasskeyCredential {
        let json = try call("registration_options", ["verificationToken": .string(verificationToken)])
        let optionsJSON = Array(try TurnkeyProxyClient.encode(json).utf8)
        let made: (credential: PasskeyCredential, response: RegistrationResponse)
        do throws(PasskeyError) {
            let options = try CreationOptions(json: optionsJSON)
            switch authenticator {
            case .software:
                made = try SoftwarePasskey.register(options, origin: origin, known: known)
            case .hardware:
                let key = try SecurityKey.shared.get()
                made = try key.register(options, origin: origin, on: try key.firstDevice())
            }
        } catch {
            throw Self.failure(error)
        }
        _ = try call("registration", ["credential": made.response.json])
        return made.credential
    }

    /// Signs in as `email` with the passkey the store holds for it; nil when the relying party has none registered
    /// for the account (it answers 404), so the caller can register one after verifying the email.
    public func authenticate(email: String) throws(SignInError) -> PasskeyCredential? {
        guard let json = try call("authentication_options", ["email": .string(email)], missingIsNil: true) else {
            return nil
        }
        let optionsJSON = Array(try TurnkeyProxyClient.encode(json).utf8)
        let used: (credential: PasskeyCredential, response: AssertionResponse)
        do throws(PasskeyError) {
            let options = try RequestOptions(json: optionsJSON)
            let mine = known.filter { $0.kind == authenticator }
            guard let credential = PasskeyChoice.pick(options, from: mine) else {
                throw PasskeyError(
                    "this store holds no \(authenticator.rawValue) passkey the relying party lists for \(email); "
                        + "sign in where it was made, or remove the account's passkeys at the relying party")
            }
            switch authenticator {
            case .software:
                used = try SoftwarePasskey.assert(options, origin: origin, credential: credential)
            case .hardware:
                let key = try SecurityKey.shared.get()
                used = try key.assert(options, origin: origin, credential: credential, on: try key.firstDevice())
            }
        } catch {
            throw Self.failure(error)
        }
        _ = try call("authentication", ["credential": used.response.json])
        return used.credential
    }

    static func failure(_ error: PasskeyError) -> SignInError {
        .unavailable(reason: "passkey: \(error.description)")
    }

    private func call(
        _ route: String, _ body: [String: JSONValue], missingIsNil: Bool = false
    ) throws(SignInError) -> JSONValue? {
        let request = OutgoingRequest.json(
            baseURL + "/" + route, Array(try TurnkeyProxyClient.encode(.object(body)).utf8))
        let response = try transport.send(request)
        if missingIsNil, response.status == 404 { return nil }
        guard (200..<300).contains(response.status) else {
            throw TurnkeyProxyError.error(from: response, service: "the relying party", call: route, codeSent: false)
        }
        let json = try response.json()
        guard case .object = json else { throw .network(message: "the relying party's \(route) answer is not JSON") }
        return json
    }

    private func call(_ route: String, _ body: [String: JSONValue]) throws(SignInError) -> JSONValue {
        guard let json = try call(route, body, missingIsNil: false) else {
            throw .network(message: "the relying party answered \(route) with nothing")
        }
        return json
    }
}
