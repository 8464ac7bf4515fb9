import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `docker-credential-authdeck` as container tools run it: skopeo, told by its auth file's `credHelpers` to ask
/// authdeck for 127.0.0.1:PORT, pushes an image to Debian's docker-registry, whose htpasswd entry (made by
/// apache2-utils' htpasswd) is the session's token; an unmapped registry and an expired session fail in skopeo
/// with authdeck's one line. The protocol's other verbs (list, store, erase) answer as the helper protocol says.
@Suite struct RegistryCredentialTests {
    let folder = TemporaryFolder()

    /// A runner whose PATH finds `docker-credential-authdeck`, a link to the built authdeck as `make install` makes.
    func seeded(registries: [String: String]) -> CLIRunner {
        let bin = folder.path + "/bin"
        try? FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try? FileManager.default.createSymbolicLink(
            atPath: bin + "/docker-credential-authdeck", withDestinationPath: CLIRunner.binary)
        let map = registries.map { "\"\($0.key)\":{\"session\":\"\($0.value)\",\"username\":\"deploy\"}" }
        let runner = CLIRunner(
            home: folder.path + "/home", passphraseFile: folder.write("passphrase", "correct horse\n"),
            extra: [
                "HOME": folder.path, "PATH": bin + ":/usr/bin:/bin", "XDG_RUNTIME_DIR": folder.path,
                "AUTHDECK_CONFIG": folder.write(
                    "config.json", "{\"registryCredentials\":{\(map.joined(separator: ","))}}"),
            ])
        let lines =
            TokenDeliveryTests.line("reg", token: "AT-reg-secret-42")
            + TokenDeliveryTests.line("stale", token: "AT-stale", expires: "2001-01-01T00:00:00Z")
        let imported = runner.run(["store", "import", "-"], stdin: lines)
        #expect(imported.status == 0, "import: \(imported.stderr)")
        return runner
    }

    func helper(_ runner: CLIRunner, _ verb: String, stdin: String) -> CLIRunner.Result {
        runner.run(executable: folder.path + "/bin/docker-credential-authdeck", [verb], stdin: stdin)
    }

