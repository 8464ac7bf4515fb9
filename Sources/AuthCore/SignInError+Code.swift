extension SignInError {
    /// A stable name for the failure, recorded beside the message in a trace's `result` and `notice` steps so that
    /// what reads traces (replay, diff) compares failures by what they are, not by their wording: the provider's
    /// OAuth error code (`invalid_grant`, `access_denied`) where the provider named one, the status class of a
    /// provider's HTTP failure (`http_5xx`), else one name per case. Messages may be reworded; codes never change.
    public var code: String {
        switch self {
        case .closed: return "cancelled"
        case .signInInProgress: return "sign_in_in_progress"
        case .unavailable(let reason):
            return Self.statusClass(reason, after: Self.providerAnsweredHTTP) ?? "unavailable"
        case .callbackIncomplete: return "callback_incomplete"
        case .stateMismatch: return "state_mismatch"
        case .issuerMismatch: return "issuer_mismatch"
        case .authMethodUnavailable: return "method_unavailable"
        case .grantUnavailable: return "grant_unavailable"
        case .authenticationFailed(let providerError):
            return Self.providerCode(in: providerError) ?? "authentication_failed"
        case .invalidIdToken: return "id_token_rejected"
        case .unauthorized: return "unauthorized"
        case .rateLimited: return "rate_limited"
        case .sessionStorageFailure: return "storage_failed"
        case .timedOut: return "timeout"
        case .invalidContact: return "invalid_contact"
        case .invalidCode: return "invalid_code"
        case .codeRefused: return "code_refused"
        case .network(let message): return Self.statusClass(message, after: "HTTP ") ?? "network"
        }
    }

    /// How a provider's HTTP failure without an OAuth answer starts its reason (`providerUnavailable`).
    static let providerAnsweredHTTP = "the provider answered HTTP "

    /// The provider failed with a server error: `status`, then what it said or sent.
    public static func providerUnavailable(status: Int, _ rest: String) -> SignInError {
        .unavailable(reason: providerAnsweredHTTP + "\(status) " + rest)
    }

    /// `http_4xx` for text that starts with `prefix` and a status 400 to 599.
    private static func statusClass(_ text: String, after prefix: String) -> String? {
        guard text.hasPrefix(prefix) else { return nil }
        let digits = text.dropFirst(prefix.count).prefix { $0.isASCII && $0.isNumber }
        guard digits.count == 3, let status = Int(digits), (400..<600).contains(status) else { return nil }
        return "http_\(status / 100)xx"
    }

    /// The OAuth error code an authentication failure quotes, in the shape `providerAnswered` writes it: its
    /// words for `access_denied`, or the code (after the endpoint's status) followed by the description, a note or
    /// nothing. Nil when the failure quotes no code (a proxy's sentence, authdeck's own reason).
    static func providerCode(in providerError: String) -> String? {
        if providerError.hasPrefix(accessDeniedWords) { return "access_denied" }
        var rest = Substring(providerError)
        if rest.hasPrefix(refusedPrefix) {
            rest = rest.dropFirst(refusedPrefix.count).drop { $0.isASCII && $0.isNumber }
            guard rest.first == " " else { return nil }
            rest = rest.dropFirst()
        }
        let code = rest.prefix { $0.isASCII && ($0.isLowercase || $0.isNumber || "_.-".contains($0)) }
        let after = rest.dropFirst(code.count)
        guard code.contains(where: \.isLetter),
            after.isEmpty || after.hasPrefix(":") || after.hasPrefix(";") || after.hasPrefix(" (")
        else { return nil }
        return String(code)
    }
}
