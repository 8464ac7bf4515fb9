/// Turns raw terminal input into `KeyRequest`s: special keys the driver decoded, and control characters that
/// raw mode hands over as plain code points (Ctrl-C is 0x03, Enter is 0x0D, DEL is backspace on most terminals).
public struct KeyMap: Sendable {
    /// A key the terminal reports by name rather than as a character.
    public enum SpecialKey: Hashable, Sendable {
        case up, down, left, right, pageUp, pageDown, home, end
        case enter, backspace, delete, insert, backTab
        case function(Int)
    }

    /// Requests for control characters (code points below 0x20 and DEL).
    public var controlCharacters: [UInt32: KeyRequest]

    public init(controlCharacters: [UInt32: KeyRequest]) {
        self.controlCharacters = controlCharacters
    }

    /// The usual bindings: readline-style Ctrl-A/E/N/P/U/W next to the terminal's own Enter, Tab and Backspace.
    public static let standard = KeyMap(controlCharacters: [
        0x01: .home,  // Ctrl-A
        0x02: .left,  // Ctrl-B
        0x03: .interrupt,  // Ctrl-C
        0x04: .delete,  // Ctrl-D
        0x05: .end,  // Ctrl-E
        0x06: .right,  // Ctrl-F
        0x08: .backspace,  // Ctrl-H, what some terminals send for Backspace
        0x09: .tab,
        0x0A: .enter,
        0x0C: .redraw,  // Ctrl-L
        0x0D: .enter,
        0x0E: .down,  // Ctrl-N
        0x10: .up,  // Ctrl-P
        0x15: .clearToStart,  // Ctrl-U
        0x17: .deleteWordBackward,  // Ctrl-W
        0x1B: .escape,
        0x7F: .backspace,
    ])

    /// The request for a character the terminal delivered; nil for control characters that mean nothing here.
    public func request(for scalar: Unicode.Scalar) -> KeyRequest? {
        if let request = controlCharacters[scalar.value] { return request }
        if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) { return nil }
        return .character(Character(scalar))
    }

    /// The request for a special key.
    public func request(for key: SpecialKey) -> KeyRequest? {
        switch key {
        case .up: return .up
        case .down: return .down
        case .left: return .left
        case .right: return .right
        case .pageUp: return .pageUp
        case .pageDown: return .pageDown
        case .home: return .home
        case .end: return .end
        case .enter: return .enter
        case .backspace: return .backspace
        case .delete: return .delete
        case .insert: return nil  // no screen has an overwrite mode
        case .backTab: return .backTab
        case .function(let number): return .function(number)
        }
    }

    /// The request for the characters that followed an ESC within the escape delay, when the driver did not
    /// recognise them as a key: nothing means the Esc key itself; the start of a bracketed paste is reported
    /// separately with `isPasteStart`; anything else (Alt+key, unknown sequences) is dropped rather than
    /// typed as junk.
    public func request(forEscapeSequence sequence: [Unicode.Scalar]) -> KeyRequest? {
        if sequence.isEmpty { return .escape }
        if sequence == ["[", "Z"] { return .backTab }
        return nil
    }

    /// Whether the characters after an ESC open a bracketed paste (`ESC [ 2 0 0 ~`).
    public static func isPasteStart(_ sequence: [Unicode.Scalar]) -> Bool {
        sequence == ["[", "2", "0", "0", "~"]
    }

    /// The end marker of a bracketed paste, `ESC [ 2 0 1 ~`.
    public static let pasteEnd: [Unicode.Scalar] = ["\u{1B}", "[", "2", "0", "1", "~"]

    /// The pasted text once the end marker is seen: control characters and line breaks go, so a redirect URL
    /// that the terminal wrapped when it was copied still arrives whole. Nil while the marker has not come yet.
    public static func pastedText(from scalars: [Unicode.Scalar]) -> String? {
        guard scalars.count >= pasteEnd.count, Array(scalars.suffix(pasteEnd.count)) == pasteEnd else { return nil }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars.dropLast(pasteEnd.count))
        return DisplayText.sanitized(String(text))
    }
}
