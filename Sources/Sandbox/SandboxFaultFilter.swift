import AuthCore
import AuthCrypto
import Foundation
import LoopbackHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Puts the switched-on faults between a request and the routes: some answer in the route's place (a 502 page,
/// `invalid_grant`, `slow_down`, a refused one-time code), some change the request on its way in (a consent
/// turned into a denial), some change the route's answer on its way out (ID-token claims, the redirect's port).
/// The routes themselves never know about faults, so a fault-free sandbox behaves exactly as before.
struct SandboxFaultFilter: Sendable {
    let context: SandboxContext

    var faults: SandboxFaults { context.faults }

    func filter(_ request: HTTPRequest, path: String, route: (HTTPRequest) -> HTTPResponse) -> HTTPResponse {
        let selection = faults.current
        guard !selection.faults.isEmpty else { return route(request) }
        let on = selection.faults
        if path.hasPrefix("/oidc/") {
            let parts = path.split(separator: "/", maxSplits: 2)
            guard parts.count == 3, let profile = OIDCProfile(rawValue: String(parts[1])) else { return route(request) }
            let endpoint = "/" + parts[2]
            if on.contains(.slowProvider), endpoint != "/authorize", endpoint != "/device" {
                // The pages a browser shows stay quick, so the delay lands where clients wait: on the back channel.
                // Only this request waits: every connection has a thread of its own, so other clients are answered.
                usleep(useconds_t(selection.delayMs) * 1000)
            }
            switch endpoint {
            case "/token":
                if let early = tokenFault(request, on: on) { return early }
                if on.contains(.dpopNonce), let demand = nonceDemand(request, atResource: false) { return demand }
                return idTokenFaults(route(request), profile: profile, on: on)
            case "/authorize":
                return issuerFaults(authorizeFaults(request, on: on, route: route), profile: profile, on: on)
            case "/jwks":
                return jwksFault(profile: profile, on: on) ?? route(request)
            case "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server":
                return discoveryFault(route(request), on: on)
            case profile.userEndpointPath:
                if on.contains(.dpopNonce), let demand = nonceDemand(request, atResource: true) { return demand }
                if on.contains(.userInfoWrongSubject) { return userInfoFault(route(request)) }
                return route(request)
            default:
                return route(request)
            }
        }
        if path == "/turnkey/v1/otp_init" || path == "/turnkey/v1/otp_init_v2", on.contains(.otpRateLimit) {
            return ProxyError.exhausted("too many one-time codes were sent to this contact; try again later").response
        }
        if path == "/turnkey/v1/otp_verify" || path == "/turnkey/v1/otp_verify_v2", on.contains(.otpExpired) {
            return ProxyError.failedPrecondition("the one-time code has expired; request a new one").response
        }
        if on.contains(.totpLockout) {
            if path == "/turnkey/v1/totp_verify" {
                return ProxyError.exhausted("too many TOTP attempts; the account is locked").response
            }
            if path == "/portal/api/v3/auth/totps/validations" {
                return .json(429, object: ["error": "too many TOTP attempts; the account is locked"])
            }
        }
        return route(request)
    }

    // MARK: - Token endpoint

    /// Answers that replace the token endpoint's own, by grant type.
    private func tokenFault(_ request: HTTPRequest, on: Set<SandboxFault>) -> HTTPResponse? {
        if on.contains(.token5xxHTML) {
            let page =
                "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>\n"
                + "<center><h1>502 Bad Gateway</h1></center>\n<hr><center>sandbox-gateway</center>\n</body></html>\n"
            return HTTPResponse(
                status: 502, headers: [("Content-Type", "text/html; charset=utf-8")],
                body: Array(page.utf8))
        }
        let grantType = request.formParameters?["grant_type"]
        if grantType == "authorization_code" {
            if on.contains(.codeReused) {
                return OAuthError.invalidGrant("the authorization code was already used").response
            }
            if on.contains(.codeExpired) {
                return OAuthError.invalidGrant("the authorization code has expired").response
            }
        }
        if grantType == OIDCRoutes.deviceGrantType {
            if on.contains(.deviceExpired) {
                return OAuthError.device("expired_token", "the device code has expired").response
            }
            if on.contains(.deviceSlowDown) {
                return OAuthError.device("slow_down", "polling too fast; wait 5 more seconds between polls").response
            }
        }
        return nil
    }

    /// A DPoP proof without the sandbox's nonce, answered as RFC 9449 asks for it: 400 `use_dpop_nonce` at the token
    /// endpoint (8), 401 with `WWW-Authenticate: DPoP error="use_dpop_nonce"` at a resource (9), the nonce in
    /// `DPoP-Nonce`. Nil when the request has no proof or its proof carries the nonce (the route checks the rest).
    private func nonceDemand(_ request: HTTPRequest, atResource: Bool) -> HTTPResponse? {
        guard let proof = request.headers["dpop"], let nonce = try? faults.dpopNonce() else { return nil }
        let claims = (try? JWS.decodeUnverified(proof)).flatMap { JSONText.object($0.payload) }
        guard claims?["nonce"] as? String != nonce else { return nil }
        var answer = HTTPResponse.json(
            atResource ? 401 : 400,
            object: ["error": "use_dpop_nonce", "error_description": "the DPoP proof must carry the server's nonce"])
        answer.headers.append(("DPoP-Nonce", nonce))
        if atResource { answer.headers.append(("WWW-Authenticate", "DPoP error=\"use_dpop_nonce\"")) }
        return answer
    }

