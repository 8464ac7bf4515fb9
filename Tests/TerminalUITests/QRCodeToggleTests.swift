import AuthCore
import Testing

@testable import TerminalUI

/// At 120×40 a full-size QR code takes the height and the URL is cut into the column beside it; `v` leaves the code
/// out so the URL is printed on whole rows as one logical line (a mouse copy takes it whole), and `v` again brings
/// the code back.
@Suite struct QRCodeToggleTests {
    static func waiting() -> AppState {
        AppFixtures.flowState(
            rows: 40, cols: 120,
            reports: AppFixtures.browserReports(url: AppFixtures.longAuthorizeURL),
            details: [.promptCode(AppFixtures.fullSizeModules)])
    }

    @Test func vPrintsTheURLAsOneLogicalLineAndBringsTheCodeBack() {
        let beside = AppScreen.frame(Self.waiting())
        #expect(beside.textDump().contains("Scan the code"))
        #expect(!beside.logicalLines.contains { $0.text == AppFixtures.longAuthorizeURL })

        let (urlOnly, effects) = AppFixtures.run(Self.waiting(), AppFixtures.keys("v"))
        #expect(effects.isEmpty)
        let frame = AppScreen.frame(urlOnly)
        #expect(frame.logicalLines.contains { $0.text == AppFixtures.longAuthorizeURL })
        #expect(!frame.textDump().contains("Scan the code"))
        #expect(frame.textLines()[39].contains("v QR code"))

        let again = AppScreen.frame(AppFixtures.run(urlOnly, AppFixtures.keys("v")).0)
        #expect(again.textDump().contains("Scan the code"))
    }
}
