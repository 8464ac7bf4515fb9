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

    /// The controller's persist step; `moved` hears of a made-up key that had to change (proposed, stored).
    func persist(
        into store: SessionStore,
        moved: @escaping @Sendable (String, String) -> Void
    ) -> SignInController.Persist {
        let given = givenKey != nil
        let replace = self.replace
        return { session throws(SignInError) in
            do throws(StoreError) {
                guard !given else { return try store.persist(session, replace: replace) }
                let record = try store.persistGenerated(session)
                if record.key != session.record.key { moved(session.record.key, record.key) }
                return record
            } catch {
                throw .sessionStorageFailure(message: error.description)
            }
        }
    }
}
