import Foundation
import Testing

/// The Sandbox panel inside the TUI under tmux, against a running sandbox: `S` lists the faults as the admin route
/// says, Space switches one at the sandbox (seen through `sandbox faults` and a login that fails), `n` switches all
/// off, a stopped sandbox is one line; `d` sets slow-provider's delay, a switch made by another process shows
/// without `r`, and the selected fault's description stands whole under the list. `authdeck sandbox panel` opens
/// the same panel on its own.
@Suite(TmuxPane.required)
struct SandboxPanelTmuxTests {
    @Test func sInTheTUIOpensThePanelThatSwitchesTheRunningSandbox() throws {
        let setup = try FaultedSandbox([])
        let pane = try setup.runner.startTUI(in: setup.folder.path)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        try pane.press("S", until: "no faults on")
        let listed = pane.capture()
        #expect(listed.contains("authdeck · Sandbox · " + setup.sandbox.baseURL))
        #expect(listed.contains("[ ] token-5xx-html"))
        #expect(listed.contains("[ ] code-reused"))
        for _ in 0..<3 { pane.send("Down") }
        try pane.press("Space", until: "Switched at the sandbox: code-reused.")
        #expect(pane.capture().contains("[x] code-reused"))
        #expect(setup.runner.run(["sandbox", "faults"]).stdout == "code-reused\n")
        let refused = setup.login(["google"])
        #expect(refused.status == 4, "stderr: \(refused.stderr)")
        try pane.press("n", until: "Switched at the sandbox: no faults on.")
        #expect(setup.runner.run(["sandbox", "faults"]).stdout == "none\n")
        // Another process switches a fault: r reads the sandbox again.
        #expect(setup.runner.run(["sandbox", "faults", "slow-provider"]).status == 0)
        try pane.press("r", until: "Read the sandbox again: slow-provider.")
        #expect(pane.capture().contains("[x] slow-provider"))
        // The sandbox stops: the next request is one line, the boxes stay as it last said.
        setup.sandbox.process.terminate()
        setup.sandbox.process.waitUntilExit()
        try pane.press("Space", until: "cannot reach the sandbox")
        let screen = pane.capture()
        #expect(screen.contains("[x] slow-provider"))
        #expect(screen.split(separator: "\n").filter { $0.contains("cannot reach the sandbox") }.count == 1)
        try pane.press("Escape", until: "No sessions yet")
        try pane.quit()
    }

    @Test func sandboxPanelOpensTheSamePanelOnItsOwn() throws {
        let setup = try FaultedSandbox(["--fault", "id-token-wrong-aud"])
        let pane = try setup.runner.startTUI(in: setup.folder.path, arguments: ["sandbox", "panel"])
        defer { pane.close() }
        try pane.waitFor("1 on: id-token-wrong-aud")
        #expect(pane.capture().contains("store not opened"))
        try pane.press("?", until: "switch the fault on or off")
        pane.send("x")
        try pane.press("n", until: "Switched at the sandbox: no faults on.")
        #expect(setup.runner.run(["sandbox", "faults"]).stdout == "none\n")
        try pane.quit(with: "Escape")
        #expect(!FileManager.default.fileExists(atPath: setup.folder.path + "/home/sessions.db"))
        // No sandbox there: one line before the terminal is taken over.
        let nothing = setup.runner.run(["sandbox", "panel", "--url", "http://127.0.0.1:9"])
        #expect(nothing.status == 1)
        #expect(nothing.stderr.contains("cannot reach the sandbox"))
        #expect(nothing.stderr.split(separator: "\n").count == 1)
    }

    @Test func theDelayIsSetFromThePanelAndSwitchesMadeElsewhereShowWithoutR() throws {
        let setup = try FaultedSandbox([])
        let pane = try setup.runner.startTUI(in: setup.folder.path, arguments: ["sandbox", "panel"])
        defer { pane.close() }
        try pane.waitFor("no faults on")
        // The first fault's description is longer than its row at 80 columns: it stands whole under the list.
        let description = "token-5xx-html: token endpoint answers 502 with an HTML page (a gateway in front of the"
        #expect(pane.capture().contains(description), "\(pane.capture())")
        try pane.press("d", until: "slow-provider's delay in ms")
        pane.send("C-u")
        pane.send("3000")
        try pane.press("Enter", until: "slow-provider now waits 3000 ms at the sandbox.")
        #expect(setup.runner.run(["sandbox", "faults", "--json"]).stdout.contains("\"delayMs\":3000"))
        try pane.press("+", until: "slow-provider now waits 4000 ms at the sandbox.")
        // Out of range: one line, nothing sent.
        try pane.press("d", until: "slow-provider's delay in ms")
        pane.send("C-u")
        pane.send("99999")
        try pane.press("Enter", until: "from 0 to 60000")
        pane.send("Escape")
        #expect(setup.runner.run(["sandbox", "faults", "--json"]).stdout.contains("\"delayMs\":4000"))
        // Another process switches faults and the delay; the panel shows it on its own, no r pressed.
        #expect(setup.runner.run(["sandbox", "faults", "code-reused,slow-provider", "--delay-ms", "1500"]).status == 0)
        try pane.waitFor("Changed elsewhere: slow-provider (1500 ms), code-reused.", timeout: 6)
        let screen = pane.capture()
        #expect(screen.contains("[x] code-reused") && screen.contains("[x] slow-provider"))
        try pane.quit(with: "Escape")
    }
}
