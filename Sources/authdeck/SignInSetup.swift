import AuthClient
import AuthCore
import Foundation

/// The wiring a sign-in needs before it starts: configuration, provider presets, the HTTP transport and the
/// resolver that turns a provider and backend name into a backend. The TUI builds one per run and a backend per
/// flow from it, the same way `authdeck login` does for its one sign-in.
struct SignInSetup: Sendable {
    let environment: [String: String]
    let configuration: Configuration
    let catalog: ProviderCatalog
    let dataFolder: URL

    static func load(global: GlobalOptions, environment: [String: String]) throws(SignInError) -> SignInSetup {
        let configuration = try ConfigurationFile.load(explicit: global.config, environment: environment)
        let catalog = try ConfigurationFile.catalog(environment: environment)
        return SignInSetup(environment: environment, configuration: configuration, catalog: catalog,
                           dataFolder: ConfigurationFile.dataFolder(environment: environment))
    }

    /// The backends the chooser offers: the default first, then the configured ones by name, then `direct`.
    var backendNames: [String] {
        var names = [configuration.defaultBackendName]
        for name in (configuration.backends ?? [:]).keys.sorted() where !names.contains(name) { names.append(name) }
        if !names.contains("direct") { names.append("direct") }
        return names
    }

    /// A backend for one attempt; `trace` (when given) sees every request it sends.
    func backend(for request: SignInRequest, trace: FlowTrace?) throws(SignInError) -> SignInBackend {
        guard LoginCommand.socialProviders.contains(request.provider) else {
            // The auth-proxy backends that send codes are not built yet; the screen shows this as the result.
            throw .unavailable(reason: "email and SMS sign-in come with the auth-proxy backends (issue 5)")
        }
        let base = URLSessionTransport()
        let transport: HTTPTransport = trace.map { TracingTransport(base, trace: $0) } ?? base
        let metadata = ProviderMetadataCache(transport: transport, folder: dataFolder.appendingPathComponent("cache"))
        let resolver = ProviderResolver(catalog: catalog, configuration: configuration, metadata: metadata)
        let resolved = try resolver.resolve(provider: request.provider, backend: request.backendName,
                                            overrides: ProviderOverrides(scopes: request.scopes))
        return DirectSignIn(provider: resolved, request: request, transport: transport, metadata: metadata)
    }
}
