import AuthCore
import Foundation

/// Enter on a session: everything known about it, and its actions as keys (the table of `KeyBinding.details`).
public struct SessionDetailsScreen: Screen {
    public init() {}

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        guard case .details(let key) = state.mode, let item = state.sessions.current, item.key == key else { return }
        let inspecting = state.inspector?.key == key
        let (hints, pinned) = KeyBinding.hints(inspecting ? state.keys.inspector : state.keys.details)
        AppFrame.draw(
            title: "Session " + key, right: SessionsScreen.position(state.sessions), hints: hints,
            pinned: pinned, state: state, into: &buffer)
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        if inspecting, let inspector = state.inspector {
            Self.drawInspector(inspector, in: body, into: &buffer)
            return
        }
        var lines = SessionsScreen.detailLines(item, state: state)
        if let binding = state.binding, binding.key == key {
            lines.append(SessionsScreen.DetailLine(label: "Token", value: binding.tokenLine))
            if let method = binding.clientAuthMethod {
                let value = method == "none" ? "none: a public client (PKCE only)" : "authenticated with " + method
                lines.append(SessionsScreen.DetailLine(label: "Client", value: value))
            }
            if let grant = binding.grantLine { lines.append(SessionsScreen.DetailLine(label: "Grant", value: grant)) }
        }
        lines.append(SessionsScreen.DetailLine(label: "Scripts", value: Self.scriptsLine(item, state: state)))
        let actions = state.keys.details.filter { ![.back, .help, .quit].contains($0.command) }
        let actionsHeight = min(actions.count + 2, max(0, body.rows - lines.count - 3))
        let (top, bottom) = body.splitBottom(actionsHeight)
        let infoBox = Box(title: "Details", style: Style(foreground: .dim), titleStyle: Style(attributes: .bold))
        infoBox.draw(in: top, into: &buffer)
        SessionsScreen.draw(lines, in: top.inset(by: 1), into: &buffer)
        guard bottom.rows >= 3 else { return }
        Box(title: "Actions", style: Style(foreground: .dim), titleStyle: Style(attributes: .bold))
            .draw(in: bottom, into: &buffer)
        let list = bottom.inset(by: 1)
        let keyWidth = actions.map { DisplayText.width(of: $0.label) }.max() ?? 0
        for (index, binding) in actions.enumerated() where index < list.rows {
            let row = list.row + index
            let end = buffer.write(
                " " + DisplayText.padded(binding.label, toWidth: keyWidth) + "  ", row: row,
                col: list.col, style: Style(attributes: .bold), maxWidth: list.cols)
            buffer.write(binding.help, row: row, col: end, maxWidth: list.right - end - 1)
        }
    }

    /// The inspector (`i`): the rows `authdeck inspect` prints, headings bold, failed checks red, in the whole body.
    static func drawInspector(_ inspector: Inspector, in body: Rect, into buffer: inout ScreenBuffer) {
        Box(
            title: "Inspector · i or Esc closes", style: Style(foreground: .dim), titleStyle: Style(attributes: .bold)
        ).draw(in: body, into: &buffer)
        let inside = body.inset(by: 1)
        let all = inspector.rows
        let width = min(16, all.filter { $0.kind != .heading }.map { DisplayText.width(of: $0.label) }.max() ?? 0)
        // Scrolled no further than the last screenful.
        let rows = all.dropFirst(min(inspector.scroll, max(0, all.count - inside.rows)))
        for (index, row) in rows.enumerated() where index < inside.rows {
            let line = inside.row + index
            switch row.kind {
            case .heading:
                let end = buffer.write(
                    " " + row.label.prefix(1).uppercased() + row.label.dropFirst() + ": ", row: line, col: inside.col,
                    style: Style(attributes: .bold), maxWidth: inside.cols)
                buffer.write(row.value, row: line, col: end, maxWidth: inside.right - end - 1)
            case .claim, .holds, .passed, .failed:
                let end = buffer.write(
                    "   " + DisplayText.padded(row.label, toWidth: width) + "  ", row: line, col: inside.col,
                    style: Style(foreground: .accent), maxWidth: inside.cols)
                let mark = row.kind == .passed ? "ok  " : row.kind == .failed ? "FAILED  " : ""
                let color: Color = row.kind == .passed ? .active : row.kind == .failed ? .error : .normal
                buffer.write(
                    mark + row.value, row: line, col: end, style: Style(foreground: color),
                    maxWidth: inside.right - end - 1)
            }
        }
    }

    /// Whether scripts get this session: the default, this folder's choice, or neither.
    static func scriptsLine(_ item: SessionItem, state: AppState) -> String {
        var parts: [String] = []
        if state.directorySession == item.key { parts.append("used in this folder (.authdeck-session)") }
        if item.isSelected {
            parts.append("the default for scripts")
        } else {
            parts.append("not the default (u makes it)")
        }
        return parts.joined(separator: " · ")
    }
}
