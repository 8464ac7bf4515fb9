import AuthCore
import Foundation
import Synchronization

/// A provider's endpoints as one sign-in uses them: from discovery, the preset and the operator's settings.
public struct ProviderEndpoints: Equatable, Sendable, Codable {
    public var issuer: String
    public var authorization: String
    public var token: String
    public var jwks: String?
    public var userinfo: String?
    public var revocation: String?
    public var deviceAuthorization: String?
    /// `backchannel_authentication_endpoint` (OpenID CIBA Core 1.0 section 4): where CIBA requests go.
    public var backchannelAuthentication: String?
    /// `token_endpoint_auth_methods_supported`; nil when the provider does not say.
    public var tokenAuthMethods: [String]?
    /// `revocation_endpoint_auth_methods_supported`; nil when the provider does not say.
    public var revocationAuthMethods: [String]?
    /// `authorization_response_iss_parameter_supported` (RFC 9207 3): every authorization response carries `iss`,
    /// so one without it is refused.
    public var issuerInAuthorizationResponse: Bool?
    /// `pushed_authorization_request_endpoint` (RFC 9126 section 5).
    public var pushedAuthorizationRequest: String?
    /// `require_pushed_authorization_requests`: the provider takes authorization requests only through PAR.
    public var requiresPushedAuthorizationRequests: Bool?
    /// `token_endpoint_auth_signing_alg_values_supported`: the JWS algorithms client assertions may use; nil when
    /// the provider does not say.
    public var tokenAuthSigningAlgs: [String]?
    /// `mtls_endpoint_aliases` (RFC 8705 5): where a client that presents a certificate sends its requests, by the
    /// metadata names (`token_endpoint`, `revocation_endpoint`, ...); nil when the provider names none.
    public var mtlsAliases: [String: String]?
    /// `end_session_endpoint` (OpenID Connect RP-Initiated Logout 1.0, section 2.1): where `logout --end-session`
    /// sends the browser; nil when the provider names none.
    public var endSession: String?
    /// `introspection_endpoint` (RFC 7662, RFC 8414 2): where `authdeck introspect` asks whether a token is active.
    public var introspection: String?

    public init(
        issuer: String, authorization: String, token: String, jwks: String? = nil, userinfo: String? = nil,
        revocation: String? = nil, deviceAuthorization: String? = nil, tokenAuthMethods: [String]? = nil,
        revocationAuthMethods: [String]? = nil
    ) {
        self.issuer = issuer
        self.authorization = authorization
        self.token = token
        self.jwks = jwks
        self.userinfo = userinfo
        self.revocation = revocation
        self.deviceAuthorization = deviceAuthorization
        self.tokenAuthMethods = tokenAuthMethods
        self.revocationAuthMethods = revocationAuthMethods
    }

    /// Reads an OpenID Provider Configuration document (OIDC Discovery 1.0 section 3). The `issuer` inside must be
    /// exactly the one asked for (section 4.3), or a malicious document could redirect verification elsewhere.
    public static func fromDiscovery(_ document: JSONValue, expectedIssuer: String) throws(SignInError)
        -> ProviderEndpoints
    {
        guard case .object = document else { throw .unavailable(reason: "the discovery document is not a JSON object") }
        guard let issuer = document["issuer"]?.string, issuer == expectedIssuer else {
            throw .unavailable(reason: "the discovery document names another issuer than \(expectedIssuer)")
        }
        guard let authorization = document["authorization_endpoint"]?.string,
            let token = document["token_endpoint"]?.string
        else {
            throw .unavailable(reason: "the discovery document lacks the authorization or token endpoint")
        }
        var endpoints = ProviderEndpoints(
            issuer: issuer, authorization: authorization, token: token,
            jwks: document["jwks_uri"]?.string, userinfo: document["userinfo_endpoint"]?.string,
            revocation: document["revocation_endpoint"]?.string,
            deviceAuthorization: document["device_authorization_endpoint"]?.string,
            tokenAuthMethods: strings(document["token_endpoint_auth_methods_supported"]),
            revocationAuthMethods:
                strings(document["revocation_endpoint_auth_methods_supported"]))
        endpoints.issuerInAuthorizationResponse =
            document["authorization_response_iss_parameter_supported"] == .bool(true)
        endpoints.pushedAuthorizationRequest = document["pushed_authorization_request_endpoint"]?.string
        endpoints.backchannelAuthentication = document["backchannel_authentication_endpoint"]?.string
        if case .bool(let required)? = document["require_pushed_authorization_requests"] {
            endpoints.requiresPushedAuthorizationRequests = required
        }
        endpoints.tokenAuthSigningAlgs = strings(document["token_endpoint_auth_signing_alg_values_supported"])
        endpoints.mtlsAliases = aliases(document["mtls_endpoint_aliases"])
        endpoints.endSession = document["end_session_endpoint"]?.string
        endpoints.introspection = document["introspection_endpoint"]?.string
        return endpoints
    }

