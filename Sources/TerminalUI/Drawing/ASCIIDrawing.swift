#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the terminal draws when the locale cannot show UTF-8 (`LANG=C`, `POSIX`, a Latin-1 locale): ncurses then
/// drops every character outside ASCII, borders and QR code included. Screens render as always; the driver puts
/// each cell through `text(for:)`, and the QR code is drawn a module per two columns in reverse video.
public enum ASCIIDrawing {
    /// Whether the locale set by `setlocale(LC_ALL, "")` encodes characters as UTF-8.
    public static func localeIsUTF8() -> Bool {
        guard let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
        let name = String(cString: codeset).uppercased()
        return name == "UTF-8" || name == "UTF8"
    }

    /// Whether the locale the environment names (`LC_ALL`, `LC_CTYPE`, `LANG`) encodes characters as UTF-8, asked
    /// without setting the process's locale: for output that is not through ncurses (the command line's QR code).
    public static func environmentLocaleIsUTF8() -> Bool {
        guard let locale = newlocale(LC_CTYPE_MASK, "", nil) else { return false }
        defer { freelocale(locale) }
        guard let codeset = nl_langinfo_l(nl_item(CODESET), locale) else { return false }
        let name = String(cString: codeset).uppercased()
        return name == "UTF-8" || name == "UTF8"
    }

    /// The one line said when the TUI starts in such a locale: what happens and how to fix it.
    public static func localeNotice(_ environment: [String: String]) -> String {
        let variable = ["LC_ALL", "LC_CTYPE", "LANG"].first { !(environment[$0] ?? "").isEmpty }
        let setting = variable.map { "\($0)=\(environment[$0] ?? "")" } ?? "An unset LANG"
        return "\(setting) is not a UTF-8 locale, so authdeck draws in ASCII; LANG=C.UTF-8 shows every letter."
    }

    /// An ASCII stand-in of the same width for a cell's grapheme: line drawing, arrows and punctuation by their
    /// nearest ASCII, anything else (a letter the locale cannot show) as `?`.
    public static func text(for grapheme: String) -> String {
        if grapheme.utf8.allSatisfy({ $0 < 0x80 }) { return grapheme }
        guard let scalar = grapheme.unicodeScalars.first else { return " " }
        switch scalar.value {
        case 0x2500, 0x2501, 0x2550, 0x2013, 0x2014, 0x2212: return "-"
        case 0x2502, 0x2503, 0x2551: return "|"
        case 0x250C...0x254B, 0x2552...0x256C, 0x256D...0x2570: return "+"
        case 0x2026, 0x00B7: return "."
        case 0x2022: return "*"
        case 0x203A, 0x2192, 0x25B8: return ">"
        case 0x2039, 0x2190: return "<"
        case 0x2191: return "^"
        case 0x2193, 0x25BE: return "v"
        case 0x201C, 0x201D: return "\""
        case 0x2018, 0x2019: return "'"
        case 0x00D7, 0x2717: return "x"
        case 0x2713: return "v"
        case 0x26A0: return "!"
        case 0x2580...0x259F: return "#"
        default: return "?"
        }
    }
}
