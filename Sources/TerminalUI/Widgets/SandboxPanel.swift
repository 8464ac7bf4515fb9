import Foundation

/// The Sandbox panel's state (`S`, or `authdeck sandbox panel`): the fault profiles of a running sandbox as its
/// admin route last listed them, which are on, and the selection bar. The boxes change only when the sandbox
/// answers, so they always say what the sandbox does, never what was merely asked for.
public struct SandboxPanel: Equatable, Sendable {
    /// One fault profile as listed: its name and what it reproduces.
    public struct Fault: Equatable, Sendable {
        public var name: String
        public var summary: String

        public init(name: String, summary: String) {
            self.name = name
            self.summary = summary
        }
    }

    /// What the admin route answered: every fault there is, the ones on, and the slow provider's delay.
    public struct Report: Equatable, Sendable {
        public var available: [Fault]
        public var on: [String]
        public var delayMs: Int

        public init(available: [Fault], on: [String], delayMs: Int) {
            self.available = available
            self.on = on
            self.delayMs = delayMs
        }
    }

    /// Why the sandbox did not answer a poll, in one line.
    public struct Unreachable: Error, Equatable, Sendable {
        public var reason: String

        public init(_ reason: String) {
            self.reason = reason
        }
    }

    /// The sandbox's base URL (`http://127.0.0.1:PORT`).
    public let url: String
    public var faults: [Fault] = []
    /// The faults the sandbox last said are on.
    public var on: Set<String> = []
    public var delayMs = 0
    public var selected = 0
    /// A request is out: the first read, a reload or a switch. Switching waits for its answer, so a second Space
    /// never starts from a selection the sandbox has not confirmed.
    public var isWaiting = false
    /// Whether the sandbox answered at least once (until then the list is empty and says it is being read).
    public var hasAnswered = false
    /// `d`: the slow provider's delay being typed, in milliseconds; Enter sends it.
    public var delayField: TextField?
    /// Counts the requests sent to the admin route. A poll's answer is taken only when no request went out after
    /// it, so an older read never undoes a switch the sandbox has confirmed since.
    public var requests = 0
    /// The poll on its way (its request number), so a slow sandbox never has polls piling up.
    public var pollOut: Int?
    /// When the last poll went out: switches made elsewhere (`authdeck sandbox faults`, the admin route) show within
    /// `pollSeconds`.
    public var polledAt: Date?
    /// The last poll failed: its error is said once, not every poll.
    public var pollFailed = false

    /// How often an open panel reads the sandbox again on its own (one small GET on loopback).
    public static let pollSeconds: TimeInterval = 2

    public init(url: String) {
        self.url = url
    }

    /// The faults that are on, in the sandbox's order.
    public var onInOrder: [String] {
        faults.map(\.name).filter(on.contains)
    }

    /// The selection with the selected fault switched: what Space sends.
    public var switchedSelection: [String]? {
        guard faults.indices.contains(selected) else { return nil }
        let name = faults[selected].name
        let next = on.contains(name) ? on.subtracting([name]) : on.union([name])
        return faults.map(\.name).filter(next.contains)
    }

    /// Whether `report` says anything other than what the panel shows.
    public func differs(from report: Report) -> Bool {
        report.available != faults || Set(report.on) != on || report.delayMs != delayMs
    }

    /// Takes the sandbox's answer; the selection stays on the same fault.
    public mutating func take(_ report: Report) {
        faults = report.available
        on = Set(report.on)
        delayMs = report.delayMs
        selected = min(selected, max(0, faults.count - 1))
        isWaiting = false
        hasAnswered = true
    }
}
