/// The `:` command line over the bottom two rows of any screen: the line itself where the message goes, and in the
/// status bar what Tab found (the names that fit) or the keys the line takes.
public enum CommandPromptBar {
    public static func draw(_ prompt: CommandPrompt, state: AppState, into buffer: inout ScreenBuffer) {
        let row = buffer.rows - 2
        guard row > 0 else { return }
        buffer.fill(Rect(row: row, col: 0, rows: 1, cols: buffer.cols))
        let start = buffer.write(" :", row: row, col: 0, style: Style(foreground: .accent, attributes: .bold))
        prompt.field.draw(in: Rect(row: row, col: start, rows: 1, cols: max(0, buffer.cols - start - 1)), into: &buffer)
        var bar = StatusBar(
            left: "", right: "",
            hints: [.init("Tab", "complete"), .init("Enter", "run"), .init("↑/↓", "history")],
            pinned: [.init("Esc", "cancel")])
        if !prompt.choices.isEmpty {
            bar.left = "\(prompt.choices.count) fit:"
            bar.hints = prompt.choices.map { StatusBar.Hint($0, "") }
        } else if let note = prompt.note {
            bar.left = note
            bar.leftColor = .error
        }
        bar.draw(in: Rect(row: buffer.rows - 1, col: 0, rows: 1, cols: buffer.cols), into: &buffer)
    }
}
