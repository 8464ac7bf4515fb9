import AuthBase
import StoreCore

#if canImport(Glibc)
    import Glibc
#endif

/// The commands the lean binary answers itself. Each returns nil for anything it does not handle exactly as
/// authdeck-full would, so the full binary decides. This binary links no Foundation and no libcrypto: only StoreCore
/// and AuthBase (SQLite, Nettle, keyutils).
enum FastPath {
    /// `variable` reads one environment variable (`ProcessEnvironment.variable`): no dictionary of them all is built.
    static func run(_ arguments: [String], variable: (String) -> String?) -> Int32? {
        switch arguments.first {
        case "--version", "-V", "version":
            guard arguments.count == 1 else { return nil }
            write("authdeck \(AuthdeckVersion.current)\n")
            return 0
        case "token":
            return token(Array(arguments.dropFirst()), variable: variable)
        case "list":
            return list(Array(arguments.dropFirst()), variable: variable)
        default:
            return nil
        }
    }

    /// `token [KEY] [--id-token] [--json] [--min-valid DUR] [--session KEY] [--quiet] [--unlock-for M]
    /// [--keyring-timeout S]`, served by `TokenRead` (the read authdeck-full's `token` runs first too) when the
    /// master key is in the kernel-keyring cache and the token needs no refresh. With `AUTHDECK_AGENT_SOCK` set the
    /// agent answers, so authdeck-full does.
    static func token(_ words: [String], variable: (String) -> String?) -> Int32? {
        guard variable("AUTHDECK_AGENT_SOCK")?.isEmpty ?? true else { return nil }
        guard let request = TokenRequest(words) else { return nil }
        // Warnings about a distrusted .authdeck-session are shown once: here if this binary serves the token,
        // else by authdeck-full.
        var warnings: [String] = []
        var key = request.positional
        if key == nil {
            do {
                key = try SessionChoice.resolveWithSource(
                    option: request.session, variable: variable,
                    warn: { warnings.append($0) })?.key
            } catch {
                return nil  // A key that breaks the rule: authdeck-full reports it.
            }
        }
        guard
            let found = TokenRead.cached(
                key, idToken: request.idToken, minValidSeconds: request.minValidSeconds,
                location: StoreLocation.resolve(variable: variable),
                now: TokenRead.now())
        else { return nil }
        for warning in warnings { DirectorySessionFile.warnOnStandardError(warning) }
        write((request.json ? found.json : found.token) + "\n")
        return 0
    }

    /// `list --json [--session KEY] [--quiet] [--config FILE] [--unlock-for M] [--keyring-timeout S]`, served by
    /// `ListJSON` (the writer authdeck-full's `list --json` uses too) when the store needs nothing but reading.
    /// Listing needs no key, here as there: only metadata is read.
    static func list(_ words: [String], variable: (String) -> String?) -> Int32? {
        guard let request = ListRequest(words) else { return nil }
        // authdeck-full resolves the session choice for every command, and so warns of a distrusted
        // .authdeck-session even for `list`: here too, once, and only if this binary answers.
        var warnings: [String] = []
        _ = try? SessionChoice.resolveWithSource(
            option: request.session, variable: variable, warn: { warnings.append($0) })
        // The warnings come first, as authdeck-full prints them before its listing: here they can only be printed
        // once the listing is known to be this binary's to write, so its first chunk waits for them (`before` runs
        // once whenever the listing is written).
        guard
            let ending = ListJSON.write(
                location: StoreLocation.resolve(variable: variable), now: TokenRead.now(),
                to: STDOUT_FILENO,
                before: { for warning in warnings { DirectorySessionFile.warnOnStandardError(warning) } })
        else { return nil }
        switch ending {
        case .complete:
            return 0
        case .cutShort(let reason):
            write(
                "authdeck list: the listing was cut short: the session database could not be read to the end (\(reason))\n",
                to: 2)
            return 1
        }
    }

    static func write(_ text: String, to descriptor: Int32 = STDOUT_FILENO) {
        // As in authdeck-full's Output: nothing a provider said reaches the terminal with its control bytes.
        var text = TerminalText.sanitizedLines(text)
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
