import Foundation
import Sandbox
import Synchronization
import TestSupport

/// The real sandbox in process, as the sandbox suites and the client suites run it: on a free port, its clock frozen
/// at the start (the tests move it), the signing keys every test shares, and what its outbox announced.
public final class FrozenSandbox: Sendable {
    /// RSA key generation takes a moment and would dominate the suites: every test shares one set.
    public static let keys = mustMake("sandbox keys") { try SandboxKeys() }

    public let server: SandboxServer
    public let clock: SandboxClock
    public let deliveries = Deliveries()

    /// `adjust` changes the configuration before the sandbox starts.
    public init(_ adjust: (inout SandboxConfiguration) -> Void = { _ in }) throws {
        let clock = SandboxClock(frozenAt: Date().timeIntervalSince1970.rounded())
        var configuration = SandboxConfiguration()
        configuration.keys = Self.keys
        configuration.clock = clock
        let deliveries = self.deliveries
        configuration.announce = { deliveries.append($0) }
        adjust(&configuration)
        server = try SandboxServer(configuration: configuration)
        self.clock = clock
    }

    deinit { server.stop() }
}

/// What the outbox announced, in order.
public final class Deliveries: Sendable {
    /// Each delivery as contact, otpId and code; JSON objects themselves are not Sendable.
    private let lines = Mutex<[(contact: String, otpID: String, code: String)]>([])
    /// Each magic link as contact and link.
    private let links = Mutex<[(contact: String, link: String)]>([])

    func append(_ line: String) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
            let contact = object["contact"] as? String
        else { return }
        if let link = object["link"] as? String { links.withLock { $0.append((contact, link)) } }
        guard let otpID = object["otpId"] as? String, let code = object["code"] as? String else { return }
        lines.withLock { $0.append((contact, otpID, code)) }
    }

    /// The last magic link sent to `contact`.
    public func link(to contact: String) -> String? {
        links.withLock { all in all.last(where: { $0.contact == contact })?.link }
    }

    /// The last code sent to `contact`.
    public func last(to contact: String) -> (otpID: String, code: String)? {
        lines.withLock { all in
            all.last(where: { $0.contact == contact }).map { ($0.otpID, $0.code) }
        }
    }

    /// The code sent with `otpID`.
    public func code(otpID: String) -> String? {
        lines.withLock { all in all.last(where: { $0.otpID == otpID })?.code }
    }

    public var count: Int { lines.withLock { $0.count } }
}
