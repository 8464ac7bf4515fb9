import AuthClient

/// Sends each request to the routes that own its path prefix; everything else is a JSON 404.
final class SandboxRouter: Sendable {
    let context: SandboxContext
    let oidc: OIDCRoutes
    let turnkey: TurnkeyProxyRoutes
    let portal: PortalRoutes

    init(context: SandboxContext) {
        self.context = context
        oidc = OIDCRoutes(context: context)
        turnkey = TurnkeyProxyRoutes(context: context, oidc: oidc)
        portal = PortalRoutes(context: context, oidc: oidc)
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard let path = Self.decodedPath(request.path) else {
            return .json(400, object: ["error": "invalid_request",
                                       "error_description": "the path has a broken escape"])
        }
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
        } else if path == "/" && (request.method == "GET" || request.method == "HEAD") {
            return index()
        }
        return .json(404, object: ["error": "not_found", "error_description": "no route for \(path.prefix(200))"])
    }

    /// What lives here, for a person who opens the base URL.
    private func index() -> HTTPResponse {
        var issuers: [String: String] = [:]
        for profile in OIDCProfile.allCases { issuers[profile.rawValue] = context.issuer(profile) }
        return .json(200, object: ["name": "authdeck sandbox", "oidc": issuers,
                                   "turnkey": context.baseURL + "/turnkey", "portal": context.baseURL + "/portal"])
    }

    /// The path with `%XX` decoded (but `+` left alone, as paths want), nil on a broken escape or bad UTF-8.
    static func decodedPath(_ raw: String) -> String? {
        guard raw.contains("%") else { return raw }
        var bytes: [UInt8] = []
        var iterator = raw.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
