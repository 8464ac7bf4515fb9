import Foundation
import Testing

/// `authdeck sandbox panel` under tmux against a running sandbox: Space switches a fault on at the sandbox (seen
/// through `sandbox faults` and a login that fails), `n` switches every fault off.
@Suite(.enabled(if: TmuxPane.isAvailable || ProcessInfo.processInfo.environment["CI"] == "true",
                "tmux is not installed"))
struct SandboxPanelTmuxTests {
    @Test func thePanelSwitchesTheFaultsOfARunningSandbox() throws {
        let setup = try FaultedSandbox([])
        let pane = try TmuxPane(command: [CLIRunner.binary, "sandbox", "panel"], environment: setup.runner.environment,
                                folder: setup.folder.path)
        defer { pane.close() }
        try pane.waitFor("no faults on")
        for _ in 0..<3 { pane.send("Down") }
        pane.send("Space")
        try pane.waitFor("switched: code-reused")
        #expect(pane.capture().contains("[x] code-reused"))
        #expect(setup.runner.run(["sandbox", "faults"]).stdout == "code-reused\n")
        let refused = setup.login(["google"])
        #expect(refused.status == 4, "stderr: \(refused.stderr)")
        pane.send("n")
        try pane.waitFor("switched: no faults on")
        #expect(setup.runner.run(["sandbox", "faults"]).stdout == "none\n")
        pane.send("q")
        try pane.waitForExit()
    }
}
