/// How long a new passphrase should be: shorter ones draw a warning when chosen (a new store or export bundle), not
/// when used. The CLI's prompt and the TUI's new-store screen both ask here.
public enum PassphraseRule {
    public static let recommendedLength = 12

    /// The warning for a new `passphrase`, or nil when it is long enough.
    public static func warning(_ passphrase: String) -> String? {
        let length = passphrase.count
        guard length < recommendedLength else { return nil }
        return "the passphrase has \(length) characters; \(recommendedLength) or more "
            + "make a stolen store or bundle much harder to open"
    }
}
