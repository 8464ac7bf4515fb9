/// How the TUI paints meaning (`Color`) on the terminal: `dark` (the default, for a dark background), `light` (hues
/// readable on a white background) or `monochrome` (no colour at all: meaning rides on bold, underline and dim, and
/// focus and selection carry a `>` marker as well as reverse video). `NO_COLOR` (set and not empty) always means
/// monochrome, whatever config.json, `--theme` or `$AUTHDECK_THEME` chose.
public enum Theme: String, CaseIterable, Equatable, Sendable {
    case dark
    case light
    case monochrome

    /// The names a user may give, in the order help lists them.
    public static var names: [String] { allCases.map(\.rawValue) }

    /// The theme to draw with: `NO_COLOR` first, then the first name given (`--theme`, `$AUTHDECK_THEME`, config.json's
    /// `theme`, in that order), else dark. Throws the one line to show for a name that is no theme.
    public static func resolve(_ chosen: [(source: String, name: String?)], environment: [String: String])
        throws(UnknownTheme) -> Theme
    {
        var picked = Theme.dark
        if let given = chosen.first(where: { !($0.name ?? "").isEmpty }), let name = given.name {
            guard let theme = Theme(rawValue: name) else { throw UnknownTheme(source: given.source, name: name) }
            picked = theme
        }
        return noColor(environment) ? .monochrome : picked
    }

    /// Whether `NO_COLOR` asks for no colour (https://no-color.org: present and not empty).
    public static func noColor(_ environment: [String: String]) -> Bool {
        !(environment["NO_COLOR"] ?? "").isEmpty
    }

    /// A theme name that is none of `names`, with where it was given.
    public struct UnknownTheme: Error, Equatable, CustomStringConvertible {
        public let source: String
        public let name: String

        public var description: String {
            "\(source) names the theme '\(name)': use one of \(Theme.names.joined(separator: ", "))"
        }
    }

    /// Whether the driver paints colours at all.
    public var usesColor: Bool { self != .monochrome }

    /// Whether focus and selection get a marker besides reverse video: without colour, reverse video alone is
    /// easy to lose (a terminal that maps it to a faint shade, a screen reader's view of the text).
    public var marksFocus: Bool { self == .monochrome }

    /// The terminal colour (curses' 0-7) for a meaning, nil for the terminal's own default.
    public func hue(_ color: Color) -> Int16? {
        switch (self, color) {
        case (_, .normal), (_, .dim), (.monochrome, _): return nil
        case (.dark, .accent): return 6  // cyan
        case (.light, .accent): return 4  // blue: cyan fades on white
        case (_, .active): return 2  // green
        case (.dark, .expiring): return 3  // yellow
        case (.light, .expiring): return 5  // magenta: yellow cannot be read on white
        case (_, .expired), (_, .error): return 1  // red
        }
    }
}
