import CNcursesw
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The thin ncurses driver: it starts and restores the terminal, copies `ScreenBuffer`s to the screen (only the
/// cells that changed) and reads input as `KeyRequest`s. It is the only code that talks to ncurses; everything
/// it shows was rendered elsewhere, so nothing here needs a test beyond the program under tmux.
///
/// Not thread-safe, like ncurses itself: create it, present and read keys from one task.
public final class Terminal {
    /// Why the terminal could not be started.
    public enum StartError: Error, Equatable {
        /// Standard input or output is not a terminal (a pipe, a file, cron).
        case notATerminal
        /// ncurses knows no terminal description for `$TERM`.
        case unknownTerminal(String)
        /// `$TERM` (`dumb`, a printer) cannot move the cursor, so no screen can be drawn.
        case cannotAddressCursor(String)
    }

    public private(set) var rows: Int
    public private(set) var cols: Int
    /// False under `NO_COLOR`, the monochrome theme or on a terminal without colours; meaning then rides on
    /// attributes alone.
    public let usesColor: Bool
    /// The hues meanings are painted in.
    public let theme: Theme
    /// False when the locale is not UTF-8 (`LANG=C`): every cell is then drawn in ASCII (`ASCIIDrawing`).
    public let showsUnicode: Bool

    private let keyMap: KeyMap
    private let screen: OpaquePointer
    private var presented: ScreenBuffer?
    private var isRunning = true

    /// Takes over the terminal: raw mode (so Ctrl-C arrives as a key), no echo, keypad and mouse, colours,
    /// bracketed paste, and handlers that restore the terminal on exit, on SIGTERM/SIGINT/SIGHUP and on a crash.
    public init(keyMap: KeyMap = .standard, theme: Theme = .dark) throws {
        guard isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 else { throw StartError.notATerminal }
        if cncursesw_can_address_cursor() == 0 {
            throw StartError.cannotAddressCursor(getenv("TERM").map { String(cString: $0) } ?? "")
        }
        setlocale(LC_ALL, "")
        showsUnicode = ASCIIDrawing.localeIsUTF8()
        // Short enough that Esc feels immediate, long enough for arrow-key sequences over SSH.
        set_escdelay(25)
        // ncurses puts in its own SIGINT/SIGTERM handlers (which exit with status 1); ours hand signals on to
        // what the program had before curses, so they are recorded first.
        let installsHandlers = !restoreHandlersInstalled.exchange(true, ordering: .sequentiallyConsistent)
        if installsHandlers { Terminal.recordSignalActions() }
        guard let screen = cncursesw_start() else {
            throw StartError.unknownTerminal(getenv("TERM").map { String(cString: $0) } ?? "")
        }
        self.screen = screen
        self.keyMap = keyMap
        raw()
        noecho()
        nonl()
        keypad(cncursesw_stdscr(), true)
        curs_set(0)
        mouseinterval(0)
        mousemask(cncursesw_button1_pressed() | cncursesw_button4_pressed() | cncursesw_button5_pressed(), nil)

        let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        let drawn = noColor ? Theme.monochrome : theme
        self.theme = drawn
        usesColor = drawn.usesColor && has_colors() && start_color() == cncursesw_ok()
        if usesColor { Terminal.definePairs(drawn) }

        rows = Int(cncursesw_lines())
        cols = Int(cncursesw_cols())
        cursesIsActive.store(true, ordering: .sequentiallyConsistent)
        if installsHandlers { Terminal.installRestoreHandlers() }
        writeToTerminal(bracketedPasteOn)
    }

    deinit {
        restore()
    }

    /// Gives the terminal back as it was. Safe to call more than once; the signal and exit handlers call the
    /// same `endwin` when the program ends any other way.
    public func restore() {
        guard isRunning else { return }
        isRunning = false
        if cursesIsActive.exchange(false, ordering: .sequentiallyConsistent) {
            writeToTerminal(bracketedPasteOff)
            endwin()
        }
    }

    // MARK: - Output

    /// Copies a frame to the screen, writing only the cells that differ from the last frame presented.
    public func present(_ buffer: ScreenBuffer) {
        guard isRunning else { return }
        let previous = presented.flatMap { $0.rows == buffer.rows && $0.cols == buffer.cols ? $0 : nil }
        if previous == nil {
            // A new size or a forced repaint: start from a blank screen so nothing stale survives.
            werase(cncursesw_stdscr())
            clearok(cncursesw_stdscr(), true)
        }
        for row in 0..<buffer.rows {
            for col in 0..<buffer.cols {
                let cell = buffer[row, col]
                if let previous, previous[row, col] == cell { continue }
                // The continuation of a wide grapheme is drawn by the grapheme itself (in ASCII, a blank).
                if cell.isContinuation && showsUnicode { continue }
                draw(cell, row: row, col: col)
            }
        }
        wnoutrefresh(cncursesw_stdscr())
        doupdate()
        presented = buffer
        rewriteLogicalLines(buffer)
    }

    /// Prints each logical line again over the same cells with the terminal's own wrapping, so the terminal (and
    /// tmux) marks the rows as one wrapped line and a mouse copy gives the URL without line breaks. The characters
    /// are the ones curses drew, so its picture of the screen stays right; the cursor goes back where curses left it.
    private func rewriteLogicalLines(_ buffer: ScreenBuffer) {
        let lines = buffer.logicalLines.filter { buffer.shows($0) }
        guard !lines.isEmpty else { return }
        let screen = cncursesw_stdscr()
        var sequence = "\u{1B}[0m"
        for line in lines {
            let text = showsUnicode ? line.text : line.text.map { ASCIIDrawing.text(for: String($0)) }.joined()
            sequence += "\u{1B}[\(line.row + 1);1H" + text
        }
        sequence += "\u{1B}[\(getcury(screen) + 1);\(getcurx(screen) + 1)H"
        sendControl(sequence)
    }

    /// Forgets what is on screen so the next `present` repaints everything (Ctrl-L, after a child program).
    public func repaintAll() {
        presented = nil
    }

    /// Writes a control sequence (an OSC 52 copy) straight to the terminal between frames; curses does not see it.
    public func sendControl(_ sequence: String) {
        guard isRunning else { return }
        fflush(nil)  // whatever curses still buffers goes first
        var text = sequence
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    private func draw(_ cell: Cell, row: Int, col: Int) {
        var attributes = cncursesw_a_normal()
        var style = cell.style
        if !usesColor {
            // Without colour, meaning moves to attributes: errors and accents bold, warnings underlined.
            switch style.foreground {
            case .normal, .active: break
            case .accent, .expired, .error: style.attributes.insert(.bold)
            case .expiring: style.attributes.insert(.underline)
            case .dim: style.attributes.insert(.dim)
            }
        } else if style.foreground == .dim {
            style.attributes.insert(.dim)
        }
        if style.attributes.contains(.bold) { attributes |= cncursesw_a_bold() }
        if style.attributes.contains(.reverse) { attributes |= cncursesw_a_reverse() }
        if style.attributes.contains(.underline) { attributes |= cncursesw_a_underline() }
        if style.attributes.contains(.dim) { attributes |= cncursesw_a_dim() }
        let pair = usesColor ? Terminal.pairNumber(style.foreground, style.background) : 0

        let text = showsUnicode ? cell.text : ASCIIDrawing.text(for: cell.isContinuation ? " " : cell.text)
        var characters = text.unicodeScalars.prefix(Int(CCHARW_MAX)).map { wchar_t(bitPattern: $0.value) }
        if characters.isEmpty { characters = [wchar_t(0x20)] }
        characters.append(0)
        _ = cncursesw_put_cell(Int32(row), Int32(col), characters, attributes, pair)
    }

    // MARK: - Colours

    private static func pairNumber(_ foreground: Color, _ background: Color) -> Int16 {
        Int16(1 + foreground.rawValue * Color.allCases.count + background.rawValue)
    }

    private static func definePairs(_ theme: Theme) {
        let hasDefaults = use_default_colors() == cncursesw_ok()
        for foreground in Color.allCases {
            for background in Color.allCases {
                let pair = pairNumber(foreground, background)
                guard Int32(pair) < cncursesw_color_pairs() else { continue }
                var fg = theme.hue(foreground) ?? -1  // -1: the terminal's own default
                var bg = theme.hue(background) ?? -1
                if !hasDefaults {
                    // No default colours to keep: the theme's own ground, dark text on white for light.
                    if fg < 0 { fg = Int16(theme == .light ? COLOR_BLACK : COLOR_WHITE) }
                    if bg < 0 { bg = Int16(theme == .light ? COLOR_WHITE : COLOR_BLACK) }
                }
                init_pair(pair, fg, bg)
            }
        }
    }

    // MARK: - Input

    /// The next request, waiting at most `timeoutMilliseconds` (nil waits for ever). Nil when the time ran out
    /// or the key means nothing here, so the caller simply renders its next frame (a countdown ticks on).
    public func nextKey(timeoutMilliseconds: Int?) -> KeyRequest? {
        guard isRunning else { return nil }
        let window = cncursesw_stdscr()
        wtimeout(window, Int32(clamping: timeoutMilliseconds ?? -1))
        var value: wint_t = 0
        let result = wget_wch(window, &value)
        if result == cncursesw_key_code_yes() {
            return request(forKeyCode: Int32(value))
        }
        guard result == cncursesw_ok(), let scalar = Unicode.Scalar(UInt32(value)) else { return nil }
        if scalar.value == 0x1B { return readEscapeSequence() }
        return keyMap.request(for: scalar)
    }

    private func request(forKeyCode code: Int32) -> KeyRequest? {
        switch code {
        case cncursesw_key_resize():
            rows = Int(cncursesw_lines())
            cols = Int(cncursesw_cols())
            presented = nil
            return .resize(rows: rows, cols: cols)
        case cncursesw_key_mouse():
            return readMouse()
        case KEY_UP: return keyMap.request(for: .up)
        case KEY_DOWN: return keyMap.request(for: .down)
        case KEY_LEFT: return keyMap.request(for: .left)
        case KEY_RIGHT: return keyMap.request(for: .right)
        case KEY_PPAGE: return keyMap.request(for: .pageUp)
        case KEY_NPAGE: return keyMap.request(for: .pageDown)
        case KEY_HOME: return keyMap.request(for: .home)
        case KEY_END: return keyMap.request(for: .end)
        case KEY_ENTER: return keyMap.request(for: .enter)
        case KEY_BACKSPACE: return keyMap.request(for: .backspace)
        case KEY_DC: return keyMap.request(for: .delete)
        case KEY_IC: return keyMap.request(for: .insert)
        case KEY_BTAB: return keyMap.request(for: .backTab)
        case cncursesw_key_f(1)...cncursesw_key_f(12):
            return keyMap.request(for: .function(Int(code - cncursesw_key_f(0))))
        default:
            return nil
        }
    }

    private func readMouse() -> KeyRequest? {
        var event = MEVENT()
        guard getmouse(&event) == cncursesw_ok() else { return nil }
        if event.bstate & cncursesw_button1_pressed() != 0 {
            return .mouseClick(row: Int(event.y), col: Int(event.x))
        }
        if event.bstate & cncursesw_button4_pressed() != 0 { return .scrollUp }
        if event.bstate & cncursesw_button5_pressed() != 0 { return .scrollDown }
        return nil
    }

    /// Reads what follows an ESC that ncurses did not turn into a key: nothing (the Esc key), Alt+key, an
    /// unknown sequence, or the start of a bracketed paste.
    private func readEscapeSequence() -> KeyRequest? {
        let window = cncursesw_stdscr()
        wtimeout(window, 10)
        var sequence: [Unicode.Scalar] = []
        while sequence.count < 16 {
            var value: wint_t = 0
            guard wget_wch(window, &value) == cncursesw_ok(), let scalar = Unicode.Scalar(UInt32(value)) else {
                break
            }
            sequence.append(scalar)
            if sequence.count == 1 && scalar != "[" && scalar != "O" { break }  // Alt+key
            if sequence.count > 1 && (0x40...0x7E).contains(scalar.value) { break }  // a sequence's final byte
        }
        if KeyMap.isPasteStart(sequence) { return readPaste() }
        return keyMap.request(forEscapeSequence: sequence)
    }

    /// Collects a bracketed paste up to its end marker; a paste that never ends (a broken terminal) is cut off
    /// after a pause or 64 KiB.
    private func readPaste() -> KeyRequest? {
        let window = cncursesw_stdscr()
        wtimeout(window, 200)
        var scalars: [Unicode.Scalar] = []
        while scalars.count < 65_536 {
            var value: wint_t = 0
            let result = wget_wch(window, &value)
            if result == cncursesw_key_code_yes() { continue }
            guard result == cncursesw_ok(), let scalar = Unicode.Scalar(UInt32(value)) else { break }
            scalars.append(scalar)
            if let text = KeyMap.pastedText(from: scalars) { return .paste(text) }
        }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        return .paste(DisplayText.sanitized(String(text)))
    }

    // MARK: - Restoring the terminal

    private static func recordSignalActions() {
        for signalNumber in restoredSignals {
            sigaction(signalNumber, nil, previousSignalActions + Int(signalNumber))
        }
    }

    private static func installRestoreHandlers() {
        atexit(restoreTerminalAtExit)
        for signalNumber in restoredSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = restoreTerminalOnSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signalNumber, &action, nil)
        }
    }
}

