import AuthCore
import Foundation

@testable import TerminalUI

/// Sessions, attempts and states the screen and reducer tests share. Times are fixed and the clock offset is zero,
/// so every snapshot is the same on every machine.
enum AppFixtures {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00 UTC

    static func record(
        _ key: String, provider: String = "google", user: String? = nil, email: String? = nil,
        backend: String = "direct", expiresIn: TimeInterval? = 3600, refreshable: Bool = false,
        autoRefresh: Bool = false, scopes: [String] = ["openid", "email"]
    ) -> SessionRecord {
        SessionRecord(
            key: key, backend: backend, provider: provider, subject: "sub-\(key)", email: email,
            displayName: user, issuer: "https://issuer.example/\(provider)",
            createdAt: now.addingTimeInterval(-7200), expiresAt: expiresIn.map { now.addingTimeInterval($0) },
            refreshable: refreshable, scopes: scopes, autoRefresh: autoRefresh)
    }

    static let sessions: [SessionItem] = [
        SessionItem(
            record: record(
                "lab-discord", provider: "discord", email: "grace@example.com",
                backend: "sandbox", expiresIn: 185), isSelected: false),
        SessionItem(
            record: record(
                "work-google", user: "Ada Lovelace", email: "ada@example.com",
                expiresIn: 3000, refreshable: true, autoRefresh: true), isSelected: true),
        SessionItem(record: record("東京-x", provider: "x", user: "花子 🎌", expiresIn: -60), isSelected: false),
        SessionItem(
            record: record(
                "ops-oidc", provider: "oidc", email: "ops@corp.example", backend: "sandbox",
                expiresIn: nil), isSelected: false),
    ]

    static func state(
        rows: Int = 24, cols: Int = 80, sessions: [SessionItem] = sessions,
        store: StoreStatus = .unlocked(until: now.addingTimeInterval(900), source: "passphrase")
    )
        -> AppState
    {
        AppState(
            rows: rows, cols: cols, now: now, backends: ["sandbox", "direct"], defaultBackend: "sandbox",
            store: store, sessions: sessions)
    }

    static func attempt(
        method: SignInMethod = .browser(redirectURI: "http://127.0.0.1:40123/callback"),
        provider: Provider = .google, resendIn: TimeInterval? = nil
    ) -> Attempt {
        Attempt(
            id: AttemptID(1), backend: "sandbox", provider: provider, method: method, state: "st4te",
            codeVerifier: "verifier", nonce: "nonce", deadline: now.addingTimeInterval(299),
            resendAvailableAt: resendIn.map { now.addingTimeInterval($0) })
    }

    static let authorizeURL =
        "http://127.0.0.1:41909/oidc/google/authorize?response_type=code&client_id=sandbox-google"
        + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A40123%2Fcallback&scope=openid%20email&state=st4te"

    /// A small QR-like matrix (21×21) so the block fits at 120×40 but not beside the text at 80×24.
    static let modules: [[Bool]] = (0..<21).map { row in (0..<21).map { col in (row * 7 + col * 3) % 5 < 2 } }

    static let outcome = SignInOutcome(
        record: record("google-ada", user: "Ada", email: "ada@example.com", backend: "sandbox"), kind: .login)

    /// Feeds events one by one, as the event loop does, and gathers the effects.
    static func run(_ state: AppState, _ events: [AppEvent]) -> (AppState, [AppEffect]) {
        var current = state
        var effects: [AppEffect] = []
        for event in events {
            let (next, more) = AppState.update(current, event)
            current = next
            effects += more
        }
        return (current, effects)
    }

    static func keys(_ text: String) -> [AppEvent] {
        text.map { .key(.character($0)) }
    }

    /// A state with flow 1 started for `provider` and, when given, the controller's first reports, then what the
    /// event loop added (QR codes, trace steps).
    static func flowState(
        rows: Int = 24, cols: Int = 80, provider: Character = "g",
        reports: [SignInProgress] = [], details: [SignInDetail] = []
    ) -> AppState {
        let (started, _) = run(state(rows: rows, cols: cols), [.key(.character("n")), .key(.character(provider))])
        return run(started, reports.map { .signIn(flow: 1, $0) } + details.map { .signInDetail(flow: 1, $0) }).0
    }

    /// A QR-like matrix of a version-12 code (65×65), what a sign-in URL of 360 bytes gives at level L
    /// (QRCodeTests checks that size against the real encoder).
    static let fullSizeModules: [[Bool]] = (0..<65).map { row in (0..<65).map { col in (row * 5 + col * 3) % 7 < 3 } }

    /// An authorize URL of the usual length: PKCE challenge, state and nonce of 43 characters each (360 bytes).
    static let longAuthorizeURL =
        "http://127.0.0.1:41909/oidc/google/authorize?response_type=code"
        + "&client_id=sandbox-google&redirect_uri=http%3A%2F%2F127.0.0.1%3A40123%2Fcallback"
        + "&scope=openid%20email%20profile&state=" + String(repeating: "s", count: 43) + "&nonce="
        + String(repeating: "n", count: 43) + "&code_challenge=" + String(repeating: "c", count: 43)
        + "&code_challenge_method=S256"

    static func browserReports(url: String = authorizeURL) -> [SignInProgress] {
        let attempt = attempt()
        return [
            .began(
                attempt, .browser(url: url),
                receivers: ["loopback http://127.0.0.1:40123/callback", "paste"]),
            .stateChanged(.awaitingCallback(attempt, .waiting)),
        ]
    }
}

extension AppFixtures {
    /// Feeds events as `run` does over a paged list, answering each `.readPage` from `source` at once, as the
    /// event loop does before its frame; the reads are left out of the effects returned.
    static func run(_ state: AppState, _ events: [AppEvent], answering source: SessionPageSource) -> (
        AppState, [AppEffect]
    ) {
        var current = state
        var effects: [AppEffect] = []
        for event in events { effects += answer(current.apply(event), in: &current, from: source) }
        return (current, effects)
    }

    /// A paged list's state with its first reads answered from `source`, as the event loop starts.
    static func paged(_ list: SessionList, answering source: SessionPageSource) -> AppState {
        var current = state(rows: 24, cols: 80, sessions: [])
        current.sessions = list
        _ = answer(current.settle(), in: &current, from: source)
        return current
    }

    /// Runs the reads among `effects` against `source` (and those their answers ask for); returns the rest.
    private static func answer(
        _ effects: [AppEffect], in state: inout AppState, from source: SessionPageSource
    ) -> [AppEffect] {
        var others: [AppEffect] = []
        for effect in effects {
            guard case .readPage(let request) = effect else {
                others.append(effect)
                continue
            }
            others += answer(state.apply(.pageRead(source.answer(request))), in: &state, from: source)
        }
        return others
    }
}
