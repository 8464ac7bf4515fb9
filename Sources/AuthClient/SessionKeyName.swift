import AuthCore
import Foundation

/// Session keys authdeck makes up when the user names none: provider and user, in characters safe for a shell.
public enum SessionKeyName {
    public static func generated(provider: Provider, user: String) -> String {
        let allowed = user.lowercased().unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-@".unicodeScalars.contains(scalar))
                ? Character(scalar) : "-"
        }
        let cleaned = String(allowed.prefix(48))
        return provider.name + "-" + (cleaned.isEmpty ? "user" : cleaned)
    }
}
