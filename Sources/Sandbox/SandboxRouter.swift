import AuthCore
import LoopbackHTTP

/// Sends each request to the routes that own its path prefix; everything else is a JSON 404.
final class SandboxRouter: Sendable {
    let context: SandboxContext
    let oidc: OIDCRoutes
    let turnkey: TurnkeyProxyRoutes
    let portal: PortalRoutes
    let webAuthn: WebAuthnRoutes

    init(context: SandboxContext) {
        self.context = context
        oidc = OIDCRoutes(context: context)
        turnkey = TurnkeyProxyRoutes(context: context, oidc: oidc)
        portal = PortalRoutes(context: context, oidc: oidc)
        webAuthn = WebAuthnRoutes(context: context, proxy: turnkey)
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard let path = Self.decodedPath(request.path) else {
            return .json(
                400,
                object: [
                    "error": "invalid_request",
                    "error_description": "the path has a broken escape",
                ])
        }
        if path.hasPrefix("/sandbox/") {
            return SandboxAdminRoutes(
                faults: context.faults, port: context.port, peerCheck: context.configuration.adminPeerCheck
            ).handle(request, path: path)
        }
        return SandboxFaultFilter(context: context).filter(request, path: path) { route($0, path: path) }
    }

    private func route(_ request: HTTPRequest, path: String) -> HTTPResponse {
        if path.hasPrefix("/oidc/") {
            let rest = path.dropFirst("/oidc/".count)
            let name = rest.prefix { $0 != "/" }
            if let profile = OIDCProfile(rawValue: String(name)) {
                return oidc.handle(request, profile: profile, path: String(rest.dropFirst(name.count)))
            }
        } else if path.hasPrefix("/turnkey/") {
            return turnkey.handle(request, path: String(path.dropFirst("/turnkey".count)))
        } else if path.hasPrefix("/portal/") {
            return portal.handle(request, path: String(path.dropFirst("/portal".count)))
        } else if path.hasPrefix("/webauthn/") {
            return webAuthn.handle(request, path: String(path.dropFirst("/webauthn".count)))
        } else if path == "/" && (request.method == "GET" || request.method == "HEAD") {
            return index()
        }
        return .json(404, object: ["error": "not_found", "error_description": "no route for \(path.prefix(200))"])
    }

    /// What lives here, for a person who opens the base URL.
    private func index() -> HTTPResponse {
        var issuers: [String: String] = [:]
        for profile in OIDCProfile.allCases { issuers[profile.rawValue] = context.issuer(profile) }
        return .json(
            200,
            object: [
                "name": "authdeck sandbox", "oidc": issuers,
                "turnkey": context.baseURL + "/turnkey", "portal": context.baseURL + "/portal",
            ])
    }

    /// The path with `%XX` decoded (but `+` left alone, as paths want), nil on a broken escape or bad UTF-8.
    static func decodedPath(_ raw: String) -> String? {
        raw.contains("%") ? FormEncoding.unescape(Substring(raw), plusIsSpace: false) : raw
    }
}
