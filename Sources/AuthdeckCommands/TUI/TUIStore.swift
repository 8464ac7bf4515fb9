import Foundation
import SecretService
import SessionStorage
import Synchronization
import TerminalUI

/// The TUI's handle on the session store: opened lazily (a first sign-in creates it), replaced when the unlock
/// prompt reopens it with the typed passphrase. Shared by the event loop and its background work.
final class TUIStore: Sendable {
    let location: StoreLocation
    private let options: StoreOptions
    private let current = Mutex<SessionStore?>(nil)
    /// Nothing but a passphrase typed on screen can keep a new store's key: no keyring, no passphrase file.
    private let onlyTypedPassphrase: Bool

    /// The passphrase comes from `AUTHDECK_PASSPHRASE_FILE` or the unlock screen, never from a prompt on the
    /// terminal that curses owns.
    init(global: GlobalOptions, environment: [String: String]) {
        location = StoreLocation.resolve(environment: environment)
        var options = StoreOptions.fromEnvironment(
            environment, unlockForMinutes: global.unlockForMinutes,
            keyringTimeoutSeconds: global.keyringTimeoutSeconds,
            secretService: SecretServiceKeyring(
                timeoutSeconds: global.keyringTimeoutSeconds),
            warn: { _ in })
        if (environment["AUTHDECK_PASSPHRASE_FILE"] ?? "").isEmpty {
            options.passphrase = PassphraseUnlock(hint: "type the passphrase on the unlock screen") { _ in nil }
        }
        onlyTypedPassphrase = (environment["AUTHDECK_PASSPHRASE_FILE"] ?? "").isEmpty && options.secretService == nil
        self.options = options
    }

    /// The open store; with `create`, one is made when there is none yet.
    /// Opened under the lock, so the loop and background work never open a second connection between them.
    func store(create: Bool) throws(StoreError) -> SessionStore? {
        let location = self.location
        let options = self.options
        return try current.withLock { (store: inout SessionStore?) throws(StoreError) -> SessionStore? in
            if let store { return store }
            store = try SessionStore.open(location, options: options, create: create)
            return store
        }
    }

    /// Unlocks the store, with `passphrase` when the user typed one; the status says until when. The open store is
    /// reused: a process keeps one connection per store (see `SessionStore.open`).
    func unlock(passphrase: String?) throws(StoreError) -> StoreStatus {
        guard let store = try self.store(create: passphrase != nil) else {
            return onlyTypedPassphrase ? .needsPassphrase(Self.noKeyring) : .empty
        }
        let wasCached = store.isUnlockedInCache
        let started = Date()
        if let passphrase {
            try store.unlock(passphrase: .fixed(passphrase))
        } else {
            do throws(StoreError) {
                try store.unlock()
            } catch {
                // A store that never got a key (no keyring answered): the screen chooses its passphrase.
                guard case .locked = error, try store.keySource() == nil else { throw error }
                return .needsPassphrase(Self.noKeyring)
            }
        }
        let source = (try? store.keySource())??.rawValue
        // A fresh unlock is cached for --unlock-for; one found in the cache expires when an earlier command said.
        let until =
            !wasCached && options.unlockForSeconds > 0 && store.isUnlockedInCache
            ? started.addingTimeInterval(TimeInterval(options.unlockForSeconds)) : nil
        return .unlocked(until: until, source: source)
    }

    /// The backend of the last sign-in started from the TUI, so the next run's New sign-in opens on it.
    var lastBackend: String? {
        get {
            guard let text = try? String(contentsOfFile: lastBackendPath, encoding: .utf8) else { return nil }
            let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return name.isEmpty ? nil : name
        }
        set {
            guard let newValue else { return }
            FileManager.default.createFile(
                atPath: lastBackendPath, contents: Data((newValue + "\n").utf8),
                attributes: [.posixPermissions: 0o600])
        }
    }

    private var lastBackendPath: String { location.directory + "/tui-last-backend" }

    static let noKeyring = "No keyring is reachable, so a passphrase protects the store's key."

    static func item(_ entry: StoreEntry) -> SessionItem {
        SessionItem(record: entry.record, isSelected: entry.isSelected, refreshExpiresAt: entry.refreshExpiresAt)
    }
}
