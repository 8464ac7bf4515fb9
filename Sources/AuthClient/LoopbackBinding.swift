import AuthCore
import Foundation

/// Where the loopback receiver listens for one sign-in: a free port by default, the port `--listen` or config's
/// `listen` names, or exactly the address and port of a registered loopback redirect URI (providers that register
/// `http://127.0.0.1:PORT/…` send the browser there and nowhere else).
public struct LoopbackBinding: Equatable, Sendable {
    /// 0 for any free port.
    public var port: UInt16
    /// The path redirects arrive on.
    public var path: String
    /// The registered redirect URI this binding serves, when there is one (it is sent as written).
    public var registeredURI: String?

    public init(port: UInt16 = 0, path: String = LoopbackReceiver.path, registeredURI: String? = nil) {
        self.port = port
        self.path = path
        self.registeredURI = registeredURI
    }

    /// `127.0.0.1:PORT` (or `localhost:PORT`), as `--listen` and config's `listen` take it; nil when not that.
    public static func listenPort(_ text: String) -> UInt16? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "127.0.0.1" || parts[0] == "localhost",
            let port = UInt16(parts[1])
        else { return nil }
        return port
    }

    /// The binding a sign-in needs: a loopback `registered` redirect URI with a port decides the port and path; a
    /// `listenPort` (0 for none) that names another port is an error, as is a loopback address authdeck cannot
    /// listen on. A redirect URI that is not loopback (Apple's https relay) leaves the receiver as `listenPort` says.
    public static func resolve(registered: String?, listenPort: UInt16) throws(SignInError) -> LoopbackBinding {
        guard let registered, let components = URLComponents(string: registered),
            components.scheme?.lowercased() == "http", let host = components.host?.lowercased()
        else {
            return LoopbackBinding(port: listenPort)
        }
        if host == "::1" || host == "[::1]" {
            throw .unavailable(
                reason: "the redirect URI \(registered) is on IPv6 loopback; authdeck listens on "
                    + "127.0.0.1 only: register http://127.0.0.1:PORT/callback")
        }
        guard host == "127.0.0.1" || host == "localhost" else { return LoopbackBinding(port: listenPort) }
        guard let port = components.port, (1...65535).contains(port) else {
            throw .unavailable(reason: "the redirect URI \(registered) names no port for the loopback receiver")
        }
        if listenPort != 0, Int(listenPort) != port {
            throw .unavailable(
                reason: "--listen 127.0.0.1:\(listenPort) disagrees with the redirect URI "
                    + "\(registered), which needs port \(port)")
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return LoopbackBinding(port: UInt16(port), path: path, registeredURI: registered)
    }

    /// Starts the receiver; a fixed port that cannot be had is an error that names it, before any browser opens.
    public func open(
        pages: CallbackPages, received: String = "authdeck received the sign-in.",
        deliver: @escaping LoopbackReceiver.Deliver
    ) throws(SignInError) -> LoopbackReceiver {
        do {
            return try LoopbackReceiver(port: port, path: path, pages: pages, received: received, deliver: deliver)
        } catch {
            guard port != 0 else { throw error }
            let needs = registeredURI.map { " (the redirect URI \($0) needs it)" } ?? ""
            throw .unavailable(
                reason: "port \(port) on 127.0.0.1 is in use by another program\(needs); "
                    + "stop that program or change the port")
        }
    }

    /// Whether the port is free now: what `doctor` checks before a login would try. Nil when it is, else why not.
    public func unavailableReason() -> String? {
        guard port != 0 else { return nil }
        do {
            let receiver = try open(pages: CallbackPages()) { _, _ in .refused("authdeck doctor probe") }
            receiver.stop()
            return nil
        } catch {
            return error.message
        }
    }
}
