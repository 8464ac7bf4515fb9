import AuthCore
import AuthCrypto
import Foundation
import Synchronization

/// Puts a DPoP proof (RFC 9449) on a session's requests with the session's key, and answers a server's
/// `use_dpop_nonce` demand with one retry carrying the nonce it sent; the last nonce a server sent is kept for the
/// next request (section 8: at the token endpoint a 400 with that error, section 9: at a resource a 401 whose
/// `WWW-Authenticate` names it).
public final class DPoPProver: Sendable {
    public let key: DPoPKey
    private let clock: @Sendable () -> Date
    private let lastNonce: Mutex<String?>

    public init(key: DPoPKey, nonce: String? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.key = key
        self.clock = clock
        self.lastNonce = Mutex(nonce)
    }

    /// The prover of a stored session; nil for a session without a DPoP key, an error for one whose key is damaged.
    public convenience init?(
        session secrets: SessionSecrets, clock: @escaping @Sendable () -> Date = { Date() }
    ) throws(SignInError) {
        guard let hex = secrets.dpopKeyHex else { return nil }
        guard let scalar = Hex.decode(hex), scalar.count == 32, let key = try? DPoPKey(rawRepresentation: scalar)
        else {
            throw .unavailable(reason: "the session's DPoP key is damaged; sign in again")
        }
        self.init(key: key, nonce: secrets.dpopNonce, clock: clock)
    }

    /// The nonce the next proof carries: the last one a server of this session sent.
    public var nonce: String? { lastNonce.withLock { $0 } }

    /// The key's RFC 7638 thumbprint, `dpop_jkt` on the authorization request.
    public var thumbprint: String { key.thumbprint }

    /// One proof for `method` `url`; with `accessToken`, bound to it by `ath` (a resource request). `nonce` given
    /// overrides the remembered one.
    public func proof(
        method: String, url: String, accessToken: String? = nil, nonce given: String? = nil
    ) throws(SignInError) -> String {
        do {
            return try key.proof(
                method: method, url: url, issuedAt: Int64(clock().timeIntervalSince1970), nonce: given ?? nonce,
                accessToken: accessToken)
        } catch {
            throw .unavailable(reason: "no DPoP proof could be made (\(error.description))")
        }
    }

    /// Sends the request `request` builds with a proof in its `DPoP` header; when the server demands a nonce it
    /// supplies, builds it afresh (a client assertion in it is good for one use) and sends it once more with a fresh
    /// proof carrying that nonce.
    public func send(
        _ request: () throws(SignInError) -> OutgoingRequest, accessToken: String? = nil,
        via transport: HTTPTransport
    ) throws(SignInError) -> IncomingResponse {
        let first = try transport.send(proved(request(), accessToken: accessToken))
        let demanded = Self.demandsNonce(first)
        remember(first)
        guard demanded, first.headers["dpop-nonce"] != nil else { return first }
        let second = try transport.send(proved(request(), accessToken: accessToken))
        remember(second)
        return second
    }

    private func proved(_ request: OutgoingRequest, accessToken: String?) throws(SignInError) -> OutgoingRequest {
        var proved = request
        proved.headers.removeAll { $0.0.lowercased() == "dpop" }
        proved.headers.append(("DPoP", try proof(method: request.method, url: request.url, accessToken: accessToken)))
        return proved
    }

    /// A server may send a fresh nonce on any answer (RFC 9449 8.2); the next proof carries it.
    private func remember(_ response: IncomingResponse) {
        guard let fresh = response.headers["dpop-nonce"], !fresh.isEmpty else { return }
        lastNonce.withLock { $0 = fresh }
    }

    /// RFC 9449 8: the authorization server answers 400 with `error: use_dpop_nonce`; 9: a resource server answers
    /// 401 with `WWW-Authenticate: DPoP error="use_dpop_nonce"`.
    static func demandsNonce(_ response: IncomingResponse) -> Bool {
        if response.status == 400, (try? JSONValue.parse(response.body))?["error"]?.string == "use_dpop_nonce" {
            return true
        }
        guard response.status == 401, let challenge = response.headers["www-authenticate"] else { return false }
        return challenge.range(of: "error=\"use_dpop_nonce\"", options: .caseInsensitive) != nil
    }

    /// RFC 9449 section 5: a `token_type` other than DPoP means the server did not bind the token, so it works for
    /// anyone who holds it. authdeck refuses it rather than store a weaker token than the configuration asked for.
    public static func checkBound(_ tokens: TokenResponse) throws(SignInError) {
        guard tokens.tokenType?.caseInsensitiveCompare("DPoP") != .orderedSame else { return }
        let named = tokens.tokenType.map { "token_type \(SignInError.printable($0))" } ?? "no token_type"
        throw .authenticationFailed(
            providerError: "DPoP was asked for but the provider answered \(named), so the token is not bound to the "
                + "session's key (RFC 9449 section 5); enable DPoP for this client at the provider, or remove dpop "
                + "from the provider's config")
    }
}
