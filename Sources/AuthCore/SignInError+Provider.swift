extension SignInError {
    /// An error the provider named, in a redirect or an endpoint's answer: `access_denied` is a refusal in the
    /// provider's words (SPEC section 2, rule 2: exit 4, not the cancel of exit 3); anything else quotes its code and description.
    /// - Parameters:
    ///   - status: the HTTP status of an endpoint's answer; nil for a redirect.
    ///   - note: what else to say (a redirect that came without `state`).
    public static func providerAnswered(
        _ code: String, description: String?, status: Int? = nil,
        note: String? = nil
    ) -> SignInError {
        let words = description.map { ": " + printable($0) } ?? ""
        let suffix = note.map { " (\($0))" } ?? ""
        if code == "access_denied" {
            return .authenticationFailed(providerError: accessDeniedWords + words + suffix)
        }
        let prefix = status.map { refusedPrefix + "\($0) " } ?? ""
        return .authenticationFailed(providerError: prefix + printable(code) + words + suffix)
    }

    /// How `providerAnswered` words an `access_denied`, and what comes before an endpoint's status: `code` reads
    /// the provider's code back from them.
    static let accessDeniedWords = "access denied at the provider"
    static let refusedPrefix = "the provider refused: "

    /// Provider text goes into one-line messages only as printable characters (the one terminal sanitiser), on one
    /// line, at most 200 of them.
    public static func printable(_ text: String) -> String {
        String(TerminalText.sanitized(String(text.map { $0.isNewline ? " " : $0 })).prefix(200))
    }
}
