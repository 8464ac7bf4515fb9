import AuthClient
import AuthCore
import Foundation
import Sandbox
import SessionStorage
import TerminalUI

/// `authdeck sandbox faults [NAME[,NAME…]|none] [--delay-ms N] [--url URL] [--json]`: shows or switches the faults of
/// a running sandbox through its admin route. The sandbox is found by `--url`, else by the `sandbox` backend of
/// the config (`--config`, `$AUTHDECK_CONFIG`: what `authdeck sandbox --config-out` wrote).
enum SandboxFaultsCommand {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let words = try arguments.positionals(atMost: 2)
        if words.count == 2, words[1] == "list" {
            global.out(SandboxFaults.listing)
            return .done
        }
        let base = try sandboxURL(arguments, global)
        let transport = CurlTransport(timeout: 10)
        let request: OutgoingRequest
        if words.count == 2 || arguments.value("delay-ms") != nil {
            var selection: SandboxFaults.Selection
            do throws(SandboxFaults.Failure) {
                let names = words.count == 2 ? words[1] : ""
                selection = SandboxFaults.Selection(faults: try SandboxFaults.parse(names: names))
            } catch {
                throw .usage(error.description)
            }
            if words.count < 2 { selection.faults = try current(base, transport).faults }
            if let delay = try arguments.integer("delay-ms", in: SandboxFaults.Selection.delayRange) {
                selection.delayMs = delay
            }
            var change = OutgoingRequest.json(
                base + "/sandbox/faults", encoded(selection.jsonObject),
                headers: [("X-Authdeck-Sandbox", "admin")])
            change.method = "PUT"
            request = change
        } else {
            request = OutgoingRequest(url: base + "/sandbox/faults")
        }
        let object = try send(request, transport)
        if arguments.has("json") {
            var shown = object
            shown["available"] = nil
            global.out(String(decoding: encoded(shown), as: UTF8.self) + "\n")
        } else {
            let names = (object["faults"] as? [String]) ?? []
            var line = names.isEmpty ? "none" : names.joined(separator: ",")
            if names.contains(SandboxFault.slowProvider.rawValue), let delay = object["delayMs"] as? Int {
                line += " (delay \(delay) ms)"
            }
            global.out(line + "\n")
        }
        return .done
    }

    private static func encoded(_ object: [String: Any]) -> [UInt8] {
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return data.map { Array($0) } ?? Array("{}".utf8)
    }

    static func current(_ base: String, _ transport: CurlTransport) throws(CommandFailure)
        -> SandboxFaults.Selection
    {
        let object = try send(OutgoingRequest(url: base + "/sandbox/faults"), transport)
        let names = (object["faults"] as? [String] ?? []).joined(separator: ",")
        var selection = SandboxFaults.Selection(faults: (try? SandboxFaults.parse(names: names)) ?? [])
        if let delay = object["delayMs"] as? Int { selection.delayMs = delay }
        return selection
    }

    static func send(_ request: OutgoingRequest, _ transport: CurlTransport) throws(CommandFailure)
        -> [String: Any]
    {
        let response: IncomingResponse
        do throws(SignInError) {
            response = try transport.send(request)
        } catch {
            throw CommandFailure(.failed, "cannot reach the sandbox: \(error.message)")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] else {
            throw CommandFailure(
                .failed,
                "the sandbox answered HTTP \(response.status) without JSON "
                    + "(is it an authdeck sandbox?)")
        }
        guard response.status == 200 else {
            let reason = object["error_description"] as? String ?? "HTTP \(response.status)"
            throw CommandFailure(response.status == 400 ? .usage : .failed, "the sandbox refused: \(reason)")
        }
        return object
    }

    /// `--url`, else the `sandbox` backend's base URL in the config.
    static func sandboxURL(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> String {
        var base: String
        if let url = arguments.value("url") {
            base = url
        } else {
            let configuration: Configuration
            do throws(SignInError) {
                configuration = try ConfigurationFile.load(
                    explicit: global.config,
                    environment: global.environment.variables)
            } catch {
                throw error.commandFailure
            }
            guard let url = configuredURL(configuration) else {
                throw .usage("name the sandbox with --url http://127.0.0.1:PORT (the config has no sandbox backend)")
            }
            base = url
        }
        while base.hasSuffix("/") { base.removeLast() }
        guard isLoopback(base) else {
            throw .usage("the sandbox's admin route is on loopback only: --url http://127.0.0.1:PORT")
        }
        return base
    }

    /// The config's sandbox: the backend named `sandbox`, else the first of type sandbox by name (what the TUI's
    /// `S` opens).
    static func configuredURL(_ configuration: Configuration) -> String? {
        let backends = configuration.backends ?? [:]
        let named = backends["sandbox"].flatMap { $0.type == .sandbox ? $0.baseURL : nil }
        return named
            ?? backends.keys.sorted().lazy.compactMap { name -> String? in
                backends[name]?.type == .sandbox ? backends[name]?.baseURL : nil
            }.first
    }

    static func isLoopback(_ url: String) -> Bool {
        guard let parts = URLComponents(string: url), parts.scheme == "http" else { return false }
        return ["127.0.0.1", "localhost", "[::1]", "::1"].contains(parts.host ?? "")
    }

    // MARK: - The TUI's Sandbox panel

    /// `sandbox panel`: the TUI opened on its Sandbox panel (Esc or q leaves). The sandbox is read first, so one
    /// that is not running is a one-line error before the terminal is taken over.
    static func panel(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        _ = try arguments.positionals(atMost: 1)
        let base = try sandboxURL(arguments, global)
        let first = try send(OutgoingRequest(url: base + "/sandbox/faults"), CurlTransport(timeout: 10))
        return try TUICommand.openSandboxPanel(url: base, report: report(first), global)
    }

    /// The Sandbox panel's request to the admin route (a read when `faults` is nil, else a switch to exactly
    /// those), answered as the event the panel takes.
    static func panelEvent(url: String, faults: [String]?, delayMs: Int) -> AppEvent {
        var request = OutgoingRequest(url: url + "/sandbox/faults", headers: [("X-Authdeck-Sandbox", "admin")])
        if let faults {
            request = OutgoingRequest.json(
                url + "/sandbox/faults",
                encoded(["faults": faults, "delayMs": delayMs]),
                headers: [("X-Authdeck-Sandbox", "admin")])
            request.method = "PUT"
        }
        do throws(CommandFailure) {
            return .sandboxAnswered(
                report(try send(request, CurlTransport(timeout: 10))),
                switched: faults != nil)
        } catch {
            return .sandboxFailed(error.message)
        }
    }

    /// The panel's own read of the sandbox, answered as `sandboxPolled` with the request's number.
    static func pollEvent(url: String, request: Int) -> AppEvent {
        do throws(CommandFailure) {
            let object = try send(OutgoingRequest(url: url + "/sandbox/faults"), CurlTransport(timeout: 5))
            return .sandboxPolled(request: request, .success(report(object)))
        } catch {
            return .sandboxPolled(request: request, .failure(SandboxPanel.Unreachable(error.message)))
        }
    }

    /// The admin route's answer as the panel shows it.
    static func report(_ object: [String: Any]) -> SandboxPanel.Report {
        let available = (object["available"] as? [[String: Any]] ?? []).compactMap { entry -> SandboxPanel.Fault? in
            guard let name = entry["name"] as? String else { return nil }
            return SandboxPanel.Fault(name: name, summary: entry["summary"] as? String ?? "")
        }
        return SandboxPanel.Report(
            available: available, on: object["faults"] as? [String] ?? [],
            delayMs: object["delayMs"] as? Int ?? SandboxFaults.Selection.defaultDelayMs)
    }
}
