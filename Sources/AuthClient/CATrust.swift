import AuthCore
import Foundation

/// Which certificate authorities HTTPS trusts: config.json's `caFile` for the hosts a provider or backend entry names
/// (a private CA of an internal identity provider), else `SSL_CERT_FILE` / `SSL_CERT_DIR` as OpenSSL's own tools
/// read them, else libcurl's default bundle. Verification itself is never turned off.
public struct CATrust: Sendable, Equatable {
    /// `SSL_CERT_FILE`: a PEM bundle used instead of the system's.
    public var file: String?
    /// `SSL_CERT_DIR`: a hashed certificate folder (`openssl rehash`) used instead of the system's.
    public var directory: String?
    /// `caFile` by origin (`https://host:port`), from the config entries that name both.
    public var byOrigin: [String: String]

    public init(file: String? = nil, directory: String? = nil, byOrigin: [String: String] = [:]) {
        self.file = file
        self.directory = directory
        self.byOrigin = byOrigin
    }

    /// The trust a process with this configuration and environment uses.
    public static func from(configuration: Configuration, environment: [String: String]) -> CATrust {
        var trust = CATrust(
            file: environment["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 },
            directory: environment["SSL_CERT_DIR"].flatMap { $0.isEmpty ? nil : $0 })
        func add(_ urls: [String?], _ caFile: String?) {
            guard let caFile, !caFile.isEmpty else { return }
            for case let url? in urls {
                if let origin = origin(of: url), trust.byOrigin[origin] == nil {
                    trust.byOrigin[origin] = (caFile as NSString).expandingTildeInPath
                }
            }
        }
        func add(_ provider: ProviderConfiguration) {
            add(
                [
                    provider.issuer, provider.authorizationEndpoint, provider.tokenEndpoint, provider.userEndpoint,
                    provider.revocationEndpoint, provider.deviceAuthorizationEndpoint, provider.jwksURI,
                ], provider.caFile)
        }
        for name in (configuration.providers ?? [:]).keys.sorted() { configuration.providers?[name].map(add) }
        for name in (configuration.backends ?? [:]).keys.sorted() {
            guard let backend = configuration.backends?[name] else { continue }
            add([backend.baseURL, backend.proxyBaseURL, backend.portalBaseURL, backend.oauthOriginURL], backend.caFile)
            for provider in (backend.providers ?? [:]).keys.sorted() { backend.providers?[provider].map(add) }
        }
        return trust
    }

    /// `scheme://host:port` of a URL, lower-cased, with the scheme's default port written out.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }

    /// The CA file and folder a request to `url` verifies against, with where they come from for `doctor`; nil for
    /// both means libcurl's default bundle.
    public func anchors(for url: String) -> (file: String?, directory: String?, source: String) {
        if let origin = Self.origin(of: url), let caFile = byOrigin[origin] {
            return (caFile, nil, "caFile in config.json")
        }
        if file != nil || directory != nil { return (file, directory, "SSL_CERT_FILE / SSL_CERT_DIR") }
        return (nil, nil, "the system's CA bundle")
    }

    /// The trust of the configuration `explicit` or the default path names, with `environment`'s variables. A
    /// configuration that cannot be read adds no `caFile` (the command that reads it says why it cannot).
    public static func loaded(explicit: String?, environment: [String: String]) -> CATrust {
        let configuration =
            (try? ConfigurationFile.load(explicit: explicit, environment: environment)) ?? Configuration()
        return from(configuration: configuration, environment: environment)
    }
}