// MARK: - File-scope state for the C handlers

private let bracketedPasteOn: StaticString = "\u{1B}[?2004h"
private let bracketedPasteOff: StaticString = "\u{1B}[?2004l"

/// Whether curses owns the terminal; the signal and exit handlers read it, so it is atomic.
private let cursesIsActive = Atomic<Bool>(false)
private let restoreHandlersInstalled = Atomic<Bool>(false)

/// Ends that leave the terminal in raw mode unless handled: termination requests and crashes.
private let restoredSignals: [Int32] = [
    SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP,
    SIGABRT, SIGFPE,
]

/// The handlers the program had before curses started (the Swift runtime's crash reporter, or the default
/// action), indexed by signal number, so that ours restores the terminal and then hands the signal on to them.
/// Written once, before any of our handlers can run.
nonisolated(unsafe) private let previousSignalActions: UnsafeMutablePointer<sigaction> = {
    let actions = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    actions.initialize(repeating: sigaction(), count: 65)
    return actions
}()

/// Writes straight to the terminal, bypassing curses; a static string needs no allocation, so the signal
/// handler may call it.
private func writeToTerminal(_ text: StaticString) {
    text.withUTF8Buffer { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

/// Restores the terminal, puts the previous handler back and raises the signal again, so the process ends
/// (or dumps core, or prints its crash report) exactly as it would have without us.
private func restoreTerminalOnSignal(_ signalNumber: Int32) {
    if cursesIsActive.exchange(false, ordering: .sequentiallyConsistent) {
        writeToTerminal(bracketedPasteOff)
        endwin()
    }
    sigaction(signalNumber, previousSignalActions + Int(signalNumber), nil)
    raise(signalNumber)
}

private func restoreTerminalAtExit() {
    if cursesIsActive.exchange(false, ordering: .sequentiallyConsistent) {
        writeToTerminal(bracketedPasteOff)
        endwin()
    }
}
