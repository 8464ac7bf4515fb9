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

    func browse(_ sandbox: TurnkeySandbox, user: String) throws {
        controller.start(try sandbox.backend("google", backend: "sandbox"), timeout: 60)
        _ = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else {
            Issue.record("no browser prompt")
            return
        }
        #expect(controller.paste(try sandbox.browse(url, user: user)) == .accepted)
    }

    @Test func anUnknownSocialUserGetsAnAccountAndVerifiesTheEmailFirst() throws {
        let sandbox = try TurnkeySandbox()
        try browse(sandbox, user: "cleo")
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
        #expect(stored.count == 1)

        // Known now: the next sign-in is direct, with no code.
        let sent = sandbox.codesSent
        let again = RecordingPresenter()
        let second = SignInController.recording(again, persist: stored.persist)
        second.start(try sandbox.backend("google", backend: "sandbox"), timeout: 60)
        _ = try #require(again.waitForBegin())
        guard case .browser(let url)? = again.prompts.last else {
            Issue.record("no browser prompt")
            return
        }
        #expect(second.paste(try sandbox.browse(url, user: "cleo")) == .accepted)
        guard case .success(let next)? = again.waitForEnd() else {
            Issue.record("no second session")
            return
        }
        #expect(next.kind == .login)
        #expect(sandbox.codesSent == sent)
    }

    /// Every provider the seed lists: Apple by its ID token as Google, Discord (no ID token) by the email its user
    /// endpoint names, signed up once the code proved it. The next sign-in finds the account and sends no code.
    @Test(arguments: ["apple", "discord"])
    func everyProviderOfTheSeedVerifiesANewUsersEmail(_ provider: String) throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        controller.start(
            try sandbox.backend(Provider(provider), backend: "sandbox", transport: transport), timeout: 60)
        _ = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else {
            Issue.record("no browser prompt")
            return
        }
        #expect(controller.paste(try sandbox.browse(url, user: "cleo")) == .accepted)
        #expect(
            presenter.wait {
                if case .oneTimeCode(.email("cleo@example.com"), _, _?) = controller.state.attempt?.method {
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
        controller.enterCode(try #require(sandbox.code(otpID: otpID)))
        guard case .success(let outcome)? = presenter.waitForEnd() else {
            Issue.record("no session")
            return
        }
        #expect(outcome.kind == .signup && outcome.record.email == "cleo@example.com")
        #expect(transport.count("/v1/signup") == 1)

        let sent = sandbox.codesSent
        let again = RecordingPresenter()
        let second = SignInController.recording(again, persist: stored.persist)
        second.start(try sandbox.backend(Provider(provider), backend: "sandbox"), timeout: 60)
        _ = try #require(again.waitForBegin())
        guard case .browser(let next)? = again.prompts.last else {
            Issue.record("no second browser prompt")
            return
        }
        #expect(second.paste(try sandbox.browse(next, user: "cleo")) == .accepted)
        guard case .success(let known)? = again.waitForEnd() else {
            Issue.record("no second session")
            return
        }
        #expect(known.kind == .login && sandbox.codesSent == sent)
    }

    /// X's user endpoint names no email, and Para branches on the email: a new X user signs in without the step.
    @Test func anXUserWithoutAnEmailSignsInWithoutTheBranch() throws {
        let sandbox = try TurnkeySandbox()
        controller.start(try sandbox.backend("x", backend: "sandbox"), timeout: 60)
        _ = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else {
            Issue.record("no browser prompt")
            return
        }
        #expect(controller.paste(try sandbox.browse(url, user: "cleo")) == .accepted)
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
