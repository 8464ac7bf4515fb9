import Foundation

/// How a provider is reached, from Resources/providers.json: endpoints, scopes, and the quirks that differ
/// between Google, Apple, Discord, X and a generic OpenID Connect issuer.
public struct ProviderPreset: Equatable, Sendable, Codable {
    /// Whether identity comes from a verified ID token (`oidc`) or from a user endpoint (`oauth2`).
    public enum Kind: String, Equatable, Sendable, Codable {
        case oidc, oauth2
    }

    /// Where the browser is sent back to.
    public enum Redirect: String, Equatable, Sendable, Codable {
        /// http://127.0.0.1:PORT/callback, the loopback receiver.
        case loopback
        /// An https page the operator registered that relays to authdeck (Apple allows no loopback).
        case httpsRelay = "https-relay"
    }

    /// The provider's name in `Provider.standard`, which says what it is called and the key that picks it.
    public var name: String
    public var kind: Kind
    /// Nil for the generic `oidc` preset, which takes `--issuer`.
    public var issuer: String?
    public var discovery: String?
    public var authorizationEndpoint: String?
    public var tokenEndpoint: String?
    public var jwksURI: String?
    public var userEndpoint: String?
    public var revocationEndpoint: String?
    public var scopes: [String]
    /// `form_post` for Apple.
    public var responseMode: String?
    public var redirect: Redirect
    /// `es256-jwt` when the client secret is a JWT signed with the operator's key (Apple).
    public var clientSecret: String?
    public var deviceGrant: Bool
    public var idToken: Bool
    /// What the operator must know when registering a client with this provider.
    public var note: String?

    public init(
        name: String, kind: Kind, issuer: String? = nil,
        discovery: String? = nil, authorizationEndpoint: String? = nil, tokenEndpoint: String? = nil,
        jwksURI: String? = nil, userEndpoint: String? = nil, revocationEndpoint: String? = nil,
        scopes: [String], responseMode: String? = nil, redirect: Redirect = .loopback,
        clientSecret: String? = nil, deviceGrant: Bool = false, idToken: Bool
    ) {
        self.name = name
        self.kind = kind
        self.issuer = issuer
        self.discovery = discovery
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.userEndpoint = userEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.scopes = scopes
        self.responseMode = responseMode
        self.redirect = redirect
        self.clientSecret = clientSecret
        self.deviceGrant = deviceGrant
        self.idToken = idToken
    }

    public var provider: Provider { Provider(name) }

    /// What messages call the provider (`Google`, `OIDC`).
    public var title: String { provider.title }

    /// The discovery document URL: the explicit one, else derived from the issuer (OIDC Discovery 4).
    public var discoveryURL: String? {
        if let discovery { return discovery }
        guard kind == .oidc, let issuer else { return nil }
        return Self.discoveryURL(issuer: issuer)
    }

    /// Where OIDC Discovery 1.0 section 4 puts an issuer's configuration document.
    public static func discoveryURL(issuer: String) -> String {
        (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
    }
}

/// The provider presets, loaded once from providers.json.
public struct ProviderCatalog: Equatable, Sendable {
    public let providers: [ProviderPreset]

    private struct File: Decodable {
        let version: Int
        let providers: [ProviderPreset]
    }

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case unreadable(String)
        case duplicate(String)
        case unsupportedVersion(Int)

        public var description: String {
            switch self {
            case .unreadable(let why): return "providers.json is not valid: \(why)"
            case .duplicate(let name): return "providers.json names the provider '\(name)' twice"
            case .unsupportedVersion(let version): return "providers.json has version \(version); this authdeck reads 1"
            }
        }
    }

    public init(json: Data) throws(Failure) {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: json)
        } catch let error as DecodingError {
            throw .unreadable(Self.describe(error))
        } catch {
            throw .unreadable("\(error)")
        }
        guard file.version == 1 else { throw .unsupportedVersion(file.version) }
        var seen = Set<String>()
        for provider in file.providers where !seen.insert(provider.name).inserted {
            throw .duplicate(provider.name)
        }
        providers = file.providers
    }

    public subscript(name: String) -> ProviderPreset? {
        providers.first { $0.name == name }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "missing '\(key.stringValue)' at \(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(context.debugDescription) at \(path(context))"
        @unknown default:
            return "\(error)"
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let parts = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
        return parts.isEmpty ? "the top level" : parts.joined()
    }
}
