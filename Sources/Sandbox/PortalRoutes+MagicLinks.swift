import AuthCore
import Foundation
import LoopbackHTTP

/// Portal's email magic links, in the shapes portal-hq/PortalSwift's `PortalAuthApi` sends and reads:
/// - `POST /magic-links {email, redirectUrl, fromEmail, templateId, isAccountAbstracted?}` sends the email: here, a
///   line in the outbox with the link. The SDK reads no answer body; 429 when the address was sent
///   `portalMagicLinksPerMinute` links in the last minute. `email` must be lower case and trimmed (Portal requires
///   it and does not trim), `redirectUrl` allow-listed byte for byte (401 otherwise, as `/oauth/urls`),
///   `fromEmail` and `templateId` the environment's own.
/// - `GET /magic-links/open/ID` is the link: opened once, it sends the browser to
///   `redirectUrl?token=<one-time>&authMethod=EMAIL_MAGIC_LINK`, the marker PortalSwift's `handleRedirect` routes
///   by (`login_type` is the OAuth callbacks' marker).
/// - `POST /magic-links/validations {"token"}` answers as `/oauth/tokens` does.
/// Portal identifies an end user by email, so an address the sandbox has no user for signs in a new end user.
extension PortalRoutes {
    static let magicLinkMethod = "EMAIL_MAGIC_LINK"
    static let openLinkRoute = "/magic-links/open/"

    func sendMagicLink(_ request: HTTPRequest) throws(PortalError) -> [String: Any] {
        let settings = context.configuration
        guard settings.portalMagicLinks else { throw .badRequest("EMAIL_MAGIC_LINK is not enabled") }
        guard let body = request.jsonObject else {
            throw .badRequest("the body must be a JSON object sent as application/json")
        }
        for name in ["email", "redirectUrl", "fromEmail", "templateId"] {
            guard let value = body[name] as? String, !value.isEmpty else { throw .badRequest("\(name) is required") }
        }
        if let abstracted = body["isAccountAbstracted"], !(abstracted is Bool) {
            throw .badRequest("isAccountAbstracted must be true or false")
        }
        let email = body["email"] as? String ?? ""
        guard email == email.lowercased(), email == email.trimmingCharacters(in: .whitespacesAndNewlines),
            email.split(separator: "@", omittingEmptySubsequences: false).count == 2
        else {
            throw .badRequest("email must be one lower-case address")
        }
        let redirectURL = body["redirectUrl"] as? String ?? ""
        guard (settings.portalRedirectURLs + settings.extraRedirectURIs).contains(redirectURL) else {
            throw .unauthorized("redirectUrl is not allow-listed for this environment")
        }
        guard body["fromEmail"] as? String == settings.portalMagicLinkSender,
            body["templateId"] as? String == settings.portalMagicLinkTemplate
        else {
            throw .badRequest("fromEmail or templateId is not this environment's")
        }
        guard let id = try? context.randomToken() else { throw .server("the sandbox could not draw random bytes") }
        let now = context.clock.now
        let pending = PortalState.MagicLink(
            email: email, redirectURL: redirectURL, accountAbstracted: body["isAccountAbstracted"] as? Bool ?? false,
            expiresAt: now + 900)
        let allowed = state.withLock { portal -> Bool in
            portal.prune(now: now)
            guard portal.linksSent[email, default: []].count < settings.portalMagicLinksPerMinute else { return false }
            portal.linksSent[email, default: []].append(now)
            portal.magicLinks[id] = pending
            return true
        }
        guard allowed else { throw .tooMany("too many magic links were sent to this address; wait a minute") }
        let link = context.baseURL + "/portal" + Self.prefix + Self.openLinkRoute + id
        do throws(Outbox.Failure) {
            try context.outbox.deliver(contact: email, link: link, sentAt: now)
        } catch {
            _ = state.withLock { $0.magicLinks.removeValue(forKey: id) }
            throw .server(error.description)
        }
        return [:]
    }

    /// The link, opened in a browser: used once, it redirects with a one-time token for the validation.
    func openMagicLink(id: String) -> HTTPResponse {
        let now = context.clock.now
        guard let link = state.withLock({ $0.magicLinks.removeValue(forKey: id) }), link.expiresAt > now,
            let token = try? context.randomToken()
        else {
            return OIDCRoutes.errorPage(400, "This sign-in link is unknown, expired or already used. Send another.")
        }
        state.withLock {
            $0.magicLinkResults[token] = PortalState.MagicLinkResult(
                email: link.email, accountAbstracted: link.accountAbstracted, expiresAt: now + 120)
        }
        let separator = link.redirectURL.contains("?") ? "&" : "?"
        let answer = [("token", token), ("authMethod", Self.magicLinkMethod)]
        return .redirect(to: link.redirectURL + separator + FormEncoding.encode(answer))
    }

    func validateMagicLink(_ request: HTTPRequest) throws(PortalError) -> [String: Any] {
        guard let body = request.jsonObject else {
            throw .badRequest("the body must be a JSON object sent as application/json")
        }
        guard let token = body["token"] as? String, !token.isEmpty else { throw .badRequest("token is required") }
        let now = context.clock.now
        guard let result = state.withLock({ $0.magicLinkResults.removeValue(forKey: token) }), result.expiresAt > now
        else {
            throw .unauthorized("the token is unknown, expired or already used")
        }
        let user =
            context.users.first { $0.email?.lowercased() == result.email }
            ?? SandboxUser(name: result.email, email: result.email, existing: false)
        // An end user is named by the address (any profile gives the same id to a user with an email).
        return try grant(
            user: user, endUserID: Self.endUserID(user, profile: .google), accountAbstracted: result.accountAbstracted)
    }
}

extension PortalState {
    /// A magic link sent and not opened yet.
    struct MagicLink {
        let email: String
        let redirectURL: String
        let accountAbstracted: Bool
        let expiresAt: Double
    }

    /// What an opened link's one-time token signs in.
    struct MagicLinkResult {
        let email: String
        let accountAbstracted: Bool
        let expiresAt: Double
    }
}
