import AuthCore
import AuthCrypto
import Foundation

/// The code routes tkhq/swift-sdk speaks (`otp_init_v2`, `otp_verify_v2`, `otp_login_v2`, `signup_v2`): the typed
/// code travels HPKE-encrypted, with the session key, to the enclave key `otp_init_v2` names in a bundle its signer
/// signed. A proxy that answers `otp_init_v2` with 404 gets the v1 routes for the whole attempt.
extension TurnkeyProxyClient {
    /// What `otp_init_v2` answers; `targetBundle` is nil when the proxy spoke v1 (`otp_init`).
    public struct OTPStart: Equatable, Sendable {
        public let otpID: String
        public let targetBundle: String?

        public init(otpID: String, targetBundle: String?) {
            self.otpID = otpID
            self.targetBundle = targetBundle
        }
    }

    /// `signup_v2`'s members beyond the contact, for sign-ins that register more: `oauthProviders` entries
    /// (`v1OauthProviderParamsV2`: `providerName` with `oidcToken` or `oidcClaims` {iss, sub, aud}) and
    /// `authenticators` (`v1AuthenticatorParamsV2`). Both are signed in the token usage as sent.
    public struct SignupMembers: Equatable, Sendable {
        public var oauthProviders: [JSONValue]
        public var authenticators: [JSONValue]

        public init(oauthProviders: [JSONValue] = [], authenticators: [JSONValue] = []) {
            self.oauthProviders = oauthProviders
            self.authenticators = authenticators
        }
    }

    /// Sends a one-time code as the SDK does (`otp_init_v2`), or through `otp_init` where the proxy has no v2. A
    /// configured signer that is not a key is refused first, so no code is sent that could not be used.
    public func startOTP(contact: Contact) throws(SignInError) -> OTPStart {
        _ = try signerKey()
        let body: [String: JSONValue] = ["contact": .string(contact.value), "otpType": .string(Self.otpType(contact))]
        let response = try send("otp_init_v2", body)
        if response.status == 404 { return OTPStart(otpID: try initOTP(contact: contact), targetBundle: nil) }
        let json = try Self.object(response, of: "otp_init_v2", codeSent: false)
        return OTPStart(
            otpID: try Self.member(json, "otpId", of: "otp_init_v2"),
            targetBundle: try Self.member(json, "otpEncryptionTargetBundle", of: "otp_init_v2"))
    }

    /// `otp_verify_v2`: the code and `publicKey` (bound into the verificationToken) sealed to the bundle's target.
    /// Any refusal keeps the code step (`codeRefusal`), as the SDK's code screen stays for another try.
    public func verifyOTP(
        otpID: String, code: String, targetBundle: String, publicKey: String
    ) throws(SignInError) -> String {
        let sealed = try encryptedOTPBundle(code: code, publicKey: publicKey, targetBundle: targetBundle)
        let json = try call(
            "otp_verify_v2", ["otpId": .string(otpID), "encryptedOtpBundle": .string(sealed)], codeStep: true)
        return try Self.member(json, "verificationToken", of: "otp_verify_v2")
    }

    /// `otp_login_v2` as the SDK's `loginWithOtp` sends it: the token, the key it is bound to, that key's signature
    /// over the login usage, and `invalidateExisting: false`; no organizationId (the proxy finds it from the token).
    public func otpLoginV2(verificationToken: String, key: P256PrivateKey) throws(SignInError) -> LoginAnswer {
        let publicKey = key.publicKey.compressedHex
        let message = try Self.tokenUsage(
            verificationToken: verificationToken, type: "USAGE_TYPE_LOGIN",
            usage: ("login", .object(["publicKey": .string(publicKey)])))
        let body: [String: JSONValue] = [
            "clientSignature": try Self.clientSignature(message: message, key: key),
            "invalidateExisting": .bool(false), "publicKey": .string(publicKey),
            "verificationToken": .string(verificationToken),
        ]
        return try loginAnswer(try call("otp_login_v2", body), of: "otp_login_v2")
    }

    /// `signup_v2` for a verified contact as the SDK's `buildSignUpBody` fills it (`organizationName`
    /// `sub-org-<unix time>`, `userName` the email or `user-<unix time>`), signed over the `signupV2` usage.
    public func signupV2(
        contact: Contact, verificationToken: String, key: P256PrivateKey, members: SignupMembers = SignupMembers(),
        now: Date = Date()
    ) throws(SignInError) -> String? {
        let email = Self.isEmail(contact)
        var usage: [String: JSONValue] = [
            "apiKeys": .array([]), "authenticators": .array(members.authenticators),
            "oauthProviders": .array(members.oauthProviders),
        ]
        usage[email ? "email" : "phoneNumber"] = .string(contact.value)
        let message = try Self.tokenUsage(
            verificationToken: verificationToken, type: "USAGE_TYPE_SIGNUP", usage: ("signupV2", .object(usage)))
        var body = Self.signupBody(members, userEmail: email ? contact.value : nil, now: now)
        body[email ? "userEmail" : "userPhoneNumber"] = .string(contact.value)
        body["verificationToken"] = .string(verificationToken)
        body["clientSignature"] = try Self.clientSignature(message: message, key: key)
        return try call("signup_v2", body)["organizationId"]?.string
    }

