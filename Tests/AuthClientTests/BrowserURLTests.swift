import AuthClient
import AuthCore
import Foundation
import Testing

/// URLs from a provider or a backend reach `$BROWSER` only when they are https (or http on this
/// machine) and cannot be read as an option.
@Suite struct BrowserURLTests {
    /// A fake `$BROWSER` that records each URL it was started with.
    struct FakeBrowser {
        let folder = NSTemporaryDirectory() + "authdeck-browser-\(UUID().uuidString.prefix(8))"
        var log: String { folder + "/opened" }
        var launcher: BrowserLauncher { BrowserLauncher(environment: ["BROWSER": folder + "/browser"]) }

        init() throws {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let script = "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(folder)/opened'\n"
            _ = FileManager.default.createFile(
                atPath: folder + "/browser", contents: Data(script.utf8),
                attributes: [.posixPermissions: 0o700])
        }

        /// The URLs opened so far, after giving a started browser a moment to write.
        func opened(waitingFor count: Int) -> [String] {
            for _ in 0..<100 {
                let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                if lines.count >= count { return lines.map(String.init) }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    @Test(arguments: [
        "file:///etc/passwd", "--gpu-launcher=/bin/sh -c id", "-new-window", "javascript:alert(1)",
        "http://evil.example/device", "ftp://example.com/", "data:text/html,hi",
        "https://example.com/a b",
    ])
    func aHostileURLNeverStartsTheBrowser(_ url: String) throws {
        let browser = try FakeBrowser()
        defer { browser.remove() }
        #expect(throws: SignInError.self) { try browser.launcher.open(url) }
        // An https URL opened afterwards is the first and only line: the hostile one never got through.
        try browser.launcher.open("https://example.com/ok")
        #expect(browser.opened(waitingFor: 1) == ["https://example.com/ok"])
    }

    @Test func httpsAndLoopbackHTTPAreOpened() throws {
        let browser = try FakeBrowser()
        defer { browser.remove() }
        try browser.launcher.open("https://accounts.example.com/device?user_code=ABCD")
        try browser.launcher.open("http://127.0.0.1:4711/oidc/generic/authorize")
        try browser.launcher.open("http://localhost:4711/x")
        #expect(
            browser.opened(waitingFor: 3).sorted() == [
                "http://127.0.0.1:4711/oidc/generic/authorize",
                "http://localhost:4711/x",
                "https://accounts.example.com/device?user_code=ABCD",
            ])
    }
}
