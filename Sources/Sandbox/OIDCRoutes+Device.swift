import AuthCore
import AuthCrypto
import LoopbackHTTP

extension OIDCRoutes {
    /// Letters that cannot be mistaken for each other or spell words (RFC 8628 6.1's advice).
    private static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ")

    /// RFC 8628 3.1/3.2: a device code for the client, a user code for the person.
    func deviceAuthorization(_ request: HTTPRequest, profile: OIDCProfile) -> HTTPResponse {
        guard let form = request.formParameters else {
            return OAuthError.invalidRequest("send an application/x-www-form-urlencoded body").response
        }
        guard let clientID = form["client_id"] ?? ClientCredentials.basic(request)?.clientID, !clientID.isEmpty else {
            return OAuthError.invalidClient("client_id is required").response
        }
        guard accepts(clientID: clientID, at: profile) else {
            return OAuthError.invalidClient("the client is not registered with the \(profile.rawValue) profile")
                .response
        }
        let scope = form["scope"] ?? profile.defaultScopes.joined(separator: " ")
        let deviceCode: String
        let userCode: String
        do {
            deviceCode = try context.randomToken()
            let alphabet = Self.userCodeAlphabet
            let letters = try SecureRandom.bytes(8).map { alphabet[Int($0) % alphabet.count] }
            userCode = String(letters[0..<4]) + "-" + String(letters[4..<8])
        } catch {
            return OAuthError.serverError("the sandbox could not draw random bytes").response
        }
        let configuration = context.configuration
        let now = context.clock.now
        let device = OIDCGrants.Device(
            profile: profile, clientID: clientID, scope: scope, userCode: userCode,
            expiresAt: now + Double(configuration.deviceCodeLifetime),
            interval: configuration.deviceInterval, lastPoll: nil, decision: .pending)
        grants.withLock { $0.add(deviceCode: deviceCode, device, now: now) }
        let page = endpoint(profile, "/device")
        var answer: [String: Any] = [
            "device_code": deviceCode, "user_code": userCode, "verification_uri": page,
            "verification_uri_complete": page + "?user_code=" + userCode,
            "expires_in": configuration.deviceCodeLifetime, "interval": configuration.deviceInterval,
        ]
        // Google names the page `verification_url`; clients written against it look for that name.
        if profile == .google { answer["verification_url"] = page }
        return .json(200, object: answer)
    }

    /// Where the person types the user code and picks a user. `sandbox_user` and `sandbox_auto` on the URL (the
    /// complete verification URI, for scripts) decide at once.
    func devicePage(_ request: HTTPRequest, profile: OIDCProfile) -> HTTPResponse {
        guard let query = request.queryParameters else {
            return Self.errorPage(400, "The request has a broken escape.")
        }
        var fields = query
        if request.method == "POST" {
            guard let form = request.formParameters else {
                return Self.errorPage(400, "The device form must be sent as application/x-www-form-urlencoded.")
            }
            fields = form
        } else if query["sandbox_auto"] == nil {
            return deviceForm(profile: profile, userCode: query["user_code"] ?? "", message: nil)
        }
        let userCode = Self.normalisedUserCode(fields["user_code"] ?? "")
        let action = fields["action"] ?? fields["sandbox_auto"]
        let userName = fields["user"] ?? fields["sandbox_user"]
        let decision: OIDCGrants.Decision
        switch action {
        case "approve":
            guard let userName, let user = context.user(named: userName) else {
                return Self.errorPage(400, "There is no sandbox user named '\(userName ?? "")'.")
            }
            decision = .approved(userName: user.name)
        case "deny":
            decision = .denied
        default:
            return Self.errorPage(400, "The action must be approve or deny.")
        }
        let now = context.clock.now
        guard let device = grants.withLock({ $0.device(userCode: userCode, now: now) }),
            device.profile == profile
        else {
            return deviceForm(
                profile: profile, userCode: "", message: "That code is unknown or has expired.",
                status: 400)
        }
        switch grants.withLock({ $0.decide(userCode: userCode, decision, now: now) }) {
        case .decided:
            let done = decision == .denied ? "You denied the request." : "Approved. Return to your device."
            return .html(200, HTML.page(title: "Device sign-in", body: "<p>\(done)</p>"))
        case .alreadyDecided:
            return Self.errorPage(400, "That code was already answered.")
        case .unknown, .expired:
            return deviceForm(
                profile: profile, userCode: "", message: "That code is unknown or has expired.",
                status: 400)
        }
    }

    /// Upper case without spaces or dashes, then in the XXXX-XXXX form the codes are stored in.
    static func normalisedUserCode(_ text: String) -> String {
        let letters = text.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == 8 else { return letters }
        return String(letters.prefix(4)) + "-" + String(letters.suffix(4))
    }

    private func deviceForm(
        profile: OIDCProfile, userCode: String, message: String?,
        status: Int = 200
    ) -> HTTPResponse {
        let choices = userChoices()
        let note = message.map { "<p><strong>\(HTML.escape($0))</strong></p>" } ?? ""
        let body = """
            \(note)<form method="post" action="\(HTML.escape(endpoint(profile, "/device")))">
            <label>Code shown on your device: <input name="user_code" value="\(HTML.escape(userCode))"
            autocomplete="off" autofocus></label>
            \(choices)
            <p><button type="submit" name="action" value="approve">Approve</button>
            <button type="submit" name="action" value="deny">Deny</button></p>
            </form>
            """
        return .html(status, HTML.page(title: "Device sign-in — \(profile.rawValue) (sandbox)", body: body))
    }
}
