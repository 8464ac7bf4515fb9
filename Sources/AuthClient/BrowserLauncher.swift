import AuthCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Opens the authorize URL: `$BROWSER` (a command that receives the URL as its last argument), else `xdg-open`;
/// with neither the caller prints the URL and a QR code and waits for a pasted redirect.
public struct BrowserLauncher: Sendable {
    public let command: [String]?

    public init(environment: [String: String]) {
        if let browser = environment["BROWSER"]?.trimmingCharacters(in: .whitespaces), !browser.isEmpty {
            command = browser.split(separator: " ").map(String.init)
        } else if let xdgOpen = BrowserLauncher.find("xdg-open", path: environment["PATH"]) {
            command = [xdgOpen]
        } else {
            command = nil
        }
    }

    /// A description of what opens URLs, for `doctor` and the waiting screen.
    public var summary: String {
        command.map { $0.joined(separator: " ") } ?? "none (set $BROWSER or install xdg-utils)"
    }

    /// Starts the browser without waiting for it; its output goes to /dev/null so it cannot scribble on the TUI.
    /// Only https URLs, or http ones on a loopback host, are opened (`URLPolicy.isBrowsable`).
    public func open(_ url: String) throws(SignInError) {
        // The URL comes from a provider or a backend: a `file:` URL or an `--option` must never reach the browser.
        guard URLPolicy.isBrowsable(url) else {
            throw .unavailable(
                reason: "not opening '\(URLPolicy.redacted(url))' in the browser: only https URLs "
                    + "(and http on this machine) are opened")
        }
        guard let command else { throw .unavailable(reason: "no browser: set $BROWSER or install xdg-open") }
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: command[0].contains("/")
                ? command[0]
                : (BrowserLauncher.find(command[0], path: ProcessInfo.processInfo.environment["PATH"]) ?? command[0]))
        process.arguments = Array(command.dropFirst()) + [url]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .unavailable(reason: "cannot start the browser '\(command[0])'")
        }
    }

    static func find(_ name: String, path: String?) -> String? {
        for folder in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