    /// These endpoints as a client that authenticates with its certificate reaches them: each one the provider
    /// names in `mtls_endpoint_aliases` replaced by its alias (RFC 8705 5), except those `keep` names (the operator
    /// set them in config.json).
    public func usingMTLSAliases(keep: Set<String> = []) -> ProviderEndpoints {
        guard let aliases = mtlsAliases else { return self }
        var result = self
        func alias(_ name: String, _ endpoint: WritableKeyPath<ProviderEndpoints, String?>) {
            if !keep.contains(name), let found = aliases[name] { result[keyPath: endpoint] = found }
        }
        if !keep.contains("token_endpoint"), let token = aliases["token_endpoint"] { result.token = token }
        alias("revocation_endpoint", \.revocation)
        alias("userinfo_endpoint", \.userinfo)
        alias("device_authorization_endpoint", \.deviceAuthorization)
        alias("pushed_authorization_request_endpoint", \.pushedAuthorizationRequest)
        alias("introspection_endpoint", \.introspection)
        alias("backchannel_authentication_endpoint", \.backchannelAuthentication)
        return result
    }

    /// Fills what OIDC discovery left out from RFC 8414 authorization server metadata of the same issuer: the
    /// revocation and device endpoints and their methods. Another issuer's document is ignored (RFC 8414 3.3).
    public func supplemented(by metadata: JSONValue) -> ProviderEndpoints {
        guard metadata["issuer"]?.string == issuer else { return self }
        var result = self
        if result.revocation == nil {
            result.revocation = metadata["revocation_endpoint"]?.string
            if result.revocationAuthMethods == nil {
                result.revocationAuthMethods = Self.strings(metadata["revocation_endpoint_auth_methods_supported"])
            }
        }
        if result.deviceAuthorization == nil {
            result.deviceAuthorization = metadata["device_authorization_endpoint"]?.string
        }
        if result.tokenAuthMethods == nil {
            result.tokenAuthMethods = Self.strings(metadata["token_endpoint_auth_methods_supported"])
        }
        if result.mtlsAliases == nil { result.mtlsAliases = Self.aliases(metadata["mtls_endpoint_aliases"]) }
        if result.introspection == nil { result.introspection = metadata["introspection_endpoint"]?.string }
        if result.backchannelAuthentication == nil {
            result.backchannelAuthentication = metadata["backchannel_authentication_endpoint"]?.string
        }
        if metadata["authorization_response_iss_parameter_supported"] == .bool(true) {
            result.issuerInAuthorizationResponse = true
        }
        if result.pushedAuthorizationRequest == nil {
            result.pushedAuthorizationRequest = metadata["pushed_authorization_request_endpoint"]?.string
            if case .bool(let required)? = metadata["require_pushed_authorization_requests"] {
                result.requiresPushedAuthorizationRequests = required
            }
        }
        return result
    }

    /// Where RFC 8414 section 3 puts an issuer's metadata: the well-known segment between host and path.
    public static func authorizationServerMetadataURL(issuer: String) -> String? {
        guard var components = URLComponents(string: issuer), components.host != nil else { return nil }
        let path = components.path == "/" ? "" : components.path
        components.path = "/.well-known/oauth-authorization-server" + path
        components.query = nil
        components.fragment = nil
        return components.string
    }

    /// An object of URLs by name; members that are not strings are left out.
    private static func aliases(_ value: JSONValue?) -> [String: String]? {
        guard case .object(let members)? = value else { return nil }
        let found = members.compactMapValues(\.string)
        return found.isEmpty ? nil : found
    }

    private static func strings(_ value: JSONValue?) -> [String]? {
        guard case .array(let items)? = value else { return nil }
        return items.compactMap(\.string)
    }
}

/// Fetches discovery documents and JWKS, keeping them in memory and on disk (`$AUTHDECK_HOME/cache`) so a
/// sign-in needs no discovery round trip when one was made recently.
public final class ProviderMetadataCache: Sendable {
    private let transport: HTTPTransport
    private let folder: URL?
    private let memory = Mutex<[String: (fetched: Date, body: [UInt8])]>([:])
    public static let discoveryLifetime: TimeInterval = 24 * 3600
    public static let jwksLifetime: TimeInterval = 3600

    public init(transport: HTTPTransport, folder: URL?) {
        self.transport = transport
        self.folder = folder
    }

    /// The same cache folder, fetching through `transport` (a backend's guarded one).
    public func using(_ transport: HTTPTransport) -> ProviderMetadataCache {
        ProviderMetadataCache(transport: transport, folder: folder)
    }

