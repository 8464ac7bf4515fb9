import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Testing

@testable import AuthdeckCommands
@testable import TerminalUI

/// The Trace screen with a real DPoP proof and a real private_key_jwt client assertion through the flow trace, as
/// the TUI's event loop wires it: every step expanded shows their headers and claims decoded and never a piece of
/// either signature.
@Suite struct TraceScreenSignatureTests {
    /// Answers the token request as a provider would; what it was sent is recorded by the tracing transport.
    struct TokenEndpoint: HTTPTransport {
        func send(_ request: OutgoingRequest) throws(SignInError) -> IncomingResponse {
            IncomingResponse(
                status: 200, headers: ["content-type": "application/json"],
                body: Array(#"{"access_token":"at-0123456789abcdef","token_type":"DPoP","expires_in":60}"#.utf8),
                duration: 0.01)
        }
    }

    @Test func expandedStepsShowProofAndAssertionDecodedAndNoSignature() throws {
        let url = "https://id.example.com/token"
        let proof = try DPoPKey().proof(method: "POST", url: url, issuedAt: 1_800_000_000)
        let assertion = try ClientAssertion(
            signer: .key(try JWK(p256: try P256PrivateKey(), keyID: "k1"), algorithm: "ES256", file: "client.pem"),
            audience: .endpoint
        ).signed(clientID: "cli", endpoint: url, now: Date(timeIntervalSince1970: 1_800_000_000))
        let body = FormEncoding.encode([
            ("grant_type", "authorization_code"), ("code", "code-0123456789"), ("client_id", "cli"),
            ("client_assertion_type", ClientAssertion.assertionType), ("client_assertion", assertion),
        ])
        let steps = Recorded<SignInDetail>()
        let trace = FlowTrace(onStep: { step in
            steps.append(
                .protocolStep(
                    kind: step.kind.rawValue, summary: step.summary, elapsedMilliseconds: step.elapsedMs,
                    details: step.details))
        })
        _ = try TracingTransport(TokenEndpoint(), trace: trace).send(
            OutgoingRequest(
                method: "POST", url: url,
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("DPoP", proof)],
                body: Array(body.utf8)))

        var state = AppState(rows: 200, cols: 400, now: Date(timeIntervalSince1970: 1_800_000_000))
        _ = state.apply(.key(.character("n")))
        _ = state.apply(.key(.character("o")))
        for detail in steps.all { _ = state.apply(.signInDetail(flow: 1, detail)) }
        _ = state.apply(.key(.character("t")))
        _ = state.apply(.key(.character("a")))  // every step expanded
        let screen = AppScreen.frame(state).textDump()

        for (name, jws) in [("proof", proof), ("assertion", assertion)] {
            let signature = try #require(jws.split(separator: ".").last.map(String.init))
            #expect(signature.count >= 43)
            // Any 16 characters of it would be enough to tell: none may appear.
            for start in stride(from: 0, through: signature.count - 16, by: 8) {
                let piece = String(signature.dropFirst(start).prefix(16))
                #expect(!screen.contains(piece), "a piece of the \(name)'s signature is on screen: \(piece)")
            }
        }
        // Decoded, not hidden: the proof's header and claims and the assertion's claims are there to read.
        for text in [
            "\"typ\" : \"dpop+jwt\"", "\"htm\" : \"POST\"", "\"htu\" : \"\(url)\"", "\"kid\" : \"k1\"",
            "\"iss\" : \"cli\"", "\"aud\" : \"\(url)\"", "client_assertion", "DPoP proof",
        ] {
            #expect(screen.contains(text), "missing \(text) in\n\(screen)")
        }
    }
}
