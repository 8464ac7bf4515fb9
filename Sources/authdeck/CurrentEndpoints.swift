import AuthClient
import AuthCore
import Foundation
import Keyring

/// What today's config.json and discovery say of a stored session's provider, for the endpoints its stored ones
/// lack (a revocation endpoint added after it signed in). Nil for anything that cannot be resolved now.
enum CurrentEndpoints {
    static func lookup(_ global: GlobalOptions) -> @Sendable (SessionRecord) -> ProviderEndpoints? {
        let environment = ProcessEnvironment.current()
        let explicit = global.config
        return { record in
            guard let configuration = try? ConfigurationFile.load(explicit: explicit, environment: environment),
                  let catalog = try? ConfigurationFile.catalog(environment: environment),
                  catalog[record.provider] != nil else { return nil }
            let folder = ConfigurationFile.dataFolder(environment: environment).appendingPathComponent("cache")
            let metadata = ProviderMetadataCache(transport: URLSessionTransport(timeout: 10), folder: folder)
            let resolver = ProviderResolver(catalog: catalog, configuration: configuration, metadata: metadata)
            return try? resolver.resolve(provider: record.provider, backend: record.backend).endpoints
        }
    }
}
