import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// New sign-in's OIDC choices (client authentication, key file, PAR, signed request, response mode, DPoP): shown
/// as config.json sets them, changed for one sign-in and carried to the start; a start the settings refuse goes
/// back to the form; the waiting screen names what applies, Details how the token is bound, and the Trace screen
/// what each PAR and DPoP step is.
@Suite struct OIDCOptionsTests {
    /// config.json's choices on the sandbox backend: PAR and DPoP on, private_key_jwt with a key file.
    static let configured = SignInOptions(
        authMethod: "private_key_jwt", privateKeyFile: "~/keys/client.pem", pushed: true, dpop: true)

    /// New sign-in with OIDC highlighted, config.json's choices read for the sandbox backend only.
    static func onOIDC(rows: Int = 24, cols: Int = 80) -> AppState {
        var state = AppFixtures.state(rows: rows, cols: cols)
        state.signInOptions = ["sandbox": configured]
        return AppFixtures.run(state, AppFixtures.keys("n") + Array(repeating: .key(.right), count: 4)).0
    }

    static func form(_ state: AppState) -> NewSignInForm? {
        if case .newSignIn(let form) = state.mode { return form }
        return nil
    }

    /// Tab from the providers to `focus`, through the fields before it.
    static func tabs(to focus: NewSignInForm.Focus) -> [AppEvent] {
        let order: [NewSignInForm.Focus] = [
            .providers, .backend, .sessionKey, .issuer, .clientID, .authMethod, .keyFile, .pushed, .signedRequest,
            .responseMode, .dpop,
        ]
        return Array(repeating: .key(.tab), count: order.firstIndex(of: focus) ?? 0)
    }

    static func started(_ effects: [AppEffect]) -> SignInChoice? {
        if case .startSignIn(_, let choice)? = effects.first { return choice }
        return nil
    }

    @Test func theFormShowsConfigJSONsChoicesForTheChosenBackend() throws {
        let state = Self.onOIDC()
        #expect(Self.form(state)?.options == Self.configured)
        let screen = AppScreen.frame(state).textDump()
        for text in [
            "Client auth", "‹ private_key_jwt ›", "~/keys/client.pem", "PAR on", "signed request off",
            "response query", "DPoP on",
        ] {
            #expect(screen.contains(text), "missing \(text) in\n\(screen)")
        }
        // Tab reaches each choice: the focused one is reversed.
        let onDPoP = AppFixtures.run(state, Self.tabs(to: .dpop)).0
        let form = try #require(Self.form(onDPoP))
        let dpop = try #require(NewSignInScreen.optionFrames(form, rows: 24, cols: 80).first { $0.focus == .dpop })
        let frame = AppScreen.frame(onDPoP)
        #expect(frame[dpop.rect.row, dpop.rect.col].isReversed && !frame[dpop.rect.row, dpop.rect.col - 3].isReversed)
        // The direct backend's config.json sets nothing: authdeck's own choice, everything off.
        let direct = AppFixtures.run(state, Self.tabs(to: .backend) + [.key(.character("b"))]).0
        #expect(Self.form(direct)?.backend == "direct")
        #expect(Self.form(direct)?.options == SignInOptions())
        #expect(AppScreen.frame(direct).textDump().contains("‹ automatic (as login chooses) ›"))
        // Another provider shows none of them: config.json's settings apply as they are.
        let other = AppFixtures.run(state, [.key(.left)]).0
        #expect(Self.form(other)?.provider != .oidc)
        #expect(!AppScreen.frame(other).textDump().contains("Client auth"))
    }

