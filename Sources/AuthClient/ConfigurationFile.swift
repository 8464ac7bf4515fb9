import AuthCore
import Foundation

/// Finds and reads config.json: `--config`, else `$AUTHDECK_CONFIG`, else `$XDG_CONFIG_HOME/authdeck/config.json`,
/// else `~/.config/authdeck/config.json`. A missing file is an empty configuration (direct sign-in with the
/// presets); a file that exists but does not parse is an error naming the file.
public enum ConfigurationFile {
    public static func path(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let configured = environment["AUTHDECK_CONFIG"], !configured.isEmpty { return configured }
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return base + "/authdeck/config.json"
    }

    public static func load(explicit: String?, environment: [String: String]) throws(SignInError) -> Configuration {
        let file = path(explicit: explicit, environment: environment)
        guard let data = FileManager.default.contents(atPath: file) else {
            if explicit != nil || environment["AUTHDECK_CONFIG"] != nil, !FileManager.default.fileExists(atPath: file) {
                throw .unavailable(reason: "no configuration file at \(file)")
            }
            return Configuration()
        }
        let configuration: Configuration
        do {
            configuration = try Configuration(json: data)
        } catch {
            throw .unavailable(reason: "\(file): \(error.description)")
        }
        return configuration
    }

    public static func catalog(environment: [String: String]) throws(SignInError) -> ProviderCatalog {
        guard let data = ResourceFolder.read("providers.json", environment: environment) else {
            throw .unavailable(
                reason: "providers.json not found (set AUTHDECK_RESOURCES to authdeck's Resources folder)")
        }
        do {
            return try ProviderCatalog(json: data)
        } catch {
            throw .unavailable(reason: error.description)
        }
    }

    /// The data folder: `$AUTHDECK_HOME`, else `$XDG_DATA_HOME/authdeck`, else `~/.local/share/authdeck`.
    public static func dataFolder(environment: [String: String]) -> URL {
        if let home = environment["AUTHDECK_HOME"], !home.isEmpty { return URL(fileURLWithPath: home) }
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return URL(fileURLWithPath: base + "/authdeck")
    }
}
