import AuthCore
import AuthCrypto
import LoopbackHTTP

/// Where and how an authorization response goes: validated before anything is sent there.
struct AuthorizationReply {
    let redirectURI: String
    let state: String?
    /// `query`, `form_post`, or `jwt` / `query.jwt` (JARM: the parameters in one signed `response`).
    let mode: String
    /// The profile's issuer identifier, sent as `iss` with every answer, success or error (RFC 9207 2).
    let issuer: String
    /// Signs a JARM response's parameters.
    var sign: @Sendable ([(String, String)]) -> String? = { _ in nil }

    func success(code: String) -> HTTPResponse {
        send([("code", code)])
    }

    func error(_ code: String, _ description: String) -> HTTPResponse {
        send([("error", code), ("error_description", description)])
    }

    private func send(_ parameters: [(String, String)]) -> HTTPResponse {
        var all = parameters
        if let state { all.append(("state", state)) }
        all.append(("iss", issuer))
        if mode == "jwt" || mode == "query.jwt" {
            guard let signed = sign(all) else { return OIDCRoutes.errorPage(500, "The response could not be signed.") }
            all = [("response", signed)]
        }
        if mode == "form_post" {
            // Apple's form_post: the browser posts the response to the redirect URI by itself.
            let fields = all.map { HTML.hidden($0.0, $0.1) }.joined(separator: "\n")
            let body = """
                <form method="post" action="\(HTML.escape(redirectURI))">
                \(fields)
                <noscript><button type="submit">Continue</button></noscript>
                </form>
                <script>document.forms[0].submit();</script>
                """
            return .html(200, HTML.page(title: "Signing you in", body: body))
        }
        let separator = redirectURI.contains("?") ? "&" : "?"
        return .redirect(to: redirectURI + separator + FormEncoding.encode(all))
    }
}

extension OIDCRoutes {
    /// The authorization endpoint. A bad client or redirect URI is shown as a page and never redirected to
    /// (RFC 6749 4.1.2.1); every later problem goes back to the client as an error response.
    func authorize(_ request: HTTPRequest, profile: OIDCProfile) -> HTTPResponse {
        guard let outer = request.queryParameters else {
            return Self.errorPage(400, "The authorization request has a broken escape.")
        }
        let query: [String: String]
        switch authorizationParameters(outer, profile: profile) {
        case .success(let parameters): query = parameters
        case .failure(let refusal): return refusal.redirect ?? Self.errorPage(400, refusal.problem)
        }
        guard let clientID = query["client_id"], !clientID.isEmpty else {
            return Self.errorPage(400, "The request has no client_id.")
        }
        guard accepts(clientID: clientID, at: profile) else {
            return Self.errorPage(400, "The client is not registered with the \(profile.rawValue) profile.")
        }
        guard let redirectURI = query["redirect_uri"] else {
            return Self.errorPage(400, "The request has no redirect_uri.")
        }
        guard accepts(redirectURI: redirectURI, clientID: clientID, at: profile) else {
            return Self.errorPage(
                400,
                "The redirect_uri is not registered: only http://127.0.0.1:PORT/…, "
                    + "authdeck://… and configured URIs are allowed.")
        }
        let mode = query["response_mode"] ?? profile.defaultResponseMode
        guard ["query", "form_post", "jwt", "query.jwt"].contains(mode) else {
            return Self.errorPage(400, "response_mode must be query, form_post, jwt or query.jwt.")
        }
        var reply = AuthorizationReply(
            redirectURI: redirectURI, state: query["state"], mode: mode, issuer: context.issuer(profile))
        reply.sign = { [self] in signedResponse($0, clientID: clientID, profile: profile) }

        guard query["response_type"] == "code" else {
            return reply.error("unsupported_response_type", "only response_type=code is supported")
        }
        guard let challenge = query["code_challenge"], Self.isChallenge(challenge) else {
            return reply.error("invalid_request", "code_challenge is required (PKCE, 43 base64url characters)")
        }
        guard query["code_challenge_method"] == "S256" else {
            return reply.error("invalid_request", "code_challenge_method must be S256")
        }
        if let nonce = query["nonce"], nonce.utf8.count > 512 {
            return reply.error("invalid_request", "nonce is too long")
        }
        let scope = query["scope"] ?? ""
        if profile == .google || profile == .generic, !scope.split(separator: " ").contains("openid") {
            return reply.error("invalid_scope", "the scope must include openid")
        }

        let prompt: PromptRequest
        switch PromptRequest.parse(query["prompt"]) {
        case .success(let parsed): prompt = parsed
        case .failure(let refusal): return reply.error(refusal.code, refusal.description)
        }

        let action: String?
        let userName: String?
        let session = browserSession(request)
        if request.method == "POST" {
            guard let form = request.formParameters else {
                return Self.errorPage(400, "The consent form must be sent as application/x-www-form-urlencoded.")
            }
            action = form["action"]
            userName = form["user"]
        } else if let scripted = query["sandbox_auto"] ?? outer["sandbox_auto"] {
            // The scripted answer stands for the user's click, so it may come in the browser's own URL beside a
            // request_uri or request object, whose parameters are otherwise the only ones that count.
            action = scripted
            userName = query["sandbox_user"] ?? outer["sandbox_user"]
        } else if let answered = answerFromSession(session, prompt: prompt, loginHint: query["login_hint"]) {
            switch answered {
            case .success(let name):
                action = "approve"
                userName = name
            case .failure(let refusal):
                consumePushed(outer)
                return reply.error(refusal.code, refusal.description)
            }
        } else {
            let hinted = query["login_hint"].flatMap { user(hinted: $0) }?.name
            return consentPage(
                request, profile: profile, clientID: clientID, redirectURI: redirectURI, scope: scope,
                selected: hinted ?? session?.userName, choosing: prompt.selectAccount)
        }

        if action == "deny" || action == "approve", !consumePushed(outer) {
            return Self.errorPage(400, "The request_uri is unknown or was used already.")
        }
        switch action {
        case "deny":
            return reply.error("access_denied", "the user denied the request")
        case "approve":
            guard let userName, let user = context.user(named: userName) else {
                return Self.errorPage(400, "There is no sandbox user named '\(userName ?? "")'.")
            }
            let code: String
            do {
                code = try context.randomToken()
            } catch {
                return Self.errorPage(500, "The sandbox could not draw random bytes.")
            }
            let now = context.clock.now
            let value = OIDCGrants.Code(
                profile: profile, clientID: clientID, redirectURI: redirectURI,
                challenge: challenge, nonce: query["nonce"], scope: scope,
                userName: user.name, issuedAt: now, dpopJKT: query["dpop_jkt"],
                acr: query["acr_values"]?.split(separator: " ").first.map(String.init))
            grants.withLock { $0.add(code: code, value, now: now) }
            return reply.success(code: code)
        default:
            return Self.errorPage(400, "The action must be approve or deny.")
        }
    }

