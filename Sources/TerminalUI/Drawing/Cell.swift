/// One column of the screen: a grapheme and how it looks.
///
/// A wide grapheme (CJK, most emoji) sits in a cell of `width` 2 followed by a continuation cell of width 0,
/// so that column arithmetic stays one cell per column.
public struct Cell: Hashable, Sendable {
    /// The grapheme shown, possibly with combining marks; empty in a continuation cell.
    public var text: String
    /// Columns taken: 1, 2 for a wide grapheme, 0 for the continuation of a wide one.
    public var width: Int
    public var style: Style

    public init(text: String, width: Int = 1, style: Style = .plain) {
        self.text = text
        self.width = width
        self.style = style
    }

    /// An empty column.
    public static func blank(_ style: Style = .plain) -> Cell {
        Cell(text: " ", width: 1, style: style)
    }

    /// The right half of a wide grapheme.
    public static func continuation(_ style: Style) -> Cell {
        Cell(text: "", width: 0, style: style)
    }

    public var isContinuation: Bool { width == 0 }
    public var foreground: Color { style.foreground }
    public var background: Color { style.background }
    public var isReversed: Bool { style.attributes.contains(.reverse) }
    public var isBold: Bool { style.attributes.contains(.bold) }
    public var isUnderlined: Bool { style.attributes.contains(.underline) }
    public var isDim: Bool { style.attributes.contains(.dim) }
}
