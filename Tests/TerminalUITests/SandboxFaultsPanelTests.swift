import Testing
@testable import TerminalUI

/// The Sandbox panel: keys become selections to send, the boxes follow only what the sandbox answered.
@Suite struct SandboxFaultsPanelTests {
    static func panel(on: Set<String> = []) -> SandboxFaultsPanel {
        SandboxFaultsPanel(sandbox: "http://127.0.0.1:4000", faults: [
            .init(name: "token-5xx-html", summary: "token endpoint answers 502"),
            .init(name: "slow-provider", summary: "answers late"),
            .init(name: "code-reused", summary: "invalid_grant"),
        ], on: on, delayMs: 8000)
    }

    func frame(_ panel: SandboxFaultsPanel) -> ScreenBuffer {
        var buffer = ScreenBuffer(rows: 16, cols: 90)
        panel.render(into: &buffer)
        return buffer
    }

    @Test func spaceAsksToSwitchTheSelectedFaultAndTheBoxesFollowTheAnswer() {
        var panel = Self.panel(on: ["code-reused"])
        #expect(panel.handle(.down) == .none)
        #expect(panel.handle(.character(" ")) == .apply(["slow-provider", "code-reused"]))
        // Until the sandbox answers, the boxes show what it said last.
        #expect(frame(panel).textLines()[4].hasPrefix("  [ ] slow-provider"))
        panel.sandboxAnswered(on: ["slow-provider", "code-reused"], delayMs: 3000, note: "switched")
        let lines = frame(panel).textLines()
        #expect(lines[1] == "  2 on: slow-provider, code-reused")
        #expect(lines[4].hasPrefix("  [x] slow-provider"))
        #expect(lines[4].contains("(now 3000 ms)"))
        #expect(lines[5].hasPrefix("  [x] code-reused"))
        #expect(frame(panel)[4, 0].isReversed && !frame(panel)[3, 0].isReversed)
        #expect(panel.handle(.enter) == .apply(["code-reused"]))
        #expect(panel.handle(.character("n")) == .apply([]))
    }

    @Test func aFailureIsShownAndChangesNothing() {
        var panel = Self.panel(on: ["token-5xx-html"])
        panel.sandboxFailed("cannot reach the sandbox")
        let buffer = frame(panel)
        #expect(buffer.textLines()[14] == " cannot reach the sandbox")
        #expect(buffer[14, 1].foreground == .error)
        #expect(buffer.textLines()[3].hasPrefix("  [x] token-5xx-html"))
    }

    @Test func otherKeysMoveOrLeave() {
        var panel = Self.panel()
        #expect(panel.handle(.end) == .none && panel.selected == 2)
        #expect(panel.handle(.down) == .none && panel.selected == 2)
        #expect(panel.handle(.home) == .none && panel.selected == 0)
        #expect(panel.handle(.up) == .none && panel.selected == 0)
        #expect(panel.handle(.character("r")) == .refresh)
        #expect(panel.handle(.paste("x")) == .none)
        #expect(panel.handle(.escape) == .quit)
        #expect(panel.handle(.character("q")) == .quit)
    }
}
