/// A QR code drawn with half blocks, two modules per character cell, so a version-3 code fits in 19 lines.
///
/// The matrix comes from the QR encoder (true = dark module). Light modules and the quiet zone are drawn as
/// block characters, dark modules as blanks: on the usual dark terminal this gives dark modules on a light
/// ground, which is what scanners expect.
public struct QRBlock: Widget, Hashable, Sendable {
    public var modules: [[Bool]]
    /// Light modules around the code; the standard asks for 4, scanners cope with 2 on a screen.
    public var quietZone: Int

    public init(modules: [[Bool]], quietZone: Int = 2) {
        self.modules = modules
        self.quietZone = max(0, quietZone)
    }

    /// Modules per side including the quiet zone.
    private var side: Int { modules.count + 2 * quietZone }

    /// Columns the drawing takes.
    public var width: Int { side }
    /// Lines the drawing takes.
    public var height: Int { (side + 1) / 2 }

    /// Whether the module at a position, quiet zone included, is drawn as ink (that is, is light).
    private func isInk(row: Int, col: Int) -> Bool {
        let r = row - quietZone
        let c = col - quietZone
        guard r >= 0 && r < modules.count && c >= 0 && c < modules[r].count else { return true }
        return !modules[r][c]
    }

    public func draw(in rect: Rect, into buffer: inout ScreenBuffer) {
        // A QR code that is cut is unreadable: draw nothing rather than a part.
        guard width <= rect.cols && height <= rect.rows else { return }
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
