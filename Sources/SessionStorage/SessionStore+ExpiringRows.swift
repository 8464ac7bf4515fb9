import AuthCore
import AuthCrypto
import Foundation

/// Values sealed under the master key in meta rows that expire (pending session keys, cached exchanged
/// credentials): each kind has its row prefix and its associated data, a prefix no session key can produce, so a
/// blob can never be swapped in for a session's secrets, a TOTP seed or another row. Expired rows of a kind go
/// whenever one of its rows is written. Callers hold `lock`.
extension SessionStore {
    struct ExpiringRows {
        /// The meta-row prefix; the row of `name` is `prefix + name`.
        let prefix: String
        /// What the associated data names (`pending-key`, `cached-credentials`).
        let purpose: String
        /// How a damaged row is named in errors (`pending key`).
        let what: String

        func associatedData(_ name: String) -> [UInt8] {
            [0] + Array(purpose.utf8) + [0] + Array(name.utf8)
        }

        func damaged(_ name: String) -> StoreError {
            .damagedSession("\(what) \(name.prefix(12))…")
        }
    }

    /// Seals `value` until `expiresAt` in the row of `name`, dropping the kind's expired (or unreadable) rows.
    func sealExpiring(_ value: [UInt8], in rows: ExpiringRows, name: String, expiresAt: Date) throws(StoreError) {
        let plaintext = Array(String(Int64(expiresAt.timeIntervalSince1970)).utf8) + [0] + value
        let sealed: [UInt8]
        do {
            sealed = try AESGCM.seal(plaintext, key: try unlockedKey(), associatedData: rows.associatedData(name))
        } catch let error as StoreError {
            throw error
        } catch {
            throw .storage("cannot encrypt: \(error)")
        }
        let now = Date()
        do {
            try database.writeTransaction { () throws(SQLiteError) in
                for row in try rowNames(rows.prefix) where row != rows.prefix + name {
                    let blob = try Self.readMetaBlob(database, row) ?? []
                    let open = try? openExpiring(blob, in: rows, name: String(row.dropFirst(rows.prefix.count)))
                    if open.map({ $0.expiresAt <= now }) ?? true { try Self.deleteMeta(database, row) }
                }
                try Self.writeMeta(database, rows.prefix + name, blob: sealed)
            }
        } catch {
            throw fail(error)
        }
    }

    /// The row of `name`, opened; nil when there is none (expired or not is the caller's to judge).
    func readExpiring(in rows: ExpiringRows, name: String) throws(StoreError) -> (expiresAt: Date, value: [UInt8])? {
        let blob: [UInt8]?
        do {
            blob = try Self.readMetaBlob(database, rows.prefix + name)
        } catch {
            throw fail(error)
        }
        return try blob.map { blob throws(StoreError) in try openExpiring(blob, in: rows, name: name) }
    }

    /// Drops the row of `name`.
    func removeExpiring(in rows: ExpiringRows, name: String) throws(StoreError) {
        do {
            try database.writeTransaction { () throws(SQLiteError) in
                try Self.deleteMeta(database, rows.prefix + name)
            }
        } catch {
            throw fail(error)
        }
    }

    private func rowNames(_ prefix: String) throws(SQLiteError) -> [String] {
        let statement = try database.prepare("SELECT name FROM meta WHERE substr(name, 1, ?2) = ?1")
        statement.bind(1, prefix)
        statement.bind(2, Int64(prefix.utf8.count))
        var names: [String] = []
        while try statement.step() { names.append(statement.string(0) ?? "") }
        return names
    }

    private func openExpiring(_ blob: [UInt8], in rows: ExpiringRows, name: String) throws(StoreError) -> (
        expiresAt: Date, value: [UInt8]
    ) {
        let plaintext = try openSealed(blob, associatedData: rows.associatedData(name), damaged: rows.damaged(name))
        guard let end = plaintext.firstIndex(of: 0),
            let seconds = Int64(String(decoding: plaintext[..<end], as: UTF8.self))
        else {
            throw rows.damaged(name)
        }
        return (Date(timeIntervalSince1970: TimeInterval(seconds)), Array(plaintext[(end + 1)...]))
    }
}
