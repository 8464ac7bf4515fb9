import Foundation
import Testing

/// Where `login` listens: config.json's `listen` and `--listen` bind the receiver to exactly that port, and a port
/// already in use is an error naming it before any browser opens. The real binary, the sandbox, a scripted browser.
@Suite(.serialized) struct LoginListenTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    init() throws {
        setup = try SandboxLoginSetup()
    }

    /// The sandbox's config with `listen` added, as a file of its own.
    func config(listen: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: setup.sandbox.configPath))
        var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        object["listen"] = listen
        let path = setup.folder.path + "/listen-config.json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        return path
    }

    func freePort() throws -> UInt16 {
        let holder = try PortHolder(port: 0)
        defer { holder.close() }
        return holder.port
    }

    @Test func configListenFixesThePortTheRedirectURINames() throws {
        let port = try freePort()
        let result = setup.runner.run(
            ["login", "google"], stdin: "",
            environment: ["AUTHDECK_CONFIG": try config(listen: "127.0.0.1:\(port)")])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A\(port)%2Fcallback"))
    }

    @Test func aTakenPortIsNamedBeforeTheBrowserOpens() throws {
        let holder = try PortHolder(port: 0)
        defer { holder.close() }
        let log = setup.folder.path + "/browser.log"
        let configured: [String: String?] = ["AUTHDECK_CONFIG": try config(listen: "127.0.0.1:\(holder.port)")]
        for environment in [configured, [:]] {
            let arguments =
                environment.isEmpty
                ? ["login", "google", "--listen", "127.0.0.1:\(holder.port)"]
                : ["login", "google"]
            let result = setup.runner.run(arguments, stdin: "", environment: environment)
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("port \(holder.port) on 127.0.0.1 is in use"))
            #expect(!result.stderr.contains("Sign in with"))
        }
        #expect(!FileManager.default.fileExists(atPath: log))
        #expect(try setup.listed().isEmpty)
    }

    /// X and Discord compare the redirect URI exactly: the sign-in says at its start which URI it sends and that it
    /// must be registered, and while the port is random how to fix it; with `listen`, that port and no advice.
    @Test(arguments: ["x", "discord"]) func anExactRedirectProviderNamesTheURIItSends(_ provider: String) throws {
        let random = setup.runner.run(["login", provider], stdin: "")
        #expect(random.status == 0, "stderr: \(random.stderr)")
        let lines = random.stderr.split(separator: "\n").map(String.init)
        let sent = try #require(lines.firstIndex { $0.contains("sends the redirect URI") })
        #expect(lines[sent].hasPrefix("authdeck: this sign-in sends the redirect URI http://127.0.0.1:"))
        #expect(lines[sent].contains("unless exactly that URI is registered"))
        #expect(lines[sent].contains("set \"listen\": \"127.0.0.1:PORT\" in config.json"))
        #expect(lines[sent - 1].hasPrefix("authdeck: ") && lines[sent - 1].contains("compares the"))
        let port = try freePort()
        let fixed = setup.runner.run(
            ["login", provider], stdin: "",
            environment: ["AUTHDECK_CONFIG": try config(listen: "127.0.0.1:\(port)")])
        #expect(fixed.status == 0, "stderr: \(fixed.stderr)")
        #expect(fixed.stderr.contains("sends the redirect URI http://127.0.0.1:\(port)/callback; "))
        #expect(!fixed.stderr.contains("random on every sign-in"))
    }

    /// doctor: an exact-redirect provider on a random port is a warning whose fix is `listen`; with it, none.
    @Test func doctorOffersListenAsTheFixForExactRedirectProviders() throws {
        func randomPortChecks(_ environment: [String: String?]) throws -> [[String: Any]] {
            let result = setup.runner.run(["doctor", "--json"], stdin: "", environment: environment)
            let checks = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
            return checks.filter { ($0["message"] as? String)?.contains("listen on a random port") == true }
        }
        let warned = try randomPortChecks([:])
        #expect(Set(warned.compactMap { $0["area"] as? String }) == ["provider discord", "provider x"])
        for check in warned {
            #expect(check["level"] as? String == "warn")
            #expect((check["fix"] as? String)?.hasPrefix("set \"listen\": \"127.0.0.1:PORT\" in config.json") == true)
        }
        let port = try freePort()
        #expect(try randomPortChecks(["AUTHDECK_CONFIG": try config(listen: "127.0.0.1:\(port)")]).isEmpty)
    }

    @Test func aBadListenInConfigIsAClearError() throws {
        let result = setup.runner.run(
            ["login", "google"], stdin: "",
            environment: ["AUTHDECK_CONFIG": try config(listen: "0.0.0.0:80")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("listen takes 127.0.0.1:PORT"))
    }
}
