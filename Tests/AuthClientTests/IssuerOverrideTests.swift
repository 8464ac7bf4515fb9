import AuthClient
import AuthCore
import Foundation
import Testing

/// An issuer named for one sign-in (`login --issuer`, the New sign-in screen's Issuer field) gets
/// only the client named with it, never config.json's id and secret, which are registered with config.json's issuer.
@Suite struct IssuerOverrideTests {
    @Test func theIssuerAndClientIDFieldsLeaveConfigsClientBehind() throws {
        let provider = try TestProvider()
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("issuer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secretFile = folder.appendingPathComponent("secret").path
        try Data("config-secret\n".utf8).write(to: URL(fileURLWithPath: secretFile))
        let json =
            #"{"providers":{"oidc":{"issuer":"https://id.example.com","clientID":"config-client","#
            + #""clientSecretFile":"\#(secretFile)","tokenEndpointAuthMethod":"client_secret_post"}}}"#
        let configuration = try Configuration(json: Data(json.utf8))
        let transport = CurlTransport(timeout: 2)
        let resolver = ProviderResolver(
            catalog: TurnkeySandbox.catalog, configuration: configuration,
            metadata: ProviderMetadataCache(transport: transport, folder: nil))

        // What SignInSetup.backend passes for the screen's fields (it has no secret-file field).
        let resolved = try resolver.resolve(
            provider: "oidc", backend: "direct",
            overrides: ProviderOverrides(issuer: provider.issuer, clientID: "given-client"))
        #expect(resolved.clientID == "given-client")
        #expect(resolved.authentication == .none)
        #expect(resolved.clientSecretFile == nil)
        #expect(resolved.endpoints.token == provider.issuer + "/token")

        #expect(throws: SignInError.self) {
            try resolver.resolve(
                provider: "oidc", backend: "direct", overrides: ProviderOverrides(issuer: provider.issuer))
        }
    }
}
