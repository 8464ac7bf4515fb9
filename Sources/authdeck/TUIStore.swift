import Foundation
import Keyring
import SecretService
import Synchronization
import TerminalUI

/// The TUI's handle on the session store: opened lazily (a first sign-in creates it), replaced when the unlock
/// prompt reopens it with the typed passphrase. Shared by the event loop and its background work.
final class TUIStore: Sendable {
    let location: StoreLocation
    private let options: StoreOptions
    private let current = Mutex<SessionStore?>(nil)

    /// The passphrase comes from `AUTHDECK_PASSPHRASE_FILE` or the unlock screen, never from a prompt on the
    /// terminal that curses owns.
    init(global: GlobalOptions, environment: [String: String]) {
        location = StoreLocation.resolve(environment: environment)
        var options = StoreOptions.fromEnvironment(environment, unlockForMinutes: global.unlockForMinutes,
                                                   keyringTimeoutSeconds: global.keyringTimeoutSeconds,
                                                   secretService: SecretServiceKeyring(
                                                       timeoutSeconds: global.keyringTimeoutSeconds),
                                                   warn: { _ in })
        if (environment["AUTHDECK_PASSPHRASE_FILE"] ?? "").isEmpty {
            options.passphrase = PassphraseUnlock(hint: "type the passphrase on the unlock screen") { _ in nil }
        }
        self.options = options
    }

    /// The open store; with `create`, one is made when there is none yet.
    func store(create: Bool) throws(StoreError) -> SessionStore? {
        if let store = current.withLock({ $0 }) { return store }
        guard let opened = try SessionStore.open(location, options: options, create: create) else { return nil }
        current.withLock { $0 = opened }
        return opened
    }

    /// Unlocks the store, with `passphrase` when the user typed one; the status says until when.
    func unlock(passphrase: String?) throws(StoreError) -> StoreStatus {
        var store: SessionStore
        if let passphrase {
            var typed = options
            typed.passphrase = .fixed(passphrase)
            guard let reopened = try SessionStore.open(location, options: typed, create: true) else {
                return .empty
            }
            store = reopened
        } else {
            guard let existing = try self.store(create: false) else { return .empty }
            store = existing
        }
        let wasCached = store.isUnlockedInCache
        let started = Date()
        try store.unlock()
        current.withLock { $0 = store }
        let source = (try? store.keySource())??.rawValue
        // A fresh unlock is cached for --unlock-for; one found in the cache expires when an earlier command said.
        let until = !wasCached && options.unlockForSeconds > 0 && store.isUnlockedInCache
            ? started.addingTimeInterval(TimeInterval(options.unlockForSeconds)) : nil
        return .unlocked(until: until, source: source)
    }

    /// Every session as a table row.
    func items() throws(StoreError) -> [SessionItem] {
        guard let store = try store(create: false) else { return [] }
        return try store.entries().map(Self.item)
    }

    static func item(_ entry: StoreEntry) -> SessionItem {
        SessionItem(record: entry.record, isSelected: entry.isSelected, refreshExpiresAt: entry.refreshExpiresAt)
    }
}
