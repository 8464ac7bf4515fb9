import AuthClient
import AuthCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `authdeck trace show FILE`, `trace diff A B`, `trace replay FILE`: what support staff do with a customer's
/// exported trace. Every one reads traces only; none needs or shows a secret (traces carry none).
enum TraceCommand {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let words = arguments.positionals
        switch words.first {
        case "show":
            guard words.count == 2 else { throw .usage("name one trace: trace show FILE") }
            return try show(TraceDocument(path: words[1]), arguments, global)
        case "diff":
            guard words.count == 3 else { throw .usage("name two traces: trace diff A B") }
            // As diff(1): 0 the same, 1 different, 2 trouble (a file that is not a trace).
            let traces: (TraceDocument, TraceDocument)
            do throws(CommandFailure) {
                traces = (try TraceDocument(path: words[1]), try TraceDocument(path: words[2]))
            } catch {
                throw .badInput(error.message)
            }
            return try diff(traces.0, traces.1, arguments, global)
        case "replay":
            guard words.count == 2 else { throw .usage("name one trace: trace replay FILE") }
            return try replay(TraceDocument(path: words[1]), arguments, global)
        case nil:
            throw .usage("name what to do: trace show FILE, trace diff A B or trace replay FILE")
        case let other?:
            throw .usage("unknown trace command '\(other.prefix(40))' (show, diff, replay)")
        }
    }

    // MARK: - show

    static func show(
        _ document: TraceDocument, _ arguments: Arguments,
        _ global: GlobalOptions
    ) throws(CommandFailure) -> ExitCode {
        var expanded: Set<Int> = []
        if arguments.has("all") { expanded = Set(1...document.steps.count) }
        if let list = arguments.value("expand") {
            for word in list.split(separator: ",") {
                guard let number = Int(word), (1...document.steps.count).contains(number) else {
                    throw .usage("--expand takes step numbers from 1 to \(document.steps.count), comma-separated")
                }
                expanded.insert(number)
            }
        }
        if arguments.has("json") {
            let json = (try? TraceView.encoder.encode(document.steps)) ?? Data("[]".utf8)
            global.out(String(decoding: json, as: UTF8.self) + "\n")
            return .done
        }
        // On a terminal, with nothing asked of the printout, the TUI opens on its Trace screen with the file.
        if expanded.isEmpty, !arguments.has("plain"), global.environment.input.isTerminal,
            global.environment.output.isTerminal,
            try TUICommand.showTraceFile(document.screenFile, global)
        {
            return .done
        }
        global.out(TraceView.text(document, expanded: expanded))
        return .done
    }

    // MARK: - diff

    static func diff(
        _ a: TraceDocument, _ b: TraceDocument,
        _ arguments: Arguments, _ global: GlobalOptions
    ) throws(CommandFailure) -> ExitCode {
        let comparison = TraceDiff(a: a.steps, b: b.steps)
        if arguments.has("json") {
            global.out(comparison.json(pathA: a.path, pathB: b.path) + "\n")
        } else {
            let columns = Int(global.environment.variables["COLUMNS"] ?? "") ?? 120
            global.out(comparison.text(pathA: a.path, pathB: b.path, width: max(80, min(columns, 240))))
        }
        return comparison.mainDivergence == nil ? .done : .failed
    }

    // MARK: - replay

    static func replay(
        _ document: TraceDocument, _ arguments: Arguments,
        _ global: GlobalOptions
    ) throws(CommandFailure) -> ExitCode {
        global.environment.requireProcess("trace replay")
        signal(SIGPIPE, SIG_IGN)
        let cap = try arguments.integer("timeout", in: 5...600) ?? TraceReplayPlan.defaultTimeoutCap
        let plan = TraceReplayPlan(document, timeoutCap: cap)
        let quiet = global.quiet || arguments.has("json")
        let outcome = try TraceReplay(document: document, plan: plan, quiet: quiet, errors: global.environment.errors)
            .run()
        if let path = arguments.value("trace-out") {
            guard
                FileManager.default.createFile(
                    atPath: path, contents: Data(outcome.traceBytes),
                    attributes: [.posixPermissions: 0o600])
            else {
                throw CommandFailure(.failed, "cannot write the replay's trace to \(path)")
            }
        }
        let sameError = outcome.error.map(TraceDiff.normalized) == document.finalError.map(TraceDiff.normalized)
        // A real provider words its errors its own way, and authdeck may reword its own: the same error code is the
        // same failure. A trace written before codes is read for them in its words.
        let (customerKind, replayKind) =
            document.comparesByWords
            ? (document.finalError.map(errorKind), outcome.error.map(errorKind)) : (document.finalCode, outcome.code)
        let sameKind = customerKind == replayKind
        let sameExit = document.exitCode.map { Int32($0) == outcome.exit }
        var notes = plan.notes
        if document.exportedByTUI {
            notes.append("the TUI exported the trace: it has no exit code, so the error alone is compared")
        } else if document.exitCode == nil {
            notes.append("the trace does not record the customer's exit code (written by an older authdeck)")
        }
        if arguments.has("json") {
            var object: [String: JSONValue] = [
                "provider": .string(plan.provider), "backend": .string(plan.backend), "device": .bool(plan.device),
                "faults": .array(plan.faults.names.map(JSONValue.string)),
                "customer": .object([
                    "error": document.finalError.map(JSONValue.string) ?? .null,
                    "code": document.finalCode.map(JSONValue.string) ?? .null,
                    "exit": document.exitCode.map { .number(Double($0)) } ?? .null,
                ]),
                "replay": .object([
                    "error": outcome.error.map(JSONValue.string) ?? .null,
                    "code": outcome.code.map(JSONValue.string) ?? .null,
                    "exit": .number(Double(outcome.exit)),
                ]),
                "sameError": .bool(sameError), "sameKind": .bool(sameKind),
                "notReproduced": .array(notes.map(JSONValue.string)),
            ]
            object["sameExit"] = sameExit.map(JSONValue.bool) ?? .null
            let json = (try? TraceView.encoder.encode(JSONValue.object(object))) ?? Data("{}".utf8)
            global.out(String(decoding: json, as: UTF8.self) + "\n")
        } else {
            let customerExit = document.exitCode.map { " (exit \($0))" } ?? ""
            var text = "replayed: \(plan.summary)\n"
            text += "customer: \(document.finalError ?? "signed in")\(customerExit)\n"
            text += "replay:   \(outcome.error ?? "signed in") (exit \(outcome.exit))\n"
            let andExit = sameExit == true ? " and exit code" : ""
            if sameError && sameExit != false {
                text += "reproduced: the same final error\(andExit)\n"
            } else if sameKind && sameExit != false {
                text +=
                    "reproduced: the same kind of error (\(customerKind ?? "none"))\(andExit); "
                    + "the provider's words differ\n"
            } else {
                text +=
                    "NOT reproduced: the replay ended differently (trace diff shows where; --trace-out keeps the "
                    + "replay's trace)\n"
            }
            for note in notes { text += "not reproduced: \(note)\n" }
            global.out(text)
        }
        return outcome.exitCode
    }

    /// For a trace written before errors had codes: what an error message says without the provider's own words,
    /// the OAuth error code of an authentication failure (whether or not it names the endpoint's status: "the
    /// provider refused: 400 invalid_grant: …"), access_denied for a refusal at the provider, the status class of
    /// an HTTP failure, the check an ID token failed; else the whole message.
    static func errorKind(_ message: String) -> String {
        let normalized = TraceDiff.normalized(message)
        let prefix = "Authentication failed: "
        if normalized.hasPrefix(prefix) {
            var rest = Substring(normalized.dropFirst(prefix.count))
            if rest.hasPrefix("access denied at the provider") { return prefix + "access_denied" }
            let refused = "the provider refused: "
            if rest.hasPrefix(refused), let status = rest.dropFirst(refused.count).split(separator: " ").first,
                Int(status) != nil
            {
                rest = rest.dropFirst(refused.count + status.count).drop { $0 == " " }
            }
            var code = rest.prefix { $0 != ":" }
            if code.hasSuffix(".") { code = code.dropLast() }
            if !code.isEmpty, !code.contains(" ") { return prefix + code }
        }
        for (start, kind) in [
            ("Network error: HTTP ", "Network error: HTTP"),
            ("Sign-in unavailable: the provider answered HTTP ", "Sign-in unavailable: HTTP"),
        ]
        where normalized.hasPrefix(start) {
            if let digit = normalized.dropFirst(start.count).first, digit.isNumber { return "\(kind) \(digit)xx" }
        }
        return normalized
    }
}
