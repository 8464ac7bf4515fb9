import AuthClient
import AuthCore
import Foundation

/// Two traces side by side, step by step (`authdeck trace diff A B`): steps that say the same thing line up, the
/// steps in between are paired by kind, and the first row where the runs part is marked. What is compared is each
/// step's meaning, not its text: endpoints by their last path segment, statuses, error codes, state names and
/// results, so a good run at the sandbox lines up with a customer's run at the real provider; the difference that
/// matters most (an error or status change, not a path) is the one marked. Errors are compared by
/// the code their step recorded when both traces record codes; a trace written before codes, by their words.
struct TraceDiff {
    /// How the two sides of a row relate.
    enum Mark: String {
        case same = "="
        case changed = "~"
        case onlyA = "<"
        case onlyB = ">"
    }

    /// One row: a step of A, of B, or of both (indices into the steps as read).
    struct Row {
        let a: Int?
        let b: Int?
        let mark: Mark
    }

    let a: [TraceStep]
    let b: [TraceStep]
    /// Both traces record error codes: `result` and `notice` steps compare by them.
    let byCode: Bool
    let rows: [Row]

    init(a: [TraceStep], b: [TraceStep]) {
        self.a = a
        self.b = b
        let byCode = [a, b].allSatisfy { steps in steps.contains { TraceDocument.errorCode($0) != nil } }
        self.byCode = byCode
        let orderA = Self.canonicalOrder(a)
        let orderB = Self.canonicalOrder(b)
        rows = Self.align(
            orderA.map { Self.signature(a[$0], byCode: byCode) }, orderB.map { Self.signature(b[$0], byCode: byCode) },
            kindsA: orderA.map { a[$0].kind }, kindsB: orderB.map { b[$0].kind }
        )
        .map { row in Row(a: row.a.map { orderA[$0] }, b: row.b.map { orderB[$0] }, mark: row.mark) }
    }

    var firstDivergence: Int? { rows.firstIndex { $0.mark != .same } }

    /// How much a row's difference matters, so the one marked is the one that explains the failure, not the first.
    enum Weight: Int, Comparable {
        /// The same step at another address: a real provider's authorize page against the sandbox's.
        case harmless
        /// The same kind of step on another endpoint, or other words.
        case path
        /// Another state, ID token or notice.
        case step
        /// An error, a status or how the attempt ended: what a support engineer is looking for.
        case outcome

        static func < (lhs: Weight, rhs: Weight) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The weight of a row's difference (nil for a row that is the same on both sides).
    func weight(_ row: Row) -> Weight? {
        guard row.mark != .same else { return nil }
        let steps = [row.a.map { a[$0] }, row.b.map { b[$0] }].compactMap { $0 }
        // An exit code one trace records and the other does not (the TUI's export has none): nothing happened
        // differently.
        if steps.count == 1, steps[0].kind == .exit { return .harmless }
        if steps.contains(where: { TraceDocument.errorCode($0) != nil || [.result, .exit].contains($0.kind) }) {
            return .outcome
        }
        if steps.contains(where: { $0.kind == .response }) {
            // A response on one side only, or another status or error: an outcome; the same answer from an
            // endpoint at another path: a path.
            guard steps.count == 2, steps.allSatisfy({ $0.kind == .response }) else { return .outcome }
            let same =
                TraceDocument.status(steps[0]) == TraceDocument.status(steps[1])
                && TraceDocument.responseError(steps[0]) == TraceDocument.responseError(steps[1])
            return same ? .path : .outcome
        }
        if row.mark == .changed, steps.allSatisfy({ $0.kind == .authorize }) { return .harmless }
        if steps.contains(where: { [.transition, .idToken, .notice].contains($0.kind) }) { return .step }
        return .path
    }

    /// The row that matters most: the first of the heaviest differences; nil when the traces take the same
    /// steps, or differ only harmlessly.
    var mainDivergence: Int? {
        var best: (index: Int, weight: Weight)?
        for (index, row) in rows.enumerated() {
            guard let weight = weight(row), weight > .harmless else { continue }
            if best == nil || weight > best!.weight { best = (index, weight) }
        }
        return best?.index
    }

    // MARK: - Meaning of a step

