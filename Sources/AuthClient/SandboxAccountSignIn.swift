import AuthCore
import AuthCrypto
import Foundation
import Synchronization

/// The `sandbox` backend's social sign-ins, with Para's branch (seed 001): the provider leg runs as a direct
/// sign-in, then the sandbox's auth proxy is asked whether it knows the user. A known user is signed in at once;
/// an unknown one must verify the email the provider named with a code sent to it (`otp_init`, entered on the code
/// screen, `otp_verify`) before the session counts. Google and Apple are looked up by their ID token and get their
/// account (`signup` with it) before the code goes out, as Para's `createUser` comes before its verification;
/// Discord and X, which issue no ID token, are looked up by the email (Para's `checkIfUserExists(email:)`) and
/// signed up with it once the code proved it. A provider that names no email signs in without the branch. With a
/// passkey step (`--passkey`, ID-token providers only), a known user completes the login with the store's passkey,
/// and a new one (or a known one without a passkey) creates one after verifying the email.
public final class SandboxAccountSignIn: SignInBackend, Sendable {
    public let inner: SignInBackend
    public let proxy: TurnkeyProxyClient
    public let passkey: PasskeyStep?

    private struct NewAccount {
        /// The session the provider issued, held while its new account's email is verified.
        var held: IssuedSession?
        var contact: Contact?
        /// No ID token to sign up with: the account is made from the email once the code proved it.
        var signsUpByEmail = false
    }
    private let newAccount = Mutex(NewAccount())

    public init(inner: SignInBackend, proxy: TurnkeyProxyClient, passkey: PasskeyStep? = nil) {
        self.inner = inner
        self.proxy = proxy
        self.passkey = passkey
    }

    public var waitsForRedirect: Bool { inner.waitsForRedirect }

    public func method(loopbackRedirectURI: String?) throws(SignInError) -> SignInMethod {
        try inner.method(loopbackRedirectURI: loopbackRedirectURI)
    }

    public func makeAttempt(id: AttemptID, method: SignInMethod, deadline: Date) throws(SignInError) -> Attempt {
        try inner.makeAttempt(id: id, method: method, deadline: deadline)
    }

    public func begin(_ attempt: Attempt) throws(SignInError) -> AttemptPrompt {
        try inner.begin(attempt)
    }

    public func exchange(_ attempt: Attempt, _ grant: Grant) throws(SignInError) -> BackendAnswer {
        try checkAccount(try inner.exchange(attempt, grant))
    }

    public func pollDevice(_ attempt: Attempt, interval: inout Int) throws(SignInError) -> BackendAnswer? {
        guard let answer = try inner.pollDevice(attempt, interval: &interval) else { return nil }
        return try checkAccount(answer)
    }

    public func verifyCode(_ attempt: Attempt, otpID: String, code: String) throws(SignInError) -> BackendAnswer {
        let (held, contact, byEmail) = newAccount.withLock { ($0.held, $0.contact, $0.signsUpByEmail) }
        guard let issued = held, let contact else { throw .invalidCode }
        let verificationToken: String
        if byEmail {
            // The verification token is bound to a key of this signup only, whose signature the signup carries.
            let key: P256PrivateKey
            do {
                key = try P256PrivateKey()
            } catch {
                throw .unavailable(reason: error.description)
            }
            verificationToken = try proxy.verifyOTP(otpID: otpID, code: code, publicKey: key.publicKey.compressedHex)
            _ = try proxy.signup(contact: contact, verificationToken: verificationToken, key: key)
        } else {
            verificationToken = try proxy.verifyOTP(otpID: otpID, code: code, publicKey: nil)
        }
        newAccount.withLock { $0.held = nil }
        guard let passkey else { return .issued(issued) }
        var session = issued.session
        session.secrets.passkey = try passkey.register(verificationToken: verificationToken)
        return .issued(IssuedSession(session: session, kind: issued.kind))
    }

    public func revoke(_ issued: IssuedSession) { inner.revoke(issued) }

    public func notes(for attempt: Attempt, randomPort: Bool) -> [String] {
        inner.notes(for: attempt, randomPort: randomPort)
    }

    public func responseParameters(_ callback: Callback) throws(SignInError) -> Callback {
        try inner.responseParameters(callback)
    }

    public func resendCode(_ attempt: Attempt) throws(SignInError) -> String {
        guard let contact = newAccount.withLock({ $0.contact }) else {
            throw .authMethodUnavailable(method: "one-time code")
        }
        return try proxy.initOTP(contact: contact)
    }

    /// A provider session whose user the proxy does not know becomes a new account waiting for its email code.
    private func checkAccount(_ answer: BackendAnswer) throws(SignInError) -> BackendAnswer {
        guard case .issued(let issued) = answer, let email = issued.session.record.email else { return answer }
        var known = false
        if let idToken = issued.session.secrets.idToken {
            known = try proxy.account(filterType: "OIDC_TOKEN", filterValue: idToken) != nil
            if known {
                guard let passkey else { return answer }
                if let used = try passkey.authenticate(email: email) {
                    var session = issued.session
                    session.secrets.passkey = used
                    return .issued(IssuedSession(session: session, kind: issued.kind))
                }
                // A known account without a passkey at the relying party proves its email before making one.
            } else {
                _ = try proxy.signup(oidcToken: idToken, providerName: issued.session.record.provider)
            }
        } else if try proxy.account(filterType: "EMAIL", filterValue: email) != nil {
            return answer
        }
        let contact = Contact.email(email)
        let config = try proxy.walletKitConfig()
        let otpID = try proxy.initOTP(contact: contact)
        newAccount.withLock {
            $0.held = IssuedSession(session: issued.session, kind: known ? issued.kind : .signup)
            $0.contact = contact
            $0.signsUpByEmail = issued.session.secrets.idToken == nil
        }
        return .codeRequired(contact: contact, format: config.otpFormat, otpID: otpID)
    }
}