    /// base64url of a SHA-256 digest: 43 characters of the URL-safe alphabet.
    static func isChallenge(_ text: String) -> Bool {
        text.utf8.count == 43
            && text.unicodeScalars.allSatisfy {
                ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    || $0 == "_"
            }
    }

    /// The consent screen: who asks, where the answer goes, and a user to pick. It posts to the same URL, query
    /// included, so the request is checked again when the choice comes back.
    /// `selected` is the user picked first (the browser's account, or `login_hint`'s); `choosing` titles it the
    /// account chooser `prompt=select_account` asks for.
    private func consentPage(
        _ request: HTTPRequest, profile: OIDCProfile, clientID: String, redirectURI: String,
        scope: String, selected: String? = nil, choosing: Bool = false
    ) -> HTTPResponse {
        var choices = ""
        let first = selected ?? context.users.first?.name
        for user in context.users {
            let contact = user.email ?? user.phone ?? "no contact"
            let checked = user.name == first ? " checked" : ""
            choices +=
                "<label><input type=\"radio\" name=\"user\" value=\"\(HTML.escape(user.name))\"\(checked)> "
                + "\(HTML.escape(user.displayName)) (\(HTML.escape(contact)))</label>\n"
        }
        let body = """
            <p><strong>\(HTML.escape(clientID))</strong> asks to sign you in with the sandbox's
            \(HTML.escape(profile.rawValue)) profile.</p>
            <p>Scopes: \(HTML.escape(scope.isEmpty ? "(none)" : scope))<br>Answer goes to: \(HTML.escape(redirectURI))</p>
            <form method="post" action="\(HTML.escape(request.target))">
            \(choices)
            <p><button type="submit" name="action" value="approve">Approve</button>
            <button type="submit" name="action" value="deny">Deny</button></p>
            </form>
            """
        let title = choosing ? "Choose an account" : "Sign in"
        return .html(200, HTML.page(title: "\(title) — \(profile.rawValue) (sandbox)", body: body))
    }

    static func errorPage(_ status: Int, _ message: String) -> HTTPResponse {
        .html(status, HTML.page(title: "Sign-in request refused", body: "<p>\(HTML.escape(message))</p>"))
    }
}
