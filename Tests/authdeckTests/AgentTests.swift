import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `authdeck agent` end to end: a real agent on a socket in a temporary folder, clients that have no store of their
/// own (`AUTHDECK_AGENT_SOCK` set, `AUTHDECK_HOME` empty), and a real sshd on 127.0.0.1 forwarding the socket with
/// `ssh -R` to a "remote" shell.
@Suite(.serialized) struct AgentTests {
    let folder = TemporaryFolder()
    var home: String { folder.path + "/home" }
    var socket: String { folder.path + "/agent.sock" }
    var logPath: String { folder.path + "/agent.log" }

    func storeRunner() -> CLIRunner {
        let passphrase = folder.write("passphrase", "correct horse\n")
        return CLIRunner(home: home, passphraseFile: passphrase)
    }

    /// A client with no store and no passphrase: everything it gets comes through the socket.
    func client(_ socket: String? = nil) -> CLIRunner {
        CLIRunner(
            home: folder.path + "/client-home",
            extra: [
                "AUTHDECK_AGENT_SOCK": socket ?? self.socket,
                "DBUS_SESSION_BUS_ADDRESS": "",
            ])
    }

    func seeded() -> CLIRunner {
        let runner = storeRunner()
        let lines =
            TokenDeliveryTests.line("work", token: "AT-work-secret")
            + TokenDeliveryTests.line("other", token: "AT-other-secret")
            + TokenDeliveryTests.line("old", token: "AT-old-secret", expires: "2001-01-01T00:00:00Z")
            + TokenDeliveryTests.line("soon", token: "AT-soon-secret", expires: SessionDates.iso(secondsFromNow: 600))
        #expect(runner.run(["store", "import", "-"], stdin: lines).status == 0)
        #expect(runner.run(["use", "work"]).status == 0)
        return runner
    }

    /// The agent, started through bash so its standard input can be a file of answers for --confirm.
    func startAgent(_ runner: CLIRunner, _ arguments: [String], answers: String = "") throws -> SpawnedProcess {
        let answersFile = folder.write("answers", answers)
        let quoted = ([CLIRunner.binary, "agent", "--socket", socket, "--log", logPath] + arguments)
            .map { "'" + $0 + "'" }.joined(separator: " ")
        let out = folder.path + "/agent.out"
        let agent = try runner.spawn(
            executable: "/bin/bash", ["-c", "exec \(quoted) < '\(answersFile)'"],
            stdoutPath: out)
        if waitFor(out, toRead: socket + "\n") { return agent }
        agent.kill(SIGKILL)
        _ = agent.wait(timeout: 5)
        throw CLIFailure("the agent printed no socket path")
    }

    /// Whether the file at `path` reads `text` within ten seconds.
    func waitFor(_ path: String, toRead text: String) -> Bool {
        for _ in 0..<400 {
            if let read = try? String(contentsOfFile: path, encoding: .utf8), read == text { return true }
            usleep(25_000)
        }
        return false
    }

