/// How New sign-in asks for tokens (`m` cycles through the ones the provider takes): the browser's redirect, the
/// device grant, and for OpenID Connect providers CIBA (the provider asks the user its login hint names, on their own
/// device) and client credentials (a machine session without a user), as `login --grant` names them.
public enum GrantChoice: String, CaseIterable, Equatable, Sendable {
    case browser
    case device
    case backchannel
    case machine

    /// The methods a provider takes: CIBA and client credentials need an OpenID Connect provider's endpoints.
    public static func choices(openIDConnect: Bool) -> [GrantChoice] {
        openIDConnect ? allCases : [.browser, .device]
    }

    /// The next one `m` picks.
    public func next(openIDConnect: Bool) -> GrantChoice {
        let choices = Self.choices(openIDConnect: openIDConnect)
        let index = choices.firstIndex(of: self) ?? 0
        return choices[(index + 1) % choices.count]
    }

    /// The form's words for it.
    public var label: String {
        switch self {
        case .browser: return "browser redirect"
        case .device: return "device grant: a code to type on any device"
        case .backchannel: return "CIBA: the provider asks the login hint's user on their device"
        case .machine: return "client credentials: a machine session, no user"
        }
    }
}
