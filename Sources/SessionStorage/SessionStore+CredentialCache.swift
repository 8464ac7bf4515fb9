import AuthCore
import AuthCrypto
import Foundation

/// Credentials a session was exchanged for (AWS STS's temporary keys), kept until they expire so the next request
/// does not ask again: sealed under the master key as session secrets are, in a meta row named by a digest of what
/// they were asked for (never a plain file). Expired rows go whenever one is written.
extension SessionStore {
    private static let cachePrefix = "cached_credentials:"

    /// Associated data for a cached value: a prefix no session key can produce, so the blob can never be swapped in
    /// for a session's secrets, a pending key or another request's row.
    private static func cacheAssociatedData(_ name: String) -> [UInt8] {
        [0] + Array("cached-credentials".utf8) + [0] + Array(name.utf8)
    }

    /// Keeps `value` under `name` until `expiresAt`.
    public func storeCachedCredentials(_ value: [UInt8], name: String, expiresAt: Date) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        let plaintext = Array(String(Int64(expiresAt.timeIntervalSince1970)).utf8) + [0] + value
        let sealed: [UInt8]
        do {
            sealed = try AESGCM.seal(
                plaintext, key: try unlockedKey(), associatedData: Self.cacheAssociatedData(name))
        } catch let error as StoreError {
            throw error
        } catch {
            throw .storage("cannot encrypt: \(error)")
        }
        let now = Date()
        do {
            try database.writeTransaction { () throws(SQLiteError) in
                for row in try cacheNames() where row != Self.cachePrefix + name {
                    let blob = try Self.readMetaBlob(database, row) ?? []
                    let open = try? openCached(blob, name: String(row.dropFirst(Self.cachePrefix.count)))
                    if open.map({ $0.expiresAt <= now }) ?? true { try Self.deleteMeta(database, row) }
                }
                try Self.writeMeta(database, Self.cachePrefix + name, blob: sealed)
            }
        } catch {
            throw fail(error)
        }
    }

    /// The value kept under `name` while it stays valid past `validUntil`; nil when none is, or it expires sooner.
    public func cachedCredentials(name: String, validUntil: Date) throws(StoreError) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        let blob: [UInt8]?
        do {
            blob = try Self.readMetaBlob(database, Self.cachePrefix + name)
        } catch {
            throw fail(error)
        }
        guard let blob else { return nil }
        let cached = try openCached(blob, name: name)
        return cached.expiresAt > validUntil ? cached.value : nil
    }

    private func cacheNames() throws(SQLiteError) -> [String] {
        let statement = try database.prepare("SELECT name FROM meta WHERE substr(name, 1, ?2) = ?1")
        statement.bind(1, Self.cachePrefix)
        statement.bind(2, Int64(Self.cachePrefix.utf8.count))
        var names: [String] = []
        while try statement.step() { names.append(statement.string(0) ?? "") }
        return names
    }

    private func openCached(_ blob: [UInt8], name: String) throws(StoreError) -> (expiresAt: Date, value: [UInt8]) {
        let damaged = StoreError.damagedSession("cached credentials \(name.prefix(12))…")
        let plaintext = try openSealed(blob, associatedData: Self.cacheAssociatedData(name), damaged: damaged)
        guard let end = plaintext.firstIndex(of: 0),
            let seconds = Int64(String(decoding: plaintext[..<end], as: UTF8.self))
        else {
            throw damaged
        }
        return (Date(timeIntervalSince1970: TimeInterval(seconds)), Array(plaintext[(end + 1)...]))
    }
}
