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
    /// Authorization responses carry another issuer's `iss` (RFC 9207): a mix-up, the answer of an authorization
    /// server other than the one the request went to.
    case responseMixUp = "authorization-response-mixup"
    /// Authorization responses carry no `iss` although discovery says every one does (RFC 9207 3).
    case responseWithoutIssuer = "authorization-response-no-iss"
    /// The discovery document names another issuer than the one it was fetched for (OIDC Discovery 4.3).
    case discoveryWrongIssuer = "discovery-wrong-issuer"
    /// ID tokens are issued an hour in the future (`iat`): a provider whose clock runs ahead.
    case futureIAT = "id-token-future-iat"
    /// ID tokens name another client as `aud` (and `azp`): a client id mixed up between environments.
    case wrongAudience = "id-token-wrong-aud"
    /// ID tokens carry an `iss` that is not the discovered issuer: a tenant or trailing-slash mismatch.
    case wrongIssuer = "id-token-wrong-iss"
    /// ID tokens carry a `nonce` other than the one sent: a cached or mixed-up authorization response.
    case wrongNonce = "id-token-wrong-nonce"
    /// ID tokens whose signature does not verify (one byte of it changed): a forged or corrupted token.
    case badSignature = "id-token-bad-signature"
    /// ID tokens unsigned, `alg: none`, from the token endpoint.
    case algNone = "id-token-alg-none"
    /// ID tokens without `iat`.
    case noIAT = "id-token-no-iat"
    /// ID tokens without `sub`.
    case noSubject = "id-token-no-sub"
    /// ID tokens without `kid`, and a JWKS holding only the key that signed them.
    case kidAbsentSingleKey = "id-token-kid-absent-single-jwks"
    /// ID tokens without `kid`, and a JWKS holding two keys of the signing key's type, neither with a `kid`.
    case kidAbsentSeveralKeys = "id-token-kid-absent-multiple-jwks"
    /// ID tokens are signed by a key whose `kid` the JWKS does not list: a rotated key behind a stale cache.
    case rotatedKey = "rotated-signing-key"
    /// The provider has rotated its signing key: the JWKS publishes only new keys (new `kid`s) and ID tokens are
    /// signed with them, so a client's cached JWKS no longer has the key.
    case signingKeyRotation = "signing-key-rotation"
    /// ID tokens carry no `email` claim; the address is only at the UserInfo endpoint.
    case noEmailClaim = "no-email-claim"
    /// ID tokens without `email` (so a client reads UserInfo), and UserInfo names another `sub` than the ID token.
    case userInfoWrongSubject = "userinfo-wrong-sub"
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
        case .responseMixUp: return "authorization responses carry another issuer's iss (RFC 9207 mix-up)"
        case .responseWithoutIssuer: return "authorization responses carry no iss though discovery promises it"
        case .discoveryWrongIssuer: return "the discovery document names another issuer than it was fetched for"
        case .futureIAT: return "ID tokens issued an hour in the future (iat): the provider's clock runs ahead"
        case .wrongAudience: return "ID tokens name another client as aud/azp"
        case .wrongIssuer: return "ID tokens carry an iss other than the discovered issuer"
        case .wrongNonce: return "ID tokens carry a nonce other than the one sent"
        case .badSignature: return "ID tokens whose signature does not verify (one byte changed)"
        case .algNone: return "ID tokens unsigned (alg none)"
        case .noIAT: return "ID tokens without iat"
        case .noSubject: return "ID tokens without sub"
        case .kidAbsentSingleKey: return "ID tokens without kid; the JWKS holds only the signing key"
        case .kidAbsentSeveralKeys: return "ID tokens without kid; the JWKS holds two keys of that type, no kids"
        case .rotatedKey: return "ID tokens signed by a key the JWKS does not list (unknown kid)"
        case .signingKeyRotation: return "signing key rotated: the JWKS lists only new kids, ID tokens use them"
        case .noEmailClaim: return "ID tokens without email; the address is only at UserInfo"
        case .userInfoWrongSubject: return "ID tokens without email; UserInfo names another sub"
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
