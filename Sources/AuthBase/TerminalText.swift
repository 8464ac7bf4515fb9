/// Text that is safe to write to a terminal: what a provider, a backend, a config file or a pasted URL says goes
/// through here before the command line or the TUI shows it, so none of it can move the cursor, retitle the
/// window, rewrite earlier lines or hide text (Trojan Source).
public enum TerminalText {
    /// `text` without control characters: C0 and C1 controls, DEL, whole escape sequences (CSI, OSC, DCS and
    /// the like) and bidirectional overrides. A tab becomes a space. Pasted junk, provider error strings and
    /// claims from an ID token all go through here before they are drawn or printed, so none of them can move
    /// the cursor, retitle the window or hide text.
    public static func sanitized(_ text: String) -> String {
        // Fast path: plain printable ASCII is the common case (keys, emails, URLs).
        if isPlain(text, newlines: false) {
            return text
        }
        var scalars = String.UnicodeScalarView()
        var state = EscapeState.text
        for scalar in text.unicodeScalars {
            let value = scalar.value
            switch state {
            case .text:
                switch value {
                case 0x1B: state = .escape
                case 0x9B: state = .controlSequence
                case 0x90, 0x98, 0x9D, 0x9E, 0x9F: state = .controlString
                case 0x09: scalars.append(" ")
                case 0x00..<0x20, 0x7F..<0xA0: break
                default:
                    if !isInvisibleControl(value) { scalars.append(scalar) }
                }
            case .escape:
                switch value {
                case 0x5B: state = .controlSequence  // ESC [
                case 0x5D, 0x50, 0x58, 0x5E, 0x5F: state = .controlString  // ESC ] P X ^ _
                case 0x1B: state = .escape
                case 0x20..<0x30: state = .escape  // intermediate bytes
                default: state = .text  // final byte ends it
                }
            case .controlSequence:
                switch value {
                case 0x20..<0x40: state = .controlSequence  // parameters and intermediates
                case 0x1B: state = .escape
                default: state = .text  // final byte (or junk) ends it
                }
            case .controlString:
                switch value {
                case 0x07, 0x9C: state = .text  // BEL or ST
                case 0x1B: state = .controlStringEscape
                default: break
                }
            case .controlStringEscape:
                state = value == 0x5C ? .text : .controlString  // ESC \ is ST
            }
        }
        return String(scalars)
    }

    /// `text` sanitized line by line: newlines stay, everything else `sanitized` removes goes (command-line output,
    /// which is made of lines).
    public static func sanitizedLines(_ text: String) -> String {
        if isPlain(text, newlines: true) {
            return text
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { sanitized(String($0)) }.joined(separator: "\n")
    }

    // MARK: - Private

    /// Whether every byte is printable ASCII (or a newline, when `newlines`). One branch-free pass over the bytes:
    /// `list --json` prints 30 MB at 100,000 sessions, and a byte-by-byte `allSatisfy` took a fifth of its time.
    private static func isPlain(_ text: String, newlines: Bool) -> Bool {
        let newline: UInt8 = newlines ? 0x0A : 0x20
        let answer = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            var outside: UInt8 = 0
            for byte in bytes {
                // 1 when the byte is neither 0x20...0x7E nor the allowed newline.
                let printable: UInt8 = byte &- 0x20 < 0x5F ? 1 : 0
                let allowed: UInt8 = byte == newline ? 1 : 0
                outside |= (printable | allowed) ^ 1
            }
            return outside == 0
        }
        return answer ?? text.utf8.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == newline }
    }

    private enum EscapeState {
        case text, escape, controlSequence, controlString, controlStringEscape
    }

    /// Bidirectional overrides and isolates can make text read differently from what it is (Trojan Source),
    /// and a byte-order mark has no business in a cell.
    /// Whether a terminal would act on the character or hide it, beyond the C0 controls: DEL, the C1 controls
    /// (U+0080–U+009F: CSI and DCS among them) and the invisible marks (bidi overrides, isolates, marks, BOM).
    public static func isHiddenOrControl(_ value: UInt32) -> Bool {
        (0x7F..<0xA0).contains(value) || isInvisibleControl(value)
    }

    private static func isInvisibleControl(_ value: UInt32) -> Bool {
        (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            || value == 0x200E || value == 0x200F || value == 0xFEFF
    }
}
