import AuthCore
import AuthCrypto
import Foundation

/// Session keys waiting for their OIDC token (`login --oidc-token-only`, then `login --oidc-token`): Turnkey's
/// `completeOAuth(oidcToken:publicKey:)` finishes with the private key the SDK made for that public key, so the
/// store keeps it, sealed under the master key as session secrets are, in a meta row named by the public key.
/// No session is stored until the token is used; a pending key is dropped when used or once it has expired.
extension SessionStore {
    private static let pendingPrefix = "pending_key:"

    /// Associated data for a pending key: a prefix no session key can produce, so the blob can never be swapped in
    /// for a session's secrets, a TOTP seed or another public key's row.
    private static func pendingAssociatedData(_ publicKeyHex: String) -> [UInt8] {
        [0] + Array("pending-key".utf8) + [0] + Array(publicKeyHex.utf8)
    }

    /// Keeps `privateKey` (32 raw bytes) for `publicKeyHex` until `expiresAt`; expired ones go at the same time.
    public func storePendingKey(_ privateKey: [UInt8], publicKeyHex: String, expiresAt: Date) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        var plaintext = Array(String(Int64(expiresAt.timeIntervalSince1970)).utf8) + [0]
        plaintext += privateKey
        let sealed: [UInt8]
        do {
            sealed = try AESGCM.seal(
                plaintext, key: try unlockedKey(), associatedData: Self.pendingAssociatedData(publicKeyHex))
        } catch let error as StoreError {
            throw error
        } catch {
            throw .storage("cannot encrypt: \(error)")
        }
        let now = Date()
        do {
            try database.writeTransaction { () throws(SQLiteError) in
                for name in try pendingNames() where name != Self.pendingPrefix + publicKeyHex {
                    let blob = try Self.readMetaBlob(database, name) ?? []
                    let open = try? openPending(blob, publicKeyHex: String(name.dropFirst(Self.pendingPrefix.count)))
                    if open.map({ $0.expiresAt <= now }) ?? true { try Self.deleteMeta(database, name) }
                }
                try Self.writeMeta(database, Self.pendingPrefix + publicKeyHex, blob: sealed)
            }
        } catch {
            throw fail(error)
        }
    }

    /// The private key kept for `publicKeyHex`, or nil when none is pending (never made here, used, or expired).
    public func pendingKey(publicKeyHex: String, now: Date = Date()) throws(StoreError) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        let blob: [UInt8]?
        do {
            blob = try Self.readMetaBlob(database, Self.pendingPrefix + publicKeyHex)
        } catch {
            throw fail(error)
        }
        guard let blob else { return nil }
        let pending = try openPending(blob, publicKeyHex: publicKeyHex)
        return pending.expiresAt > now ? pending.privateKey : nil
    }

    /// Drops the pending key of `publicKeyHex` (its token was used).
    public func removePendingKey(publicKeyHex: String) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        do {
            try database.writeTransaction { () throws(SQLiteError) in
                try Self.deleteMeta(database, Self.pendingPrefix + publicKeyHex)
            }
        } catch {
            throw fail(error)
        }
    }

    private func pendingNames() throws(SQLiteError) -> [String] {
        let statement = try database.prepare("SELECT name FROM meta WHERE substr(name, 1, ?2) = ?1")
        statement.bind(1, Self.pendingPrefix)
        statement.bind(2, Int64(Self.pendingPrefix.utf8.count))
        var names: [String] = []
        while try statement.step() { names.append(statement.string(0) ?? "") }
        return names
    }

    private func openPending(_ blob: [UInt8], publicKeyHex: String) throws(StoreError) -> (
        expiresAt: Date, privateKey: [UInt8]
    ) {
        let plaintext = try openSealed(
            blob, associatedData: Self.pendingAssociatedData(publicKeyHex),
            damaged: .damagedSession("pending key \(publicKeyHex.prefix(12))…"))
        guard let end = plaintext.firstIndex(of: 0),
            let seconds = Int64(String(decoding: plaintext[..<end], as: UTF8.self)),
            plaintext.count - end - 1 == 32
        else {
            throw .damagedSession("pending key \(publicKeyHex.prefix(12))…")
        }
        return (Date(timeIntervalSince1970: TimeInterval(seconds)), Array(plaintext[(end + 1)...]))
    }
}
