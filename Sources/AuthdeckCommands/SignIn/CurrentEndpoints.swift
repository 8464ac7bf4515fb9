import AuthClient
import AuthCore
import Foundation
import SessionStorage

/// What today's config.json and discovery say of a stored session's provider: the endpoints its stored ones lack
/// (a revocation endpoint added after it signed in), the configured client secret an imported session refreshes
/// with, and the JWKS refreshed ID tokens are checked against. Nil for anything that cannot be resolved now.
enum CurrentEndpoints {
    /// From the configuration the command would load (`--config`, `$AUTHDECK_CONFIG`).
    static func lookup(_ global: GlobalOptions) -> @Sendable (SessionRecord) -> CurrentProvider? {
        lookup(explicit: global.config, environment: global.environment.variables)
    }

    /// From `explicit` or, when nil, the configuration `$AUTHDECK_CONFIG` or the default path names.
    static func lookup(
        explicit: String?, environment: [String: String]
    ) -> @Sendable (SessionRecord) -> CurrentProvider? {
        { record in
            guard let configuration = try? ConfigurationFile.load(explicit: explicit, environment: environment),
                let catalog = try? ConfigurationFile.catalog(environment: environment)
            else { return nil }
            return resolve(record, configuration: configuration, catalog: catalog, environment: environment)
        }
    }

    /// From a configuration already loaded (the TUI's).
    static func lookup(
        configuration: Configuration, catalog: ProviderCatalog,
        environment: [String: String]
    ) -> @Sendable (SessionRecord) -> CurrentProvider? {
        { record in resolve(record, configuration: configuration, catalog: catalog, environment: environment) }
    }

    private static func resolve(
        _ record: SessionRecord, configuration: Configuration, catalog: ProviderCatalog,
        environment: [String: String]
    ) -> CurrentProvider? {
        guard catalog[record.provider] != nil else { return nil }
        let folder = ConfigurationFile.dataFolder(environment: environment).appendingPathComponent("cache")
        let trust = CATrust.from(configuration: configuration, environment: environment)
        let metadata = ProviderMetadataCache(transport: CurlTransport(timeout: 10, trust: trust), folder: folder)
        let resolver = ProviderResolver(catalog: catalog, configuration: configuration, metadata: metadata)
        guard let resolved = try? resolver.resolve(provider: record.provider, backend: record.backend) else {
            return nil
        }
        return CurrentProvider(resolved, metadata: metadata)
    }
}
