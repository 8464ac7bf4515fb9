import Foundation

/// Everything the OIDC profiles have handed out and not yet seen come back: authorization codes, access and
/// refresh tokens, device authorizations. A plain value guarded by the routes' lock; every method takes the
/// current time so expiry is decided in one place.
struct OIDCGrants {
    /// An approved authorization request, waiting for its single redemption.
    struct Code {
        let profile: OIDCProfile
        let clientID: String
        let redirectURI: String
        let challenge: String
        let nonce: String?
        let scope: String
        let userName: String
        let issuedAt: Double
        /// `dpop_jkt` of the authorization request: the code is redeemed only with a proof of that key
        /// (RFC 9449 section 10).
        var dpopJKT: String? = nil
        /// The authentication context class the user is taken to have met: the first of the request's
        /// `acr_values` (OpenID Connect Core 3.1.2.1), as an IdP that performed that step would say.
        var acr: String? = nil
    }

    /// Who a token was issued to. Tokens of one grant share `grantID`, so revoking a refresh token (or replaying
    /// a spent code) can take the whole grant down.
    struct Token {
        let profile: OIDCProfile
        let clientID: String
        let userName: String
        let scope: String
        let grantID: String
        /// Nil for refresh tokens, which live until used or revoked.
        let expiresAt: Double?
        /// The thumbprint of the DPoP key the token is bound to (RFC 9449 section 6), nil for a bearer token.
        var jkt: String? = nil
    }

    struct Device {
        let profile: OIDCProfile
        let clientID: String
        let scope: String
        let userCode: String
        let expiresAt: Double
        var interval: Int
        var lastPoll: Double?
        var decision: Decision
    }

    enum Decision: Equatable {
        case pending
        case approved(userName: String)
        case denied
    }

    enum Redemption {
        case redeemed(Code)
        /// The code was used before: its tokens were revoked (RFC 6749 4.1.2).
        case replayed
        case unknown
    }

    enum Refresh {
        case rotated(Token)
        case mismatched
        /// A refresh token that was already rotated away came back: the grant is revoked (OAuth 2.0 Security BCP
        /// 4.14.2), since either the client or a thief holds a stale copy.
        case replayed
        case unknown
    }

    enum Poll {
        case approved(Device, userName: String)
        case pending, slowDown, denied, expired, unknown, mismatched
    }

    enum DeviceDecision {
        case decided, unknown, expired, alreadyDecided
    }

    init() {}

    private var codes: [String: Code] = [:]
    private var spentCodes: [String: (grantID: String?, spentAt: Double)] = [:]
    private var accessTokens: [String: Token] = [:]
    private var refreshTokens: [String: Token] = [:]
    private var rotatedRefreshTokens: [String: String] = [:]
    /// How often a rotated-away refresh token came back, by grant: the sandbox's own record that a client sent one
    /// refresh token twice, kept in the data folder for whoever checks a long run afterwards (`make soak`).
    private var refreshReplays: [String: Int] = [:]
    private var devices: [String: Device] = [:]
    /// Grants revoked because a code or refresh token came twice: a request that redeemed or rotated before the
    /// reuse was seen, and is still issuing, gets no tokens for them (requests are served side by side).
    private var revokedGrants: Set<String> = []
    /// The `jti` of every DPoP proof seen while the sandbox runs.
    private var spentProofs: Set<String> = []
    private var deviceCodeByUserCode: [String: String] = [:]

    // MARK: - Codes

    mutating func add(code: String, _ value: Code, now: Double) {
        prune(now: now)
        codes[code] = value
    }

    /// Takes the code out whatever happens next, so a wrong verifier cannot be retried against the same code. The
    /// grant the code will produce is named now, in the same step, so a replay arriving before its tokens are
    /// issued revokes it too.
    mutating func redeem(code: String, now: Double, grantID: String? = nil) -> Redemption {
        if let value = codes.removeValue(forKey: code) {
            spentCodes[code] = (grantID, now)
            return .redeemed(value)
        }
        if let spent = spentCodes[code] {
            if let grantID = spent.grantID { revoke(grantID: grantID) }
            return .replayed
        }
        return .unknown
    }