    @Test func skopeoPushesThroughTheHelperToARegistryThatWantsTheToken() throws {
        for tool in ["/usr/bin/skopeo", "/usr/bin/docker-registry", "/usr/bin/htpasswd", "/usr/bin/python3"]
        where !Installed.has(tool) {
            return Installed.skip(tool)
        }
        let port = Int(try PortHolder.freePort())
        let registry = "127.0.0.1:\(port)"
        let runner = seeded(registries: [registry: "reg", "stale.example:5000": "stale"])
        // The registry: storage in the test's folder, basic auth checked against a bcrypt htpasswd entry.
        let password = runner.run(executable: "/usr/bin/htpasswd", ["-Bbn", "deploy", "AT-reg-secret-42"])
        #expect(password.status == 0, "htpasswd: \(password.stderr)")
        let htpasswd = folder.write("htpasswd", password.stdout)
        let config = folder.write(
            "registry.yml",
            """
            version: 0.1
            log: {level: error}
            storage: {filesystem: {rootdirectory: \(folder.path)/registry}}
            http: {addr: "\(registry)"}
            auth: {htpasswd: {realm: authdeck-test, path: \(htpasswd)}}

            """)
        let server = try runner.start(executable: "/usr/bin/docker-registry", ["serve", config])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        try waitForListener(port)
        let layout = folder.path + "/image"
        let made = runner.run(
            executable: "/usr/bin/python3",
            [CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/oci-layout.py", layout, "v1"])
        #expect(made.status == 0, "oci-layout: \(made.stderr)")
        let auth = folder.write(
            "auth.json",
            "{\"credHelpers\":{\"\(registry)\":\"authdeck\",\"127.0.0.1:1\":\"authdeck\","
                + "\"stale.example:5000\":\"authdeck\"}}")
        func copy(to destination: String) -> CLIRunner.Result {
            runner.run(
                executable: "/usr/bin/skopeo",
                [
                    "copy", "--dest-tls-verify=false", "--dest-authfile", auth, "oci:\(layout):v1",
                    "docker://\(destination)",
                ], timeout: 120)
        }
        let pushed = copy(to: "\(registry)/authdeck/hello:v1")
        #expect(pushed.status == 0, "skopeo: \(pushed.stderr)")
        // The registry has it, read back with the same credentials by a client that is not skopeo.
        let tags = runner.run(
            executable: "/usr/bin/curl",
            ["-sS", "-K", "-", "http://\(registry)/v2/authdeck/hello/tags/list"],
            stdin: "user = \"deploy:AT-reg-secret-42\"\n")
        #expect(tags.stdout.contains("\"v1\""), "tags: \(tags.stdout) \(tags.stderr)")

        let unmapped = copy(to: "127.0.0.1:1/authdeck/hello:v1")
        #expect(unmapped.status != 0)
        #expect(unmapped.stderr.contains("no session is mapped to the registry '127.0.0.1:1'"), "\(unmapped.stderr)")
        let stale = copy(to: "stale.example:5000/authdeck/hello:v1")
        #expect(stale.status != 0)
        #expect(stale.stderr.contains("expired"), "\(stale.stderr)")
        #expect(!(unmapped.stderr + stale.stderr).contains("AT-"), "no token in skopeo's errors")
    }

    /// get, list, store and erase as docker/docker-credential-helpers' client calls them: JSON objects named
    /// ServerURL, Username and Secret, errors on stdout, and the protocol's own not-found text for erase.
    @Test func theProtocolsVerbsAnswerAsItsClientExpects() throws {
        let runner = seeded(registries: ["registry.example:5000": "reg"])
        let got = helper(runner, "get", stdin: "https://registry.example:5000\n")
        #expect(got.status == 0, "get: \(got.stdout) \(got.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(got.stdout.utf8)) as? [String: String])
        #expect(
            object == [
                "ServerURL": "https://registry.example:5000", "Username": "deploy", "Secret": "AT-reg-secret-42",
            ])
        let listed = try JSONSerialization.jsonObject(with: Data(helper(runner, "list", stdin: "").stdout.utf8))
        #expect(listed as? [String: String] == ["registry.example:5000": "deploy"])
        let other = helper(runner, "get", stdin: "other.example\n")
        #expect(other.status == 1 && other.stdout.split(separator: "\n").count == 1, "\(other.stdout)")
        #expect(other.stdout.contains("registryCredentials"))
        // store and erase change nothing; for a registry authdeck does not map, erase says the protocol's
        // not-found (docker logout accepts it) and store refuses to keep a password.
        let before = runner.run(["list", "--json"]).stdout
        let store = "{\"ServerURL\":\"registry.example:5000\",\"Username\":\"deploy\",\"Secret\":\"typed\"}"
        #expect(helper(runner, "store", stdin: store).status == 0)
        #expect(helper(runner, "erase", stdin: "registry.example:5000\n").status == 0)
        let erased = helper(runner, "erase", stdin: "other.example\n")
        #expect(erased.status == 1 && erased.stdout == "credentials not found in native keychain\n")
        let refused = helper(
            runner, "store", stdin: "{\"ServerURL\":\"other.example\",\"Username\":\"u\",\"Secret\":\"typed\"}")
        #expect(refused.status == 1 && refused.stdout.contains("keeps no registry passwords"), "\(refused.stdout)")
        #expect(!refused.stdout.contains("typed"))
        #expect(runner.run(["list", "--json"]).stdout == before)
        #expect(helper(runner, "fetch", stdin: "").status == 2)
    }

    private func waitForListener(_ port: Int) throws {
        for _ in 0..<200 {
            if let descriptor = try? RawTCP.connect(port: UInt16(port)) {
                close(descriptor)
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw CLIFailure("docker-registry did not listen on \(port)")
    }
}
