/// Why a master-key vault (the Secret Service) call failed: its one-line message, and whether the service is
/// simply not there (no bus, nobody owns the name), which lets a new store fall back to a passphrase.
public struct SecretServiceFailure: Error, Sendable, Equatable {
    public var message: String
    public var unreachable: Bool
    public var timedOut = false

    public init(message: String, unreachable: Bool, timedOut: Bool = false) {
        self.message = message
        self.unreachable = unreachable
        self.timedOut = timedOut
    }
}
