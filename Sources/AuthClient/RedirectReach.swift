import AuthCore
import Foundation

/// Whether the redirect URI an attempt sends can come back to one of this run's receivers: the loopback receiver
/// (its own port and path), the `authdeck://` receiver, or a hosted page that relays to `authdeck://` (Turnkey's,
/// `?scheme=authdeck`). A configured redirect URI on another host, port or scheme reaches none of them: the
/// provider then sends the browser somewhere authdeck never hears from, and the sign-in would only time out.
public enum RedirectReach {
    /// Why no receiver can get a redirect to `redirectURI`, in one sentence without a final stop; nil when one
    /// can. `loopback` is the loopback receiver's URI (nil when it is not running); `schemeReceiver` says whether
    /// the `authdeck://` receiver runs.
    public static func problem(redirectURI: String, loopback: String?, schemeReceiver: Bool) -> String? {
        let shown = URLPolicy.redacted(redirectURI)
        var listening = loopback.map { [$0] } ?? []
        if schemeReceiver { listening.append("authdeck://") }
        let receivers = listening.isEmpty ? "none is running" : listening.joined(separator: ", ")
        guard let parts = URLComponents(string: redirectURI), let scheme = parts.scheme?.lowercased() else {
            return "the redirect URI \(shown) is not a URL any receiver of authdeck listens on (\(receivers))"
        }
        if scheme == "authdeck"
            || parts.queryItems?.contains(where: {
                $0.name == "scheme" && $0.value == "authdeck"
            }) == true
        {
            return schemeReceiver
                ? nil
                : "the redirect URI \(shown) comes back through authdeck://, whose receiver is not running"
        }
        if scheme == "http", let host = parts.host, URLPolicy.isLoopbackHost(host) {
            guard let loopback, let own = URLComponents(string: loopback) else {
                return "the redirect URI \(shown) is on this machine, but no loopback receiver is running"
            }
            let path = parts.path.isEmpty ? "/" : parts.path
            if parts.port == own.port && path == own.path { return nil }
            return "the redirect URI \(shown) is not where the loopback receiver listens (\(loopback))"
        }
        return "the redirect URI \(shown) reaches none of authdeck's receivers (\(receivers)): the browser comes "
            + "back only if that page forwards the redirect"
    }
}