    /// The route's token answer with its ID token re-issued to carry the claim faults.
    private func idTokenFaults(
        _ response: HTTPResponse, profile: OIDCProfile,
        on: Set<SandboxFault>
    ) -> HTTPResponse {
        let claimFaults: Set<SandboxFault> = [
            .futureIAT, .wrongAudience, .wrongIssuer, .wrongNonce, .rotatedKey,
            .noEmailClaim, .badSignature, .algNone, .noIAT, .noSubject, .kidAbsentSingleKey, .kidAbsentSeveralKeys,
            .signingKeyRotation, .userInfoWrongSubject,
        ]
        guard response.status == 200, !on.isDisjoint(with: claimFaults), var answer = JSONText.object(response.body),
            let token = answer["id_token"] as? String, let parts = try? JWS.decodeUnverified(token),
            var claims = JSONText.object(parts.payload)
        else { return response }
        if on.contains(.futureIAT), let iat = claims["iat"] as? Int {
            claims["iat"] = iat + 3600
            claims["auth_time"] = iat + 3600
            if let exp = claims["exp"] as? Int { claims["exp"] = exp + 3600 }
        }
        if on.contains(.wrongAudience) {
            claims["aud"] = "another-client"
            claims["azp"] = "another-client"
        }
        if on.contains(.wrongIssuer), let issuer = claims["iss"] as? String { claims["iss"] = issuer + "/" }
        if on.contains(.wrongNonce) { claims["nonce"] = "n-" + ((try? context.randomToken(bytes: 12)) ?? "other") }
        if on.contains(.noEmailClaim) || on.contains(.userInfoWrongSubject) {
            claims["email"] = nil
            claims["email_verified"] = nil
        }
        if on.contains(.noIAT) { claims["iat"] = nil }
        if on.contains(.noSubject) { claims["sub"] = nil }
        let signed: String?
        if on.contains(.algNone) {
            // RFC 7519 6.1: an unsecured JWT is the header {"alg":"none"}, the claims and an empty signature.
            let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
            signed = header + "." + Base64URL.encode(JSONText.encode(claims)) + "."
        } else {
            let algorithm = profile.signingAlgorithm
            let key = try? signingKey(algorithm: algorithm, on: on)
            let token = key.flatMap { try? JWS.sign(payload: JSONText.encode(claims), key: $0, algorithm: algorithm) }
            signed = on.contains(.badSignature) ? token.flatMap(Self.corrupted) : token
        }
        guard let signed else {
            return OAuthError.serverError("the sandbox could not sign the faulted ID token").response
        }
        answer["id_token"] = signed
        return .json(200, object: answer)
    }

    /// The key the faulted ID token is signed with: an unpublished one, the rotated one, the real one without its
    /// `kid`, or the real one.
    private func signingKey(algorithm: String, on: Set<SandboxFault>) throws(CryptoError) -> JWK? {
        if on.contains(.rotatedKey) { return try faults.rotatedKey(algorithm: algorithm) }
        if on.contains(.signingKeyRotation) { return try faults.key("rotation", algorithm: algorithm) }
        let real = algorithm == "RS256" ? context.keys.rs256 : context.keys.es256
        if on.contains(.kidAbsentSingleKey) || on.contains(.kidAbsentSeveralKeys) {
            return try SandboxFaults.withoutKeyID(real)
        }
        return real
    }

    /// The same compact JWS with one byte in the middle of its signature changed.
    static func corrupted(_ token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, var signature = Base64URL.decode(String(parts[2])), !signature.isEmpty else {
            return nil
        }
        signature[signature.count / 2] ^= 0x01
        return parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
    }

    // MARK: - Discovery, keys and UserInfo

    /// The JWKS in place of the real one: the rotated keys only, the signing key alone without `kid`, or it beside
    /// another key of its type, neither with `kid`.
    private func jwksFault(profile: OIDCProfile, on: Set<SandboxFault>) -> HTTPResponse? {
        let algorithm = profile.signingAlgorithm
        let real = algorithm == "RS256" ? context.keys.rs256 : context.keys.es256
        do {
            let document: String
            if on.contains(.signingKeyRotation) {
                document = try faults.rotationJWKS()
            } else if on.contains(.kidAbsentSingleKey) {
                document = try SandboxFaults.jwks([(try SandboxFaults.withoutKeyID(real), algorithm)])
            } else if on.contains(.kidAbsentSeveralKeys) {
                let extra = try SandboxFaults.withoutKeyID(try faults.key("extra", algorithm: algorithm))
                document = try SandboxFaults.jwks([
                    (extra, algorithm), (try SandboxFaults.withoutKeyID(real), algorithm),
                ])
            } else {
                return nil
            }
            return .json(200, Array(document.utf8))
        } catch {
            return OAuthError.serverError("the sandbox could not make the faulted JWKS").response
        }
    }

