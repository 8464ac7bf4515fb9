import AuthClient
import AuthCore
import Foundation

/// The wiring every sign-in shares, loaded once: configuration, provider presets, the environment and the data
/// folder. `SignInUseCase` turns it and a `SignInInput` into a running sign-in, for `login` and the TUI alike.
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

    /// The certificate authorities this configuration and environment trust, for every transport a sign-in or a
    /// refresh it starts makes.
    var trust: CATrust { CATrust.from(configuration: configuration, environment: environment) }

    /// The same for a command that needs nothing else first: a configuration that does not load is its one line.
    static func load(global: GlobalOptions) throws(CommandFailure) -> SignInSetup {
        do throws(SignInError) {
            return try load(global: global, environment: global.environment.variables)
        } catch {
            throw error.commandFailure
        }
    }

    /// The backends the chooser offers: the default first, then the configured ones by name, then `direct`.
    var backendNames: [String] {
        var names = [configuration.defaultBackendName]
        for name in (configuration.backends ?? [:]).keys.sorted() where !names.contains(name) { names.append(name) }
        if !names.contains("direct") { names.append("direct") }
        return names
    }

    /// The loopback receiver's port: the one given (`--listen`), else config.json's `listen`, else 0 (any free
    /// port; a registered loopback redirect URI with a port fixes it later, in the controller).
    func listenPort(given: UInt16?) throws(SignInError) -> UInt16 {
        if let given { return given }
        guard let listen = configuration.listen else { return 0 }
        guard let port = LoopbackBinding.listenPort(listen) else {
            throw .unavailable(reason: "config.json: listen takes 127.0.0.1:PORT, not '\(listen)'")
        }
        return port
    }

    /// A backend for one attempt, chosen by backend type and provider (direct, sandbox, turnkey, portal; email and
    /// SMS codes through the proxies); `trace` sees every request it sends. `overrides` (`--issuer`, `--client-id`,
    /// `--client-secret-file`, the TUI's OIDC fields) replace config.json's.
    func backend(
        for request: SignInRequest, overrides: ProviderOverrides, trace: FlowTrace?
    ) throws(SignInError) -> SignInBackend {
        let base = CurlTransport(trust: trust)
        let transport: HTTPTransport = trace.map { TracingTransport(base, trace: $0) } ?? base
        let metadata = ProviderMetadataCache(transport: transport, folder: dataFolder.appendingPathComponent("cache"))
        return try SignInBackendFactory.make(
            request: request, configuration: configuration, catalog: catalog,
            transport: transport, metadata: metadata, overrides: overrides)
    }
}