    @Test func choicesChangedOnTheFormGoToTheStart() throws {
        var events = Self.tabs(to: .authMethod) + [.key(.left)]  // private_key_jwt → client_secret_jwt
        events += [.key(.tab)] + Array(repeating: .key(.backspace), count: 6) + AppFixtures.keys("b.pem")
        events += [.key(.tab), .key(.character(" "))]  // PAR off
        events += [.key(.tab), .key(.right)]  // signed request on
        events += [.key(.tab), .key(.right), .key(.right)]  // response jwt
        events += [.key(.tab), .key(.character(" "))]  // DPoP off
        let (state, effects) = AppFixtures.run(Self.onOIDC(), events + [.key(.enter)])
        let choice = try #require(Self.started(effects), "no start: \(effects)")
        #expect(
            choice.options
                == SignInOptions(
                    authMethod: "client_secret_jwt", privateKeyFile: "~/keys/clieb.pem", pushed: false,
                    signedRequest: true, responseMode: "jwt", dpop: false))
        // R on the result starts the same sign-in, choices included.
        let ended = AppFixtures.run(state, [.signIn(flow: 1, .finished(.failure(.timedOut)))]).0
        let (_, again) = AppState.update(ended, .key(.character("R")))
        #expect(Self.started(again.suffix(1))?.options == choice.options)
        // Unchanged, the start carries config.json's choices; other providers carry none.
        #expect(Self.started(AppFixtures.run(Self.onOIDC(), [.key(.enter)]).1)?.options == Self.configured)
        let other = AppFixtures.run(Self.onOIDC(), [.key(.left), .key(.enter)]).1
        #expect(Self.started(other)?.options == nil)
    }

    @Test func aClickFocusesAChoiceAndASecondClickChangesIt() throws {
        let state = Self.onOIDC()
        let form = try #require(Self.form(state))
        let par = try #require(NewSignInScreen.optionFrames(form, rows: 24, cols: 80).first { $0.focus == .pushed })
        let click = AppEvent.key(.mouseClick(row: par.rect.row, col: par.rect.col + 1))
        let focused = AppFixtures.run(state, [click]).0
        #expect(Self.form(focused)?.focus == .pushed && Self.form(focused)?.options.pushed == true)
        let changed = AppFixtures.run(focused, [click]).0
        #expect(Self.form(changed)?.options.pushed == false)
        // Help names the keys that change a choice, whole at 80 columns.
        let help = AppScreen.frame(AppFixtures.run(state, [.key(.character("?"))]).0).textDump()
        #expect(help.contains("OIDC: change the auth method, PAR or DPoP choice"), "\(help)")
        #expect(!help.contains("…"), "\(help)")  // said in full
    }

    @Test func aStartItsSettingsRefuseGoesBackToTheFormWithLoginsLine() throws {
        // What `login` says, and what the form says for it: the field, not the flag.
        let sent =
            "Sign-in unavailable: tokenEndpointAuthMethod private_key_jwt needs a private key (privateKeyFile or "
            + "--private-key-file)."
        let message =
            "Sign-in unavailable: tokenEndpointAuthMethod private_key_jwt needs a private key (privateKeyFile or "
            + "the Key file field)."
        var events = Self.tabs(to: .keyFile) + Array(repeating: .key(.backspace), count: 17)
        events += AppFixtures.keys("x") + [.key(.enter)]
        let (started, effects) = AppFixtures.run(Self.onOIDC(), events)
        #expect(Self.started(effects) != nil)
        let refused = AppFixtures.run(
            started, [.signInRefused(flow: 1, .unavailable(reason: String(sent.dropFirst(21).dropLast())))]
        ).0
        let form = try #require(Self.form(refused), "mode: \(refused.mode)")
        #expect(form.error == message)
        #expect(form.keyFile.text == "x" && form.options == Self.configured && form.provider == .oidc)
        // Two lines at 80 columns, broken between words: nothing of the fix is cut.
        let lines = AppScreen.frame(refused).textLines()
        let first = try #require(lines.firstIndex { $0.hasPrefix("  Sign-in unavailable") }, "\(lines)")
        let shown = lines[first...].prefix(2)
        #expect(
            shown.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") == message,
            "\(shown)")
        // The refused attempt is in the trace.
        #expect(refused.lastFlow?.trace.last?.text == message)
        // A start from elsewhere (R, an unlock resuming) ends on the result screen as before.
        let ended = AppFixtures.run(AppFixtures.flowState(), [.signIn(flow: 1, .finished(.failure(.timedOut)))]).0
        let retried = AppFixtures.run(
            ended, [.key(.character("R")), .signInRefused(flow: 2, .unavailable(reason: "no client id"))]
        ).0
        guard case .finished(.failure)? = retried.flow?.phase else {
            Issue.record("not finished: \(String(describing: retried.flow?.phase))")
            return
        }
        // A failure that ends the attempt names the TUI's control too: a real backend pointed at the sandbox.
        let guarded = AppFixtures.run(
            AppFixtures.flowState(),
            [
                .signIn(
                    flow: 1,
                    .finished(
                        .failure(
                            .unavailable(
                                reason: "http://127.0.0.1:8750 is authdeck's sandbox, but backend 'direct' is not a "
                                    + "sandbox backend (use --backend sandbox)"))))
            ]
        ).0
        // The result screen's lines joined back into the sentence they wrap.
        let screen = AppScreen.frame(guarded).textLines().map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
        #expect(screen.contains("(choose sandbox in the Backend field)"), "\(screen)")
        #expect(!screen.contains("--backend"), "\(screen)")
    }

    @Test func theWaitingScreenNamesWhatApplies() {
        let state = AppFixtures.flowState(
            reports: AppFixtures.browserReports(), details: [.protections(["PAR", "DPoP", "private_key_jwt"])])
        #expect(AppScreen.frame(state).textDump().contains("  Protocol: PAR · DPoP · private_key_jwt"))
        // A plain sign-in names nothing.
        let plain = AppFixtures.flowState(reports: AppFixtures.browserReports(), details: [.protections([])])
        #expect(!AppScreen.frame(plain).textDump().contains("Protocol:"))
    }

    static let jkt = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"

    @Test func detailsReadsAndShowsTheBindingAndClientAuthentication() throws {
        let (opened, effects) = AppFixtures.run(AppFixtures.state(), [.key(.enter)])
        guard case .details(let key) = opened.mode else {
            Issue.record("not on Details: \(opened.mode)")
            return
        }
        #expect(effects.contains(.readBinding(key)))
        let bound = AppFixtures.run(
            opened,
            [
                .bindingRead(
                    SessionBinding(
                        key: key, tokenType: "DPoP", dpopThumbprint: Self.jkt, clientAuthMethod: "private_key_jwt"))
            ]
        ).0
        let screen = AppScreen.frame(bound).textDump()
        #expect(screen.contains("Token    DPoP · jkt " + Self.jkt), "\(screen)")
        #expect(screen.contains("Client   authenticated with private_key_jwt"))
        // Another session's binding is not shown as this one's.
        let other = AppFixtures.run(
            opened, [.bindingRead(SessionBinding(key: "someone-else", tokenType: "DPoP", dpopThumbprint: Self.jkt))]
        ).0
        #expect(!AppScreen.frame(other).textDump().contains("jkt"))
        let bearer = SessionBinding(key: key, tokenType: "Bearer")
        #expect(bearer.tokenLine == "Bearer (not bound to a key)")
        let certificate = SessionBinding(key: key, tokenType: "Bearer", certificateThumbprint: "A4DtL2JmUMhAsvJj")
        #expect(certificate.tokenLine == "Bearer · x5t#S256 A4DtL2JmUMhAsvJj")
    }

    @Test func traceStepsSayWhichArePARAndCarryDPoPProofs() {
        let pushed: [String: JSONValue] = [
            "method": .string("POST"), "url": .string("https://id.example.com/par"),
            "body": .object(["response_type": .string("code"), "client_id": .string("cli")]),
            "headers": .object(["DPoP": .object(["header": .object(["typ": .string("dpop+jwt")])])]),
        ]
        let answer: [String: JSONValue] = [
            "body": .object(["request_uri": .string("urn:ietf:params:oauth:request_uri:x"), "expires_in": .number(60)])
        ]
        let token: [String: JSONValue] = [
            "body": .object(["grant_type": .string("authorization_code")]),
            "headers": .object(["dpop": .object([:])]),
        ]
        let state = AppFixtures.flowState(
            reports: AppFixtures.browserReports(),
            details: [
                .protocolStep(
                    kind: "request", summary: "POST https://id.example.com/par", elapsedMilliseconds: 5, details: pushed
                ),
                .protocolStep(
                    kind: "response", summary: "201 from https://id.example.com/par in 3 ms", elapsedMilliseconds: 8,
                    details: answer),
                .protocolStep(
                    kind: "request", summary: "POST https://id.example.com/token", elapsedMilliseconds: 9,
                    details: token),
            ])
        let texts = state.flow?.trace.suffix(3).map(\.text) ?? []
        #expect(
            texts == [
                "POST https://id.example.com/par · PAR · DPoP proof",
                "201 from https://id.example.com/par in 3 ms · PAR",
                "POST https://id.example.com/token · DPoP proof",
            ])
    }
}
