/// Every command of SPEC section 5, in the order `--help` lists them.
enum Commands {
    static let all: [Command] = [
        Command("tui", synopsis: "tui", summary: "Open the ncurses front end (what `authdeck` alone does on a terminal).",
                run: TUICommand.run),
        Command("list", synopsis: "list [--json]", summary: "List sessions: key, backend, provider, user, status, expiry.",
                options: [.flag("json", "print a JSON array")], run: StoreCommands.list),
        Command("login", synopsis: "login PROVIDER [options]",
                summary: "Sign in with google, apple, discord, x, oidc, email or sms, and store the session.",
                options: LoginOptions.specs, run: LoginCommand.run),
        Command("use", synopsis: "use [--here] KEY",
                summary: "Select the session that commands use by default (--here: for this directory and below).",
                options: [.flag("here", "write .authdeck-session here instead of selecting")], run: DirectorySession.use),
        Command("token", synopsis: "token [KEY] [--id-token] [--json]",
                summary: "Print the access token (or session JWT), refreshing first if it expires within 60 s.",
                options: [.flag("id-token", "print the ID token instead"), .flag("json", "print token and expiry as JSON")],
                run: StoreCommands.token),
        Command("refresh", synopsis: "refresh [KEY|--all]", summary: "Refresh sessions now.",
                options: [.flag("all", "every refreshable session")], run: SessionCommands.refresh),
        Command("logout", synopsis: "logout [KEY|--all|--expired] [--revoke] [--yes]",
                summary: "Remove sessions from the store.",
                options: [.flag("all", "every session (asks first on a terminal)"),
                          .flag("expired", "every session that expired and cannot be refreshed"),
                          .flag("revoke", "also revoke the tokens at the provider"),
                          .flag("yes", "do not ask before removing several sessions")],
                run: StoreCommands.logout),
        Command("status", synopsis: "status [KEY] [--json]",
                summary: "Show when access and refresh tokens expire, checked against the server when it can.",
                options: [.flag("json", "print JSON")], run: StoreCommands.status),
        Command("open-url", synopsis: "open-url URL",
                summary: "Hand an authdeck:// redirect to the waiting sign-in (what the desktop entry runs).",
                run: SessionCommands.openURL),
        Command("totp", synopsis: "totp add USER --secret BASE32|- | --uri otpauth://…|-; totp list; totp rm USER; "
                    + "totp code USER",
                summary: "Keep TOTP seeds of test accounts in the store (- reads the seed from standard input).",
                options: [.value("secret", "base32 seed, or - for standard input"),
                          .value("uri", "otpauth:// enrolment link, or - for standard input"),
                          .flag("replace", "overwrite a stored seed"), .flag("json", "totp list as JSON")],
                run: TOTPCommand.run),
        Command("sandbox", synopsis: "sandbox [--port N] [--users FILE] [--outbox FILE] [--config-out FILE] "
                    + "[--fault NAME[,NAME…]|FILE|list]; sandbox faults [NAME[,NAME…]|none|list]; sandbox panel; "
                    + "sandbox approve URL",
                summary: "Run the built-in local identity provider and auth proxy on 127.0.0.1, with faults on demand.",
                options: [.value("port", "port (0 picks a free one)"), .value("users", "users JSON file"),
                          .value("outbox", "where one-time codes are appended"),
                          .value("config-out", "write a config.json pointing every backend here"),
                          .value("token-lifetime", "access-token lifetime in seconds (default 3600)"),
                          .value("device-interval", "device-grant polling interval in seconds (default 5)"),
                          .value("fault", "faults to switch on: NAME[,NAME…], a JSON file, or list"),
                          .value("delay-ms", "the slow-provider delay in milliseconds (default 8000)"),
                          .value("url", "sandbox faults: the sandbox's base URL (else the config's)"),
                          .value("user", "sandbox approve: the sandbox user to sign in as (default ada)"),
                          .flag("deny", "sandbox approve: deny instead of approving"),
                          .flag("json", "sandbox faults: print JSON")],
                run: SandboxCommand.run),
        Command("store", synopsis: "store lock | migrate --to secret-service|passphrase | import FILE|- | export FILE",
                summary: "Master-key handling, and moving sessions in and out of the store.",
                options: [.value("to", "secret-service or passphrase"), .flag("replace", "overwrite existing keys"),
                          .flag("skip-existing", "import only sessions whose keys are free")],
                run: StoreMaintenance.run),
        Command("trace", synopsis: "trace show FILE [--expand N,…|--all] | trace diff A B | trace replay FILE",
                summary: "Read a customer's exported sign-in trace, compare two, or reproduce one against the sandbox.",
                options: [.value("expand", "trace show: steps whose details to show, comma-separated"),
                          .flag("all", "trace show: every step's details"),
                          .flag("plain", "trace show: print to the terminal instead of opening the Trace screen"),
                          .flag("json", "print JSON"),
                          .value("timeout", "trace replay: the longest wait for a timed-out sign-in (default 10)"),
                          .value("trace-out", "trace replay: keep the replay's own trace in this file")],
                run: TraceCommand.run),
        Command("doctor", synopsis: "doctor",
                summary: "Check config, store, keyring, browser, redirect registration and provider reachability.",
                options: [.flag("json", "print the checks as JSON")], run: DoctorCommand.run),
    ]

    static func named(_ name: String) -> Command? {
        all.first { $0.name == name }
    }
}

/// The options of `authdeck login`.
enum LoginOptions {
    static let specs: [OptionSpec] = [
        .value("backend", "who issues the session: direct, turnkey, portal, sandbox or a configured name; "
            + "config.json sets turnkey's totpExtension (the sandbox's TOTP step, not in the Auth Proxy "
            + "contract: off unless true) and oauthFlow (code or hosted), and portal's redirectURL"),
        .value("session-key", "the key to store the session under"),
        .flag("replace", "overwrite a session with the same key"),
        .value("issuer", "OpenID Connect issuer URL (oidc); its discovery gives every endpoint"),
        .value("client-id", "OAuth client id"),
        .value("client-secret-file", "file holding the client secret"),
        .value("scope", "scopes, space-separated"),
        .value("contact", "email address or phone number (email, sms)"),
        .flag("no-browser", "print the URL and wait for the pasted redirect"),
        .flag("device", "use the device authorization grant"),
        .value("listen", "loopback receiver address, 127.0.0.1:PORT (a redirectURI port must match)"),
        .value("timeout", "seconds to wait (default 300)"),
        .value("trace", "write a JSON trace of every protocol step to this file"),
        .flag("json", "print the new session as JSON instead of its key"),
    ]
}
