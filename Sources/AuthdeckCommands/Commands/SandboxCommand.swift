import AuthClient
import Foundation
import Sandbox
import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `authdeck sandbox`: runs the built-in server until SIGINT or SIGTERM. The base URL is the first line on
/// stdout, so a script can start it in the background and read one line to know where it listens; one-time
/// codes follow, one JSON object a line, and go to the outbox file too (`--outbox`, by default
/// `sandbox-outbox.jsonl` in the data folder).
enum SandboxCommand {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        switch arguments.positionals.first {
        case "faults": return try SandboxFaultsCommand.run(arguments, global)
        case "approve": return try SandboxApproveCommand.run(arguments, global)
        case "panel": return try SandboxFaultsCommand.panel(arguments, global)
        default: _ = try arguments.positionals(atMost: 0)
        }
        if arguments.value("fault") == "list" {
            global.out(SandboxFaults.listing)
            return .done
        }
        global.environment.requireProcess("sandbox")
        let environment = global.environment.variables
        var configuration = SandboxConfiguration()
        // A fixed port by default, so the config.json written yesterday (and sessions stored with its URLs) still
        // reach the sandbox today; --port 0 picks a free one.
        configuration.port = UInt16(
            try arguments.integer("port", in: 0...65535)
                ?? Int(SandboxConfiguration.defaultPort))
        configuration.tokenLifetime = try arguments.integer("token-lifetime", in: 1...86_400) ?? 3600
        configuration.deviceInterval = try arguments.integer("device-interval", in: 1...60) ?? 5
        // RP-Initiated Logout returns to an address registered exactly; config.json names the same one.
        configuration.postLogoutRedirectURIs = [
            arguments.value("post-logout-redirect-uri")
                ?? "http://127.0.0.1:\(SandboxConfiguration.defaultPort + 1)/logout"
        ]
        if let fault = arguments.value("fault") {
            do throws(SandboxFaults.Failure) {
                configuration.faults = try SandboxFaults.selection(argument: fault)
            } catch {
                throw .usage(error.description)
            }
        }
        if let delay = try arguments.integer("delay-ms", in: SandboxFaults.Selection.delayRange) {
            configuration.faults.delayMs = delay
        }
        configuration.trustedIssuers = try trustedIssuers(arguments.values("trust-issuer"))
        // `make run` shows the TOTP step of the proxy too; the config.json it writes turns the extension on.
        configuration.turnkeyTOTPExtension = true
        do {
            if let path = arguments.value("users") {
                configuration.users = try SandboxUsers.load(path: path)
            } else if let path = defaultUsersFile(environment: environment) {
                configuration.users = try SandboxUsers.load(path: path)
            }
        } catch {
            throw CommandFailure(.failed, error.description)
        }
        let dataFolder = StoreLocation.resolve(environment: environment).directory
        configuration.outboxPath = arguments.value("outbox") ?? dataFolder + "/sandbox-outbox.jsonl"
        // Keys, issued tokens and sign-ups kept across restarts, next to the store the sessions live in.
        let folder = SandboxDataFolder(path: dataFolder + "/sandbox")
        configuration.dataFolder = folder
        // A private_key_jwt client with its key in the data folder, for config.json's sandbox-jwt backend.
        do {
            configuration.register(try folder.jwtClient())
        } catch {
            throw CommandFailure(.failed, error.description)
        }
        let output = global.environment.output
        configuration.announce = { line in output.write(line) }
        // Only this user's processes may switch faults (a fault stalls or breaks every sign-in at the sandbox).
        configuration.adminPeerCheck = { request in LoopbackPeer.isCurrentUser(request) }

        // Blocked before the server's thread exists, so that thread inherits the mask and the signals wait for
        // sigwait below instead of killing the process mid-response.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        let server: SandboxServer
        do {
            server = try SandboxServer(configuration: configuration)
        } catch {
            if error.description.contains(String(cString: strerror(EADDRINUSE))) {
                throw CommandFailure(
                    .failed,
                    "port \(configuration.port) is taken (another sandbox is running?): "
                        + "stop it, or pass --port N (0 picks a free port)")
            }
            throw CommandFailure(.failed, error.description)
        }
        // The config is written before the URL is printed, so whoever waits for the first line may read it.
        if let path = arguments.value("config-out") {
            do {
                try server.writeConfig(to: path)
            } catch {
                server.stop()
                throw CommandFailure(.failed, error.description)
            }
        }
        global.out(server.baseURL + "\n")
        if !global.quiet {
            let names = configuration.users.map(\.name).joined(separator: ", ")
            global.err(
                "authdeck sandbox: listening on \(server.baseURL) (users: \(names)); "
                    + "codes go to \(configuration.outboxPath ?? "stdout"). Ctrl-C stops.\n")
            if !configuration.faults.faults.isEmpty {
                global.err("authdeck sandbox: faults on: \(configuration.faults.names.joined(separator: ","))\n")
            }
        }
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        server.stop()
        return .done
    }

    /// `--trust-issuer ISSUER=FILE`: each issuer's JWKS document, read now, so a bad file is told at start (exit 2).
    static func trustedIssuers(_ values: [String]) throws(CommandFailure) -> [String: String] {
        var trusted: [String: String] = [:]
        for value in values {
            guard let split = value.firstIndex(of: "="), case let issuer = String(value[..<split]),
                issuer.hasPrefix("http"), !value[value.index(after: split)...].isEmpty
            else {
                throw .usage("--trust-issuer takes ISSUER=FILE: the issuer URL, =, and a file holding its JWKS")
            }
            let path = String(value[value.index(after: split)...])
            guard let data = FileManager.default.contents(atPath: path), data.count <= 65_536,
                let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let keys = document["keys"] as? [Any], !keys.isEmpty
            else {
                throw .usage("--trust-issuer: \(path) is not a JWKS document ({\"keys\": [...]}, at most 64 KiB)")
            }
            trusted[issuer] = String(decoding: data, as: UTF8.self)
        }
        return trusted
    }

    /// sandbox-users.json in the resource folder (`$AUTHDECK_RESOURCES`, `PREFIX/share/authdeck` beside either
    /// installed binary, or the source tree's Resources); nil falls back to the built-in list (the same users).
    private static func defaultUsersFile(environment: [String: String]) -> String? {
        let path = ResourceFolder.locate(environment: environment).appendingPathComponent("sandbox-users.json").path
        return FileManager.default.isReadableFile(atPath: path) ? path : nil
    }
}
