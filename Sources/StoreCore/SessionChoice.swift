import AuthBase

/// Which session a command acts on when it names none itself: `--session KEY`, else `$AUTHDECK_SESSION`, else the
/// nearest `.authdeck-session` file, else (nil) the selected session. Both binaries resolve it here, the same way.
/// A key that breaks the key rule is an error naming where it came from, never a silent fall-through to the
/// selected session, which would hand out another session's token.
public enum SessionChoice {
    /// - Parameter warn: where a distrusted `.authdeck-session` is reported (stderr unless the caller collects it).
    /// - Parameter home: where the search for that file stops (`$HOME`, `DirectorySessionFile.homeDirectory`).
    public static func resolve(
        option: String?, environment: [String: String],
        home: String? = DirectorySessionFile.homeDirectory(),
        warn: (String) -> Void = DirectorySessionFile.warnOnStandardError
    )
        throws(StoreError) -> String?
    {
        try resolveWithSource(option: option, environment: environment, home: home, warn: warn)?.key
    }

    /// As `resolve`, with where the key came from: `--session`, `$AUTHDECK_SESSION` or the file's path, so
    /// `status` and `list` can say which of them chose it.
    public static func resolveWithSource(
        option: String?, environment: [String: String],
        home: String? = DirectorySessionFile.homeDirectory(),
        warn: (String) -> Void = DirectorySessionFile.warnOnStandardError
    )
        throws(StoreError) -> (key: String, source: String)?
    {
        try resolveWithSource(option: option, variable: { environment[$0] }, home: home, warn: warn)
    }

    /// As `resolveWithSource(option:environment:home:warn:)`, reading each variable through `variable`
    /// (`ProcessEnvironment.variable`).
    public static func resolveWithSource(
        option: String?, variable: (String) -> String?,
        home: String? = DirectorySessionFile.homeDirectory(),
        warn: (String) -> Void = DirectorySessionFile.warnOnStandardError
    )
        throws(StoreError) -> (key: String, source: String)?
    {
        if let option {
            return (try checked(option, from: optionSource), optionSource)
        }
        if let value = variable("AUTHDECK_SESSION"), !value.isEmpty {
            return (try checked(value, from: environmentSource), environmentSource)
        }
        if let file = DirectorySessionFile.find(home: home, warn: warn) {
            return (try checked(file.key, from: file.path), file.path)
        }
        return nil
    }

    /// The sources `resolveWithSource` names besides a file's path.
    public static let optionSource = "--session"
    public static let environmentSource = "$AUTHDECK_SESSION"

    private static func checked(_ key: String, from source: String) throws(StoreError) -> String {
        if let problem = SessionKeyRule.problem(key) { throw .invalidKey("\(source): \(problem)") }
        return key
    }
}
