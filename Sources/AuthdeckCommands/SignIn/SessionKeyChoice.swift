import AuthClient
import AuthCore
import SessionStorage

/// How a sign-in's session gets its key, for `login` and the TUI alike: a key the user gave is stored under that
/// key (replacing only with `--replace`); a key authdeck made up replaces a session only for the same backend,
/// issuer and subject, and otherwise moves to a free `key-N` (`SessionStore.persistGenerated`).
struct SessionKeyChoice {
    let givenKey: String?
    let replace: Bool

    init(_ request: SignInRequest) {
        givenKey = request.sessionKey
        replace = request.replace
    }

    /// The controller's persist step; `moved` hears, in one line for the user, of a made-up key that had to change.
    func persist(
        into store: SessionStore,
        moved: @escaping @Sendable (String) -> Void
    ) -> SignInController.Persist {
        let given = givenKey != nil
        let replace = self.replace
        return { session throws(SignInError) in
            do throws(StoreError) {
                guard !given else { return try store.persist(session, replace: replace) }
                let record = try store.persistGenerated(session)
                if record.key != session.record.key {
                    moved(
                        Self.movedWords(
                            session.record, storedAs: record.key, holder: try? store.entry(session.record.key)))
                }
                return record
            } catch {
                throw .sessionStorageFailure(message: error.description)
            }
        }
    }

    /// Why a made-up key moved: the session holding it is another account's, or this account's through another
    /// backend: the same issuer and subject, or (an auth proxy issues its own) the same provider and address through
    /// another backend.
    static func movedWords(_ record: SessionRecord, storedAs stored: String, holder: StoreEntry?) -> String {
        let proposed = record.key
        let address = { (record: SessionRecord) in (record.email ?? record.phone)?.lowercased() }
        if let holder = holder?.record,
            holder.issuer == record.issuer && holder.subject == record.subject
                || holder.backend != record.backend && holder.provider == record.provider && address(holder) != nil
                    && address(holder) == address(record)
        {
            return "'\(proposed)' is this account's session on backend '\(holder.backend)'; stored as '\(stored)'"
        }
        return "'\(proposed)' names another account's session; stored as '\(stored)'"
    }
}
