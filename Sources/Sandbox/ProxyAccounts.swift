import AuthCrypto

/// What the Auth Proxy remembers: its accounts (the users file's existing users, then whoever signs up), the
/// one-time codes in flight, the tokens already spent, and open TOTP challenges. Guarded by the routes' lock.
struct ProxyAccounts {
    struct Account {
        let userID: String
        let organizationID: String
        var email: String?
        var phone: String?
        /// `issuer subject` pairs of the social identities linked to the account.
        var identities: Set<String>
        /// The users-file entry behind the account, which decides about TOTP.
        var userName: String?
        /// The OIDC audiences (client ids) signup registered for each identity: the oidcToken's own and each
        /// `oidcClaims` entry's. An identity with none recorded (the users file's) takes any audience.
        var audiences: [String: Set<String>] = [:]
    }

    struct PendingCode {
        let contact: String
        let otpType: String
        let code: String
        let expiresAt: Double
        var failures = 0
        /// otp_init_v2's encryption target for this code; nil when it was sent through v1.
        var target: P256PrivateKey?
    }

    private(set) var accounts: [Account] = []
    var codes: [String: PendingCode] = [:]
    /// When each contact was last sent codes, to refuse a flood with 429.
    var sends: [String: [Double]] = [:]
    var spentVerificationTokens = Set<String>()
    var spentOIDCTokens = Set<String>()
    var totp: TOTPChallenges
    /// Hosted OAuth logins waiting for the provider, by the sandbox's own state.
    var hosted: [String: HostedLogin] = [:]

    /// Existing users get an account with every profile's identity linked; ids are derived from the name so a
    /// restarted sandbox hands out the same ones.
    init(users: [SandboxUser], identity: (SandboxUser, OIDCProfile) -> String, maximumAttempts: Int) {
        totp = TOTPChallenges(maximumAttempts: maximumAttempts)
        for user in users where user.existing {
            let identities = Set(OIDCProfile.allCases.map { identity(user, $0) })
            accounts.append(
                Account(
                    userID: Self.stableID("user \(user.name)"),
                    organizationID: Self.stableID("organization \(user.name)"),
                    email: user.email, phone: user.phone, identities: identities,
                    userName: user.name))
        }
    }

    static func stableID(_ seed: String) -> String {
        SandboxContext.uuidString(SHA256.hash("authdeck-sandbox \(seed)"))
    }

    func account(email: String) -> Account? { accounts.first { $0.email == email } }
    func account(phone: String) -> Account? { accounts.first { $0.phone == phone } }
    func account(identity: String) -> Account? { accounts.first { $0.identities.contains(identity) } }

    mutating func add(_ account: Account) {
        accounts.append(account)
    }

    /// Counts a send to `contact`; false when it already had `limit` within `window` seconds.
    mutating func recordSend(to contact: String, now: Double, limit: Int, window: Double) -> Bool {
        let recent = (sends[contact] ?? []).filter { now - $0 < window }
        guard recent.count < limit else {
            sends[contact] = recent
            return false
        }
        sends[contact] = recent + [now]
        return true
    }

    /// Drops expired codes so a long-running sandbox stays small.
    mutating func pruneCodes(now: Double) {
        codes = codes.filter { $0.value.expiresAt > now }
    }

    // MARK: - Kept across restarts

    /// The accounts as JSON for the data folder (those of the users file come back the same from their names).
    var savedAccounts: [String: Any] {
        [
            "accounts": accounts.map { account -> [String: Any] in
                var object: [String: Any] = [
                    "userID": account.userID, "organizationID": account.organizationID,
                    "identities": account.identities.sorted(),
                ]
                if let email = account.email { object["email"] = email }
                if let phone = account.phone { object["phone"] = phone }
                if let userName = account.userName { object["userName"] = userName }
                if !account.audiences.isEmpty { object["audiences"] = account.audiences.mapValues { $0.sorted() } }
                return object
            }
        ]
    }

    /// Adds the accounts an earlier run saved that this one does not have yet (sign-ups).
    mutating func restore(_ saved: [String: Any]?) {
        for object in saved?["accounts"] as? [[String: Any]] ?? [] {
            guard let userID = object["userID"] as? String, let organizationID = object["organizationID"] as? String,
                !accounts.contains(where: { $0.userID == userID })
            else { continue }
            accounts.append(
                Account(
                    userID: userID, organizationID: organizationID, email: object["email"] as? String,
                    phone: object["phone"] as? String,
                    identities: Set(object["identities"] as? [String] ?? []),
                    userName: object["userName"] as? String,
                    audiences: (object["audiences"] as? [String: [String]] ?? [:]).mapValues { Set($0) }))
        }
    }
}
