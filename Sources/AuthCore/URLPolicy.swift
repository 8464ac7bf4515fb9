import Foundation

/// Which URLs authdeck talks to and which it hands to a browser. A provider, a proxy or a planted config.json may
/// name any URL; only https goes out to the network, plain http only to this machine (the sandbox, a test
/// provider), and nothing that a browser could read as an option or as a local file.
public enum URLPolicy {
    /// `localhost`, 127.0.0.0/8 and `::1` (bracketed or not).
    public static func isLoopbackHost(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && UInt8(part) != nil
        }
    }

    /// Whether `url` is https, or http on a loopback host; `what` names the URL in the error.
    public static func requireSecure(_ url: String, what: String = "URL") throws(SignInError) {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            let host = parts.host, !host.isEmpty
        else {
            throw .unavailable(reason: "the \(what) '\(redacted(url))' is not an http(s) URL")
        }
        switch scheme {
        case "https":
            return
        case "http" where isLoopbackHost(host):
            return
        case "http":
            throw .unavailable(
                reason: "the \(what) '\(redacted(url))' is plain http: https is required "
                    + "(http only on 127.0.0.1 or localhost)")
        default:
            throw .unavailable(reason: "the \(what) '\(redacted(url))' is not an http(s) URL")
        }
    }

    /// Whether a URL from a provider or backend may be given to `$BROWSER`: https, or http on a loopback host,
    /// and never text a browser could take for a command-line option.
    public static func isBrowsable(_ url: String) -> Bool {
        guard !url.hasPrefix("-"), !url.contains(where: { $0.isWhitespace || $0.isNewline }),
            (try? requireSecure(url)) != nil
        else { return false }
        return true
    }

    /// Scheme, host, port and path only, so query parameters (codes, states) never reach a message.
    public static func redacted(_ url: String) -> String {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme else { return "(not a URL)" }
        guard let host = parts.host, !host.isEmpty else { return TerminalText.sanitized(scheme) + ":…" }
        let port = parts.port.map { ":\($0)" } ?? ""
        return TerminalText.sanitized("\(scheme)://\(host)\(port)\(parts.path)")
    }
}
