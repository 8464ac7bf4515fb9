import AuthClient
import AuthCore
import Foundation
import SessionStorage

/// What a sign-out that ends the session at the provider did at each place, in the order the steps run.
struct SignOutReport: Equatable, Sendable {
    /// The provider's end-session endpoint (RP-Initiated Logout).
    enum AtProvider: Equatable, Sendable {
        case signedOut
        case failed(String)
    }

    /// RFC 7009 revocation, when asked for.
    enum Revoked: Equatable, Sendable {
        case notAsked
        case yes
        case failed(String)
        /// Asked for, but an earlier step failed, so it did not run.
        case notTried
    }

    var atProvider: AtProvider
    var revoked: Revoked
    var removedHere: Bool
    /// The exit code of the step that failed; nil when every step ran.
    var failureCode: ExitCode?

    /// `At the provider: signed out · Revoked: yes · Removed here: yes`.
    var summary: String {
        let provider: String
        switch atProvider {
        case .signedOut: provider = "signed out"
        case .failed(let reason): provider = "failed (\(reason))"
        }
        let revocation: String
        switch revoked {
        case .notAsked: revocation = "not asked"
        case .yes: revocation = "yes"
        case .failed(let reason): revocation = "failed (\(reason))"
        case .notTried: revocation = "not tried"
        }
        return "At the provider: \(provider) · Revoked: \(revocation) · Removed here: \(removedHere ? "yes" : "no")"
    }
}

/// One use case for ending a session at its provider, for `logout --end-session` and the TUI's sign-out alike:
/// the provider's end-session endpoint in the browser (OpenID Connect RP-Initiated Logout 1.0), then revocation
/// when asked for, then the session removed here. A step that fails stops the ones after it, so the session is
/// kept whenever the provider may still hold it: the user tries again, or removes it here alone with `logout`.
struct SignOutUseCase {
    let configuration: Configuration
    let dataFolder: URL
    let store: SessionStore
    let refresher: SessionRefresher
    /// What fetches the issuer's discovery document (the command's CA trust goes with it).
    let transport: HTTPTransport

    /// How long the browser has to come back, unless `--timeout` says otherwise: as long as a sign-in has.
    static let defaultTimeout: TimeInterval = 300

    /// What one sign-out at the provider sends, checked before anything opens.
    struct Target: Sendable {
        let key: String
        let session: Session
        let endSessionEndpoint: String
        let idToken: String
        let clientID: String
        let postLogoutRedirectURI: String
    }

    /// Whether the session's provider has an end-session endpoint, as far as a discovery document fetched before
    /// says (no request is sent): what the TUI's sign-out question asks before it offers the provider.
    static func offered(_ record: SessionRecord, dataFolder: URL) -> Bool {
        let cache = ProviderMetadataCache(
            transport: CurlTransport(), folder: dataFolder.appendingPathComponent("cache"))
        let discovery = ProviderPreset.discoveryURL(issuer: record.issuer)
        return cache.cachedEndpoints(issuer: record.issuer, discoveryURL: discovery)?.endSession != nil
    }

