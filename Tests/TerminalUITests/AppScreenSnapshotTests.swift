import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// Every screen in every state, at 80×24 and 120×40, compared with the text in Snapshots/. Run with
/// AUTHDECK_RECORD_SNAPSHOTS=1 to write the files afresh after a deliberate change, then read the diff.
@Suite struct AppScreenSnapshotTests {
    /// One named state of the app, built the way the event loop would build it: through `update`.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let make: @Sendable (_ rows: Int, _ cols: Int) -> AppState
        var testDescription: String { name }

        /// The sessions screen with its fixtures after `keys` are typed.
        static func afterKeys(_ name: String, _ keys: String) -> Case {
            Case(name: name) { rows, cols in
                AppFixtures.run(AppFixtures.state(rows: rows, cols: cols), AppFixtures.keys(keys)).0
            }
        }
    }

    static let cases: [Case] = [
        Case(name: "sessions") { rows, cols in AppFixtures.state(rows: rows, cols: cols) },
        Case(name: "sessions-empty") { rows, cols in
            AppFixtures.state(rows: rows, cols: cols, sessions: [], store: .empty)
        },
        Case.afterKeys("sessions-filter", "/ada"),
        Case.afterKeys("sessions-sorted-by-expiry", "s"),
        Case.afterKeys("sessions-sort-reversed", "I"),
        Case.afterKeys("sessions-help-search", "?/sign"),
        Case(name: "sessions-monochrome-confirm") { rows, cols in
            var state = AppFixtures.state(rows: rows, cols: cols)
            state.theme = .monochrome
            return AppFixtures.run(state, AppFixtures.keys("jd")).0
        },
        Case.afterKeys("sessions-help", "?"),
        Case.afterKeys("sessions-confirm-sign-out", "jd"),
        Case.afterKeys("sessions-confirm-revoke", "jR"),
        Case(name: "sessions-refresh-failed") { rows, cols in
            AppFixtures.run(
                AppFixtures.state(rows: rows, cols: cols),
                AppFixtures.keys("j") + [.refreshFinished(key: "work-google", error: "invalid_grant")]
            ).0
        },
        Case(name: "unlock") { rows, cols in
            AppFixtures.state(rows: rows, cols: cols, store: .locked("the master key is wrapped by a passphrase"))
        },
        Case(name: "unlock-wrong-passphrase") { rows, cols in
            let locked = AppFixtures.state(
                rows: rows, cols: cols, store: .locked("the master key is wrapped by a passphrase"))
            return AppFixtures.run(
                locked,
                AppFixtures.keys("secret") + [
                    .key(.enter),
                    .unlockFailed("wrong passphrase: the store stays locked"),
                ]
            ).0
        },
        Case(name: "session-details") { rows, cols in
            AppFixtures.run(AppFixtures.state(rows: rows, cols: cols), AppFixtures.keys("jj") + [.key(.enter)]).0
        },
        Case(name: "session-details-dpop") { rows, cols in
            let opened = AppFixtures.run(AppFixtures.state(rows: rows, cols: cols), [.key(.enter)]).0
            return AppFixtures.run(
                opened,
                [
                    .bindingRead(
                        SessionBinding(
                            key: opened.sessions.current?.key ?? "", tokenType: "DPoP",
                            dpopThumbprint: OIDCOptionsTests.jkt, clientAuthMethod: "private_key_jwt"))
                ]
            ).0
        },
        Case(name: "session-inspector") { rows, cols in
            let opened = AppFixtures.run(
                AppFixtures.state(rows: rows, cols: cols), [.key(.enter), .key(.character("i"))]
            ).0
            let key = opened.sessions.current?.key ?? ""
            return AppFixtures.run(opened, [.inspected(key: key, .inspected(InspectorTests.inspection(key: key)))]).0
        },
        Case(name: "session-details-id-only") { rows, cols in
            var record = AppFixtures.record("google-3e479fbd", backend: "sandbox-portal", expiresIn: nil)
            record.subject = "3e479fbd-0f7c-4a8e-9d51-2b6f1c0e7a93"
            let state = AppFixtures.state(
                rows: rows, cols: cols,
                sessions: [SessionItem(record: record, isSelected: true)])
            return AppFixtures.run(state, [.key(.enter)]).0
        },
        Case(name: "sessions-marked-and-folder") { rows, cols in
            var state = AppFixtures.state(rows: rows, cols: cols)
            state.directorySession = "ops-oidc"
            return AppFixtures.run(state, AppFixtures.keys(" j j")).0
        },
        Case.afterKeys("sessions-filter-status", "/status:exp"),
        Case(name: "unlock-new-store") { rows, cols in
            AppFixtures.state(
                rows: rows, cols: cols, sessions: [],
                store: .needsPassphrase("No keyring is reachable, so a passphrase protects the store's key."))
        },
        Case(name: "unlock-new-store-repeat") { rows, cols in
            let new = AppFixtures.state(
                rows: rows, cols: cols, sessions: [],
                store: .needsPassphrase("No keyring is reachable."))
            return AppFixtures.run(new, AppFixtures.keys("secret") + [.key(.enter)] + AppFixtures.keys("sec")).0
        },
        Case.afterKeys("new-sign-in-device", "nm"),
        Case.afterKeys("new-sign-in", "n"),
        Case(name: "new-sign-in-greyed") { rows, cols in
            // The direct backend cannot send codes: Email and SMS are greyed, and pressing s says why.
            AppFixtures.run(
                SigningInDailyUseTests.refusingState(rows: rows, cols: cols),
                AppFixtures.keys("nbs")
            ).0
        },
        Case(name: "new-sign-in-oidc-fields") { rows, cols in
            AppFixtures.run(
                AppFixtures.state(rows: rows, cols: cols),
                AppFixtures.keys("n")
                    + Array(repeating: .key(.right), count: 4) + Array(repeating: .key(.tab), count: 3)
                    + AppFixtures.keys("http://id.example.com") + [.key(.tab)] + AppFixtures.keys("my-cli")
                    + [.key(.enter)]
            ).0
        },
        Case(name: "new-sign-in-oidc-options") { rows, cols in
            // config.json's choices, DPoP focused.
            AppFixtures.run(
                OIDCOptionsTests.onOIDC(rows: rows, cols: cols), OIDCOptionsTests.tabs(to: .dpop)
            ).0
        },
        Case(name: "new-sign-in-oidc-refused") { rows, cols in
            AppFixtures.run(
                OIDCOptionsTests.onOIDC(rows: rows, cols: cols),
                [
                    .key(.enter),
                    .signInRefused(
                        flow: 1,
                        .unavailable(
                            reason: "tokenEndpointAuthMethod private_key_jwt needs a private key (privateKeyFile or "
                                + "--private-key-file)")),
                ]
            ).0
        },
        Case(name: "new-sign-in-session-key") { rows, cols in
            AppFixtures.run(
                AppFixtures.state(rows: rows, cols: cols),
                AppFixtures.keys("n") + [.key(.right), .key(.tab), .key(.tab)] + AppFixtures.keys("my key")
                    + [.key(.enter)]
            ).0
        },
        Case.afterKeys("contact", "neada@"),
        Case(name: "contact-invalid") { rows, cols in
            AppFixtures.run(
                AppFixtures.state(rows: rows, cols: cols), AppFixtures.keys("nsnot a phone") + [.key(.enter)]
            ).0
        },
        Case.afterKeys("contact-link", "nlada@"),
        Case(name: "awaiting-link") { rows, cols in
            // Portal's magic link: the address asked on the contact step, then the waiting screen with its paste
            // field for where the link leads.
            let typed = AppFixtures.keys("nlada@example.com") + [.key(.enter)]
            let attempt = AppFixtures.attempt(
                method: .browser(redirectURI: "authdeck://callback"), provider: .emailLink)
            let reports: [SignInProgress] = [
                .began(
                    attempt, .linkSent(contact: .email("ada@example.com")),
                    receivers: ["authdeck:// (/run/user/1000/authdeck/scheme.sock)", "paste"]),
                .stateChanged(.awaitingCallback(attempt, .waiting)),
            ]
            return AppFixtures.run(
                AppFixtures.state(rows: rows, cols: cols), typed + reports.map { .signIn(flow: 1, $0) }
            ).0
        },
        Case(name: "awaiting-starting") { rows, cols in AppFixtures.flowState(rows: rows, cols: cols) },
        Case(name: "awaiting-browser") { rows, cols in
            AppFixtures.flowState(
                rows: rows, cols: cols, reports: AppFixtures.browserReports(),
                details: [.promptCode(AppFixtures.modules)])
        },
        Case(name: "awaiting-browser-protections") { rows, cols in
            AppFixtures.flowState(
                rows: rows, cols: cols, reports: AppFixtures.browserReports(),
                details: [.promptCode(AppFixtures.modules), .protections(["PAR", "DPoP", "private_key_jwt"])])
        },
        Case(name: "awaiting-browser-full-qr") { rows, cols in
            AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: AppFixtures.browserReports(url: AppFixtures.longAuthorizeURL),
                details: [.promptCode(AppFixtures.fullSizeModules)])
        },
        Case(name: "awaiting-browser-full-qr-notice") { rows, cols in
            AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: AppFixtures.browserReports(url: AppFixtures.longAuthorizeURL) + [
                    .callbackArrived(source: "loopback", refusal: SignInError.stateMismatch.message),
                    .notice(.stateMismatch),
                ],
                details: [.promptCode(AppFixtures.fullSizeModules)])
        },
        Case(name: "awaiting-redirect-unreachable") { rows, cols in
            AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: AppFixtures.browserReports() + [
                    .redirectUnreachable(
                        "the redirect URI https://wrong.example/callback reaches none of authdeck's "
                            + "receivers (http://127.0.0.1:40123/callback, authdeck://): the browser "
                            + "comes back only if that page forwards the redirect")
                ])
        },
        Case(name: "awaiting-refused-callback") { rows, cols in
            AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: AppFixtures.browserReports() + [
                    .callbackArrived(source: "loopback", refusal: SignInError.stateMismatch.message),
                    .notice(.stateMismatch),
                ])
        },
        Case(name: "awaiting-paste-typed") { rows, cols in
            let state = AppFixtures.flowState(rows: rows, cols: cols, reports: AppFixtures.browserReports())
            return AppFixtures.run(state, AppFixtures.keys("phttp://127.0.0.1:40123/callback?code=abc")).0
        },
        Case(name: "awaiting-verifying") { rows, cols in
            AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: AppFixtures.browserReports() + [
                    .callbackArrived(source: "loopback", refusal: nil),
                    .stateChanged(.awaitingCallback(AppFixtures.attempt(), .verifying)),
                ])
        },
        Case(name: "awaiting-storage-failed") { rows, cols in
            let issued = IssuedSession(
                session: Session(record: AppFixtures.outcome.record, secrets: SessionSecrets()),
                kind: .login)
            return AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: AppFixtures.browserReports() + [
                    .stateChanged(.awaitingCallback(AppFixtures.attempt(), .storageFailed(issued))),
                    .notice(.sessionStorageFailure(message: "disk full")),
                ])
        },
        Case(name: "awaiting-device") { rows, cols in
            let attempt = AppFixtures.attempt(method: .device)
            let device = DeviceAuthorization(
                deviceCode: "device-code", userCode: "WDJB-MJHT",
                verificationURI: "http://127.0.0.1:41909/device",
                verificationURIComplete: nil, expiresIn: 600, interval: 5)
            return AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: [.began(attempt, .device(device), receivers: [])],
                details: [.promptCode(AppFixtures.modules)])
        },
        Case(name: "awaiting-device-ascii") { rows, cols in
            // A locale that is not UTF-8: the QR code two columns a module, light ones in reverse video.
            var state = AppFixtures.state(rows: rows, cols: cols)
            state.drawsASCII = true
            let attempt = AppFixtures.attempt(method: .device)
            let device = DeviceAuthorization(
                deviceCode: "device-code", userCode: "WDJB-MJHT", verificationURI: "http://127.0.0.1:41909/device",
                verificationURIComplete: nil, expiresIn: 600, interval: 5)
            return AppFixtures.run(
                AppFixtures.run(state, AppFixtures.keys("ng")).0,
                [
                    .signIn(flow: 1, .began(attempt, .device(device), receivers: [])),
                    .signInDetail(flow: 1, .promptCode(AppFixtures.modules)),
                ]
            ).0
        },
        Case(name: "new-sign-in-no-config") { rows, cols in
            // A first start: no config.json, so the presets have no client id on direct.
            var state = AppFixtures.state(rows: rows, cols: cols, sessions: [], store: .empty)
            state.backends = ["direct"]
            state.defaultBackend = "direct"
            state.missingConfig = "/home/ada/.config/authdeck/config.json"
            for provider: Provider in ["google", "apple", "discord", "x"] {
                state.providerRefusals["direct", default: [:]][provider] =
                    "no client id in config.json (providers.\(provider.name).clientID)"
            }
            state.providerRefusals["direct"]?["email"] = "Email codes need a turnkey or sandbox backend"
            state.providerRefusals["direct"]?["sms"] = "SMS codes need a turnkey or sandbox backend"
            return AppFixtures.run(state, AppFixtures.keys("n")).0
        },
        Case(name: "code-entry") { rows, cols in codeState(rows, cols, typed: "1234") },
        Case(name: "code-entry-rejected") { rows, cols in
            let state = codeState(rows, cols, typed: "123456")
            let attempt = codeAttempt()
            return AppFixtures.run(
                state,
                [
                    .key(.enter),
                    .signIn(flow: 1, .stateChanged(.awaitingCallback(attempt, .verifying))),
                    .signIn(flow: 1, .stateChanged(.awaitingCallback(attempt, .waiting))),
                    .signIn(flow: 1, .notice(.invalidCode)),
                ]
            ).0
        },
        Case(name: "code-entry-attempts-left") { rows, cols in
            var state = codeState(rows, cols, typed: "123456")
            state.sandboxOutbox = "/home/ada/.local/share/authdeck-sandbox/sandbox-outbox.jsonl"
            return AppFixtures.run(state, [.key(.enter)] + SigningInDailyUseTests.wrongCodeReports(left: 2)).0
        },
        // Para's verification step: a social sign-in of a new user waits for the code sent to its email.
        Case(name: "code-entry-new-account") { rows, cols in
            let format = try! OTPCodeFormat(length: 6, alphanumeric: false)
            let verifying = AppFixtures.attempt(
                method: .oneTimeCode(contact: .email("cleo@example.com"), format: format, otpID: "otp-2"),
                resendIn: 25)
            return AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: AppFixtures.browserReports() + [.stateChanged(.awaitingCallback(verifying, .waiting))])
        },
        Case(name: "result-code-used-up") { rows, cols in
            let state = codeState(rows, cols, typed: "")
            return AppFixtures.run(state, [.signIn(flow: 1, .finished(.failure(.rateLimited)))]).0
        },
        Case(name: "totp") { rows, cols in
            let challenge = TOTPChallenge(userJwt: "jwt", user: "ada", attemptsLeft: 4)
            let state = AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: AppFixtures.browserReports() + [
                    .stateChanged(.totpRequired(AppFixtures.attempt(), challenge, .waiting))
                ])
            return AppFixtures.run(state, AppFixtures.keys("12")).0
        },
        Case(name: "totp-enrolment") { rows, cols in
            let challenge = TOTPChallenge(
                userJwt: "jwt", enrolmentLink: "otpauth://totp/authdeck:ada?issuer=authdeck",
                user: "ada", attemptsLeft: 5)
            return AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: AppFixtures.browserReports() + [
                    .stateChanged(.totpRequired(AppFixtures.attempt(), challenge, .waiting))
                ], details: [.enrolmentCode(AppFixtures.modules)])
        },
        Case(name: "result-signed-in") { rows, cols in
            AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: AppFixtures.browserReports() + [.finished(.success(AppFixtures.outcome))])
        },
        Case(name: "result-account-created") { rows, cols in
            // Discord's own session: the record the sign-in on screen (provider d) would store.
            let record = AppFixtures.record(
                "discord-ada", provider: "discord", user: "Ada", email: "ada@example.com", backend: "sandbox",
                scopes: ["identify", "email"])
            let created = SignInOutcome(record: record, kind: .signup)
            return AppFixtures.flowState(
                rows: rows, cols: cols, provider: "d",
                reports: AppFixtures.browserReports() + [.finished(.success(created))])
        },
        Case(name: "result-error") { rows, cols in
            AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: AppFixtures.browserReports() + [
                    .finished(.failure(.authenticationFailed(providerError: "access_denied: user said no")))
                ])
        },
        Case(name: "trace-file") { rows, cols in
            AppFixtures.run(
                TraceFileScreenTests.shown(rows: rows, cols: cols),
                AppFixtures.keys("jjjj")
                    + [.key(.enter)]
            ).0
        },
        Case(name: "trace-file-open-prompt") { rows, cols in
            Self.traceFileInTUI(rows, cols, AppFixtures.keys("obroken.jsonl"))
        },
        Case(name: "trace-file-damaged") { rows, cols in
            Self.traceFileInTUI(
                rows, cols,
                AppFixtures.keys("obroken.jsonl") + [
                    .key(.enter),
                    .traceFileFailed(
                        "broken.jsonl line 2 is not a trace step (a JSON object "
                            + "with kind, at, elapsedMs, summary and details)"),
                ])
        },
        Case(name: "sandbox-panel") { rows, cols in
            AppFixtures.run(
                SandboxPanelScreenTests.answered(rows: rows, cols: cols),
                AppFixtures.keys("j ")
                    + [
                        .sandboxAnswered(
                            SandboxPanel.Report(
                                available: SandboxPanelScreenTests.report.available,
                                on: ["slow-provider", "code-reused"], delayMs: 8000), switched: true)
                    ]
            ).0
        },
        Case(name: "sandbox-panel-reading") { rows, cols in
            AppFixtures.run(SandboxPanelScreenTests.withSandbox(rows: rows, cols: cols), AppFixtures.keys("S")).0
        },
        Case(name: "sandbox-panel-unreachable") { rows, cols in
            AppFixtures.run(
                SandboxPanelScreenTests.answered(rows: rows, cols: cols),
                AppFixtures.keys("r")
                    + [
                        .sandboxFailed(
                            "cannot reach the sandbox: Network error: Could not connect to the "
                                + "server.")
                    ]
            ).0
        },
        Case(name: "trace") { rows, cols in
            let state = AppFixtures.flowState(
                rows: rows, cols: cols,
                reports: AppFixtures.browserReports() + [
                    .callbackArrived(source: "paste", refusal: "This is not a valid sign-in redirect: no query."),
                    .callbackArrived(source: "loopback", refusal: nil),
                    .finished(.success(AppFixtures.outcome)),
                ])
            return AppFixtures.run(state, AppFixtures.keys("t")).0
        },
        Case(name: "trace-expanded") { rows, cols in
            let state = AppFixtures.flowState(
                rows: rows, cols: cols, reports: AppFixtures.browserReports(),
                details: SigningInDailyUseTests.detailedSteps)
            // Home on the token request, expand it; down to the ID token, expand that too.
            return AppFixtures.run(
                state,
                AppFixtures.keys("t") + [.key(.home), .key(.enter)]
                    + AppFixtures.keys("j") + [.key(.enter)]
            ).0
        },
        Case.afterKeys("trace-none-yet", "t"),
    ]

    /// The TUI's Trace screen (`t`) with a customer's file opened over it, then `events`.
    static func traceFileInTUI(_ rows: Int, _ cols: Int, _ events: [AppEvent]) -> AppState {
        var state = AppFixtures.run(AppFixtures.state(rows: rows, cols: cols), AppFixtures.keys("t")).0
        state.showTraceFile(TraceFileScreenTests.customerFile())
        return AppFixtures.run(state, events).0
    }

    static func codeAttempt() -> Attempt {
        let format = try! OTPCodeFormat(length: 6, alphanumeric: false)
        return AppFixtures.attempt(
            method: .oneTimeCode(
                contact: .email("ada@example.com"), format: format,
                otpID: "otp-1"), provider: "email", resendIn: 25)
    }

    static func codeState(_ rows: Int, _ cols: Int, typed: String) -> AppState {
        let (contact, _) = AppFixtures.run(
            AppFixtures.state(rows: rows, cols: cols),
            AppFixtures.keys("neada@example.com") + [.key(.enter)])
        let attempt = codeAttempt()
        let reported = AppFixtures.run(
            contact,
            [
                .signIn(
                    flow: 1,
                    .began(
                        attempt, .codeSent(otpID: "otp-1"),
                        receivers: [])),
                .signIn(flow: 1, .stateChanged(.awaitingCallback(attempt, .waiting))),
            ])
        return AppFixtures.run(reported.0, AppFixtures.keys(typed)).0
    }

    static let sizes: [(rows: Int, cols: Int)] = [(24, 80), (40, 120)]

    @Test(arguments: cases, [0, 1])
    func screenMatchesItsSnapshot(_ example: Case, _ sizeIndex: Int) throws {
        let size = Self.sizes[sizeIndex]
        let frame = AppScreen.frame(example.make(size.rows, size.cols))
        try Snapshots.expect(frame, named: "\(example.name)-\(size.cols)x\(size.rows)")
    }

    /// From 160 columns the table adds CREATED, EMAIL and SCOPES.
    @Test func aWideTerminalAddsColumns() throws {
        try Snapshots.expect(AppScreen.frame(AppFixtures.state(rows: 24, cols: 200)), named: "sessions-wide-200x24")
        let narrow = AppScreen.frame(AppFixtures.state(rows: 24, cols: 159)).textDump()
        #expect(!narrow.contains("CREATED"))
    }

    @Test func everyScreenStateHasASnapshotAtBothSizes() {
        #expect(Self.cases.count >= 25)
        #expect(Set(Self.cases.map(\.name)).count == Self.cases.count)
    }
}