    func stop(_ agent: SpawnedProcess) {
        agent.kill(SIGTERM)
        let (status, timedOut) = agent.wait(timeout: 20)
        #expect(!timedOut && status == 0)
        #expect(access(socket, F_OK) != 0, "the agent removes its socket")
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    @Test func servesAllowedSessionsToClientsWithoutAStore() throws {
        let agent = try startAgent(seeded(), ["--allow", "work,old,soon"])
        defer { stop(agent) }
        var status = stat()
        #expect(stat(socket, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        let client = client()
        #expect(client.run(["token"]).stdout == "AT-work-secret\n")
        #expect(
            client.run(["token", "work", "--min-valid", "5m", "--json"]).stdout
                == "{\"key\":\"work\",\"token\":\"AT-work-secret\",\"expiresAt\":\"2099-01-01T00:00:00Z\"}\n")
        #expect(client.run(["token", "--format", "exec-credential"]).stdout.contains("\"token\":\"AT-work-secret\""))
        #expect(
            client.run(["env", "--shell", "bash"]).stdout
                == "export AUTHDECK_TOKEN='AT-work-secret'\nexport AUTHDECK_SESSION='work'\n")
        let exec = client.run(["exec", "--", "/bin/sh", "-c", "printf %s \"$AUTHDECK_TOKEN\""])
        #expect(exec.status == 0 && exec.stdout == "AT-work-secret")
        let refused = client.run(["token", "other"])
        #expect(refused.status == 4)
        #expect(refused.stderr.contains("allow-list"))
        #expect(refused.stdout.isEmpty)
        // Not on the allow-list whether or not the store holds it: the agent does not say which keys exist.
        #expect(client.run(["token", "nope"]).status == 4)
        let expired = client.run(["token", "old"])
        #expect(expired.status == 1)
        #expect(expired.stderr.contains("expired"))
        #expect(!expired.stderr.contains("AT-old-secret"))
        // --min-valid travels with the request: ten minutes left meet 5m, not 15m.
        #expect(client.run(["token", "soon", "--min-valid", "5m"]).stdout == "AT-soon-secret\n")
        let tooShort = client.run(["token", "soon", "--min-valid", "15m"])
        #expect(tooShort.status == 1)
        #expect(tooShort.stdout.isEmpty)
        #expect(tooShort.stderr.contains("--min-valid"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/client-home/sessions.db"))
        let text = log
        #expect(text.contains("session 'work' for local pid"), "log: \(text)")
        #expect(text.contains("session 'other' for local pid") && text.contains("not on the allow-list"))
        #expect(!text.contains("secret"), "the log holds no token")
    }

    @Test func servesDPoPProofsWithTheKeyKeptAtTheAgent() throws {
        guard Installed.pythonHasCryptography() else { return Installed.skip("python3-cryptography") }
        let checker = DPoPProofTests()
        let token = try checker.boundToken()
        let runner = storeRunner()
        let lines =
            DPoPProofTests.boundLine("bound", token: token) + TokenDeliveryTests.line("work", token: "AT-work-secret")
        #expect(runner.run(["store", "import", "-"], stdin: lines).status == 0)
        let agent = try startAgent(runner, ["--allow", "bound,work"])
        defer { stop(agent) }
        let url = "https://api.example.com/items/7"
        let answer = client().run(["dpop-proof", "bound", "--method", "PUT", "--url", url])
        #expect(answer.status == 0, "stderr: \(answer.stderr)")
        let proof = answer.stdout.trimmingCharacters(in: .newlines)
        #expect(checker.check(proof, token: token, method: "PUT", url: url) == "ok\n")
        #expect(log.contains("session 'bound'") && log.contains("DPoP proof for PUT handed out"))
        #expect(!log.contains(proof) && !log.contains(token))
        let unbound = client().run(["dpop-proof", "work", "--method", "GET", "--url", url])
        #expect(unbound.status == 1 && unbound.stderr.contains("has no DPoP key"), "stderr: \(unbound.stderr)")
    }

    /// The agent reads the store per request (its read kept prepared), never a copy: a session another process
    /// replaced, removed or signed in again is served as the store holds it at the request.
    @Test func servesWhatAnotherProcessLeftInTheStore() throws {
        let runner = seeded()
        let agent = try startAgent(runner, ["--allow", "*"])
        defer { stop(agent) }
        let client = client()
        for _ in 0..<3 { #expect(client.run(["token", "work"]).stdout == "AT-work-secret\n") }
        let replaced = TokenDeliveryTests.line("work", token: "AT-work-replaced")
        #expect(runner.run(["store", "import", "-", "--replace"], stdin: replaced).status == 0)
        #expect(client.run(["token", "work"]).stdout == "AT-work-replaced\n")
        #expect(runner.run(["logout", "work", "--yes"]).status == 0)
        let gone = client.run(["token", "work"])
        #expect(gone.status == 7 && gone.stdout.isEmpty, "stderr: \(gone.stderr)")
        #expect(client.run(["token", "other"]).stdout == "AT-other-secret\n")
        let again = TokenDeliveryTests.line("work", token: "AT-work-again")
        #expect(runner.run(["store", "import", "-"], stdin: again).status == 0)
        #expect(client.run(["token", "work"]).stdout == "AT-work-again\n")
    }

    @Test func theAgentWinsOverALocalStore() throws {
        let agent = try startAgent(seeded(), ["--allow", "work"])
        defer { stop(agent) }
        // This client has a store of its own, unlocked and cached, holding another token under the same key: with
        // AUTHDECK_AGENT_SOCK set, neither binary may answer from it.
        var local = CLIRunner(
            home: folder.path + "/client-home", passphraseFile: folder.write("client-passphrase", "other horse\n"))
        #expect(
            local.run(["store", "import", "-"], stdin: TokenDeliveryTests.line("work", token: "AT-local"))
                .status == 0)
        #expect(local.run(["token", "work"]).stdout == "AT-local\n")
        local.environment["AUTHDECK_AGENT_SOCK"] = socket
        #expect(local.run(["token", "work"]).stdout == "AT-work-secret\n")
        #expect(local.run(["token", "work", "--min-valid", "1m"]).stdout == "AT-work-secret\n")
    }

    @Test func confirmAsksForEachRequest() throws {
        let agent = try startAgent(seeded(), ["--allow", "*", "--confirm"], answers: "n\nyes\n")
        defer { stop(agent) }
        let denied = client().run(["token", "other"])
        #expect(denied.status == 4)
        #expect(denied.stderr.contains("refused"))
        #expect(client().run(["token", "other"]).stdout == "AT-other-secret\n")
        // No answers left: end of input refuses.
        #expect(client().run(["token", "work"]).status == 4)
        #expect(log.contains("refused at the prompt"))
    }

    @Test func aPeerOfAnotherUserIsRefused() throws {
        guard getuid() == 0, Installed.has("/usr/bin/setpriv") else {
            return Installed.skip("root with setpriv (to connect as another user)")
        }
        let agent = try startAgent(seeded(), ["--allow", "*"])
        defer { stop(agent) }
        // Open the folder and socket to everyone, as a careless setup would: SO_PEERCRED still refuses.
        chmod(folder.path, 0o711)
        chmod(socket, 0o666)
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            try:
                s.sendall(b'{"op":"token","session":"work"}\\n')
                sys.stdout.write(s.recv(4096).decode())
            except (ConnectionResetError, BrokenPipeError):
                pass
            """
        let result = storeRunner().run(
            executable: "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, socket,
            ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(log.contains("refused uid 65534"))
    }

    @Test func badInput() throws {
        let runner = seeded()
        let dead = client(folder.path + "/nothing.sock").run(["token"])
        #expect(dead.status == 5)
        #expect(dead.stderr.contains("no agent answers"))
        #expect(client(folder.path + "/nothing.sock").run(["exec", "--", "/bin/true"]).status == 5)
        #expect(runner.run(["agent", "--socket", socket]).status == 2)
        #expect(runner.run(["agent", "--socket", socket, "--allow", ","]).status == 2)
        let notSocket = folder.write("plain-file", "x")
        let taken = runner.run(["agent", "--socket", notSocket, "--allow", "*"])
        #expect(taken.status == 1)
        #expect(taken.stderr.contains("not a socket"))
        #expect(runner.run(["store", "lock"]).status == 0)
        let locked = CLIRunner(home: home, extra: ["DBUS_SESSION_BUS_ADDRESS": ""])
            .run(["agent", "--socket", socket, "--allow", "*"])
        #expect(locked.status == 5)
        #expect(access(socket, F_OK) != 0)
        let agent = try startAgent(runner, ["--allow", "*"])
        defer { stop(agent) }
        #expect(client().run(["token", "nope"]).status == 7)
        let second = runner.run(["agent", "--socket", socket, "--allow", "*"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("already listens"))
    }

    /// A client may keep its connection for several requests: sent one after another or all at once, each is
    /// answered, in order, on the same connection (Python's socket module as the client).
    @Test func oneConnectionCarriesSeveralRequests() throws {
        let runner = seeded()
        let expected = loadSessions(runner)
        let agent = try startAgent(runner, ["--allow", "*"])
        defer { stop(agent) }
        let script = """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            answers = s.makefile("rb")
            def line(key):
                return json.dumps({"op": "token", "session": key, "origin": "kept"}).encode() + b"\\n"
            for key in ["load0", "load1", "nope"]:
                s.sendall(line(key))
                answer = json.loads(answers.readline())
                print(answer.get("key"), answer.get("token"), answer.get("exit"))
            s.sendall(line("load2") + line("load3") + b"not json\\n" + line("load4"))
            for _ in range(4):
                answer = json.loads(answers.readline())
                print(answer.get("key"), answer.get("token"), answer.get("exit"))
            """
        let result = storeRunner().run(executable: "/usr/bin/python3", ["-c", script, socket])
        #expect(
            result.stdout == """
                load0 AT-load0-secret None
                load1 AT-load1-secret None
                None None 7
                load2 AT-load2-secret None
                load3 AT-load3-secret None
                None None 2
                load4 AT-load4-secret None

                """, "stderr: \(result.stderr)")
        #expect(!expected.isEmpty)
        #expect(!log.contains("no request"), "log: \(log)")
        // The load client keeping one connection apiece: every answer its session's own.
        let load = storeRunner().run(
            executable: "/usr/bin/python3", [Self.loadScript, socket, expected, "10", "200", "--keep"], timeout: 300)
        expectAllServed(load, requests: 2000)
    }

    @Test func requestsCannotWriteControlCharactersIntoTheLog() throws {
        let agent = try startAgent(seeded(), ["--allow", "*"])
        defer { stop(agent) }
        let script = """
            import json, socket, sys
            for request in sys.argv[2:]:
                s = socket.socket(socket.AF_UNIX)
                s.connect(sys.argv[1])
                s.sendall(request.encode() + b"\\n")
                answer = json.loads(s.makefile().readline())
                print(answer["ok"], answer.get("exit"))
            """
        let escape = "\\u001b[2J"
        let result = storeRunner().run(
            executable: "/usr/bin/python3",
            [
                "-c", script, socket,
                "{\"op\":\"token\",\"session\":\"work\",\"origin\":\"evil\(escape)host\"}",
                "{\"op\":\"token\",\"session\":\"work\",\"origin\":\"h\\u00e9.llo_1-\\u00fc\\u4e00x\"}",
                "{\"op\":\"token\",\"session\":\"wo\(escape)rk\"}", "{\"op\":\"sign\"}", "not json",
                "{\"op\":\"token\",\"session\":\"wo\\nrk\(escape)\"}",
            ])
        #expect(
            result.stdout == "True None\nTrue None\nFalse 2\nFalse 2\nFalse 2\nFalse 2\n", "stderr: \(result.stderr)")
        #expect(!log.contains("\u{1b}"), "log: \(log)")
        #expect(log.contains("origin evil2Jhost"))
        // Only ASCII letters, digits and "-._" of an origin are kept: none of a multi-byte character's bytes.
        #expect(log.contains("origin h.llo_1-x: token handed out"), "log: \(log)")
        // One line per request, a refused key named with its newline and ESC escaped.
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 7 && lines[6].isEmpty, "log: \(log)")
        #expect(lines[5].contains("'wo\\u{A}rk\\u{1B}[2J'"), "log: \(log)")
    }

    /// The log is opened without following a link, is the agent's user's alone, and is a regular
    /// file; anything else stops the agent with one line before it listens.
    @Test func theLogIsNeverReachedThroughALinkOrLeftOpenToOthers() throws {
        let runner = seeded()
        func start(log: String) -> CLIRunner.Result {
            runner.run(["agent", "--socket", socket, "--allow", "*", "--log", log], timeout: 10)
        }
        let target = folder.write("target", "untouched\n")
        chmod(target, 0o644)
        #expect(symlink(target, logPath) == 0)
        let linked = start(log: logPath)
        #expect(linked.status == 1 && !linked.timedOut, "stderr: \(linked.stderr)")
        #expect(linked.stderr == "authdeck agent: cannot open the log \(logPath): it is a symbolic link\n")
        #expect((try? String(contentsOfFile: target, encoding: .utf8)) == "untouched\n")
        var status = stat()
        #expect(stat(target, &status) == 0 && status.st_mode & 0o777 == 0o644)
        #expect(access(socket, F_OK) != 0)
        let fifo = folder.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let piped = start(log: fifo)
        #expect(piped.status == 1 && !piped.timedOut, "stderr: \(piped.stderr)")
        #expect(piped.stderr.hasPrefix("authdeck agent: cannot "), "stderr: \(piped.stderr)")
        if try OtherUser.available("the other user's log") {
            let theirs = folder.write("theirs.log", "")
            OtherUser.own(theirs)
            let refused = start(log: theirs)
            #expect(refused.status == 1 && !refused.timedOut, "stderr: \(refused.stderr)")
            #expect(refused.stderr.contains("belongs to uid \(OtherUser.uid)"))
        }
        // A log of one's own left readable to others is made owner-only.
        unlink(logPath)
        _ = folder.write("agent.log", "")
        chmod(logPath, 0o644)
        let agent = try startAgent(runner, ["--allow", "*"])
        stop(agent)
        #expect(stat(logPath, &status) == 0 && status.st_mode & 0o777 == 0o600)
    }

    // MARK: - Concurrent clients

    /// Connects `argv[2]` sockets, says "connected", sends nothing and holds them `argv[3]` seconds.
    static let idleClients = """
        import socket, sys, time
        held = []
        for _ in range(int(sys.argv[2])):
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            held.append(s)
        print("connected", flush=True)
        time.sleep(float(sys.argv[3]))
        """

    /// A client that sends a byte a second and never ends its line, and three that say nothing,
    /// hold up no other client; the dripper is cut off when its whole request has not come within 10 s (a timeout
    /// on each read never would cut it off).
    @Test func slowAndIdleClientsHoldUpNoOther() throws {
        let agent = try startAgent(seeded(), ["--allow", "*"])
        defer { stop(agent) }
        let dripperOut = folder.path + "/dripper.out"
        let dripper = try storeRunner().spawn(
            executable: "/usr/bin/python3",
            [
                "-c",
                """
                import socket, sys, time
                s = socket.socket(socket.AF_UNIX)
                s.connect(sys.argv[1])
                print("connected", flush=True)
                start = time.monotonic()
                try:
                    s.sendall(b"{")
                    while time.monotonic() - start < 30:
                        time.sleep(1)
                        s.sendall(b" ")
                    print("held 30 s", flush=True)
                except (BrokenPipeError, ConnectionResetError):
                    print("cut off after %d s" % (time.monotonic() - start), flush=True)
                """, socket,
            ], stdoutPath: dripperOut)
        let idleOut = folder.path + "/idle.out"
        let idle = try storeRunner().spawn(
            executable: "/usr/bin/python3", ["-c", Self.idleClients, socket, "3", "30"], stdoutPath: idleOut)
        defer {
            idle.kill(SIGKILL)
            _ = idle.wait(timeout: 5)
        }
        try #require(waitFor(dripperOut, toRead: "connected\n") && waitFor(idleOut, toRead: "connected\n"))
        let answered = client().run(["token"], timeout: 60)
        let dripping = (try? String(contentsOfFile: dripperOut, encoding: .utf8)) ?? ""
        #expect(answered.stdout == "AT-work-secret\n", "stderr: \(answered.stderr)")
        #expect(dripping == "connected\n", "the token came only after the dripper let go: \(dripping)")
        let (_, timedOut) = dripper.wait(timeout: 60)
        #expect(!timedOut)
        let report = (try? String(contentsOfFile: dripperOut, encoding: .utf8)) ?? ""
        let seconds = report.split(separator: "\n").last.flatMap { line in
            line.hasPrefix("cut off after ") ? Int(line.split(separator: " ")[3]) : nil
        }
        #expect(seconds.map { $0 >= 9 && $0 < 20 } == true, "dripper: \(report)")
        #expect(log.contains("no request"), "log: \(log)")
    }

    /// 128 connections of the user at once are served; the 129th is told the agent is busy, in
    /// one line, and the agent serves again once they are gone.
    @Test func oneConnectionMoreThan128AtOnceIsTurnedAway() throws {
        let agent = try startAgent(seeded(), ["--allow", "*"])
        defer { stop(agent) }
        let idleOut = folder.path + "/idle.out"
        let idle = try storeRunner().spawn(
            executable: "/usr/bin/python3", ["-c", Self.idleClients, socket, "128", "30"], stdoutPath: idleOut)
        try #require(waitFor(idleOut, toRead: "connected\n"))
        let busy = client().run(["token"], timeout: 60)
        idle.kill(SIGKILL)
        _ = idle.wait(timeout: 5)
        #expect(busy.status == 5, "stderr: \(busy.stderr)")
        #expect(busy.stdout.isEmpty)
        #expect(
            busy.stderr.hasPrefix("authdeck token: agent: the agent is busy: 128 connections")
                && busy.stderr.filter { $0 == "\n" }.count == 1, "stderr: \(busy.stderr)")
        #expect(log.contains("refused, 128 connections already open"), "log: \(log)")
        var served = client().run(["token"])
        for _ in 0..<20 where served.status != 0 {
            usleep(100_000)
            served = client().run(["token"])
        }
        #expect(served.stdout == "AT-work-secret\n", "stderr: \(served.stderr)")
    }

    /// Sessions `load0`…`load4` beside the seeded ones, and the file that tells scripts/agent-load.py which token
    /// each must come with (the tokens imported, not anything the agent says).
    func loadSessions(_ runner: CLIRunner) -> String {
        var lines = ""
        var expected: [String] = []
        for index in 0..<5 {
            lines += TokenDeliveryTests.line("load\(index)", token: "AT-load\(index)-secret")
            expected.append("\"load\(index)\": \"AT-load\(index)-secret\"")
        }
        #expect(runner.run(["store", "import", "-"], stdin: lines).status == 0)
        return folder.write("expected.json", "{" + expected.joined(separator: ", ") + "}")
    }

    /// What scripts/agent-load.py printed, checked: every request answered with the token of the session it asked
    /// for, the slow client's too.
    func expectAllServed(_ result: CLIRunner.Result, requests: Int) {
        #expect(result.status == 0 && !result.timedOut, "stderr: \(result.stderr)")
        let report =
            (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
        #expect(report["requests"] as? Int == requests, "report: \(result.stdout)")
        #expect(report["failures"] as? Int == 0, "report: \(result.stdout)")
        #expect(report["wrong"] as? Int == 0, "report: \(result.stdout)")
        #expect((report["slowServed"] as? Int ?? 0) >= 1, "report: \(result.stdout)")
    }

    static let loadScript = CLIRunner.repositoryRoot + "/scripts/agent-load.py"

    /// Twenty clients at once, 200 requests each on a connection apiece, beside a client that sends its requests in
    /// pieces, reads its answers a byte at a time and holds an idle connection: none is refused or answered with
    /// another session's token.
    @Test func twentyClientsAtOnceEachGetTheirOwnTokens() throws {
        let runner = seeded()
        let expected = loadSessions(runner)
        let agent = try startAgent(runner, ["--allow", "*"])
        defer { stop(agent) }
        let result = storeRunner().run(
            executable: "/usr/bin/python3", [Self.loadScript, socket, expected, "20", "200"], timeout: 300)
        expectAllServed(result, requests: 4000)
        #expect(!log.contains("busy"), "log: \(log.suffix(500))")
    }

    // MARK: - ssh -R

    @Test func aRemoteShellGetsATokenThroughSSHForwarding() throws {
        guard getuid() == 0, Installed.has("/usr/sbin/sshd"), Installed.has("/usr/bin/ssh") else {
            return Installed.skip("sshd and ssh, run as root")
        }
        let runner = seeded()
        let agent = try startAgent(runner, ["--allow", "work"])
        defer { stop(agent) }
        let sshd = try SSHServer(folder: folder, runner: runner)
        let remoteSocket = folder.path + "/remote.sock"
        let remoteHome = folder.path + "/remote-home"
        let command =
            "AUTHDECK_AGENT_SOCK='\(remoteSocket)' AUTHDECK_HOME='\(remoteHome)' '\(CLIRunner.binary)' token"
            + "; echo status=$?; AUTHDECK_AGENT_SOCK='\(remoteSocket)' AUTHDECK_HOME='\(remoteHome)' "
            + "'\(CLIRunner.binary)' token other; echo status=$?"
        let result = runner.run(
            executable: "/usr/bin/ssh",
            sshd.clientArguments + [
                "-o", "ExitOnForwardFailure=yes", "-R", "\(remoteSocket):\(socket)", "root@127.0.0.1", command,
            ], timeout: 60)
        #expect(result.status == 0, "ssh: \(result.stderr)\nsshd: \(sshd.log)")
        #expect(result.stdout == "AT-work-secret\nstatus=0\nstatus=4\n", "stdout: \(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: remoteHome + "/sessions.db"))
        #expect(log.contains("session 'work' for remote (via ssh)"), "log: \(log)")
    }

    /// The same load through `ssh -R`: every connection of the remote clients is a channel of one ssh session.
    @Test func twentyRemoteClientsAtOnceThroughSSHForwarding() throws {
        guard getuid() == 0, Installed.has("/usr/sbin/sshd"), Installed.has("/usr/bin/ssh") else {
            return Installed.skip("sshd and ssh, run as root")
        }
        let runner = seeded()
        let expected = loadSessions(runner)
        let agent = try startAgent(runner, ["--allow", "*"])
        defer { stop(agent) }
        let sshd = try SSHServer(folder: folder, runner: runner)
        let remoteSocket = folder.path + "/remote.sock"
        let result = runner.run(
            executable: "/usr/bin/ssh",
            sshd.clientArguments + [
                "-o", "ExitOnForwardFailure=yes", "-R", "\(remoteSocket):\(socket)", "root@127.0.0.1",
                "python3 '\(Self.loadScript)' '\(remoteSocket)' '\(expected)' 20 200",
            ], timeout: 300)
        expectAllServed(result, requests: 4000)
        #expect(log.contains("for remote (via ssh)"), "log: \(log.suffix(500))")
    }
}

/// sshd on 127.0.0.1 for one test: throwaway host and user keys, its own config, stopped by its pid.
final class SSHServer: @unchecked Sendable {
    let process: SpawnedProcess
    let clientArguments: [String]
    let logPath: String

    /// What sshd logged, for failure messages.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    init(folder: TemporaryFolder, runner: CLIRunner) throws {
        let base = folder.path + "/ssh"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        for name in ["host_key", "user_key"] {
            let made = runner.run(
                executable: "/usr/bin/ssh-keygen",
                [
                    "-q", "-t", "ed25519", "-N", "", "-f",
                    base + "/" + name,
                ])
            guard made.status == 0 else { throw CLIFailure("ssh-keygen: \(made.stderr)") }
        }
        try FileManager.default.copyItem(atPath: base + "/user_key.pub", toPath: base + "/authorized_keys")
        // sshd running as root wants its privilege-separation directory, which a booted Debian makes in /run.
        if access("/run/sshd", F_OK) != 0 { mkdir("/run/sshd", 0o755) }
        // A free port can be taken by another test's server before sshd binds it: sshd's own log says whether it
        // listens; on a lost race, try another port.
        var started: (SpawnedProcess, Int, String)?
        for attempt in 0..<3 where started == nil {
            let port = Self.freePort()
            let log = base + "/sshd-\(attempt).log"
            let config = """
                ListenAddress 127.0.0.1
                Port \(port)
                HostKey \(base)/host_key
                AuthorizedKeysFile \(base)/authorized_keys
                PidFile \(base)/sshd.pid
                StrictModes no
                UsePAM no
                PasswordAuthentication no
                KbdInteractiveAuthentication no
                PermitRootLogin prohibit-password
                AllowStreamLocalForwarding yes
                StreamLocalBindUnlink yes

                """
            FileManager.default.createFile(atPath: base + "/sshd_config", contents: Data(config.utf8))
            let process = try runner.spawn(
                executable: "/usr/sbin/sshd",
                ["-D", "-e", "-E", log, "-f", base + "/sshd_config"])
            var listening = false
            for _ in 0..<400 {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if text.contains("Server listening on 127.0.0.1 port \(port).") {
                    listening = true
                    break
                }
                if text.contains("Cannot bind any address") || text.contains("Bind to port") { break }
                usleep(25_000)
            }
            if listening {
                started = (process, port, log)
            } else {
                process.kill(SIGKILL)
                _ = process.wait(timeout: 5)
            }
        }
        guard let (process, port, log) = started else { throw CLIFailure("sshd did not start listening") }
        self.process = process
        logPath = log
        let hostKey = try String(contentsOfFile: base + "/host_key.pub", encoding: .utf8)
        FileManager.default.createFile(
            atPath: base + "/known_hosts",
            contents: Data("[127.0.0.1]:\(port) \(hostKey)".utf8))
        clientArguments = [
            "-F", "/dev/null", "-p", "\(port)", "-i", base + "/user_key", "-o", "IdentitiesOnly=yes",
            "-o", "BatchMode=yes", "-o", "UserKnownHostsFile=\(base)/known_hosts",
            "-o", "StrictHostKeyChecking=yes",
        ]
    }

    deinit {
        process.kill(SIGTERM)
        _ = process.wait(timeout: 10)
    }

    static func freePort() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 ? getsockname(descriptor, raw, &length) : -1
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
