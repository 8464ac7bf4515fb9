/// What the user asked for with a key, a paste or the mouse, named before any screen sees it (tig's requests).
///
/// Letters stay `.character`: whether `j` means "down" or the letter j depends on the screen (a list or a text
/// field), so screens resolve them, not the key map.
public enum KeyRequest: Hashable, Sendable {
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, tab, backTab
    case backspace, delete
    /// A printable character typed.
    case character(Character)
    /// Text pasted in one go (bracketed paste), already stripped of control characters.
    case paste(String)
    /// A left click at a screen position.
    case mouseClick(row: Int, col: Int)
    case scrollUp, scrollDown
    /// The terminal changed size; the next frame must be laid out for it.
    case resize(rows: Int, cols: Int)
    /// Ctrl-C: in raw mode it arrives as a key, not a signal, and cancels like Esc or quits.
    case interrupt
    /// Ctrl-L: repaint the whole screen, for a terminal scribbled on by another program.
    case redraw
    /// A function key F1…F12.
    case function(Int)
    /// Ctrl-U: in a text field, everything before the cursor goes (readline's unix-line-discard).
    case clearToStart
    /// Ctrl-W: in a text field, the word before the cursor goes, with the spaces after it (readline's
    /// unix-word-rubout: a word ends at whitespace, so a URL goes whole).
    case deleteWordBackward
}
