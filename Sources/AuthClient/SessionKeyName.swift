import AuthCore
import Foundation

/// Session keys authdeck makes up when the user names none: provider and user, in characters safe for a shell.
/// Each run of other characters becomes one `-`, and none leads or ends the user part, so a phone number
/// `+1 555 0100` gives `sms-1-555-0100`, never `sms--1-555-0100`.
public enum SessionKeyName {
    public static func generated(provider: Provider, user: String) -> String {
        var cleaned = ""
        for scalar in user.lowercased().unicodeScalars {
            let kept =
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._@".unicodeScalars.contains(scalar))
            if kept {
                cleaned.unicodeScalars.append(scalar)
            } else if !cleaned.isEmpty, cleaned.last != "-" {
                cleaned.append("-")
            }
        }
        cleaned = String(cleaned.prefix(48))
        while cleaned.last == "-" { cleaned.removeLast() }
        return provider.name + "-" + (cleaned.isEmpty ? "user" : cleaned)
    }
}
