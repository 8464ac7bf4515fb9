import AuthCore
import AuthCrypto
import Foundation
import Synchronization

/// Why ending a session at the provider did not finish.
public enum ProviderSignOutFailure: Error, Equatable, Sendable {
    /// The redirect to the post-logout URI carried another state, or none: not the answer to this request.
    case stateMismatch
    /// The provider sent the browser back with an OAuth error instead.
    case providerError(String)
    /// Nothing came back in time.
    case timedOut
    /// The browser could not be started, or the receiver could not listen.
    case unavailable(String)

    /// One line for the terminal; never a token.
    public var message: String {
        switch self {
        case .stateMismatch:
            return "the redirect back from the provider carried no state or another one than this sign-out's"
        case .providerError(let error): return "the provider answered \(SignInError.printable(error))"
        case .timedOut: return "the browser did not come back from the provider's sign-out page in time"
        case .unavailable(let reason): return reason
        }
    }
}

/// OpenID Connect RP-Initiated Logout 1.0 from the relying party's side: the end-session URL (section 2) carries
/// the session's ID token as `id_token_hint`, the client id, the registered `post_logout_redirect_uri` and a fresh
/// `state`; the loopback receiver (the sign-in's, with its peer check) listens at that URI for the browser's return
/// (section 3) and takes it only with the same state.
public final class ProviderSignOut: Sendable {
    /// What the browser opens. It holds the ID token: shown to the user and handed to the browser, as the
    /// specification asks, never written to a log or trace (`FlowTrace` redacts `id_token_hint`).
    public let url: String
    private let receiver: LoopbackReceiver
    private let answer = Answer()

    /// The first answer the receiver took, and the signal that it came.
    private final class Answer: Sendable {
        let held = Mutex<Result<Void, ProviderSignOutFailure>?>(nil)
        let arrived = DispatchSemaphore(value: 0)
    }

    /// Starts the receiver at `postLogoutRedirectURI` (a loopback URL with a port) and builds the URL.
    public init(
        endpoint: String, idToken: String, clientID: String, postLogoutRedirectURI: String,
        pages: CallbackPages = CallbackPages()
    ) throws(ProviderSignOutFailure) {
        let binding = try Self.binding(postLogoutRedirectURI)
        let state: String
        do {
            state = AttemptSecrets.state(randomBytes: try SecureRandom.bytes(16))
        } catch {
            throw .unavailable("no random bytes for the state")
        }
        // The URL carries the ID token: only over https (or http on this machine), whether a browser opens it or
        // the user copies it.
        guard URLComponents(string: endpoint)?.host != nil, !endpoint.contains("#"), URLPolicy.isBrowsable(endpoint)
        else {
            throw .unavailable(
                "the end-session endpoint '\(URLPolicy.redacted(endpoint))' is not an https URL "
                    + "(http only on 127.0.0.1 or localhost)")
        }
        // Section 2: parameters the endpoint already has in its query are kept, ours follow.
        let url =
            endpoint + (endpoint.contains("?") ? "&" : "?")
            + FormEncoding.encode([
                ("id_token_hint", idToken), ("client_id", clientID),
                ("post_logout_redirect_uri", postLogoutRedirectURI), ("state", state),
            ])
        self.url = url
        let answer = self.answer
        do {
            receiver = try binding.open(pages: pages, received: "authdeck received the sign-out.") {
                parsed, _ in
                let verdict: Result<Void, ProviderSignOutFailure>
                switch parsed {
                case .failure(let failure): return .refused(failure.description)
                case .success(let callback):
                    if callback.state != state {
                        verdict = .failure(.stateMismatch)
                    } else if let error = callback.error {
                        verdict = .failure(.providerError(error))
                    } else {
                        verdict = .success(())
                    }
                }
                // The first answer decides; a later request (a reload) changes nothing.
                let first = answer.held.withLock { held in
                    guard held == nil else { return false }
                    held = verdict
                    return true
                }
                if first { answer.arrived.signal() }
                switch verdict {
                case .success: return .accepted
                case .failure(let failure): return .refused("authdeck refused this sign-out: \(failure.message).")
                }
            }
        } catch {
            throw .unavailable(error.message)
        }
    }

    /// The loopback address the post-logout URI names; providers match it exactly, so it is never a random port.
    static func binding(_ uri: String) throws(ProviderSignOutFailure) -> LoopbackBinding {
        let binding: LoopbackBinding
        do {
            binding = try LoopbackBinding.resolve(registered: uri, listenPort: 0)
        } catch {
            throw .unavailable(error.message)
        }
        guard binding.registeredURI != nil else {
            throw .unavailable(
                "the post-logout redirect URI '\(URLPolicy.redacted(uri))' is not http://127.0.0.1:PORT/PATH")
        }
        return binding
    }

    /// Waits for the browser's return, up to `timeout` seconds; the receiver stops either way.
    public func wait(timeout: TimeInterval) -> Result<Void, ProviderSignOutFailure> {
        defer { receiver.stop() }
        if answer.arrived.wait(timeout: .now() + timeout) == .timedOut { return .failure(.timedOut) }
        // The answer is taken before its page is sent: the receiver stays a moment, as the sign-in's does, so the
        // browser still shows what happened.
        Thread.sleep(forTimeInterval: 0.5)
        return answer.held.withLock { $0 } ?? .failure(.timedOut)
    }

    /// Stops listening without waiting (the browser could not be opened).
    public func stop() { receiver.stop() }
}
