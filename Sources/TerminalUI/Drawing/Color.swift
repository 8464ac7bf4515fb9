/// A colour named for what it means on screen, not for its hue: the driver picks the hue (or, under `NO_COLOR`,
/// an attribute) so that screens never hard-code terminal colours.
public enum Color: Int, CaseIterable, Sendable {
    /// The terminal's own default foreground or background.
    case normal
    /// Headings, mnemonic keys and other things the eye should find first.
    case accent
    /// A live session (green).
    case active
    /// A session about to expire (yellow).
    case expiring
    /// A session past its expiry (red).
    case expired
    /// An error message (red).
    case error
    /// Secondary text: hints, placeholders, timestamps.
    case dim
}
