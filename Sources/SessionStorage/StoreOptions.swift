#if canImport(Glibc)
    import Glibc
#endif

/// How a `SessionStore` unlocks and behaves: the key sources it may use, how long an unlock is cached,
/// how long it waits for the keyring and for other processes.
public struct StoreOptions: Sendable {
    /// How long the unlocked master key stays in the kernel keyring; 0 caches nothing.
    public var unlockForSeconds: Int
    /// How long a Secret Service call may take before it is an error.
    public var keyringTimeoutSeconds: Int
    /// The Secret Service, when it may be used at all; nil also when no session bus is configured.
    public var secretService: MasterKeyVault?
    public var secretServiceEnabled: Bool { secretService != nil }
    /// Where passphrases come from.
    public var passphrase: PassphraseUnlock
    /// Whether the kernel keyring cache is read and written.
    public var useKeyCache: Bool
    /// How long a write waits for another process's transaction before it fails.
    public var busyTimeoutMilliseconds: Int32
    /// The environment the `pass` program runs with, when the master key is kept there.
    public var environment: [String: String]
    /// Receives one-line warnings (permissions repaired); the executable prints them on stderr.
    public var warn: @Sendable (String) -> Void

    public init(
        unlockForSeconds: Int = 900, keyringTimeoutSeconds: Int = 5, secretService: MasterKeyVault? = nil,
        passphrase: PassphraseUnlock = .unavailable, useKeyCache: Bool = true,
        busyTimeoutMilliseconds: Int32 = 5_000, environment: [String: String] = [:],
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.unlockForSeconds = unlockForSeconds
        self.keyringTimeoutSeconds = keyringTimeoutSeconds
        self.secretService = secretService
        self.passphrase = passphrase
        self.useKeyCache = useKeyCache
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.environment = environment
        self.warn = warn
    }

    /// The options a command line process uses: the Secret Service when a session bus is configured, the
    /// passphrase from `AUTHDECK_PASSPHRASE_FILE` or the terminal.
    /// `secretService` is the vault to use when a session bus is configured (the caller makes it, so this module
    /// never links libsecret). `standardInputIsTerminal` and `writeError` are the passphrase's (PassphraseUnlock).
    public static func fromEnvironment(
        _ environment: [String: String], unlockForMinutes: Int,
        keyringTimeoutSeconds: Int, secretService: MasterKeyVault?,
        standardInputIsTerminal: Bool = isatty(STDIN_FILENO) == 1,
        writeError: @escaping @Sendable (String) -> Void = PassphraseUnlock.writeError,
        warn: @escaping @Sendable (String) -> Void
    ) -> StoreOptions {
        StoreOptions(
            unlockForSeconds: unlockForMinutes * 60, keyringTimeoutSeconds: keyringTimeoutSeconds,
            secretService: SessionBus.configured(environment: environment) ? secretService : nil,
            passphrase: .fromEnvironment(
                environment, standardInputIsTerminal: standardInputIsTerminal, writeError: writeError),
            environment: environment, warn: warn)
    }
}