    /// What a step says, without what differs between any two runs (times, hosts, ports, keys, random values);
    /// `byCode`: an error's step says its code.
    static func signature(_ step: TraceStep, byCode: Bool = false) -> String {
        let endpoint = TraceDocument.endpoint(step) ?? "?"
        if byCode, let code = TraceDocument.errorCode(step) {
            let source = step.details["source"]?.string.map { " " + $0 + " refused" } ?? ""
            return "\(step.kind.rawValue)\(source) \(code)"
        }
        switch step.kind {
        case .transition:
            guard let from = step.details["from"]?.string, let to = TraceDocument.target(step) else {
                return "transition " + step.summary
            }
            return "transition \(from) → \(to)"
        case .authorize:
            if step.summary.hasPrefix("device code") { return "authorize device code" }
            if step.summary.hasPrefix("one-time code") { return "authorize one-time code" }
            return "authorize " + endpoint
        case .request:
            return "request \(step.details["method"]?.string ?? "?") \(endpoint)"
        case .response:
            guard let status = TraceDocument.status(step) else { return "response none \(endpoint)" }
            let error = TraceDocument.responseError(step).map { " " + $0 } ?? ""
            return "response \(status) \(endpoint)\(error)"
        case .idToken:
            return "id_token " + (step.details["header"]?["alg"]?.string ?? "?")
        case .clientAssertion:
            return "client_assertion " + (step.details["header"]?["alg"]?.string ?? "?")
        case .exit:
            return "exit \(step.details["code"]?.integer ?? -1)"
        case .receiver, .confirm, .notice, .result:
            return step.kind.rawValue + " " + normalized(step.summary)
        }
    }

    /// Free text with URLs cut to their last path segment and session keys dropped.
    static func normalized(_ text: String) -> String {
        var words: [String] = []
        var previous = ""
        for word in text.split(separator: " ") {
            var shown = String(word)
            if shown.hasPrefix("http://") || shown.hasPrefix("https://") {
                let trimmed = shown.hasSuffix(".") ? String(shown.dropLast()) : shown
                shown =
                    (URLComponents(string: trimmed)?.path.split(separator: "/").last.map(String.init) ?? "?")
                    + (shown.hasSuffix(".") ? "." : "")
            } else if previous == "session" {
                shown = "…"
            }
            previous = String(word)
            words.append(shown)
        }
        return words.joined(separator: " ")
    }

    /// The steps' indices in the order things happened: a receiver's step and the token request it starts are
    /// recorded by two threads, in either order, so the receiver goes first; an ID token is recorded before the
    /// response that carried it, so it goes after. A step that records no event (the TUI export's closing one) is left
    /// out.
    static func canonicalOrder(_ steps: [TraceStep]) -> [Int] {
        // The TUI's export closes with an exit step that has no code: it says who wrote the file, not what happened.
        var order = steps.indices.filter { steps[$0].kind != .exit || steps[$0].details["code"] != nil }
        var index = 0
        while index + 1 < order.count {
            let (first, second) = (steps[order[index]].kind, steps[order[index + 1]].kind)
            if first == .request && second == .receiver || first == .idToken && second == .response {
                order.swapAt(index, index + 1)
                index += 2
            } else {
                index += 1
            }
        }
        return order
    }

    // MARK: - Alignment