    public func endpoints(issuer: String, discoveryURL: String, now: Date = Date()) throws(SignInError)
        -> ProviderEndpoints
    {
        let body = try fetch(discoveryURL, lifetime: Self.discoveryLifetime, now: now, refresh: false)
        do {
            let found = try ProviderEndpoints.fromDiscovery(try JSONValue.parse(body), expectedIssuer: issuer)
            guard found.revocation == nil || found.deviceAuthorization == nil,
                let url = ProviderEndpoints.authorizationServerMetadataURL(issuer: issuer)
            else { return found }
            // Plenty of servers publish no RFC 8414 document: its absence is remembered like a document (an empty
            // one), so it costs one round trip a day, not one a sign-in.
            guard let metadata = try? fetch(url, lifetime: Self.discoveryLifetime, now: now, refresh: false),
                let document = try? JSONValue.parse(metadata)
            else {
                remember(url, Array("{}".utf8), now: now)
                return found
            }
            return found.supplemented(by: document)
        } catch let error as SignInError {
            forget(discoveryURL)
            throw error
        } catch {
            forget(discoveryURL)
            throw .unavailable(
                reason: "the discovery document at \(CurlTransport.redacted(discoveryURL)) is not JSON")
        }
    }

    /// The endpoints of a discovery document fetched before, from the cache only: no request is sent (the TUI asks
    /// while it draws). Nil when none is cached or it does not read.
    public func cachedEndpoints(issuer: String, discoveryURL: String, now: Date = Date()) -> ProviderEndpoints? {
        guard let body = cached(discoveryURL, lifetime: Self.discoveryLifetime, now: now),
            let document = try? JSONValue.parse(body)
        else { return nil }
        return try? ProviderEndpoints.fromDiscovery(document, expectedIssuer: issuer)
    }

    /// The JWKS document; `refresh` skips the cache (after an unknown `kid`).
    public func jwks(_ url: String, refresh: Bool, now: Date = Date()) throws(SignInError) -> String {
        String(decoding: try fetch(url, lifetime: Self.jwksLifetime, now: now, refresh: refresh), as: UTF8.self)
    }

    /// Verifies an ID token against the issuer's JWKS, refetching the JWKS once when the token's `kid` is unknown.
    public func verify(
        _ idToken: String, with verifier: IDTokenVerifier, jwksURL: String,
        now: Date = Date()
    ) throws(SignInError) -> IDTokenClaims {
        func check(refresh: Bool) throws(SignInError) -> Result<IDTokenClaims, IDTokenFailure> {
            let document = try jwks(jwksURL, refresh: refresh, now: now)
            return Result { () throws(IDTokenFailure) in try verifier.verify(idToken, jwks: document, now: now) }
        }
        var result = try check(refresh: false)
        if case .failure(.unknownKeyID) = result { result = try check(refresh: true) }
        switch result {
        case .success(let claims): return claims
        case .failure(let failure): throw failure.signInError
        }
    }

    private func fetch(_ url: String, lifetime: TimeInterval, now: Date, refresh: Bool) throws(SignInError) -> [UInt8] {
        if !refresh, let cached = cached(url, lifetime: lifetime, now: now) { return cached }
        let response = try transport.send(OutgoingRequest(url: url, headers: [("Accept", "application/json")]))
        guard response.status == 200 else {
            throw .network(message: "HTTP \(response.status) from \(CurlTransport.redacted(url))")
        }
        _ = try response.json()
        remember(url, response.body, now: now)
        return response.body
    }

    private func cacheFile(_ url: String) -> URL? {
        folder?.appendingPathComponent("metadata-" + String(AuthCryptoBridge.hexDigest(url).prefix(32)) + ".json")
    }

    private func cached(_ url: String, lifetime: TimeInterval, now: Date) -> [UInt8]? {
        let entry = memory.withLock { $0[url] }
        if let entry, now.timeIntervalSince(entry.fetched) < lifetime { return entry.body }
        guard let file = cacheFile(url),
            let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
            let modified = attributes[.modificationDate] as? Date, now.timeIntervalSince(modified) < lifetime,
            modified <= now.addingTimeInterval(60),
            let data = try? Data(contentsOf: file)
        else {
            return nil
        }
        let body = Array(data)
        guard (try? JSONValue.parse(body)) != nil else { return nil }
        memory.withLock { $0[url] = (modified, body) }
        return body
    }

    private func remember(_ url: String, _ body: [UInt8], now: Date) {
        memory.withLock { $0[url] = (now, body) }
        guard let folder, let file = cacheFile(url) else { return }
        // The cache is an optimisation: a folder that cannot be written only costs a round trip next time.
        try? FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try? Data(body).write(to: file, options: .atomic)
    }

    private func forget(_ url: String) {
        memory.withLock { $0[url] = nil }
        if let file = cacheFile(url) { try? FileManager.default.removeItem(at: file) }
    }
}
