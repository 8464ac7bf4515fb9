import AuthCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Opens the authorize URL: a browser command given for the session (`login --browser`) or the provider
/// (config.json's `browser`), else `$BROWSER` (a command that receives the URL as its last argument), else
/// `xdg-open`; with none the caller prints the URL and a QR code and waits for a pasted redirect.
///
/// A given command is split into words here (`ShellWord.split`), never by a shell: `{url}` in a word becomes the
/// URL (appended as the last word when no word names it) and `{profile}` the session's own browser profile folder,
/// so each account keeps its own cookies at the provider.
public struct BrowserLauncher: Sendable {
    public let command: [String]?
    /// The words of a given command, placeholders still in them; nil for `$BROWSER` and `xdg-open`.
    let template: [String]?
    /// The folder `{profile}` stands for, made owner-only before the browser starts.
    let profile: String?

    public init(environment: [String: String]) {
        template = nil
        profile = nil
        if let browser = environment["BROWSER"]?.trimmingCharacters(in: .whitespaces), !browser.isEmpty {
            command = browser.split(separator: " ").map(String.init)
        } else if let xdgOpen = BrowserLauncher.find("xdg-open", path: environment["PATH"]) {
            command = [xdgOpen]
        } else {
            command = nil
        }
    }

    /// A given browser command (nil: as `init(environment:)`); `profile` is the folder `{profile}` names. Refuses a
    /// command that does not split into words, and one naming `{profile}` without a folder for it.
    public init(command line: String?, profile: String?, environment: [String: String]) throws(SignInError) {
        guard let line else {
            self = BrowserLauncher(environment: environment)
            return
        }
        guard let words = ShellWord.split(line), let program = words.first, !program.isEmpty else {
            throw .unavailable(
                reason: "the browser command '\(OAuthErrorResponse.printable(line))' does not split into words: "
                    + "close its quotes, e.g. chromium --user-data-dir={profile} {url}")
        }
        if words.contains(where: { $0.contains("{profile}") }), profile == nil {
            throw .unavailable(
                reason: "the browser command names {profile}, a folder per session: give the session a key "
                    + "(--session-key KEY)")
        }
        self.init(
            command: [program], template: words,
            profile: words.contains(where: { $0.contains("{profile}") }) ? profile : nil)
    }

    private init(command: [String], template: [String], profile: String?) {
        self.command = command
        self.template = template
        self.profile = profile
    }

    /// The folder under the data folder that holds one session's browser profile: `browser-profiles/` and the key,
    /// every byte but letters, digits, `-`, `_` and a `.` not leading written as `%XX`, so any key names one
    /// folder of its own and never a path.
    public static func profileFolder(dataFolder: URL, sessionKey: String) -> String {
        var name = ""
        for byte in sessionKey.utf8 {
            let plain =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x5F || (byte == 0x2E && !name.isEmpty)
            name += plain ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }
        return dataFolder.appendingPathComponent("browser-profiles").appendingPathComponent(name).path
    }

    /// The words run for `url`: the given command's with its placeholders filled (the URL last when no word
    /// names it), else the found command's with the URL appended.
    func arguments(for url: String) -> [String] {
        guard let template else { return (command ?? []) + [url] }
        let profile = self.profile ?? ""
        let filled = template.map {
            $0.replacingOccurrences(of: "{profile}", with: profile).replacingOccurrences(of: "{url}", with: url)
        }
        return template.contains(where: { $0.contains("{url}") }) ? filled : filled + [url]
    }

    /// A description of what opens URLs, for `doctor` and the waiting screen.
    public var summary: String {
        (template ?? command).map { $0.joined(separator: " ") } ?? "none (set $BROWSER or install xdg-utils)"
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
        if let profile { try Self.makeOwnerOnlyFolder(profile) }
        let words = arguments(for: url)
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: command[0].contains("/")
                ? command[0]
                : (BrowserLauncher.find(command[0], path: ProcessInfo.processInfo.environment["PATH"]) ?? command[0]))
        process.arguments = Array(words.dropFirst())
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .unavailable(reason: "cannot start the browser '\(command[0])'")
        }
    }

    /// Makes `path` (and `browser-profiles/` above it) a folder only its owner can enter: made 0700 when missing,
    /// refused when it is a symbolic link or not ours, its mode tightened when it is ours.
    static func makeOwnerOnlyFolder(_ path: String) throws(SignInError) {
        for folder in [(path as NSString).deletingLastPathComponent, path] {
            if mkdir(folder, 0o700) != 0 && errno != EEXIST {
                throw .unavailable(reason: "cannot make the browser profile folder \(folder)")
            }
            var found = stat()
            guard lstat(folder, &found) == 0, found.st_mode & S_IFMT == S_IFDIR, found.st_uid == geteuid() else {
                throw .unavailable(
                    reason: "the browser profile folder \(folder) is not a folder of this user's: remove it")
            }
            if found.st_mode & 0o077 != 0, chmod(folder, 0o700) != 0 {
                throw .unavailable(reason: "cannot make the browser profile folder \(folder) owner-only")
            }
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