    /// Longest common subsequence of signatures; between two matches, steps pair up by kind in order, and what is
    /// left stands alone.
    static func align(_ left: [String], _ right: [String], kindsA: [TraceStep.Kind], kindsB: [TraceStep.Kind])
        -> [(a: Int?, b: Int?, mark: Mark)]
    {
        let n = left.count
        let m = right.count
        var table = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                table[i][j] = left[i] == right[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var matches: [(Int, Int)] = []
        var i = 0
        var j = 0
        while i < n && j < m {
            if left[i] == right[j] {
                matches.append((i, j))
                i += 1
                j += 1
            } else if table[i + 1][j] >= table[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        matches.append((n, m))
        var rows: [(a: Int?, b: Int?, mark: Mark)] = []
        var startA = 0
        var startB = 0
        for (matchA, matchB) in matches {
            rows += pairByKind(Array(startA..<matchA), Array(startB..<matchB), kindsA: kindsA, kindsB: kindsB)
            if matchA < n { rows.append((matchA, matchB, .same)) }
            startA = matchA + 1
            startB = matchB + 1
        }
        return rows
    }

    /// Unmatched runs of steps: a step of A pairs with the next step of B of the same kind (a changed row), with B's
    /// steps before that standing alone.
    private static func pairByKind(
        _ gapA: [Int], _ gapB: [Int], kindsA: [TraceStep.Kind], kindsB: [TraceStep.Kind]
    )
        -> [(a: Int?, b: Int?, mark: Mark)]
    {
        var rows: [(a: Int?, b: Int?, mark: Mark)] = []
        var nextB = 0
        for indexA in gapA {
            if let found = gapB[nextB...].firstIndex(where: { kindsB[$0] == kindsA[indexA] }) {
                for lone in gapB[nextB..<found] { rows.append((nil, lone, .onlyB)) }
                rows.append((indexA, gapB[found], .changed))
                nextB = found + 1
            } else {
                rows.append((indexA, nil, .onlyA))
            }
        }
        for lone in gapB[nextB...] { rows.append((nil, lone, .onlyB)) }
        return rows
    }

    // MARK: - Output

    /// Two columns, `=`/`~`/`<`/`>` between them, and `▶` before the divergence that matters most (an error or
    /// status before a path), with a line saying what differs there and where the first difference was.
    func text(pathA: String, pathB: String, width: Int = 120) -> String {
        let side = max(30, (width - 8) / 2)
        func cell(_ index: Int?, _ steps: [TraceStep]) -> String {
            guard let index else { return "" }
            let step = steps[index]
            return "\(index + 1) \(step.kind.rawValue) \(step.summary)"
        }
        func fit(_ text: String) -> String {
            text.count > side
                ? String(text.prefix(side - 1)) + "…"
                : text.padding(toLength: side, withPad: " ", startingAt: 0)
        }
        var output = "  " + fit("A: " + pathA) + "   " + "B: " + pathB + "\n"
        let main = mainDivergence
        for (number, row) in rows.enumerated() {
            let lead = number == main ? "▶ " : "  "
            output += lead + fit(cell(row.a, a)) + " \(row.mark.rawValue) " + cell(row.b, b).prefix(side) + "\n"
        }
        if let main {
            output += "main divergence: " + explanation(rows[main]) + "\n"
            if let first = firstDivergence, first != main {
                output += "(the first difference, row \(first + 1), matters less: " + explanation(rows[first]) + ")\n"
            }
        } else if firstDivergence != nil {
            output +=
                "no divergence that matters: the traces differ only in the provider's addresses or a recorded exit code\n"
        } else {
            output += "no divergence: the traces take the same steps\n"
        }
        return output
    }

    /// What differs in a row, by meaning.
    func explanation(_ row: Row) -> String {
        let left = row.a.map { Self.signature(a[$0], byCode: byCode) }
        let right = row.b.map { Self.signature(b[$0], byCode: byCode) }
        switch row.mark {
        case .same: return "none"
        case .changed: return "A step \(row.a! + 1) '\(left!)' where B step \(row.b! + 1) has '\(right!)'"
        case .onlyA: return "A step \(row.a! + 1) '\(left!)' has no counterpart in B"
        case .onlyB: return "B step \(row.b! + 1) '\(right!)' has no counterpart in A"
        }
    }

    func json(pathA: String, pathB: String) -> String {
        func side(_ index: Int?, _ steps: [TraceStep]) -> JSONValue {
            guard let index else { return .null }
            return .object([
                "step": .number(Double(index + 1)), "kind": .string(steps[index].kind.rawValue),
                "summary": .string(steps[index].summary),
                "signature": .string(Self.signature(steps[index], byCode: byCode)),
            ])
        }
        let rowValues: [JSONValue] = rows.map { row in
            .object(["mark": .string(row.mark.rawValue), "a": side(row.a, a), "b": side(row.b, b)])
        }
        var object: [String: JSONValue] = [
            "a": .string(pathA), "b": .string(pathB), "rows": .array(rowValues),
            "same": .bool(mainDivergence == nil),
        ]
        func divergence(_ index: Int?) -> JSONValue {
            guard let index else { return .null }
            return .object([
                "row": .number(Double(index + 1)), "explanation": .string(explanation(rows[index])),
                "weight": .string(weight(rows[index]).map { "\($0)" } ?? "none"),
            ])
        }
        object["firstDivergence"] = divergence(firstDivergence)
        object["mainDivergence"] = divergence(mainDivergence)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(JSONValue.object(object))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
