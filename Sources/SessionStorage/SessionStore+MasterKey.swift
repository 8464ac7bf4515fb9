import AuthCrypto
import Foundation

/// The master key: 32 random bytes that encrypt every secret blob. It is wrapped (KEK pattern) either by the Secret
/// Service or by a passphrase-derived key, and cached in the kernel keyring after an unlock.
extension SessionStore {
    /// Which source wraps the master key; nil while the store has never needed one.
    public func keySource() throws(StoreError) -> MasterKeySource? {
        lock.lock()
        defer { lock.unlock() }
        return try currentSource()
    }

    /// Whether the master key is in the kernel keyring cache right now (the store is unlocked for this user).
    public var isUnlockedInCache: Bool {
        options.useKeyCache && KeyCache(storeID: storeID).read() != nil
    }

    /// Unlocks the store now (what the TUI does at start, and what `token` does implicitly).
    public func unlock() throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        _ = try unlockedKey()
    }

    /// Unlocks the store with a passphrase the caller asked for its own way (the TUI's unlock screen), on this
    /// same connection: a second connection per process is never needed to unlock.
    public func unlock(passphrase: PassphraseUnlock) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        passphraseOverride = passphrase
        defer { passphraseOverride = nil }
        _ = try unlockedKey()
    }

    /// Forgets the master key: drops the kernel keyring cache entry and this object's copy, and records the time
    /// (`lockStamp`) so other processes holding the key (an open TUI) forget it too. Returns whether a cache entry
    /// was dropped.
    @discardableResult
    public func lockStore() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        masterKey = nil
        // Best effort: a store that cannot be written is still locked here and in the cache.
        try? write { () throws(SQLiteError) in
            try Self.writeMeta(
                database, StoreSchema.Meta.lockedAt, text: String(Date().timeIntervalSince1970))
        }
        return KeyCache(storeID: storeID).drop()
    }

    /// What the last lock recorded (any process's), nil when the store was never locked.
    public func lockStamp() -> String? {
        lock.lock()
        defer { lock.unlock() }
        return try? Self.readMetaText(database, StoreSchema.Meta.lockedAt)
    }

    /// Forgets this object's copy of the master key only: another process locked the store (`lockStamp` changed).
    public func forgetKey() {
        lock.lock()
        defer { lock.unlock() }
        masterKey = nil
    }

    /// The `pass` entry that holds the master key, when `pass` is the key source.
    public func passEntryName() throws(StoreError) -> String? {
        lock.lock()
        defer { lock.unlock() }
        do { return try Self.readMetaText(database, StoreSchema.Meta.passEntry) } catch { throw fail(error) }
    }

    /// Moves the master key to `target`: stores it in the Secret Service or `pass` (the entry `passEntry`, else
    /// `PassEntry.defaultName`), or wraps it under a new passphrase. Only the key's wrapping changes; no session is
    /// rewritten. On a store that has no key yet, creates it there. The old source's copy goes only once the new
    /// one is written (and, for pass, read back), so a failure leaves the store as it was.
    public func migrateMasterKey(to target: MasterKeySource, passEntry: String? = nil) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        guard let current = try currentSource() else {
            if target == .pass {
                let key: [UInt8]
                do { key = try SecureRandom.bytes(32) } catch { throw .storage("\(error)") }
                try moveToPass(key, entry: passEntry, previous: nil)
                remember(key)
                return
            }
            _ = try createMasterKey(preferring: target)
            return
        }
        let key = try unlockedKey()
        let previousEntry = current == .pass ? try currentPassEntry() : nil
        defer { if let previousEntry { dropUnlessNamed(previousEntry) } }
        switch target {
        case .passphrase:
            let wrapping = try passphraseWrapping(of: key)
            try write { () throws(SQLiteError) in
                try writeSource(.passphrase, key: key)
                try Self.writeMeta(database, StoreSchema.Meta.kdfSalt, blob: wrapping.salt)
                try Self.writeMeta(database, StoreSchema.Meta.kdfParameters, text: wrapping.parameters)
                try Self.writeMeta(database, StoreSchema.Meta.wrappedKey, blob: wrapping.wrapped)
                try Self.deleteMeta(database, StoreSchema.Meta.passEntry)
            }
            if current == .secretService, let vault = options.secretService {
                // The database now holds the key; an item left in the keyring would be a second copy to protect.
                _ = try? vault.clear(storeID: storeID)
            }
        case .secretService:
            guard options.secretServiceEnabled else {
                throw .locked("no D-Bus session bus is reachable, so the Secret Service cannot take the key")
            }
            try storeInSecretService(key)
            try write { () throws(SQLiteError) in
                try writeSource(.secretService, key: key)
                for name in [
                    StoreSchema.Meta.kdfSalt, StoreSchema.Meta.kdfParameters, StoreSchema.Meta.wrappedKey,
                    StoreSchema.Meta.passEntry,
                ] {
                    try Self.deleteMeta(database, name)
                }
            }
        case .pass:
            try moveToPass(key, entry: passEntry, previous: current)
        }
    }

    /// Writes `key` to the pass entry `entry` (read back through gpg-agent), then records it as the key source;
    /// the passphrase wrapping and any Secret Service item go after.
    private func moveToPass(_ key: [UInt8], entry name: String?, previous: MasterKeySource?) throws(StoreError) {
        let entry = PassEntry(name: name ?? PassEntry.defaultName, environment: options.environment)
        let currentName = previous == .pass ? try currentPassEntry()?.name : nil
        let replacing = currentName == entry.name
        try entry.write(key, storeID: storeID, replacing: replacing)
        try write { () throws(SQLiteError) in
            try writeSource(.pass, key: key)
            try Self.writeMeta(database, StoreSchema.Meta.passEntry, text: entry.name)
            for name in [StoreSchema.Meta.kdfSalt, StoreSchema.Meta.kdfParameters, StoreSchema.Meta.wrappedKey] {
                try Self.deleteMeta(database, name)
            }
        }
        if previous == .secretService, let vault = options.secretService {
            _ = try? vault.clear(storeID: storeID)
        }
    }

    private func currentPassEntry() throws(StoreError) -> PassEntry? {
        let name: String?
        do { name = try Self.readMetaText(database, StoreSchema.Meta.passEntry) } catch { throw fail(error) }
        return name.map { PassEntry(name: $0, environment: options.environment) }
    }

    /// Removes `entry` from the password store once the database no longer names it (a migration away from it
    /// succeeded): a copy left there would be one more to protect. Nothing is removed when that cannot be read.
    private func dropUnlessNamed(_ entry: PassEntry) {
        let named: String?
        do { named = try Self.readMetaText(database, StoreSchema.Meta.passEntry) } catch { return }
        if named != entry.name { entry.remove() }
    }

    private func unlockFromPass() throws(StoreError) -> [UInt8] {
        guard let entry = try currentPassEntry() else {
            throw .damagedDatabase(path: location.databasePath, detail: "the key source is pass but no entry is named")
        }
        let key = try entry.read()
        guard try keyMatches(key) else {
            throw .locked("the pass entry '\(entry.name)' holds a key of another store")
        }
        return key
    }

    // MARK: - Unlocking (callers hold `lock`)

    /// The master key, unlocking the store on first use: the kernel keyring cache, else the recorded source; on a
    /// store that never had a key, a new one is made (Secret Service first, else a passphrase).
    func unlockedKey() throws(StoreError) -> [UInt8] {
        if let masterKey { return masterKey }
        // A cached key is checked against the store's key-check value before its first use in this process: a key
        // left by another store with the same id, or planted, must never seal anything.
        if options.useKeyCache, let cached = KeyCache(storeID: storeID).read() {
            if try keyMatches(cached) {
                masterKey = cached
                return cached
            }
            KeyCache(storeID: storeID).drop()
        }
        let key: [UInt8]
        switch try currentSource() {
        case nil: key = try createMasterKey(preferring: nil)
        case .secretService: key = try unlockFromSecretService()
        case .passphrase: key = try unlockWithPassphrase()
        case .pass: key = try unlockFromPass()
        }
        remember(key)
        return key
    }

    private func remember(_ key: [UInt8]) {
        masterKey = key
        if options.useKeyCache && !KeyCache(storeID: storeID).store(key, seconds: options.unlockForSeconds) {
            // The user's key quota may be full of cached tokens (TokenCache): the master key comes first.
            TokenCache(databasePath: location.databasePath)?.drop()
            KeyCache(storeID: storeID).store(key, seconds: options.unlockForSeconds)
        }
    }

    private func currentSource() throws(StoreError) -> MasterKeySource? {
        let text: String?
        do { text = try Self.readMetaText(database, StoreSchema.Meta.keySource) } catch { throw fail(error) }
        guard let text else { return nil }
        guard let source = MasterKeySource(rawValue: text) else {
            throw .damagedDatabase(path: location.databasePath, detail: "unknown key source '\(text)'")
        }
        return source
    }

    private func unlockFromSecretService() throws(StoreError) -> [UInt8] {
        guard let keyring = options.secretService else {
            throw .locked(
                "the master key is in the Secret Service, but no D-Bus session bus is reachable; "
                    + "run inside your desktop session (DBUS_SESSION_BUS_ADDRESS) with the keyring unlocked")
        }
        let found: [UInt8]?
        do {
            found = try keyring.lookup(storeID: storeID)
        } catch {
            throw secretServiceError(error)
        }
        guard let key = found else {
            throw .locked(
                "the Secret Service gave no master key for this store (is the keyring locked?); "
                    + "unlock your keyring and retry")
        }
        guard try keyMatches(key) else {
            throw .secretService("the key in the Secret Service does not belong to this store")
        }
        return key
    }

    private func unlockWithPassphrase() throws(StoreError) -> [UInt8] {
        let salt: [UInt8]?
        let parametersText: String?
        let wrapped: [UInt8]?
        do {
            salt = try Self.readMetaBlob(database, StoreSchema.Meta.kdfSalt)
            parametersText = try Self.readMetaText(database, StoreSchema.Meta.kdfParameters)
            wrapped = try Self.readMetaBlob(database, StoreSchema.Meta.wrappedKey)
        } catch {
            throw fail(error)
        }
        guard let salt, let parametersText, let parameters = Self.parseParameters(parametersText), let wrapped else {
            throw .damagedDatabase(path: location.databasePath, detail: "the passphrase-wrapped key is missing")
        }
        guard let passphrase = try passphraseSource.read(.unlock) else {
            throw .locked("the master key is wrapped by a passphrase; \(passphraseSource.hint)")
        }
        let wrappingKey: [UInt8]
        do {
            wrappingKey = try Scrypt.deriveKey(password: passphrase, salt: salt, parameters: parameters, length: 32)
        } catch {
            throw .storage("cannot derive the key from the passphrase: \(error)")
        }
        do {
            return try AESGCM.open(wrapped, key: wrappingKey, associatedData: wrapAssociatedData)
        } catch {
            throw .wrongPassphrase
        }
    }

    /// Makes the master key of a store that has none. The write lock is held while the key is placed, so two
    /// processes starting on a new store cannot each make their own key.
    private func createMasterKey(preferring target: MasterKeySource?) throws(StoreError) -> [UInt8] {
        let key: [UInt8]
        do { key = try SecureRandom.bytes(32) } catch { throw .storage("\(error)") }
        let useSecretService: Bool
        switch target {
        case .secretService?:
            guard options.secretServiceEnabled else {
                throw .locked("no D-Bus session bus is reachable, so the Secret Service cannot take the key")
            }
            useSecretService = true
        case .passphrase?, .pass?:
            useSecretService = false
        case nil:
            useSecretService = options.secretServiceEnabled
        }
        var secretServiceMissing = false
        if useSecretService {
            switch try createInSecretService(key) {
            case .created:
                remember(key)
                return key
            case .raced:
                // Another process made the key while this one waited: unlock the way it chose.
                return try unlockedKey()
            case .unreachable:
                // No keyring on this machine (no bus owner, no socket): a passphrase is the next source.
                guard target == nil else {
                    throw .locked("the Secret Service is not reachable, so it cannot take the key")
                }
                secretServiceMissing = true
            }
        }
        // A passphrase: asked before taking the write lock, so a slow typist blocks nobody.
        let wrapping = try passphraseWrapping(
            of: key,
            noSourceHint: secretServiceMissing || !useSecretService && target == nil
                ? "no Secret Service is reachable" : nil)
        var raced = false
        try write { () throws(SQLiteError) in
            if try Self.readMetaText(database, StoreSchema.Meta.keySource) != nil {
                raced = true
                return
            }
            try writeSource(.passphrase, key: key)
            try Self.writeMeta(database, StoreSchema.Meta.kdfSalt, blob: wrapping.salt)
            try Self.writeMeta(database, StoreSchema.Meta.kdfParameters, text: wrapping.parameters)
            try Self.writeMeta(database, StoreSchema.Meta.wrappedKey, blob: wrapping.wrapped)
        }
        if raced { return try unlockedKey() }
        remember(key)
        return key
    }

    // MARK: - Pieces

    private var wrapAssociatedData: [UInt8] { Array("authdeck-master-key:\(storeID)".utf8) }

    private func keyCheck(_ key: [UInt8]) -> [UInt8] {
        KeyCheck.value(masterKey: key, storeID: storeID)
    }

    private func keyMatches(_ key: [UInt8]) throws(StoreError) -> Bool {
        let stored: [UInt8]?
        do { stored = try Self.readMetaBlob(database, StoreSchema.Meta.keyCheck) } catch { throw fail(error) }
        guard let stored else { return true }
        return KeyCheck.matches(stored, masterKey: key, storeID: storeID)
    }

    private func writeSource(_ source: MasterKeySource, key: [UInt8]) throws(SQLiteError) {
        try Self.writeMeta(database, StoreSchema.Meta.keySource, text: source.rawValue)
        try Self.writeMeta(database, StoreSchema.Meta.keyCheck, blob: keyCheck(key))
    }

    private func write(_ body: () throws(SQLiteError) -> Void) throws(StoreError) {
        do { try database.writeTransaction(body) } catch { throw fail(error) }
    }

    private func storeInSecretService(_ key: [UInt8]) throws(StoreError) {
        guard let vault = options.secretService else {
            throw .locked("no D-Bus session bus is reachable, so the Secret Service cannot take the key")
        }
        do {
            try vault.store(key, storeID: storeID)
        } catch {
            throw secretServiceError(error)
        }
    }

    private enum Creation { case created, raced, unreachable }

    /// Places a new key in the Secret Service and records that, under the write lock.
    private func createInSecretService(_ key: [UInt8]) throws(StoreError) -> Creation {
        do { try database.execute("BEGIN IMMEDIATE") } catch { throw fail(error) }
        var committed = false
        defer { if !committed { try? database.execute("ROLLBACK") } }
        if try currentSource() != nil { return .raced }
        guard let vault = options.secretService else { return .unreachable }
        do {
            try vault.store(key, storeID: storeID)
        } catch {
            if error.unreachable { return .unreachable }
            throw secretServiceError(error)
        }
        do {
            try writeSource(.secretService, key: key)
            try database.execute("COMMIT")
            committed = true
        } catch {
            throw fail(error)
        }
        return .created
    }

    private func secretServiceError(_ error: SecretServiceFailure) -> StoreError {
        if error.timedOut { return .keyringTimeout(seconds: options.keyringTimeoutSeconds) }
        if error.unreachable { return .locked("the Secret Service is not reachable (\(error.message))") }
        return .secretService(error.message)
    }

    private func passphraseWrapping(of key: [UInt8], noSourceHint: String? = nil)
        throws(StoreError) -> (salt: [UInt8], parameters: String, wrapped: [UInt8])
    {
        guard let passphrase = try passphraseSource.read(.create) else {
            let why =
                noSourceHint.map { "\($0) and no passphrase was given" }
                ?? "a passphrase is needed to wrap the master key but none was given"
            throw .locked("\(why); \(passphraseSource.hint)")
        }
        let parameters = ScryptParameters.storeKey
        do {
            let salt = try SecureRandom.bytes(16)
            let wrappingKey = try Scrypt.deriveKey(
                password: passphrase, salt: salt, parameters: parameters,
                length: 32)
            let wrapped = try AESGCM.seal(key, key: wrappingKey, associatedData: wrapAssociatedData)
            return (salt, "\(parameters.n):\(parameters.r):\(parameters.p)", wrapped)
        } catch {
            throw .storage("cannot wrap the master key: \(error)")
        }
    }

    static func parseParameters(_ text: String) -> ScryptParameters? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let n = UInt64(parts[0]), let r = UInt32(parts[1]), let p = UInt32(parts[2]) else {
            return nil
        }
        return ScryptParameters(n: n, r: r, p: p)
    }
}
