import Foundation
import Testing

/// `authdeck sandbox` as a user runs it: the built binary, next to this test bundle.
@Suite struct SandboxCommandTests {
    private static var binary: URL {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        // …/.build/<config>/authdeckPackageTests.xctest (a file on Linux) sits next to authdeck.
        return me.deletingLastPathComponent().appendingPathComponent("authdeck")
    }

    private final class Started {
        let process = Process()
        let output = Pipe()
        let errors = Pipe()
        var firstLine = ""
    }

    /// Starts the command and reads its first stdout line (or fails after 10 s).
    private func start(_ arguments: [String], home: URL) throws -> Started {
        let started = Started()
        started.process.executableURL = Self.binary
        started.process.arguments = ["sandbox"] + arguments
        started.process.environment = [
            "AUTHDECK_HOME": home.path, "PATH": "/usr/bin:/bin",
            "HOME": home.path,
        ]
        started.process.standardOutput = started.output
        started.process.standardError = started.errors
        try started.process.run()
        let handle = started.output.fileHandleForReading
        var line: [UInt8] = []
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty || byte.first == 10 { break }
            line.append(contentsOf: byte)
        }
        started.firstLine = String(decoding: line, as: UTF8.self)
        return started
    }

    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-sandbox-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func printsTheBaseURLFirstWritesTheConfigAndStopsOnSIGTERM() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build authdeck first")
        let home = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        let configPath = home.appendingPathComponent("config/config.json").path
        // Port 0: the fixed default (8750) is SandboxRestartTests' to check, and tests run side by side.
        let started = try start(["--port", "0", "--config-out", configPath, "--quiet"], home: home)
        defer { if started.process.isRunning { started.process.terminate() } }

        let base = started.firstLine
        #expect(base.range(of: #"^http://127\.0\.0\.1:[0-9]{2,5}$"#, options: .regularExpression) != nil, "\(base)")
        let port = try #require(UInt16(base.split(separator: ":").last.map(String.init) ?? ""))
        let discovery = try SandboxHTTP.request("GET", port: port, "/oidc/google/.well-known/openid-configuration")
        #expect(discovery.string("issuer") == base + "/oidc/google")

        let config = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: configPath))) as? [String: Any])
        #expect(config["defaultBackend"] as? String == "sandbox")
        let backends = try #require(config["backends"] as? [String: [String: Any]])
        #expect(backends["sandbox"]?["type"] as? String == "sandbox")
        #expect(backends["sandbox"]?["baseURL"] as? String == base)
        #expect(backends["sandbox-turnkey"]?["type"] as? String == "turnkey")
        #expect(backends["sandbox-turnkey"]?["baseURL"] as? String == base + "/turnkey")
        #expect(backends["sandbox-turnkey"]?["configID"] as? String != nil)
        #expect(backends["sandbox-portal"]?["type"] as? String == "portal")
        #expect(backends["sandbox-portal"]?["baseURL"] as? String == base + "/portal")
        #expect(backends["sandbox-portal"]?["environmentID"] as? String != nil)
        let providers = try #require(config["providers"] as? [String: [String: Any]])
        #expect(Set(providers.keys) == ["google", "apple", "discord", "x", "oidc"])
        #expect(providers["google"]?["issuer"] as? String == base + "/oidc/google")
        #expect(providers["oidc"]?["issuer"] as? String == base + "/oidc/generic")
        #expect(providers["apple"]?["clientID"] as? String == "sandbox-apple")
        #expect(providers["x"]?["userEndpoint"] as? String == base + "/oidc/x/2/users/me")

        // Codes go to stdout and to the outbox in $AUTHDECK_HOME.
        let sent = try SandboxHTTP.json(
            port: port, "/turnkey/v1/otp_init",
            ["contact": "ada@example.com", "otpType": "OTP_TYPE_EMAIL"],
            headers: ["X-Auth-Proxy-Config-ID": "sandbox-config"])
        #expect(sent.status == 200)
        let outbox = try String(contentsOf: home.appendingPathComponent("sandbox-outbox.jsonl"), encoding: .utf8)
        #expect(outbox.contains(sent.string("otpId") ?? "missing"))

        started.process.terminate()
        started.process.waitUntilExit()
        #expect(started.process.terminationReason == .exit)
        #expect(started.process.terminationStatus == 0)
        let rest = String(decoding: started.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.contains("\"contact\":\"ada@example.com\""))
    }

    @Test func aBadUsersFileIsRefusedAtStart() throws {
        let home = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        let users = home.appendingPathComponent("users.json")
        try Data("[{\"name\": \"x\", \"email\": \"broken\"}]".utf8).write(to: users)
        let started = try start(["--users", users.path], home: home)
        started.process.waitUntilExit()
        #expect(started.process.terminationStatus == 1)
        #expect(started.firstLine.isEmpty)
        let message = String(decoding: started.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("broken"))
    }
}
