import AuthClient
import AuthCore
import Foundation
import Sandbox
import Synchronization
import Testing

/// A real backend whose exchange waits at a gate, so a test can cancel while the request is out.
final class GatedBackend: SignInBackend, Sendable {
    let inner: SignInBackend
    let gate = DispatchSemaphore(value: 0)
    let entered = DispatchSemaphore(value: 0)
    private let revokedSessions = Mutex<[IssuedSession]>([])

    init(_ inner: SignInBackend) { self.inner = inner }

    var revoked: [IssuedSession] { revokedSessions.withLock { $0 } }
    var waitsForRedirect: Bool { inner.waitsForRedirect }

    func method(loopbackRedirectURI: String?) throws(SignInError) -> SignInMethod {
        try inner.method(loopbackRedirectURI: loopbackRedirectURI)
    }

    func makeAttempt(id: AttemptID, method: SignInMethod, deadline: Date) throws(SignInError) -> Attempt {
        try inner.makeAttempt(id: id, method: method, deadline: deadline)
    }

    func begin(_ attempt: Attempt) throws(SignInError) -> AttemptPrompt { try inner.begin(attempt) }

    func exchange(_ attempt: Attempt, _ grant: Grant) throws(SignInError) -> BackendAnswer {
        entered.signal()
        _ = gate.wait(timeout: .now() + 10)
        return try inner.exchange(attempt, grant)
    }

    func revoke(_ issued: IssuedSession) {
        inner.revoke(issued)
        revokedSessions.withLock { $0.append(issued) }
    }
}

/// A report callback that reads the controller's `state` as each state change is reported, on the controller's queue.
final class StateReadingPresenter: Sendable {
    let controller = Mutex<SignInController?>(nil)
    /// Each reported state next to the one `state` answered in the same callback.
    let reads = Mutex<[(reported: SignInStateMachine.State, read: SignInStateMachine.State)]>([])
    let ended = DispatchSemaphore(value: 0)

    func report(_ progress: SignInProgress) {
        guard let controller = controller.withLock({ $0 }) else { return }
        switch progress {
        case .stateChanged(let reported):
            let read = controller.state
            reads.withLock { $0.append((reported, read)) }
        case .finished:
            ended.signal()
        case .began, .notice, .callbackArrived, .replayed, .redirectUnreachable, .note:
            break
        }
    }
}

/// The controller's side of the cancel races, against the real sandbox: what a cancelled request issued is
/// revoked at the provider and never stored; a cancel while the store writes never hides a stored session.
@Suite(.serialized) struct CancelRaceTests {
    @Test func aCancelWhileExchangingRevokesTheIssuedSessionAndStoresNothing() throws {
        let sandbox = try TurnkeySandbox()
        let presenter = RecordingPresenter()
        let stored = PersistedSessions()
        let controller = SignInController(
            report: presenter.report, persist: stored.persist,
            receivers: ReceiverOptions(), browser: nil)
        let backend = GatedBackend(try sandbox.backend("google", backend: "sandbox"))
        controller.start(backend, timeout: 60)
        _ = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else {
            Issue.record("no browser prompt")
            return
        }
        #expect(controller.paste(try sandbox.browse(url)) == .accepted)
        #expect(backend.entered.wait(timeout: .now() + 10) == .success)
        controller.cancel()
        #expect(presenter.wait { if case .awaitingCallback(_, .cancelling) = controller.state { true } else { false } })
        #expect(presenter.results.isEmpty)  // not reported before the request answers
        backend.gate.signal()
        guard case .failure(.closed)? = presenter.waitForEnd() else {
            Issue.record("not cancelled")
            return
        }
        #expect(stored.count == 0)
        #expect(backend.revoked.count == 1)  // revoked before the cancel was reported
        // Revoked at the provider: its user endpoint no longer takes the access token.
        let session = try #require(backend.revoked.first?.session)
        let status = try SessionRefresher(transport: CurlTransport(timeout: 3)).check(session)
        #expect(status == .refused(401))
    }

    @Test func theStateReadInsideAReportCallbackIsTheStateReported() throws {
        let sandbox = try TurnkeySandbox()
        let presenter = StateReadingPresenter()
        let controller = SignInController(
            report: presenter.report, persist: PersistedSessions().persist,
            receivers: ReceiverOptions(), browser: nil)
        presenter.controller.withLock { $0 = controller }
        defer { presenter.controller.withLock { $0 = nil } }
        controller.start(try sandbox.backend("google", backend: "sandbox"), timeout: 60)
        controller.cancel()
        // Reading `state` by waiting for the controller's queue, from a callback running on it, never returns.
        #expect(presenter.ended.wait(timeout: .now() + 10) == .success)
        let reads = presenter.reads.withLock { $0 }
        #expect(reads.count >= 2)  // waiting, then idle again
        for (reported, read) in reads { #expect(read == reported) }
    }

    @Test func aCancelWhilePersistingReportsTheStoredSession() throws {
        let sandbox = try TurnkeySandbox()
        let presenter = RecordingPresenter()
        let stored = PersistedSessions()
        let writing = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let inner = stored.persist
        let persist: SignInController.Persist = { session throws(SignInError) in
            writing.signal()
            _ = gate.wait(timeout: .now() + 10)
            return try inner(session)
        }
        let controller = SignInController.recording(presenter, persist: persist)
        controller.start(try sandbox.backend("google", backend: "sandbox"), timeout: 60)
        _ = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else {
            Issue.record("no browser prompt")
            return
        }
        #expect(controller.paste(try sandbox.browse(url)) == .accepted)
        #expect(writing.wait(timeout: .now() + 10) == .success)
        controller.cancel()
        gate.signal()
        guard case .success(let outcome)? = presenter.waitForEnd() else {
            Issue.record("not reported")
            return
        }
        #expect(stored.count == 1)
        #expect(outcome.record.key == stored.sessions.first?.record.key)
    }
}
