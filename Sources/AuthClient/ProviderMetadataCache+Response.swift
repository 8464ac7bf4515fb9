import AuthCore
import Foundation

extension ProviderMetadataCache {
    /// Verifies a JWT-secured authorization response against the issuer's JWKS, refetching the JWKS once when its
    /// `kid` is unknown, as for ID tokens. A response that fails ends the attempt as a refused authentication.
    public func verifyResponse(
        _ response: String, with verifier: AuthorizationResponseVerifier, jwksURL: String, now: Date = Date()
    ) throws(SignInError) -> [(String, String)] {
        func check(refresh: Bool) throws(SignInError) -> Result<[(String, String)], IDTokenFailure> {
            let document = try jwks(jwksURL, refresh: refresh, now: now)
            return Result { () throws(IDTokenFailure) in try verifier.parameters(of: response, jwks: document, now: now)
            }
        }
        var result = try check(refresh: false)
        if case .failure(.unknownKeyID) = result { result = try check(refresh: true) }
        switch result {
        case .success(let pairs): return pairs
        case .failure(let failure):
            throw .authenticationFailed(providerError: "refused the signed response (JARM): \(failure.description)")
        }
    }
}