    // MARK: - Tokens

    /// Records the tokens of a grant; false (nothing recorded) when the grant was revoked meanwhile.
    mutating func add(accessToken: String, refreshToken: String?, _ token: Token) -> Bool {
        guard !revokedGrants.contains(token.grantID) else { return false }
        accessTokens[accessToken] = token
        if let refreshToken {
            refreshTokens[refreshToken] = Token(
                profile: token.profile, clientID: token.clientID,
                userName: token.userName, scope: token.scope,
                grantID: token.grantID, expiresAt: nil, jkt: token.jkt)
        }
        return true
    }

    /// Whether a DPoP proof's `jti` is new (RFC 9449 11.1: a proof is used once); it is spent by this call.
    mutating func spendProof(jti: String) -> Bool {
        spentProofs.insert(jti).inserted
    }

    /// The access token's grant while it is valid.
    func access(_ token: String, now: Double) -> Token? {
        guard let found = accessTokens[token], let expiresAt = found.expiresAt, now < expiresAt else { return nil }
        return found
    }

    mutating func rotate(refreshToken: String, profile: OIDCProfile, clientID: String) -> Refresh {
        if let grantID = rotatedRefreshTokens[refreshToken] {
            refreshReplays[grantID, default: 0] += 1
            revoke(grantID: grantID)
            return .replayed
        }
        guard let found = refreshTokens[refreshToken] else { return .unknown }
        guard found.profile == profile, found.clientID == clientID else { return .mismatched }
        refreshTokens[refreshToken] = nil
        rotatedRefreshTokens[refreshToken] = found.grantID
        return .rotated(found)
    }

    /// RFC 7009: an access token goes alone; a refresh token takes its whole grant with it. Unknown tokens are
    /// fine (the answer is 200 either way). A token of another client is left alone.
    mutating func revoke(token: String, clientID: String?) {
        if let found = refreshTokens[token], clientID == nil || clientID == found.clientID {
            revoke(grantID: found.grantID)
        } else if let found = accessTokens[token], clientID == nil || clientID == found.clientID {
            accessTokens[token] = nil
        }
    }

    /// RP-Initiated Logout: every token the user holds for the client at the profile ends with the session.
    mutating func endSession(userName: String, clientID: String, profile: OIDCProfile) {
        func other(_ token: Token) -> Bool {
            token.userName != userName || token.clientID != clientID || token.profile != profile
        }
        accessTokens = accessTokens.filter { other($0.value) }
        refreshTokens = refreshTokens.filter { other($0.value) }
    }

    private mutating func revoke(grantID: String) {
        revokedGrants.insert(grantID)
        accessTokens = accessTokens.filter { $0.value.grantID != grantID }
        refreshTokens = refreshTokens.filter { $0.value.grantID != grantID }
    }

    // MARK: - Device grant

    mutating func add(deviceCode: String, _ device: Device, now: Double) {
        prune(now: now)
        devices[deviceCode] = device
        deviceCodeByUserCode[device.userCode] = deviceCode
    }

    func device(userCode: String, now: Double) -> Device? {
        guard let deviceCode = deviceCodeByUserCode[userCode], let device = devices[deviceCode],
            now < device.expiresAt
        else { return nil }
        return device
    }

    mutating func decide(userCode: String, _ decision: Decision, now: Double) -> DeviceDecision {
        guard let deviceCode = deviceCodeByUserCode[userCode], var device = devices[deviceCode] else {
            return .unknown
        }
        guard now < device.expiresAt else { return .expired }
        guard device.decision == .pending else { return .alreadyDecided }
        device.decision = decision
        devices[deviceCode] = device
        return .decided
    }

