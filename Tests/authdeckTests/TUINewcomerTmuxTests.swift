import Foundation
import Testing

/// Under tmux, the real binary as a newcomer meets it: a locale that is not UTF-8 draws in ASCII with a QR code that
/// zbarimg still reads, a first start without config.json leads to the sandbox (and doctor warns), the device
/// grant's screen shows the code and address, and a 60×16 terminal still shows the whole sign-in URL.
@Suite(TmuxPane.required)
struct TUINewcomerTmuxTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    init() throws {
        setup = try SandboxLoginSetup()
    }

    @Test func underLANGCTheScreenIsASCIIAndTheQRCodeStillScans() throws {
        let pane = try runner.startTUI(
            in: folder.path, ["LANG": "C", "LC_ALL": "", "BROWSER": "/bin/true"], cols: 230, rows: 80)
        defer { pane.close() }
        try pane.waitFor("LANG=C is not a UTF-8 locale, so authdeck draws in ASCII")
        let list = pane.capture()
        #expect(list.contains("No sessions yet - press n to sign in."))
        #expect(list.contains("+- Details -"))
        #expect(list.unicodeScalars.allSatisfy { $0.isASCII }, "\(list)")
        pane.send("n")
        // "Waiting for the redirect" shows while the attempt starts; the URL (and the code) once it has begun.
        try pane.press("g", until: "c copies it")
        #expect(!pane.capture().contains("needs a larger terminal"))
        let modules = Self.reversedModules(pane.captureStyled())
        #expect(modules.count > 21, "no QR code drawn in reverse video:\n\(pane.capture())")
        guard let decoded = try runner.decodeQR(modules, in: folder, suite: "TUINewcomerTmuxTests") else { return }
        #expect(decoded.status == 0)
        #expect(
            decoded.stdout.hasPrefix(sandbox.baseURL + "/oidc/google/authorize?response_type=code"),
            "zbarimg read: \(decoded.stdout)")
        pane.send("Escape")
        try pane.quit()
    }

    @Test func lcAllOverridesAUTF8LangAndIsNamed() throws {
        let pane = try runner.startTUI(in: folder.path, ["LANG": "C.UTF-8", "LC_ALL": "C"])
        defer { pane.close() }
        try pane.waitFor("LC_ALL=C is not a UTF-8 locale")
        #expect(pane.capture().unicodeScalars.allSatisfy { $0.isASCII })
        try pane.quit()
    }

    @Test func aFirstStartWithoutConfigLeadsToTheSandboxAndDoctorWarns() throws {
        var bare = runner
        bare.environment["AUTHDECK_CONFIG"] = nil
        bare.environment["XDG_CONFIG_HOME"] = folder.path + "/xdg"
        let path = folder.path + "/xdg/authdeck/config.json"
        let pane = try bare.startTUI(in: folder.path, cols: 120, rows: 30)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        try pane.press("n", until: "No config.json at \(path).")
        let screen = pane.capture()
        #expect(screen.contains("Google: no client id in config.json (providers.google.clientID)."))
        #expect(screen.contains("make run in the source tree"))
        #expect(screen.contains("authdeck sandbox --config-out FILE, then AUTHDECK_CONFIG=FILE authdeck."))
        pane.send("Escape")
        try pane.quit()
        let doctor = bare.run(["doctor"]).stdout
        #expect(doctor.contains("WARN  providers"), "\(doctor)")
        #expect(doctor.contains("authdeck sandbox --config-out FILE"), "\(doctor)")
        #expect(doctor.contains(path), "\(doctor)")
        #expect(!doctor.contains("OK    providers"), "\(doctor)")
    }

    @Test func theDeviceGrantScreenShowsTheCodeAndAddressAt60x16() throws {
        let pane = try runner.startTUI(in: folder.path, ["BROWSER": "/bin/true"], cols: 60, rows: 16)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        pane.send("n")
        pane.send("m")
        try pane.press("g", until: "enter the code")
        let screen = pane.capture()
        #expect(screen.contains(sandbox.baseURL + "/"), "\(screen)")
        #expect(screen.contains("authdeck asks the provider every"))
        #expect(screen.contains("Waiting for the code to be entered on the other device"))
        #expect(!screen.contains("Paste"))
        #expect(!screen.contains("redirect"))
        pane.send("Escape")
        try pane.quit()
    }

    @Test func theBrowserWaitingScreenShowsTheWholeURLAt60x16() throws {
        let pane = try runner.startTUI(in: folder.path, ["BROWSER": "/bin/true"], cols: 60, rows: 16)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        pane.send("n")
        try pane.press("g", until: "Open this URL")
        let joined = pane.captureJoined()
        let url = joined.split(separator: "\n").first { $0.hasPrefix(sandbox.baseURL + "/oidc/google/authorize?") }
        #expect(url?.contains("code_challenge_method=S256") == true, "\(joined)")
        pane.send("Escape")
        try pane.quit()
    }

    @Test func aWideTerminalAddsColumnsAndMarksTheDefaultForScripts() throws {
        let lines = ["one", "two"].map { name in
            "{\"key\":\"wide-\(name)\",\"provider\":\"google\",\"subject\":\"s-\(name)\","
                + "\"email\":\"\(name)@example.com\",\"scopes\":[\"openid\",\"email\"],\"accessToken\":\"AT-\(name)\"}\n"
        }.joined()
        let imported = runner.run(["store", "import", "-"], stdin: lines)
        try #require(imported.status == 0, "\(imported.stderr)")
        // What scripts get: the first session stored.
        #expect(runner.run(["token"]).stdout == "AT-one\n")
        let pane = try runner.startTUI(in: folder.path, cols: 200, rows: 30)
        defer { pane.close() }
        try pane.waitFor("2 sessions")
        let screen = pane.capture()
        #expect(screen.contains("CREATED"))
        #expect(screen.contains("SCOPES"))
        let row = screen.split(separator: "\n").first { $0.contains("wide-one") } ?? ""
        // The first column is the cursor's: `>` where the theme marks focus (NO_COLOR, which test runs may set).
        #expect(row.dropFirst().hasPrefix(" * wide-one"), "\(screen)")
        #expect(row.contains("one@example.com") && row.contains("openid email"), "\(screen)")
        pane.resize(cols: 120, rows: 30)
        try pane.waitFor("EXPIRES")
        #expect(!pane.capture().contains("CREATED"))
        try pane.quit()
    }

    /// The QR code as drawn in ASCII: light modules are two reversed blanks. Reads `capture-pane -e`'s SGR sequences
    /// into a reverse flag per column, then takes the block whose top row (quiet zone) is the longest reversed run
    /// that does not start at column 0.
    static func reversedModules(_ styled: String) -> [[Bool]] {
        var grid: [[Bool]] = []
        for line in styled.split(separator: "\n", omittingEmptySubsequences: false) {
            var reversed = false
            var row: [Bool] = []
            var scalars = line.unicodeScalars.makeIterator()
            while let scalar = scalars.next() {
                guard scalar == "\u{1B}" else {
                    row.append(reversed)
                    continue
                }
                var parameters = ""
                _ = scalars.next()  // "["
                while let next = scalars.next(), next != "m" { parameters.unicodeScalars.append(next) }
                for parameter in parameters.split(separator: ";", omittingEmptySubsequences: false) {
                    if parameter == "7" { reversed = true }
                    if parameter == "27" || parameter == "0" || parameter.isEmpty { reversed = false }
                }
            }
            grid.append(row)
        }
        var best: (row: Int, col: Int, width: Int) = (0, 0, 0)
        for (index, row) in grid.enumerated() {
            var col = 0
            while col < row.count {
                guard row[col] else {
                    col += 1
                    continue
                }
                var end = col
                while end < row.count && row[end] { end += 1 }
                // The status bar is reversed too, from column 0; the code never starts there.
                if col > 0 && end - col > best.width { best = (index, col, end - col) }
                col = end
            }
        }
        let side = best.width / 2
        guard side > 0, best.row + side <= grid.count else { return [] }
        return (0..<side).map { line in
            (0..<side).map { module in
                let cells = grid[best.row + line]
                let col = best.col + module * 2
                return !(col < cells.count && cells[col])  // dark where not reversed
            }
        }
    }
}
