import AuthCore
import LoopbackHTTP

/// Who a browser is signed in as at one profile, as a real provider remembers it: a persistent cookie (a day; a
/// browser keeps no session cookie once it closes) naming a session the sandbox keeps in memory. `scripted` marks a sign-in made by the scripting hook (`sandbox_auto=signin`): the
/// scripted person then also answers that browser's account chooser and consent, picking their own account.
struct BrowserSession: Sendable {
    let userName: String
    let scripted: Bool
}

/// What the authorization request's `prompt` asks (OpenID Connect Core 3.1.2.1): a space-separated list of
/// `none`, `login`, `consent` and `select_account`, where `none` stands alone.
struct PromptRequest: Equatable {
    var none = false
    var login = false
    var consent = false
    var selectAccount = false

    /// `invalid_request` for an unknown value or `none` beside another.
    static func parse(_ value: String?) -> Result<PromptRequest, OAuthRefusal> {
        var prompt = PromptRequest()
        let values = (value ?? "").split(separator: " ")
        for word in values {
            switch word {
            case "none": prompt.none = true
            case "login": prompt.login = true
            case "consent": prompt.consent = true
            case "select_account": prompt.selectAccount = true
            default:
                return .failure(
                    OAuthRefusal(
                        "invalid_request", "prompt value '\(word)' is not none, login, consent or select_account"))
            }
        }
        if prompt.none, values.count > 1 {
            return .failure(OAuthRefusal("invalid_request", "prompt=none must stand alone"))
        }
        return .success(prompt)
    }
}

extension OIDCRoutes {
    /// The cookie that carries a profile's browser session, scoped to the profile's path as a provider scopes its
    /// cookies to its own host.
    static let sessionCookie = "sandbox_session"

    /// The browser's session at `profile`: the cookie's session, when the sandbox still knows it.
    func browserSession(_ request: HTTPRequest) -> BrowserSession? {
        guard let header = request.headers["cookie"] else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == Self.sessionCookie else {
                continue
            }
            let value = String(parts[1].trimmingCharacters(in: .whitespaces))
            if let session = browserSessions.withLock({ $0[value] }) { return session }
        }
        return nil
    }

    /// The sign-in page (`/signin`): a user to pick (or `sandbox_user` with `sandbox_auto=signin` on the URL, the
    /// scripting hook), after which this browser is signed in as that user at this profile until the sandbox
    /// stops.
    func signInPage(_ request: HTTPRequest, profile: OIDCProfile) -> HTTPResponse {
        let query = request.queryParameters ?? [:]
        let chosen: String?
        let scripted: Bool
        if request.method == "POST" {
            chosen = request.formParameters?["user"]
            scripted = false
        } else if query["sandbox_auto"] == "signin" {
            chosen = query["sandbox_user"]
            scripted = true
        } else {
            let body = """
                <form method="post" action="\(HTML.escape(request.target))">
                \(userChoices())
                <p><button type="submit">Sign in</button></p>
                </form>
                """
            return .html(200, HTML.page(title: "Sign in — \(profile.rawValue) (sandbox)", body: body))
        }
        guard let name = chosen, let user = context.user(named: name) else {
            return Self.errorPage(400, "There is no sandbox user named '\(chosen ?? "")'.")
        }
        let value: String
        do {
            value = try context.randomToken()
        } catch {
            return Self.errorPage(500, "The sandbox could not draw random bytes.")
        }
        browserSessions.withLock { $0[value] = BrowserSession(userName: user.name, scripted: scripted) }
        let said = "Signed in as \(HTML.escape(user.name)) at the \(profile.rawValue) profile."
        var answer = HTTPResponse.html(200, HTML.page(title: "Signed in (sandbox)", body: "<p>\(said)</p>"))
        answer.headers.append(
            (
                "Set-Cookie",
                "\(Self.sessionCookie)=\(value); Path=/oidc/\(profile.rawValue)/; Max-Age=86400; HttpOnly; SameSite=Lax"
            ))
        return answer
    }

    /// How the browser's session answers an authorization request before any page is shown (OpenID Connect Core
    /// 3.1.2.1 and 3.1.2.3): the user to approve at once, an error for the client, or nil to show the consent page.
    /// Signed in and asked for nothing (or the scripted person at the account chooser, or `prompt=none`): that
    /// account, unless `login_hint` names another. `prompt=login` always shows the page (sign in again); so does
    /// `select_account` for a person, who picks there; `none` without a session is `login_required`.
    func answerFromSession(
        _ session: BrowserSession?, prompt: PromptRequest, loginHint: String?
    ) -> Result<String, OAuthRefusal>? {
        guard let session, !prompt.login else {
            return prompt.none ? .failure(OAuthRefusal("login_required", "the browser is not signed in")) : nil
        }
        if let loginHint, let hinted = user(hinted: loginHint),
            hinted.name != session.userName
        {
            return prompt.none
                ? .failure(OAuthRefusal("login_required", "the browser is signed in as another account")) : nil
        }
        if prompt.none { return .success(session.userName) }
        if prompt.selectAccount || prompt.consent { return session.scripted ? .success(session.userName) : nil }
        return .success(session.userName)
    }
}

extension OIDCRoutes {
    /// A radio button per sandbox user, by display name, the first checked: the sign-in and device pages' choice.
    func userChoices() -> String {
        var choices = ""
        for (index, user) in context.users.enumerated() {
            let checked = index == 0 ? " checked" : ""
            choices +=
                "<label><input type=\"radio\" name=\"user\" value=\"\(HTML.escape(user.name))\"\(checked)> "
                + "\(HTML.escape(user.displayName))</label>\n"
        }
        return choices
    }

    /// The user `login_hint` names, by name or email address.
    func user(hinted hint: String) -> SandboxUser? {
        context.user(named: hint) ?? context.users.first { $0.email == hint.lowercased() }
    }
}

/// An error for the client's redirect URI.
struct OAuthRefusal: Error {
    let code: String
    let description: String

    init(_ code: String, _ description: String) {
        self.code = code
        self.description = description
    }
}