    /// `signup_v2` for a social identity, as the SDK's `signUpWithOAuth` sends it.
    /// The token's own entry comes first, then one per `secondaryClientIDs` (more audiences for the identity).
    public func signupV2(
        oidcToken: String, providerName: String, secondaryClientIDs: [String] = [],
        members: SignupMembers = SignupMembers(), now: Date = Date()
    ) throws(SignInError) -> String? {
        var members = members
        members.oauthProviders =
            [.object(["providerName": .string(providerName), "oidcToken": .string(oidcToken)])]
            + Self.secondaryProviders(oidcToken: oidcToken, providerName: providerName, clientIDs: secondaryClientIDs)
            + members.oauthProviders
        return try call("signup_v2", Self.signupBody(members, userEmail: nil, now: now))["organizationId"]?.string
    }

    // MARK: - Pieces

    /// The configured signer as a key, or the one-line error that names the setting.
    func signerKey() throws(SignInError) -> P256PublicKey {
        guard let bytes = Hex.decode(otpSignerPublicKey.lowercased()), bytes.count == 65,
            let key = try? P256PublicKey(x963Representation: bytes)
        else {
            throw .unavailable(
                reason: "config.json's otpSignerPublicKey must be an uncompressed P-256 public key as 130 hex "
                    + "characters (04…), or left out for Turnkey's own signer")
        }
        return key
    }

    static func signupBody(_ members: SignupMembers, userEmail: String?, now: Date) -> [String: JSONValue] {
        let seconds = Int(now.timeIntervalSince1970)
        return [
            "apiKeys": .array([]), "authenticators": .array(members.authenticators),
            "oauthProviders": .array(members.oauthProviders), "organizationName": .string("sub-org-\(seconds)"),
            "userName": .string(userEmail ?? "user-\(seconds)"),
        ]
    }

    /// The SDK's `encryptOtpCodeToBundle`: the bundle's signature checked against `otpSignerPublicKey`, then
    /// `{"otp_code","public_key"}` (sorted keys) sealed to its `targetPublic` with info `turnkey_hpke` and the
    /// encapsulated key followed by the target key as associated data; answers `{"ciphertext","encappedPublic"}`.
    func encryptedOTPBundle(code: String, publicKey: String, targetBundle: String) throws(SignInError) -> String {
        let refused = SignInError.authenticationFailed(
            providerError: "the auth proxy's OTP encryption target is not signed by the expected signer "
                + "(otpSignerPublicKey in config.json)")
        guard let outer = try? JSONValue.parse(Array(targetBundle.utf8)),
            let signer = outer["enclaveQuorumPublic"]?.string, let signatureHex = outer["dataSignature"]?.string,
            let dataHex = outer["data"]?.string, let data = Hex.decode(dataHex.lowercased()),
            let signature = Hex.decode(signatureHex.lowercased())
        else {
            throw .network(message: "the auth proxy's otpEncryptionTargetBundle is not a signed bundle")
        }
        let trusted = try signerKey()
        guard signer.lowercased() == otpSignerPublicKey.lowercased(),
            trusted.isValidSignature(der: signature, for: data)
        else { throw refused }
        guard let inner = try? JSONValue.parse(data), let targetHex = inner["targetPublic"]?.string,
            let targetBytes = Hex.decode(targetHex.lowercased()),
            let target = try? P256PublicKey(x963Representation: targetBytes)
        else {
            throw .network(message: "the auth proxy's otpEncryptionTargetBundle names no P-256 targetPublic")
        }
        let plaintext = try Self.encode(.object(["otp_code": .string(code), "public_key": .string(publicKey)]))
        let sealed: HPKE.Sealed
        do {
            // The associated data holds the encapsulated key, so the ephemeral key is drawn first.
            let ephemeral = try P256PrivateKey()
            sealed = try HPKE.seal(
                Array(plaintext.utf8), to: target, info: Array("turnkey_hpke".utf8),
                associatedData: ephemeral.publicKey.x963Representation + target.x963Representation,
                ephemeral: ephemeral)
        } catch {
            throw .unavailable(reason: "the code cannot be encrypted: \(error.description)")
        }
        return try Self.encode(
            .object([
                "ciphertext": .string(Hex.encode(sealed.ciphertext)),
                "encappedPublic": .string(Hex.encode(sealed.encapsulatedKey)),
            ]))
    }
}

extension TurnkeyProxyClient {
    /// A refusal of a request that carried a typed code, by tkhq/swift-sdk's rule: every non-2xx answer is an
    /// `apiError(statusCode, payload)` that fails `verifyOtp`, and its example app keeps the code screen ("Invalid
    /// code. Please try again.") whatever the status. So a wrong code, an expired one (FAILED_PRECONDITION) and
    /// too many tries (429, RESOURCE_EXHAUSTED) all keep the code step, with the proxy's rpcStatus message.
    static func codeRefusal(_ response: IncomingResponse) -> SignInError {
        guard let json = try? JSONValue.parse(response.body), let message = json["message"]?.string, !message.isEmpty
        else {
            return .codeRefused(
                reason: "the auth proxy answered HTTP \(response.status) with \(TurnkeyProxyError.bodyKind(response))")
        }
        return .codeRefused(reason: TurnkeyProxyError.printable(message))
    }
}
