import AuthClient
import AuthCore
import Foundation
import SessionStorage
import Sandbox

/// `authdeck sandbox faults [NAME[,NAME…]|none] [--delay-ms N] [--url URL] [--json]`: shows or switches the faults of
/// a running sandbox through its admin route. The sandbox is found by `--url`, else by the `sandbox` backend of
/// the config (`--config`, `$AUTHDECK_CONFIG`: what `authdeck sandbox --config-out` wrote).
enum SandboxFaultsCommand {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let words = try arguments.positionals(atMost: 2)
        if words.count == 2, words[1] == "list" {
            Output.out(SandboxFaults.listing)
            return .done
        }
        let base = try sandboxURL(arguments, global)
        let transport = URLSessionTransport(timeout: 10)
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
            var change = OutgoingRequest.json(base + "/sandbox/faults", encoded(selection.jsonObject),
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
            Output.out(String(decoding: encoded(shown), as: UTF8.self) + "\n")
        } else {
            let names = (object["faults"] as? [String]) ?? []
            var line = names.isEmpty ? "none" : names.joined(separator: ",")
            if names.contains(SandboxFault.slowProvider.rawValue), let delay = object["delayMs"] as? Int {
                line += " (delay \(delay) ms)"
            }
            Output.out(line + "\n")
        }
        return .done
    }

    private static func encoded(_ object: [String: Any]) -> [UInt8] {
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return data.map { Array($0) } ?? Array("{}".utf8)
    }

    static func current(_ base: String, _ transport: URLSessionTransport) throws(CommandFailure)
        -> SandboxFaults.Selection {
        let object = try send(OutgoingRequest(url: base + "/sandbox/faults"), transport)
        let names = (object["faults"] as? [String] ?? []).joined(separator: ",")
        var selection = SandboxFaults.Selection(faults: (try? SandboxFaults.parse(names: names)) ?? [])
        if let delay = object["delayMs"] as? Int { selection.delayMs = delay }
        return selection
    }

    static func send(_ request: OutgoingRequest, _ transport: URLSessionTransport) throws(CommandFailure)
        -> [String: Any] {
        let response: IncomingResponse
        do throws(SignInError) {
            response = try transport.send(request)
        } catch {
            throw CommandFailure(.failed, "cannot reach the sandbox: \(error.message)")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] else {
            throw CommandFailure(.failed, "the sandbox answered HTTP \(response.status) without JSON "
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
                configuration = try ConfigurationFile.load(explicit: global.config,
                                                           environment: ProcessEnvironment.current())
            } catch {
                throw error.commandFailure
            }
            guard let url = configuration.backends?["sandbox"]?.baseURL else {
                throw .usage("name the sandbox with --url http://127.0.0.1:PORT (the config has no sandbox backend)")
            }
            base = url
        }
        while base.hasSuffix("/") { base.removeLast() }
        guard let parts = URLComponents(string: base), parts.scheme == "http",
              ["127.0.0.1", "localhost", "[::1]", "::1"].contains(parts.host ?? "") else {
            throw .usage("the sandbox's admin route is on loopback only: --url http://127.0.0.1:PORT")
        }
        return base
    }
}
