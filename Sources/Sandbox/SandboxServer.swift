import AuthCore
import AuthCrypto
import Foundation
import LoopbackHTTP
import Synchronization

/// The built-in local identity provider and auth proxy (SPEC section 7): five OIDC profiles, a
/// Turnkey-compatible Auth Proxy and Portal-compatible routes, on 127.0.0.1 only. Each connection is served on a
/// thread of its own, so a fault that delays one answer delays no other client; all state sits behind locks, and
/// what one request must check and change together is done under one lock.
public final class SandboxServer: Sendable {
    /// Why the sandbox could not start or write its config.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// `http://127.0.0.1:PORT`.
    public let baseURL: String
    public let port: UInt16
    private let server: HTTPServer
    private let router: SandboxRouter

    public init(configuration: SandboxConfiguration) throws(Failure) {
        let keys: SandboxKeys
        do {
            if let given = configuration.keys {
                keys = given
            } else if let folder = configuration.dataFolder {
                keys = try folder.keys()
            } else {
                keys = try SandboxKeys()
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "cannot make signing keys: \(error)")
        }
        // The routes need the base URL, which is known only once the port is bound: requests that arrive in
        // between (none should) are told to retry.
        let slot = RouterSlot()
        let started: HTTPServer
        do {
            started = try HTTPServer(
                host: "127.0.0.1", port: configuration.port,
                maximumRequestBytes: configuration.maximumRequestBytes,
                connectionTimeout: 10, threadPerConnection: true
            ) { request in
                guard let router = slot.router.withLock({ $0 }) else {
                    return .json(
                        503,
                        object: [
                            "error": "temporarily_unavailable",
                            "error_description": "the sandbox is starting",
                        ])
                }
                // Marked, so a real backend pointed here by mistake fails rather than "signs in".
                var response = router.handle(request)
                response.headers.append((SandboxMark.header, "1"))
                return response
            }
        } catch {
            throw Failure(description: error.description)
        }
        let context = SandboxContext(
            configuration: configuration, keys: keys, baseURL: started.baseURL, port: started.port)
        let router = SandboxRouter(context: context)
        slot.router.withLock { $0 = router }
        self.server = started
        self.router = router
        self.baseURL = started.baseURL
        self.port = started.port
    }

    /// The faults switched on, changeable while the sandbox runs.
    public var faults: SandboxFaults { router.context.faults }

    /// Stops listening; waits for a running handler. Safe to call twice.
    public func stop() {
        server.stop()
    }

    /// The config.json that points authdeck at this sandbox (see `SandboxConfigFile`).
    public var configJSON: [UInt8] {
        SandboxConfigFile.document(context: router.context)
    }

    /// Writes `configJSON` to `path` (mode 0600, through a temporary file so a reader never sees half of it).
    public func writeConfig(to path: String) throws(Failure) {
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true)
            try Data(configJSON).write(to: url, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        } catch {
            throw Failure(description: "cannot write \(path): \(error.localizedDescription)")
        }
    }
}

/// Holds the router for the request handler, which exists before the router can.
private final class RouterSlot: Sendable {
    let router = Mutex<SandboxRouter?>(nil)
}
