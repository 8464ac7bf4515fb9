/// One named way the sandbox can misbehave on purpose, each the shape of a failure customers meet at real
/// providers and proxies. Chosen with `authdeck sandbox --fault NAME[,NAME…]` (or a JSON file), listed by
/// `--fault list`, and switched while the sandbox runs through its admin route (`authdeck sandbox faults`).
public enum SandboxFault: String, CaseIterable, Sendable, Comparable {
    /// The token endpoint answers 502 with an HTML page, as a load balancer in front of a provider does.
    case token5xxHTML = "token-5xx-html"
    /// The provider's back channel (token, JWKS, discovery, user endpoints) answers only after a delay (`delayMs`,
    /// default 8000): an overloaded provider. The browser's pages stay quick.
    case slowProvider = "slow-provider"
    /// The token endpoint refuses the code as expired (`invalid_grant`): the user or the client took too long.
    case codeExpired = "code-expired"
    /// The token endpoint refuses the code as already used (`invalid_grant`): a double submit or a prefetch.
    case codeReused = "code-reused"
    /// The authorization endpoint answers `error=access_denied` with the request's `state`.
    case accessDenied = "access-denied"
    /// `error=access_denied` without `state`, as some providers send it.
    case accessDeniedNoState = "access-denied-no-state"
    /// ID tokens are issued an hour in the future (`iat`): a provider whose clock runs ahead.
    case futureIAT = "id-token-future-iat"
    /// ID tokens name another client as `aud` (and `azp`): a client id mixed up between environments.
    case wrongAudience = "id-token-wrong-aud"
    /// ID tokens carry an `iss` that is not the discovered issuer: a tenant or trailing-slash mismatch.
    case wrongIssuer = "id-token-wrong-iss"
    /// ID tokens carry a `nonce` other than the one sent: a cached or mixed-up authorization response.
    case wrongNonce = "id-token-wrong-nonce"
    /// ID tokens are signed by a key whose `kid` the JWKS does not list: a rotated key behind a stale cache.
    case rotatedKey = "rotated-signing-key"
    /// ID tokens carry no `email` claim; the address is only at the UserInfo endpoint.
    case noEmailClaim = "no-email-claim"
    /// Device-grant polls are answered `slow_down`, every one of them.
    case deviceSlowDown = "device-slow-down"
    /// Device-grant polls are answered `expired_token`: the user never approved in time.
    case deviceExpired = "device-expired"
    /// The proxy refuses to send a one-time code: 429 RESOURCE_EXHAUSTED (too many codes for this contact).
    case otpRateLimit = "otp-rate-limit"
    /// The proxy refuses the typed one-time code as expired.
    case otpExpired = "otp-expired"
    /// The proxy refuses TOTP codes with the account locked after too many attempts.
    case totpLockout = "totp-lockout"
    /// The authorization endpoint redirects to a loopback port no receiver listens on (a redirect URI registered
    /// with a fixed port that the client does not use).
    case redirectUnreachable = "redirect-unreachable"
    /// DPoP proofs must carry the sandbox's nonce (RFC 9449 section 8 and 9): the token endpoint answers 400
    /// `use_dpop_nonce`, the user endpoint 401 with a DPoP challenge, each with the nonce in `DPoP-Nonce`.
    case dpopNonce = "dpop-nonce"

    /// What the fault does, one line for `--fault list` and the admin route.
    public var summary: String {
        switch self {
        case .token5xxHTML: return "token endpoint answers 502 with an HTML page (a gateway in front of the provider)"
        case .slowProvider: return "token, JWKS, discovery and user endpoints answer after delayMs (default 8000 ms)"
        case .codeExpired: return "token endpoint: invalid_grant, the authorization code has expired"
        case .codeReused: return "token endpoint: invalid_grant, the authorization code was already used"
        case .accessDenied: return "authorize answers error=access_denied (with state): the user or a policy refused"
        case .accessDeniedNoState: return "authorize answers error=access_denied without state"
        case .futureIAT: return "ID tokens issued an hour in the future (iat): the provider's clock runs ahead"
        case .wrongAudience: return "ID tokens name another client as aud/azp"
        case .wrongIssuer: return "ID tokens carry an iss other than the discovered issuer"
        case .wrongNonce: return "ID tokens carry a nonce other than the one sent"
        case .rotatedKey: return "ID tokens signed by a key the JWKS does not list (unknown kid)"
        case .noEmailClaim: return "ID tokens without email; the address is only at UserInfo"
        case .deviceSlowDown: return "device-grant polls always answered slow_down"
        case .deviceExpired: return "device-grant polls answered expired_token"
        case .otpRateLimit: return "otp_init answered 429 RESOURCE_EXHAUSTED (too many codes)"
        case .otpExpired: return "otp_verify refuses the code as expired"
        case .totpLockout: return "totp_verify refuses every code: too many attempts, account locked"
        case .redirectUnreachable: return "authorize redirects to a loopback port no receiver listens on"
        case .dpopNonce: return "DPoP proofs need the sandbox's nonce: use_dpop_nonce at token and user endpoints"
        }
    }

    public static func < (left: SandboxFault, right: SandboxFault) -> Bool {
        let order = allCases
        return order.firstIndex(of: left)! < order.firstIndex(of: right)!
    }
}
