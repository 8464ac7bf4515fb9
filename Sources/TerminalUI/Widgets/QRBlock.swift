/// A QR code drawn with half blocks, two modules per character cell, so a version-3 code fits in 19 lines.
///
/// The matrix comes from the QR encoder (true = dark module). Light modules and the quiet zone are drawn as
/// block characters, dark modules as blanks: on the usual dark terminal this gives dark modules on a light
/// ground, which is what scanners expect. Where the locale shows only ASCII (`ascii`), each module takes two
/// columns of one line, light ones drawn as reversed blanks.
public struct QRBlock: Widget, Hashable, Sendable {
    public var modules: [[Bool]]
    /// Light modules around the code; the standard asks for 4, scanners cope with 2 on a screen.
    public var quietZone: Int
    /// Drawn without block characters, for a locale that is not UTF-8.
    public var ascii: Bool

    public init(modules: [[Bool]], quietZone: Int = 2, ascii: Bool = false) {
        self.modules = modules
        self.quietZone = max(0, quietZone)
        self.ascii = ascii
    }

    /// Modules per side including the quiet zone.
    private var side: Int { modules.count + 2 * quietZone }

    /// Columns the drawing takes.
    public var width: Int { ascii ? side * 2 : side }
    /// Lines the drawing takes.
    public var height: Int { ascii ? side : (side + 1) / 2 }

    /// Whether the module at a position, quiet zone included, is drawn as ink (that is, is light).
    private func isInk(row: Int, col: Int) -> Bool {
        let r = row - quietZone
        let c = col - quietZone
        guard r >= 0 && r < modules.count && c >= 0 && c < modules[r].count else { return true }
        return !modules[r][c]
    }

    /// The ASCII drawing as text for a terminal's output stream (the command line's `login`): each light module two
    /// blanks in reverse video (SGR 7), as the TUI draws it where the locale is not UTF-8.
    public var reversedText: String {
        var lines: [String] = []
        for line in 0..<side {
            var text = ""
            var reversed = false
            for col in 0..<side {
                let ink = isInk(row: line, col: col)
                if ink != reversed { text += ink ? "\u{1B}[7m" : "\u{1B}[27m" }
                reversed = ink
                text += "  "
            }
            lines.append(text + (reversed ? "\u{1B}[27m" : ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public func draw(in rect: Rect, into buffer: inout ScreenBuffer) {
        // A QR code that is cut is unreadable: draw nothing rather than a part.
        guard width <= rect.cols && height <= rect.rows else { return }
        if ascii {
            let light = Style(attributes: .reverse)
            for line in 0..<side {
                for col in 0..<side where isInk(row: line, col: col) {
                    buffer.write("  ", row: rect.row + line, col: rect.col + col * 2, style: light)
                }
            }
            return
        }
        for line in 0..<height {
            var text = ""
            for col in 0..<side {
                let top = isInk(row: line * 2, col: col)
                // An odd side leaves the last line with no lower module: keep it blank.
                let bottom = line * 2 + 1 < side ? isInk(row: line * 2 + 1, col: col) : false
                switch (top, bottom) {
                case (true, true): text += "█"
                case (true, false): text += "▀"
                case (false, true): text += "▄"
                case (false, false): text += " "
                }
            }
            buffer.write(text, row: rect.row + line, col: rect.col, maxWidth: rect.cols)
        }
    }
}
