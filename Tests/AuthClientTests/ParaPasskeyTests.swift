import AuthClient
import AuthCore
import Foundation
import Sandbox
import Testing

/// Para's passkey step on the `sandbox` backend, the sandbox being the WebAuthn relying party: a new social user
/// verifies the email, then registers a software passkey, stored with the session; the next sign-in completes with
/// an assertion from it (no code sent); a store without the passkey, and a security key that is not plugged in,
/// end the sign-in with one line naming the fix.
@Suite(.serialized) struct ParaPasskeyTests {
    /// Signs `user` in with Google through the sandbox; answers the presenter once the attempt has ended or waits
    /// for a code.
    func start(
        _ sandbox: TurnkeySandbox, user: String, passkey: PasskeyCredential.Kind, known: [PasskeyCredential] = [],
        stored: PersistedSessions
    ) throws -> (SignInController, RecordingPresenter) {
        let presenter = RecordingPresenter()
        let controller = SignInController.recording(presenter, persist: stored.persist)
        controller.start(
            try sandbox.backend("google", backend: "sandbox", passkey: passkey, passkeys: known), timeout: 60)
        _ = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else { throw TurnkeySandbox.BrowseFailure(description: "no browser") }
        #expect(controller.paste(try sandbox.browse(url, user: user)) == .accepted)
        return (controller, presenter)
    }

    /// Waits for the code step and enters the code the outbox got.
    func enterEmailCode(_ sandbox: TurnkeySandbox, _ controller: SignInController, _ presenter: RecordingPresenter)
        throws
    {
        #expect(
            presenter.wait {
                if case .oneTimeCode(_, _, _?) = controller.state.attempt?.method { true } else { false }
            })
        guard case .oneTimeCode(_, _, let otpID?) = controller.state.attempt?.method else {
            throw TurnkeySandbox.BrowseFailure(description: "no code step")
        }
        controller.enterCode(try #require(sandbox.code(otpID: otpID)))
    }

    @Test func aNewUserCreatesAPasskeyAfterTheEmailAndTheNextSignInUsesIt() throws {
        let sandbox = try TurnkeySandbox()
        let stored = PersistedSessions()
        let (controller, presenter) = try start(sandbox, user: "cleo", passkey: .software, stored: stored)
        try enterEmailCode(sandbox, controller, presenter)
        guard case .success(let outcome)? = presenter.waitForEnd() else {
            Issue.record("no session: \(presenter.notices)")
            return
        }
        #expect(outcome.kind == .signup)
        let passkey = try #require(stored.sessions.last?.secrets.passkey)
        #expect(passkey.kind == .software)
        #expect(passkey.relyingPartyID == "127.0.0.1")
        #expect(passkey.userName == "cleo@example.com")
        #expect(passkey.privateKeyHex?.count == 64)

        // Known now, with a passkey at the relying party: the login completes with it, and no code is sent.
        let sent = sandbox.codesSent
        let (_, again) = try start(sandbox, user: "cleo", passkey: .software, known: [passkey], stored: stored)
        guard case .success(let next)? = again.waitForEnd() else {
            Issue.record("no second session")
            return
        }
        #expect(next.kind == .login)
        #expect(sandbox.codesSent == sent)
        #expect(stored.sessions.last?.secrets.passkey?.signCount == 1)
        #expect(stored.sessions.last?.secrets.passkey?.credentialID == passkey.credentialID)

        // A store that lacks the account's passkey cannot answer the relying party: one line, nothing stored.
        let count = stored.count
        let (_, lost) = try start(sandbox, user: "cleo", passkey: .software, stored: stored)
        guard case .failure(let error)? = lost.waitForEnd() else {
            Issue.record("signed in without the passkey")
            return
        }
        #expect(error.message.contains("this store holds no software passkey the relying party lists"))
        #expect(!error.message.contains("\n"))
        #expect(stored.count == count)
    }

    @Test func aKnownUserWithoutAPasskeyVerifiesTheEmailAndMakesOne() throws {
        let sandbox = try TurnkeySandbox()
        let stored = PersistedSessions()
        let (controller, presenter) = try start(sandbox, user: "ada", passkey: .software, stored: stored)
        try enterEmailCode(sandbox, controller, presenter)
        guard case .success(let outcome)? = presenter.waitForEnd() else {
            Issue.record("no session")
            return
        }
        #expect(outcome.kind == .login)
        #expect(stored.sessions.last?.secrets.passkey?.userName == "ada@example.com")
    }

    /// The security-key path as far as this machine goes: with no key plugged in, the registration stops at the
    /// device manifest with the one line saying so, and nothing is stored.
    @Test func aSecurityKeyThatIsNotPluggedInIsNamed() throws {
        let sandbox = try TurnkeySandbox()
        let stored = PersistedSessions()
        let (controller, presenter) = try start(sandbox, user: "cleo", passkey: .hardware, stored: stored)
        try enterEmailCode(sandbox, controller, presenter)
        guard case .failure(let error)? = presenter.waitForEnd() else {
            print("skipped: a security key answered; the none-present line is not checked")
            return
        }
        #expect(error.message.contains("no FIDO2 security key is plugged in; plug one in or use --passkey software"))
        #expect(stored.count == 0)
    }
}
