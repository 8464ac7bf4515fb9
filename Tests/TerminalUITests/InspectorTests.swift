import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// The Details screen's inspector: `i` opens it over the session and asks the loop to inspect, `i` or Esc closes it
/// (Esc then goes back to the list as before), the result draws `TokenInspection`'s rows with failed checks marked;
/// `I` asks for introspection and its answer is the message line, an inactive token as an error.
@Suite struct InspectorTests {
    /// A JWT-shaped ID token of these claims (its signature filler) and an opaque access token, inspected with no
    /// JWKS: the signature check fails and says why, the claim checks pass. Taller than an 80×24 screen.
    static func inspection(key: String) -> TokenInspection {
        func encoded(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        }
        let claims =
            #"{"iss":"https://issuer.example/google","sub":"sub-1","aud":"cli","exp":1800000250,"iat":1799999990,"#
            + #""acr":"urn:mace:incommon:iap:silver","amr":["pwd","otp"],"cnf":{"jkt":"0ZcOCORZNYy"},"#
            + #""auth_time":1799999900,"email":"ada@example.com","name":"Ada Lovelace","nonce":"n-0S6"}"#
        let token = encoded(#"{"alg":"RS256","kid":"k1"}"#) + "." + encoded(claims) + ".c2ln"
        return TokenInspection.inspect(
            key: key, issuer: "https://issuer.example/google", clientID: "cli", idToken: token,
            accessToken: "opaque-access", jwks: nil, now: AppFixtures.now)
    }

    func details() -> (AppState, String) {
        let state = AppFixtures.run(AppFixtures.state(rows: 40, cols: 120), [.key(.enter)]).0
        return (state, state.sessions.current?.key ?? "")
    }

    @Test func iOpensTheInspectorAndDrawsTheInspectionsRows() {
        let (state, key) = details()
        let (opened, effects) = AppFixtures.run(state, [.key(.character("i"))])
        #expect(effects == [.inspect(key)])
        #expect(opened.inspector == Inspector(key: key))
        #expect(AppScreen.frame(opened).textDump().contains("the issuer's keys are being fetched"))
        let (shown, _) = AppFixtures.run(opened, [.inspected(key: key, .inspected(Self.inspection(key: key)))])
        let buffer = AppScreen.frame(shown)
        let screen = buffer.textDump()
        #expect(screen.contains("ID token: JWT, RS256, key k1"))
        #expect(screen.contains("exp") && screen.contains("2027-01-15T08:04:10Z (in 4m 10s)"))
        #expect(screen.contains("acr") && screen.contains("urn:mace:incommon:iap:silver"))
        #expect(screen.contains("cnf jkt") && screen.contains("0ZcOCORZNYy"))
        #expect(screen.contains("FAILED  the issuer publishes no JWKS"))
        #expect(screen.contains("Access token: opaque"))
        #expect(!screen.contains("opaque-access") && !screen.contains("c2ln"))
        // The failed check is drawn in the error colour.
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        let row = lines.firstIndex { $0.contains("FAILED") } ?? 0
        let col = lines[row].distance(from: lines[row].startIndex, to: lines[row].range(of: "FAILED")!.lowerBound)
        #expect(buffer[row, col].style.foreground == .error)
    }

    @Test func iOrEscClosesTheInspectorAndEscThenLeavesDetails() {
        let (state, key) = details()
        let opened = AppFixtures.run(state, [.key(.character("i"))]).0
        #expect(AppFixtures.run(opened, [.key(.character("i"))]).0.inspector == nil)
        let closed = AppFixtures.run(opened, [.key(.escape)]).0
        #expect(closed.inspector == nil && closed.mode == .details(key))
        #expect(AppFixtures.run(closed, [.key(.escape)]).0.mode == .sessions)
        // A late answer for a closed inspector draws nothing.
        let late = AppFixtures.run(closed, [.inspected(key: key, .failed("unreachable"))]).0
        #expect(late.inspector == nil)
    }

    @Test func capitalIAsksForIntrospectionAndTheAnswerIsTheMessage() {
        let (state, key) = details()
        let (asking, effects) = AppFixtures.run(state, [.key(.character("I"))])
        #expect(effects == [.introspect(key)])
        #expect(asking.message?.text.contains("Asking the provider") == true)
        let active = AppFixtures.run(
            asking, [.introspected(key: key, line: "Introspection: \(key): active", active: true)])
        #expect(active.0.message == AppState.Message("Introspection: \(key): active"))
        let inactive = AppFixtures.run(asking, [.introspected(key: key, line: "not active", active: false)])
        #expect(inactive.0.message?.isError == true)
        // The status line offers it while the inspector is open, at 80 columns too.
        let small = AppFixtures.run(AppFixtures.state(rows: 24, cols: 80), [.key(.enter), .key(.character("i"))]).0
        #expect(AppScreen.frame(small).textDump().contains("I introspect"))
    }

    /// At 80×24 the inspection is taller than the box: ↓ and PgDn bring the access token into view, ↑ goes back,
    /// and scrolling stops at the last row.
    @Test func theInspectorScrolls() {
        let opened = AppFixtures.run(AppFixtures.state(rows: 24, cols: 80), [.key(.enter), .key(.character("i"))]).0
        let key = opened.sessions.current?.key ?? ""
        let shown = AppFixtures.run(opened, [.inspected(key: key, .inspected(Self.inspection(key: key)))]).0
        let tall = AppFixtures.run(shown, [.key(.character("k"))]).0
        #expect(tall.inspector?.scroll == 0)
        #expect(AppScreen.frame(tall).textDump().contains("Session: "))
        let down = AppFixtures.run(tall, [.key(.pageDown), .key(.pageDown), .key(.pageDown)]).0
        let screen = AppScreen.frame(down).textDump()
        #expect(screen.contains("Access token: opaque") && !screen.contains("Session: "), "\(screen)")
        #expect(down.inspector?.scroll == Inspector(key: key, content: down.inspector!.content).rows.count - 1)
        let back = AppFixtures.run(down, [.key(.character("k"))]).0
        #expect(back.inspector!.scroll == down.inspector!.scroll - 1)
        #expect(back.mode == .details(key))
    }
}
