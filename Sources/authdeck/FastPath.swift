import AuthCore
import Foundation
import SessionStorage
#if canImport(Glibc)
import Glibc
#endif

/// The commands the lean binary answers itself. Each returns nil for anything it does not handle exactly as
/// authdeck-full would, so the full binary decides.
enum FastPath {
    static func run(_ arguments: [String], environment: [String: String]) -> Int32? {
        switch arguments.first {
        case "--version", "-V", "version":
            guard arguments.count == 1 else { return nil }
            write("authdeck \(AuthdeckVersion.current)\n")
            return 0
        case "token":
            return token(Array(arguments.dropFirst()), environment: environment)
        default:
            return nil
        }
    }

    /// `token [KEY] [--id-token] [--json] [--min-valid DUR] [--session KEY] [--quiet] [--unlock-for M]
    /// [--keyring-timeout S]`, served when the master key is in the kernel-keyring cache and the token needs no
    /// refresh. With `AUTHDECK_AGENT_SOCK` set the agent answers, so authdeck-full does.
    static func token(_ words: [String], environment: [String: String]) -> Int32? {
        guard environment["AUTHDECK_AGENT_SOCK"]?.isEmpty ?? true else { return nil }
        guard let request = TokenRequest(words) else { return nil }
        let options = StoreOptions(unlockForSeconds: request.unlockForMinutes * 60, secretService: nil,
                                   passphrase: .unavailable, warn: { write("authdeck: \($0)\n", to: STDERR_FILENO) })
        do throws(StoreError) {
            // A key that breaks the rule throws here, and authdeck-full reports it.
            var key = request.positional
            // Warnings about a distrusted .authdeck-session are shown once: here if this binary serves the token,
            // else by authdeck-full.
            var warnings: [String] = []
            if key == nil {
                key = try SessionChoice.resolve(option: request.session, environment: environment,
                                                warn: { warnings.append($0) })
            }
            guard let store = try SessionStore.open(StoreLocation.resolve(environment: environment), options: options,
                                                    create: false) else { return nil }
            let session = try store.session(key)
            let token: String?
            if request.idToken {
                token = session.secrets.idToken
            } else {
                let window = max(SessionRecord.refreshWindow, TimeInterval(request.minValidSeconds ?? 0))
                guard !session.record.needsRefresh(at: Date(), within: window) else { return nil }
                token = session.secrets.bearer
            }
            guard let token else { return nil }
            for warning in warnings { DirectorySessionFile.warnOnStandardError(warning) }
            if request.json {
                write(SessionJSON.tokenObject(key: session.record.key, token: token, expiresAt: session.record.expiresAt)
                      + "\n")
            } else {
                write(token + "\n")
            }
            return 0
        } catch {
            return nil
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

/// The options of `token` this binary understands; anything else makes it hand over.
struct TokenRequest {
    var positional: String?
    var session: String?
    var idToken = false
    var json = false
    var unlockForMinutes = 15
    var minValidSeconds: Int?

    init?(_ words: [String]) {
        var index = 0
        func value() -> String? {
            index += 1
            return index < words.count ? words[index] : nil
        }
        while index < words.count {
            let word = words[index]
            switch word {
            case "--id-token": idToken = true
            case "--json": json = true
            case "--quiet": break
            case "--session":
                guard let given = value(), !given.isEmpty else { return nil }
                session = given
            case "--unlock-for":
                guard let given = value(), let minutes = Int(given), (0...10_080).contains(minutes) else { return nil }
                unlockForMinutes = minutes
            case "--min-valid":
                guard let given = value(), let seconds = DurationText.seconds(given) else { return nil }
                minValidSeconds = seconds
            case "--keyring-timeout", "--config":
                guard value() != nil else { return nil }
            default:
                guard !word.hasPrefix("-"), positional == nil else { return nil }
                positional = word
            }
            index += 1
        }
    }
}
