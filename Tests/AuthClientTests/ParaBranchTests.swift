import AuthClient
import AuthCore
import Foundation
import Sandbox
import Testing

/// Para's branch (seed 001) on the default `sandbox` backend: a social sign-in of a user the sandbox does not know
/// creates the account and waits for the code sent to its email; a known user signs in at once.
@Suite(.serialized) struct ParaBranchTests {
    let presenter = RecordingPresenter()
    let stored = PersistedSessions()
    let controller: SignInController
    init() { controller = .recording(presenter, persist: stored.persist) }

    func browse(
        _ sandbox: TurnkeySandbox, user: String, provider: Provider = .google,
        transport: RecordingTransport = RecordingTransport()
    ) throws {
        controller.start(try sandbox.backend(provider, backend: "sandbox", transport: transport), timeout: 60)
        _ = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else {
            Issue.record("no browser prompt")
            return
        }
        #expect(controller.paste(try sandbox.browse(url, user: user)) == .accepted)
    }

    /// `user`'s next sign-in with `provider`, on a controller of its own once the first has ended: its outcome.
    func signInAgain(_ sandbox: TurnkeySandbox, _ provider: Provider, user: String) throws -> SignInOutcome? {
        let again = RecordingPresenter()
        let second = SignInController.recording(again, persist: stored.persist)
        second.start(try sandbox.backend(provider, backend: "sandbox"), timeout: 60)
        _ = try #require(again.waitForBegin())
        guard case .browser(let url)? = again.prompts.last else {
            Issue.record("no browser prompt for the next sign-in")
            return nil
        }
        #expect(second.paste(try sandbox.browse(url, user: user)) == .accepted)
        guard case .success(let next)? = again.waitForEnd() else { return nil }
        return next
    }

    /// Every provider the seed lists: Google and Apple looked up and signed up by their ID token before the code,
    /// Discord (no ID token) by the email its user endpoint names, signed up once the code proved it.
    @Test(arguments: ["google", "apple", "discord"])
    func anUnknownSocialUserGetsAnAccountAndVerifiesTheEmailFirst(_ provider: String) throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        try browse(sandbox, user: "cleo", provider: Provider(provider), transport: transport)
        #expect(
            presenter.wait {
                if case .awaitingCallback(let attempt, .waiting) = controller.state,
                    case .oneTimeCode(.email("cleo@example.com"), _, _?) = attempt.method
                {
                    true
                } else {
                    false
                }
            })
        #expect(stored.count == 0)
        guard case .oneTimeCode(_, _, let otpID?) = controller.state.attempt?.method else {
            Issue.record("no code step")
            return
        }
        let code = try #require(sandbox.code(otpID: otpID))
        controller.enterCode(TurnkeySandbox.wrongCode(for: code))
        #expect(presenter.wait { presenter.notices.contains(.invalidCode) })
        #expect(stored.count == 0)
        controller.enterCode(code)
        guard case .success(let outcome)? = presenter.waitForEnd() else {
            Issue.record("no session")
            return
        }
        #expect(outcome.kind == .signup)
        #expect(outcome.record.email == "cleo@example.com")
        #expect(stored.count == 1 && transport.count("/v1/signup") == 1)

        // Known now: the next sign-in is direct, with no code.
        let sent = sandbox.codesSent
        #expect(try signInAgain(sandbox, Provider(provider), user: "cleo")?.kind == .login)
        #expect(sandbox.codesSent == sent)
    }

    /// X's user endpoint names no email, and Para branches on the email: a new X user signs in without the step.
    @Test func anXUserWithoutAnEmailSignsInWithoutTheBranch() throws {
        let sandbox = try TurnkeySandbox()
        try browse(sandbox, user: "cleo", provider: .x)
        guard case .success(let outcome)? = presenter.waitForEnd() else {
            Issue.record("no session")
            return
        }
        #expect(outcome.record.email == nil && sandbox.codesSent == 0)
    }

    @Test func aKnownSocialUserSignsInDirectly() throws {
        let sandbox = try TurnkeySandbox()
        try browse(sandbox, user: "ada")
        guard case .success(let outcome)? = presenter.waitForEnd() else {
            Issue.record("no session")
            return
        }
        #expect(outcome.kind == .login)
        #expect(sandbox.codesSent == 0)
    }

    @Test func aLateRedirectWhileTheCodeIsAwaitedStartsNothing() throws {
        let sandbox = try TurnkeySandbox()
        controller.start(try sandbox.backend("google", backend: "sandbox"), timeout: 60)
        let attempt = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else {
            Issue.record("no browser prompt")
            return
        }
        let final = try sandbox.browse(url, user: "cleo")
        #expect(controller.paste(final) == .accepted)
        #expect(
            presenter.wait {
                if case .oneTimeCode(_, _, _?) = controller.state.attempt?.method { true } else { false }
            })
        #expect(controller.paste(final) != .accepted)
        #expect(controller.state.attempt?.id == attempt.id)
        controller.cancel()
        _ = presenter.waitForEnd()
        #expect(stored.count == 0)
    }
}
