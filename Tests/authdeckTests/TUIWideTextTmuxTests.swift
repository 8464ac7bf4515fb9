import Foundation
import Testing

/// Text whose graphemes hold several spacing letters, as tmux shows it after ncurses drew it: nothing cut away and
/// every column where the header says. The columns are measured in what tmux captured with glibc's `wcwidth`
/// (through Python), which is what tmux and ncurses place text by, not with authdeck's own widths.
@Suite(TmuxPane.required)
struct TUIWideTextTmuxTests {
    let folder = TemporaryFolder()

    @Test func aDevanagariNameKeepsEveryLetterAndTheColumnsAfterItInLine() throws {
        var runner = CLIRunner.passphraseStore(in: folder)
        runner.environment["LANG"] = "C.UTF-8"
        let names = ["क्षि नमस्ते", "plain user", "漢字 テスト"]
        let lines = names.enumerated().map { index, name in
            "{\"key\":\"wide-\(index)\",\"provider\":\"google\",\"subject\":\"s\(index)\","
                + "\"displayName\":\"\(name)\",\"accessToken\":\"AT-\(index)\"}\n"
        }.joined()
        let imported = runner.run(["store", "import", "-"], stdin: lines)
        try #require(imported.status == 0, "\(imported.stderr)")
        let pane = try runner.startTUI(in: folder.path)
        defer { pane.close() }
        try pane.waitFor("3 sessions")
        let screen = pane.capture()
        for name in names { #expect(screen.contains(name), "\(name) is not whole on screen:\n\(screen)") }

        // For the header and each row: the display column (glibc's wcwidth summed over what precedes it) where the
        // status column starts. All must agree.
        let script = """
            import ctypes, sys
            libc = ctypes.CDLL("libc.so.6")
            libc.setlocale.restype = ctypes.c_char_p
            assert libc.setlocale(0, b"C.UTF-8") is not None
            def column(line, word):
                return sum(libc.wcwidth(ctypes.c_wchar(c)) for c in line[:line.index(word)])
            screen = sys.stdin.read().split("\\n")
            header = next(line for line in screen if "STATUS" in line)
            print(column(header, "STATUS"))
            for key in ("wide-0", "wide-1", "wide-2"):
                row = next(line for line in screen if key in line)
                print(column(row, "active"))
            """
        let measured = runner.run(executable: "/usr/bin/python3", ["-c", script], stdin: screen)
        #expect(measured.status == 0, "\(measured.stderr)\n\(screen)")
        let columns = measured.stdout.split(separator: "\n").map(String.init)
        #expect(columns.count == 4 && Set(columns).count == 1, "status columns \(columns) in:\n\(screen)")
        try pane.quit()
    }
}
