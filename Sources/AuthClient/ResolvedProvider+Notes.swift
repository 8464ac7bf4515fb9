import AuthCore

extension ResolvedProvider {
    /// For a provider that compares the redirect URI exactly (X, Discord: its preset's `note` says so): the note,
    /// and the loopback redirect URI this attempt sends, which the provider refuses unless it is registered as it
    /// is. Nothing for a configured `redirectURI` (registered by definition) or a method without a redirect.
    func redirectNotes(for attempt: Attempt, randomPort: Bool) -> [String] {
        guard let note = preset.note, registeredRedirectURI == nil, case .browser(let redirectURI) = attempt.method
        else { return [] }
        var sent =
            "this sign-in sends the redirect URI \(redirectURI); \(preset.title) refuses it unless exactly "
            + "that URI is registered"
        if randomPort {
            sent +=
                " (its port is random on every sign-in: set \"listen\": \"127.0.0.1:PORT\" in config.json, or "
                + "--listen, and register that port once; authdeck doctor checks it)"
        }
        return [note, sent]
    }
}
