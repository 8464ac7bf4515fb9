import AuthCore
import AuthCrypto
import Foundation

/// A test account's TOTP seed as the store keeps it (`authdeck totp add`): the secret sealed under the master key,
/// the rest in clear so `totp list` needs no key.
public struct TestAccountSeed: Sendable, Equatable {
    public var user: String
    public var secret: [UInt8]
    public var algorithm: TOTP.Algorithm
    public var digits: Int
    public var period: Int
    public var createdAt: Date

    public init(
        user: String, secret: [UInt8], algorithm: TOTP.Algorithm = .sha1, digits: Int = 6, period: Int = 30,
        createdAt: Date = Date()
    ) {
        self.user = user
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.createdAt = createdAt
    }

    /// The code for `time`, as the backend will check it.
    public func code(at time: Date) -> String {
        TOTP.code(
            secret: secret, time: Int64(time.timeIntervalSince1970), digits: digits, period: Int64(period),
            algorithm: algorithm)
    }
}

extension SessionStore {
    /// Associated data for a seed: a prefix no session key can produce (session keys are non-empty text without
    /// NUL), so a seed blob can never be swapped in for a session's secrets or the other way round.
    private static func seedAssociatedData(_ user: String) -> [UInt8] {
        [0] + Array("totp".utf8) + [0] + Array(user.utf8)
    }

    /// Stores a seed; a taken user name is `keyTaken` unless `replace`.
    public func storeTOTPSeed(_ seed: TestAccountSeed, replace: Bool) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        guard !seed.user.isEmpty, (6...8).contains(seed.digits), (15...120).contains(seed.period), !seed.secret.isEmpty
        else {
            throw .invalidInput("a TOTP seed needs a user, a secret, 6–8 digits and a period of 15–120 s")
        }
        let sealed: [UInt8]
        do {
            sealed = try AESGCM.seal(
                seed.secret, key: try unlockedKey(),
                associatedData: Self.seedAssociatedData(seed.user))
        } catch let error as StoreError {
            throw error
        } catch {
            throw .storage("cannot encrypt: \(error)")
        }
        do {
            try database.writeTransaction { () throws(SQLiteError) in
                if !replace {
                    let exists = try database.prepare("SELECT 1 FROM totp_seeds WHERE user = ?1")
                    exists.bind(1, seed.user)
                    if try exists.step() { throw SQLiteError(code: -1, message: seed.user) }
                }
                let insert = try database.prepare(
                    """
                    INSERT OR REPLACE INTO totp_seeds (user, algorithm, digits, period, created_at, secret) \
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    """)
                insert.bind(1, seed.user)
                insert.bind(2, seed.algorithm.rawValue)
                insert.bind(3, Int64(seed.digits))
                insert.bind(4, Int64(seed.period))
                insert.bind(5, seed.createdAt.timeIntervalSince1970)
                insert.bind(6, sealed)
                try insert.step()
            }
        } catch {
            if error.code == -1 { throw .keyTaken(error.message) }
            throw fail(error)
        }
    }

    /// Every stored seed without its secret (listing needs no key).
    public func totpSeedList() throws(StoreError) -> [TestAccountSeed] {
        lock.lock()
        defer { lock.unlock() }
        do {
            let statement = try database.prepare(
                "SELECT user, algorithm, digits, period, created_at FROM totp_seeds ORDER BY user")
            var seeds: [TestAccountSeed] = []
            while try statement.step() {
                seeds.append(
                    TestAccountSeed(
                        user: statement.string(0) ?? "", secret: [],
                        algorithm: TOTP.Algorithm(rawValue: statement.string(1) ?? "") ?? .sha1,
                        digits: Int(statement.int64(2)), period: Int(statement.int64(3)),
                        createdAt: Date(timeIntervalSince1970: statement.double(4) ?? 0)))
            }
            return seeds
        } catch {
            throw fail(error)
        }
    }

    /// The seed for `user` with its secret, or nil when none is stored.
    public func totpSeed(user: String) throws(StoreError) -> TestAccountSeed? {
        lock.lock()
        defer { lock.unlock() }
        let row: (seed: TestAccountSeed, sealed: [UInt8])
        do {
            let statement = try database.prepare(
                "SELECT algorithm, digits, period, created_at, secret FROM totp_seeds WHERE user = ?1")
            statement.bind(1, user)
            guard try statement.step() else { return nil }
            row = (
                TestAccountSeed(
                    user: user, secret: [],
                    algorithm: TOTP.Algorithm(rawValue: statement.string(0) ?? "") ?? .sha1,
                    digits: Int(statement.int64(1)), period: Int(statement.int64(2)),
                    createdAt: Date(timeIntervalSince1970: statement.double(3) ?? 0)),
                statement.blob(4) ?? []
            )
        } catch {
            throw fail(error)
        }
        var seed = row.seed
        seed.secret = try openSealed(
            row.sealed, associatedData: Self.seedAssociatedData(user),
            damaged: .damagedSession("totp seed of \(user)"))
        return seed
    }

    /// Removes the seed of `user`; false when there was none.
    @discardableResult
    public func removeTOTPSeed(user: String) throws(StoreError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try database.writeTransaction { () throws(SQLiteError) -> Bool in
                let delete = try database.prepare("DELETE FROM totp_seeds WHERE user = ?1")
                delete.bind(1, user)
                _ = try delete.step()
                let changed = try database.prepare("SELECT changes()")
                _ = try changed.step()
                return changed.int64(0) > 0
            }
        } catch {
            throw fail(error)
        }
    }
}