    /// One poll of the token endpoint (RFC 8628 3.4/3.5). Polling faster than the interval earns `slow_down` and
    /// five more seconds of interval; a final answer (approved or denied) ends the device code.
    mutating func poll(deviceCode: String, profile: OIDCProfile, clientID: String, now: Double) -> Poll {
        guard var device = devices[deviceCode] else { return .unknown }
        guard device.profile == profile, device.clientID == clientID else { return .mismatched }
        guard now < device.expiresAt else {
            forget(deviceCode: deviceCode)
            return .expired
        }
        defer { if devices[deviceCode] != nil { devices[deviceCode] = device } }
        if let last = device.lastPoll, now - last < Double(device.interval) {
            device.lastPoll = now
            device.interval += 5
            return .slowDown
        }
        device.lastPoll = now
        switch device.decision {
        case .pending:
            return .pending
        case .denied:
            forget(deviceCode: deviceCode)
            return .denied
        case .approved(let userName):
            forget(deviceCode: deviceCode)
            return .approved(device, userName: userName)
        }
    }

    private mutating func forget(deviceCode: String) {
        if let device = devices.removeValue(forKey: deviceCode) { deviceCodeByUserCode[device.userCode] = nil }
    }

    // MARK: - Housekeeping

    /// Drops what can no longer be used, so a long-running sandbox does not grow without bound.
    private mutating func prune(now: Double) {
        codes = codes.filter { now - $0.value.issuedAt < 3600 }
        spentCodes = spentCodes.filter { now - $0.value.spentAt < 3600 }
        accessTokens = accessTokens.filter { ($0.value.expiresAt ?? .infinity) > now }
        for (deviceCode, device) in devices where device.expiresAt <= now {
            forget(deviceCode: deviceCode)
        }
    }

    // MARK: - Kept across restarts

    /// The tokens as JSON for the data folder: access tokens, refresh tokens, and rotated ones (so a stale copy
    /// is still caught after a restart), and the record of replays. Codes and device grants live minutes and are
    /// not kept.
    var saved: [String: Any] {
        func encode(_ token: Token) -> [String: Any] {
            var object: [String: Any] = [
                "profile": token.profile.rawValue, "clientID": token.clientID,
                "userName": token.userName, "scope": token.scope, "grantID": token.grantID,
            ]
            if let expiresAt = token.expiresAt { object["expiresAt"] = expiresAt }
            if let jkt = token.jkt { object["jkt"] = jkt }
            return object
        }
        return [
            "accessTokens": accessTokens.mapValues(encode), "refreshTokens": refreshTokens.mapValues(encode),
            "rotatedRefreshTokens": rotatedRefreshTokens, "refreshReplays": refreshReplays,
        ]
    }

    /// Tokens saved by an earlier run; what does not read back is dropped (its session then fails to refresh,
    /// as a revoked one would).
    init(saved: [String: Any]?) {
        guard let saved else { return }
        func decode(_ value: Any) -> Token? {
            guard let object = value as? [String: Any], let name = object["profile"] as? String,
                let profile = OIDCProfile(rawValue: name), let clientID = object["clientID"] as? String,
                let userName = object["userName"] as? String, let scope = object["scope"] as? String,
                let grantID = object["grantID"] as? String
            else { return nil }
            return Token(
                profile: profile, clientID: clientID, userName: userName, scope: scope, grantID: grantID,
                expiresAt: (object["expiresAt"] as? NSNumber)?.doubleValue, jkt: object["jkt"] as? String)
        }
        accessTokens = (saved["accessTokens"] as? [String: Any])?.compactMapValues(decode) ?? [:]
        refreshTokens = (saved["refreshTokens"] as? [String: Any])?.compactMapValues(decode) ?? [:]
        rotatedRefreshTokens = saved["rotatedRefreshTokens"] as? [String: String] ?? [:]
        refreshReplays =
            (saved["refreshReplays"] as? [String: Any])?.compactMapValues { ($0 as? NSNumber)?.intValue } ?? [:]
    }
}