    /// The discovery document (or RFC 8414 metadata) naming another issuer than the one it was fetched for.
    private func discoveryFault(_ response: HTTPResponse, on: Set<SandboxFault>) -> HTTPResponse {
        guard on.contains(.discoveryWrongIssuer), response.status == 200, var document = JSONText.object(response.body),
            let issuer = document["issuer"] as? String
        else { return response }
        document["issuer"] = issuer + "/other-tenant"
        return .json(200, object: document)
    }

    /// UserInfo naming another subject than the ID token did.
    private func userInfoFault(_ response: HTTPResponse) -> HTTPResponse {
        guard response.status == 200, var claims = JSONText.object(response.body),
            let subject = claims["sub"] as? String
        else { return response }
        claims["sub"] = "another-" + subject
        return .json(200, object: claims)
    }

    // MARK: - Authorization endpoint

    /// The authorization response with another profile's issuer as `iss`, or none (RFC 9207).
    private func issuerFaults(_ response: HTTPResponse, profile: OIDCProfile, on: Set<SandboxFault>) -> HTTPResponse {
        let mixUp = on.contains(.responseMixUp)
        guard mixUp || on.contains(.responseWithoutIssuer) else { return response }
        let other = context.issuer(profile == .generic ? .google : .generic)
        return Self.reissued(response, from: context.issuer(profile), to: mixUp ? other : nil)
    }

    /// The answer with its `iss` (as the authorization reply writes it, last in a redirect's query or a hidden field
    /// of a form_post page) changed to `issuer`, or taken out.
    static func reissued(_ response: HTTPResponse, from current: String, to issuer: String?) -> HTTPResponse {
        var changed = response
        let pair = FormEncoding.encode([("iss", current)])
        let replacement = issuer.map { FormEncoding.encode([("iss", $0)]) }
        changed.headers = response.headers.map { name, value in
            guard name.lowercased() == "location" else { return (name, value) }
            var location = value
            for separator in ["&", "?"] where location.hasSuffix(separator + pair) {
                location = String(location.dropLast(separator.count + pair.count))
                if let replacement { location += separator + replacement }
            }
            return (name, location)
        }
        if response.status == 200 {
            let page = String(decoding: response.body, as: UTF8.self)
            let field = HTML.hidden("iss", current)
            changed.body = Array(
                page.replacingOccurrences(of: field, with: issuer.map { HTML.hidden("iss", $0) } ?? "").utf8)
        }
        return changed
    }

    private func authorizeFaults(
        _ request: HTTPRequest, on: Set<SandboxFault>,
        route: (HTTPRequest) -> HTTPResponse
    ) -> HTTPResponse {
        let deciding = request.method == "POST" || request.queryParameters?["sandbox_auto"] != nil
        if deciding, on.contains(.accessDenied) || on.contains(.accessDeniedNoState) {
            return route(denied(request, keepState: !on.contains(.accessDeniedNoState)))
        }
        let response = route(request)
        guard on.contains(.redirectUnreachable), let port = Self.unusedLoopbackPort() else { return response }
        return Self.redirected(response, toPort: port)
    }

    /// The same authorization request turned into the user's denial, with or without its `state`.
    private func denied(_ request: HTTPRequest, keepState: Bool) -> HTTPRequest {
        let target = request.target
        let mark = target.firstIndex(of: "?")
        var pairs = mark.flatMap { FormEncoding.decode(target[target.index(after: $0)...]) } ?? []
        if !keepState { pairs.removeAll { $0.0 == "state" } }
        var body = request.body
        if request.method == "POST" {
            var form = FormEncoding.decode(Substring(String(decoding: request.body, as: UTF8.self))) ?? []
            form.removeAll { $0.0 == "action" }
            form.append(("action", "deny"))
            body = Array(FormEncoding.encode(form).utf8)
        } else {
            pairs.removeAll { $0.0 == "sandbox_auto" }
            pairs.append(("sandbox_auto", "deny"))
        }
        let base = mark.map { String(target[..<$0]) } ?? target
        return HTTPRequest(
            method: request.method, target: base + "?" + FormEncoding.encode(pairs),
            headers: request.headers, body: body)
    }

    /// The route's answer with its loopback redirect (302 or form_post page) sent to `port` instead.
    static func redirected(_ response: HTTPResponse, toPort port: UInt16) -> HTTPResponse {
        var changed = response
        let pattern = #"http://(127\.0\.0\.1|\[::1\]|localhost):[0-9]+"#
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return response }
        func rewrite(_ text: String) -> String {
            expression.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text),
                withTemplate: "http://$1:\(port)")
        }
        changed.headers = response.headers.map { name, value in
            name.lowercased() == "location" ? (name, rewrite(value)) : (name, value)
        }
        if response.status == 200 {
            changed.body = Array(rewrite(String(decoding: response.body, as: UTF8.self)).utf8)
        }
        return changed
    }

    /// A loopback port nothing listens on: bound once by the kernel's choice, then let go.
    static func unusedLoopbackPort() -> UInt16? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        return bound ? UInt16(bigEndian: address.sin_port) : nil
    }
}
