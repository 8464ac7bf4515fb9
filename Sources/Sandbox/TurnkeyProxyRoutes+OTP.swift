import AuthCore
import AuthCrypto

extension TurnkeyProxyRoutes {
    func otpInit(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let otpType = try Self.required(body, "otpType")
        let contact = try Self.contact(try Self.required(body, "contact"), otpType: otpType)
        let configuration = context.configuration
        let now = context.clock.now
        let allowed = state.withLock {
            $0.recordSend(to: contact, now: now, limit: Self.sendLimit, window: 600)
        }
        guard allowed else { throw .exhausted("too many codes sent to this contact; wait a few minutes") }
        let otpID: String
        let code: String
        do {
            otpID = try context.randomID()
            code = try Self.randomCode(length: configuration.otpLength, alphanumeric: configuration.otpAlphanumeric)
        } catch {
            throw .internal("the sandbox could not draw random bytes")
        }
        do {
            try context.outbox.deliver(contact: contact, otpID: otpID, code: code, sentAt: now)
        } catch {
            throw .internal("the code could not be delivered: \(error.description)")
        }
        let pending = ProxyAccounts.PendingCode(
            contact: contact, otpType: otpType, code: code,
            expiresAt: now + Double(configuration.otpLifetime))
        state.withLock {
            $0.pruneCodes(now: now)
            $0.codes[otpID] = pending
        }
        return ["otpId": otpID]
    }

    func otpVerify(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let otpID = try Self.required(body, "otpId")
        let boundKey = body["publicKey"] == nil ? nil : try Self.sessionPublicKey(body)
        let typed = try Self.required(body, "otpCode").uppercased().filter { $0 != " " && $0 != "-" }
        let now = context.clock.now
        let maximum = context.configuration.otpMaximumAttempts
        let verified = try state.withLock { (accounts) throws(ProxyError) -> ProxyAccounts.PendingCode in
            guard var pending = accounts.codes[otpID] else { throw .notFound("unknown otpId") }
            guard now < pending.expiresAt else {
                accounts.codes[otpID] = nil
                throw .failedPrecondition("the code has expired; request a new one")
            }
            guard pending.failures < maximum else {
                throw .exhausted("too many attempts; request a new code")
            }
            guard ConstantTime.equals(typed, pending.code) else {
                pending.failures += 1
                accounts.codes[otpID] = pending
                if pending.failures >= maximum {
                    throw .exhausted("invalid code; too many attempts, request a new code")
                }
                throw .unauthenticated("invalid code (\(maximum - pending.failures) attempts left)")
            }
            accounts.codes[otpID] = nil
            return pending
        }
        let seconds = context.clock.seconds
        var claims: [String: Any] = [
            "iss": issuer, "purpose": Purpose.verification, "id": otpID, "contact": verified.contact,
            "verification_type": verified.otpType, "iat": seconds, "exp": seconds + 600,
        ]
        if let boundKey { claims["public_key"] = boundKey }
        return ["verificationToken": try sign(claims)]
    }

    func otpLogin(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let token = try Self.required(body, "verificationToken")
        let publicKey = try Self.sessionPublicKey(body)
        let verified = try verifiedVerificationToken(token)
        // A token bound at otp_verify is usable only with its key's signature over this login's usage; an unbound
        // one (an older client) logs in without it, as the contract allows.
        if let boundKey = verified.publicKey {
            let login = try checkedClientSignature(
                body, boundKey: boundKey, tokenID: verified.id,
                type: "USAGE_TYPE_LOGIN", usage: "login")
            guard JSONText.string(login, "publicKey") == publicKey else {
                throw .unauthenticated("clientSignature.message's login.publicKey is not this request's publicKey")
            }
        }
        let account = try state.withLock { (accounts) throws(ProxyError) -> ProxyAccounts.Account in
            let found =
                verified.otpType == "OTP_TYPE_EMAIL"
                ? accounts.account(email: verified.contact) : accounts.account(phone: verified.contact)
            guard let found else { throw .notFound("no account for this contact; sign up first") }
            guard accounts.spentVerificationTokens.insert(verified.id).inserted else {
                throw .unauthenticated("the verificationToken was already used")
            }
            return found
        }
        if let organizationID = JSONText.string(body, "organizationId"), organizationID != account.organizationID {
            throw .permissionDenied("the account belongs to another organization")
        }
        return try sessionOrChallenge(account: account, publicKey: publicKey)
    }

    /// A code of the configured shape; rejection sampling keeps every symbol equally likely.
    static func randomCode(length: Int, alphanumeric: Bool) throws(CryptoError) -> String {
        let alphabet = Array(alphanumeric ? "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" : "0123456789")
        let limit = 256 - 256 % alphabet.count
        var code = ""
        while code.count < length {
            for byte in try SecureRandom.bytes(length * 2) where Int(byte) < limit && code.count < length {
                code.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return code
    }
}
