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
        return SignInSetup(
            environment: environment, configuration: configuration, catalog: catalog,
            dataFolder: ConfigurationFile.dataFolder(environment: environment))
    }

    /// The backends the chooser offers: the default first, then the configured ones by name, then `direct`.
    var backendNames: [String] {
        var names = [configuration.defaultBackendName]
        for name in (configuration.backends ?? [:]).keys.sorted() where !names.contains(name) { names.append(name) }
        if !names.contains("direct") { names.append("direct") }
        return names
    }

    /// A backend for one attempt, chosen by backend type and provider as `authdeck login` chooses it (direct,
    /// sandbox, turnkey, portal; email and SMS codes through the proxies); `trace` sees every request it sends.
    /// `issuer` and `clientID` (the New sign-in screen's OIDC fields) replace config.json's as `login --issuer`
    /// and `--client-id` do.
    func backend(
        for request: SignInRequest, issuer: String? = nil, clientID: String? = nil,
        trace: FlowTrace?
    ) throws(SignInError) -> SignInBackend {
        let base = CurlTransport()
        let transport: HTTPTransport = trace.map { TracingTransport(base, trace: $0) } ?? base
        let metadata = ProviderMetadataCache(transport: transport, folder: dataFolder.appendingPathComponent("cache"))
        return try SignInBackendFactory.make(
            request: request, configuration: configuration, catalog: catalog,
            transport: transport, metadata: metadata,
            overrides: ProviderOverrides(
                issuer: issuer, clientID: clientID,
                scopes: request.scopes))
    }
}
