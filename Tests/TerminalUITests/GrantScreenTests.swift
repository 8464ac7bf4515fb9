import AuthCore
import Testing

@testable import TerminalUI

/// What the TUI shows of the grants without a browser: CIBA's binding message on the waiting screen (fed through the
/// controller's progress reports, as the device grant's code is), and on Details how a session came to be.
@Suite struct GrantScreenTests {
    @Test func theWaitingScreenShowsCIBAsBindingMessage() {
        let attempt = AppFixtures.attempt(method: .device)
        let request = BackchannelAuthorization(
            authRequestID: "1c266114-a1be-4252-8ad1-04986c5b9ac1", expiresIn: 120, interval: 2,
            bindingMessage: "authdeck 4271", loginHint: "alice")
        let state = AppFixtures.flowState(
            reports: [
                .began(attempt, .backchannel(request), receivers: []),
                .stateChanged(.awaitingCallback(attempt, .waiting)),
            ])
        let screen = AppScreen.frame(state).textDump()
        #expect(screen.contains("The provider asks alice to approve on their own device."), "\(screen)")
        #expect(screen.contains("    authdeck 4271"), "\(screen)")
        #expect(screen.contains("Waiting for the user to approve on their device…"), "\(screen)")
        // The request's handle is the controller's to poll with, never shown.
        #expect(!screen.contains(request.authRequestID))
    }

    @Test func detailsSayHowAMachineOrExchangedSessionCameToBe() throws {
        let (opened, _) = AppFixtures.run(AppFixtures.state(), [.key(.enter)])
        guard case .details(let key) = opened.mode else {
            Issue.record("not on Details: \(opened.mode)")
            return
        }
        var exchanged = SessionBinding(key: key, tokenType: "Bearer")
        exchanged.grant = "urn:ietf:params:oauth:grant-type:token-exchange"
        exchanged.parentSession = "alice-main"
        let screen = AppScreen.frame(AppFixtures.run(opened, [.bindingRead(exchanged)]).0).textDump()
        #expect(screen.contains("Grant    token exchange of session 'alice-main' (its parent)"), "\(screen)")
        var machine = SessionBinding(key: key, tokenType: "Bearer")
        machine.grant = "client_credentials"
        #expect(machine.grantLine?.hasPrefix("client credentials: a machine session") == true)
        // A browser sign-in's Details have no Grant line.
        let plain = AppScreen.frame(
            AppFixtures.run(opened, [.bindingRead(SessionBinding(key: key, tokenType: "Bearer"))]).0)
        #expect(!plain.textDump().contains("Grant "))
    }
}
