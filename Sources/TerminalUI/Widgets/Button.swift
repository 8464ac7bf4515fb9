/// A button: its label with the mnemonic key shown in front (`[g] Google`), reversed when it has the focus.
public struct Button: Widget, Hashable, Sendable {
    public var label: String
    /// The key that presses it from anywhere on its screen; the screen resolves it, the button only shows it.
    public var mnemonic: Character?
    public var isFocused: Bool
    public var style: Style

    public init(_ label: String, mnemonic: Character? = nil, isFocused: Bool = false, style: Style = .plain) {
        self.label = label
        self.mnemonic = mnemonic
        self.isFocused = isFocused
        self.style = style
    }

    /// The text drawn: `[g] Google`, or `[ OK ]` when there is no mnemonic.
    public var text: String { text(marked: false) }

    /// The text, with `>`…`<` in place of the brackets when focus is marked (`>g< Google`, `> OK <`): the same
    /// width, so the layout does not move.
    func text(marked: Bool) -> String {
        let clean = DisplayText.sanitized(label)
        let (open, close) = marked ? (">", "<") : ("[", "]")
        if let mnemonic { return "\(open)\(mnemonic)\(close) \(clean)" }
        return "\(open) \(clean) \(close)"
    }

    public var width: Int { DisplayText.width(of: text) }

    public func draw(in rect: Rect, into buffer: inout ScreenBuffer) {
        guard !rect.isEmpty else { return }
        let look = isFocused ? style.adding(.reverse) : style
        if let mnemonic, !isFocused {
            // The key stands out so the eye finds it without reading the label.
            var end = buffer.write("[", row: rect.row, col: rect.col, style: look, maxWidth: rect.cols)
            end = buffer.write(
                String(mnemonic), row: rect.row, col: end,
                style: look.foreground == .dim ? look : look.with(foreground: .accent).adding(.bold),
                maxWidth: rect.right - end)
            buffer.write(
                "] " + DisplayText.sanitized(label), row: rect.row, col: end, style: look,
                maxWidth: rect.right - end)
        } else {
            let marked = isFocused && buffer.marksFocus
            buffer.write(
                text(marked: marked), row: rect.row, col: rect.col, style: marked ? look.adding(.bold) : look,
                maxWidth: rect.cols)
        }
    }
}
