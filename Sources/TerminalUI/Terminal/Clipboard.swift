import Foundation

/// Copying with OSC 52: the terminal (xterm, kitty, iTerm2, WezTerm, tmux with `set-clipboard on`) puts the text on
/// the clipboard of the machine the user sits at, so it works over SSH where no X clipboard is reachable.
public enum Clipboard {
    /// The largest text sent: several terminals drop longer sequences whole.
    public static let maximumBytes = 74_994

    /// `ESC ] 52 ; c ; <base64> ESC \`, or nil when the text is too long for terminals to take.
    public static func sequence(for text: String) -> String? {
        let bytes = Data(text.utf8)
        guard bytes.count <= maximumBytes else { return nil }
        return "\u{1B}]52;c;" + bytes.base64EncodedString() + "\u{1B}\\"
    }

    /// An empty selection, `ESC ] 52 ; c ; ESC \`: xterm clears the clipboard on data that is no base64 (its control
    /// sequences say so). tmux 3.3 ignores it, so a copy taken into tmux's paste buffer stays there.
    public static let clearing = "\u{1B}]52;c;\u{1B}\\"
}
