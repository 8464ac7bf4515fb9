import AuthClient
import Foundation
import TerminalUI

/// keys.json, where the user's keys for the TUI live: read before the terminal is taken over, so a file the TUI
/// cannot mean stops it with one line naming the file and the entry (exit 2) rather than running with other keys.
enum TUIKeyMap {
    /// `$XDG_CONFIG_HOME/authdeck/keys.json`, else `~/.config/authdeck/keys.json`: beside config.json's default place.
    static func path(environment: [String: String]) -> String {
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return base + "/authdeck/keys.json"
    }

    /// The keys keys.json gives; the standard ones when there is no file.
    static func load(environment: [String: String]) throws(CommandFailure) -> KeyBindings {
        let file = path(environment: environment)
        guard FileManager.default.fileExists(atPath: file) else { return .standard }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw .badInput("\(file): cannot be read; fix its permissions or remove it")
        }
        do throws(KeyMapFile.Failure) {
            return try KeyMapFile.bindings(from: Array(data), path: file)
        } catch {
            throw .badInput(error.description)
        }
    }
}