    /// The session, its ID token, the end-session endpoint from the issuer's discovery and the post-logout URI;
    /// each missing one is a line naming the fix, before any browser opens or anything is removed.
    func prepare(_ key: String) throws(CommandFailure) -> Target {
        let session = try StoreCommands.attempt { () throws(StoreError) in try store.session(key) }
        let record = session.record
        let metadata = ProviderMetadataCache(transport: transport, folder: dataFolder.appendingPathComponent("cache"))
        let endpoints: ProviderEndpoints
        do throws(SignInError) {
            endpoints = try metadata.endpoints(
                issuer: record.issuer, discoveryURL: ProviderPreset.discoveryURL(issuer: record.issuer))
        } catch {
            throw CommandFailure(
                error.exitCode,
                "cannot end '\(key)' at the provider: \(error.message) Nothing was removed.")
        }
        guard let endpoint = endpoints.endSession else {
            throw CommandFailure(
                .authenticationFailed,
                "\(URLPolicy.redacted(record.issuer)) names no end_session_endpoint, so '\(key)' cannot be ended "
                    + "there; nothing was removed (authdeck logout \(key) removes it here only)")
        }
        guard let idToken = session.secrets.idToken, !idToken.isEmpty else {
            throw CommandFailure(
                .authenticationFailed,
                "'\(key)' holds no ID token to name the provider's session with; nothing was removed "
                    + "(authdeck logout \(key) removes it here only)")
        }
        guard let clientID = session.secrets.endpoints?.clientID else {
            throw CommandFailure(
                .authenticationFailed,
                "'\(key)' keeps no client id for its provider; nothing was removed "
                    + "(authdeck logout \(key) removes it here only)")
        }
        return Target(
            key: key, session: session, endSessionEndpoint: endpoint, idToken: idToken, clientID: clientID,
            postLogoutRedirectURI: try postLogoutRedirectURI(for: record))
    }

    /// config.json's `postLogoutRedirectURI` for the session's provider and backend, else `/logout` on `listen`'s
    /// port. Providers compare it byte for byte with what they registered, so a random port never works.
    func postLogoutRedirectURI(for record: SessionRecord) throws(CommandFailure) -> String {
        if let configured = configuration.provider(record.provider, backend: record.backend).postLogoutRedirectURI {
            return configured
        }
        guard let listen = configuration.listen else {
            throw .usage(
                "set listen (127.0.0.1:PORT) or providers.\(record.provider).postLogoutRedirectURI in config.json, "
                    + "and register that address with the provider as a post_logout_redirect_uri")
        }
        guard let port = LoopbackBinding.listenPort(listen) else {
            throw .usage("config.json: listen takes 127.0.0.1:PORT, not '\(TerminalText.sanitized(listen))'")
        }
        return "http://127.0.0.1:\(port)/logout"
    }

    /// Ends the session at the provider (`open` hands the URL to the browser or shows it), waits up to `timeout`,
    /// then revokes when `revoke` says, then removes the session here; a failed step stops the rest.
    func run(
        _ target: Target, revoke: Bool, timeout: TimeInterval,
        open: (String) throws(SignInError) -> Void
    ) -> SignOutReport {
        var report = SignOutReport(
            atProvider: .signedOut, revoked: revoke ? .notTried : .notAsked, removedHere: false)
        let result: Result<Void, ProviderSignOutFailure>
        do throws(ProviderSignOutFailure) {
            let signOut = try ProviderSignOut(
                endpoint: target.endSessionEndpoint, idToken: target.idToken, clientID: target.clientID,
                postLogoutRedirectURI: target.postLogoutRedirectURI)
            do throws(SignInError) {
                try open(signOut.url)
                result = signOut.wait(timeout: timeout)
            } catch {
                signOut.stop()
                result = .failure(.unavailable(error.message))
            }
        } catch {
            result = .failure(error)
        }
        if case .failure(let failure) = result {
            report.atProvider = .failed(failure.message)
            report.failureCode = failure.exitCode
            return report
        }
        if revoke {
            do throws(SignInError) {
                try refresher.revoke(target.session)
                report.revoked = .yes
            } catch {
                report.revoked = .failed(error.message)
                report.failureCode = error.exitCode
                return report
            }
        }
        do throws(StoreError) {
            try store.remove(target.key)
            report.removedHere = true
        } catch {
            report.failureCode = StoreCommands.failure(error).code
        }
        return report
    }
}

extension ProviderSignOutFailure {
    /// SPEC section 5: a refused answer is 4, no answer in time 6, anything else 1.
    var exitCode: ExitCode {
        switch self {
        case .stateMismatch, .providerError: return .authenticationFailed
        case .timedOut: return .timedOut
        case .unavailable: return .failed
        }
    }
}
