import AuthClient
import AuthCore
import Sandbox
import TerminalUI

/// The command table: every command of SPEC section 5, in the order `--help` lists them, with its subcommands and
/// one row per option. The parser, every `--help`, the shell completions and the man page's command and option
/// lists come from it (`make completions` regenerates Resources/completions and Resources/authdeck.1).
enum Commands {
    static let all: [Command] = [
        tui, list, login, use, token, exec, env, gitCredential, awsCredentials, agent, stamp, dpopProof, refresh,
        logout, status,
        inspect, introspect, openURL, totp,
        dockerCredential,
        sandbox, store, trace, doctor,
    ]

    static let tui = Command(
        "tui", synopsis: "tui [--theme NAME]",
        summary: "Open the ncurses front end (what `authdeck` alone does on a terminal).",
        options: [
            .choice(
                "theme", Theme.names, placeholder: "NAME",
                "dark (the default), light (for a white background) or monochrome (no colour; focus marked with >); "
                    + "before $AUTHDECK_THEME and config.json's theme, and NO_COLOR always means monochrome")
        ],
        run: TUICommand.run)

    static let list = Command(
        "list", synopsis: "list [--json]", summary: "List sessions: key, backend, provider, user, status, expiry.",
        options: [.flag("json", "print a JSON array")], run: StoreCommands.list)

    static let login = Command(
        "login", synopsis: "login PROVIDER [options]",
        summary: "Sign in with \(Provider.standardNames), and store the session.",
        options: [
            .choice(
                "backend", ["direct", "sandbox", "sandbox-turnkey", "sandbox-portal", "turnkey", "portal"],
                placeholder: "NAME",
                "who issues the session: direct, turnkey, portal, sandbox or a "
                    + "configured name; config.json sets turnkey's totpExtension (the sandbox's TOTP step, "
                    + "not in the Auth Proxy contract: off unless true) and oauthFlow (code or hosted), and "
                    + "portal's redirectURL"),
            .value("session-key", "KEY", "the key to store the session under"),
            .flag("replace", "overwrite a session with the same key"),
            .value("issuer", "URL", "OpenID Connect issuer URL (oidc); its discovery gives every endpoint"),
            .value("client-id", "ID", "OAuth client id"),
            .file("client-secret-file", "file holding the client secret"),
            .choice(
                "auth-method",
                [
                    "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt",
                    "tls_client_auth", "self_signed_tls_client_auth", "none",
                ],
                placeholder: "METHOD", "how the client authenticates at the token and revocation endpoints"),
            .file("private-key-file", "owner-only PEM key (RSA or P-256) that signs private_key_jwt assertions"),
            .value("key-id", "KID", "the kid put in private_key_jwt assertions' header"),
            .file("client-certificate", "PEM certificate presented in the TLS handshake (mutual TLS, RFC 8705)"),
            .file("client-certificate-key", "owner-only PEM private key of --client-certificate"),
            .value("scope", "SCOPES", "scopes, space-separated"),
            .flag("dpop", "DPoP-bound tokens (RFC 9449): a key per session, a proof with every request"),
            .value("contact", "ADDRESS", "email address or phone number (email, sms, email-link)"),
            .choice(
                "passkey", PasskeyCredential.Kind.allCases.map(\.rawValue), placeholder: "KIND",
                "Para's passkey after a sandbox social sign-in: software (kept in the store) or hardware (a FIDO2 "
                    + "security key)"),
            .flag("no-browser", "print the URL and wait for the pasted redirect"),
            .flag("device", "use the device authorization grant (the same as --grant device)"),
            .choice(
                "grant", SignInGrant.names, placeholder: "GRANT",
                "how tokens are asked for: authorization-code (the default), device, client-credentials (a "
                    + "machine session), ciba or token-exchange"),
            .value("binding-message", "TEXT", "--grant ciba: the message shown on both devices"),
            .session("subject-session", "KEY", "--grant token-exchange: the session whose access token is exchanged"),
            .value("audience", "A", "--grant token-exchange: the audience of the new token"),
            .value("requested-token-type", "TYPE", "--grant token-exchange: the token type to ask for (a URN)"),
            .value(
                "browser", "CMD",
                "browser command for this session, kept with it: {url} the page, {profile} its own profile folder"),
            .value("step-up", "KEY", "sign session KEY in again as it was, replacing it on success (RFC 9470)"),
            .flag("par", "push the authorization request first (PAR), as pushedAuthorizationRequests: true"),
            .flag(
                "request-object",
                "send the authorization request as a request object signed with privateKeyFile (JAR)"),
            .choice(
                "prompt", AuthorizationOptions.prompts, placeholder: "PROMPT",
                "OpenID Connect prompt: login, consent, select_account or none"),
            .value(
                "login-hint", "HINT",
                "the account to sign in as, sent as login_hint; with --grant ciba, whom the provider asks to approve"),
            .value(
                "max-age", "SECONDS",
                "max_age: sign in again if the last sign-in is older; the ID token's auth_time is checked"),
            .value("acr-values", "\"A B\"", "acr_values, space-separated; the ID token's acr must be one of them"),
            .value("claims", "JSON", "the claims request parameter, a JSON object"),
            .value(
                "resource", "URI",
                "the resource the token is for (RFC 8707), on the authorization and token requests; repeatable "
                    + "(once with --grant token-exchange)"),
            .value(
                "authorization-details", "JSON|@FILE",
                "RFC 9396 authorization_details, a JSON array, or @FILE to read it from a file"),
            .value(
                "param", "NAME=VALUE",
                "an extra authorization request parameter; repeatable (not state, nonce, redirect_uri…)"),
            .value(
                "listen", "127.0.0.1:PORT",
                "loopback receiver address, 127.0.0.1:PORT (a redirectURI port must match)"),
            .value("timeout", "SECONDS", "seconds to wait (default 300)"),
            .file("trace", "write a JSON trace of every protocol step to this file"),
            .flag("json", "print the new session as JSON instead of its key"),
            .flag("yes", "keep a session that came without state (Portal) without asking whom it signs in"),
            .flag(
                "oidc-token-only",
                "turnkey: stop at the provider's OIDC token and print it (stdout) with the session public key; "
                    + "no session is stored, only its key, pending"),
            OptionSpec(
                name: "oidc-token", takesValue: true,
                help: "turnkey: finish with this OIDC token (an owner-only file, or - for standard input)",
                placeholder: "FILE|-", completion: .files),
            .value("public-key", "HEX", "with --oidc-token: the pending session public key its nonce is bound to"),
        ],
        operands: .words(Provider.standard.map(\.name)), refusedGlobals: ["session"], run: LoginCommand.run)

    static let use = Command(
        "use", synopsis: "use [--here] KEY",
        summary: "Select the session that commands use by default (--here: for this directory and below).",
        options: [.flag("here", "write .authdeck-session here instead of selecting")], operands: .sessions,
        run: DirectorySession.use)

    static let token = Command(
        "token", synopsis: "token [KEY] [--id-token] [--json] [--min-valid DUR] [--format FORMAT]",
        summary: "Print the access token (or session JWT), refreshing first if it expires within its refresh window.",
        options: [
            .flag("id-token", "print the ID token instead"),
            .flag("json", "print token and expiry as JSON (--format json)"),
            .value(
                "min-valid", "DUR",
                "refresh first unless the token stays valid this long (90, 5m, 1h30m; default: the refresh window)"),
            .choice(
                "format", ["plain", "json", "exec-credential"],
                "plain, json, or exec-credential (kubectl's exec plugin object)"),
        ],
        operands: .sessions, run: TokenCommand.run)

    static let exec = Command(
        "exec",
        synopsis: "exec [--env NAME | --env-file FILE [--mask]] [--min-valid DUR] [--step-up-watch] -- COMMAND ARGS…",
        summary: "Run a command with the token in $AUTHDECK_TOKEN and the key in $AUTHDECK_SESSION.",
        options: [
            .value("env", "NAME", "the variable that holds the token (default AUTHDECK_TOKEN)"),
            .file("env-file", "set the NAME=value lines of FILE; authdeck://KEY/token is that session's token"),
            .flag("mask", "show the env file's tokens as <authdeck:KEY> in the command's output"),
            .value(
                "min-valid", "DUR", "refresh first unless the token stays valid this long (default: the refresh window)"
            ),
            .flag(
                "step-up-watch",
                "watch the command's output for a step-up challenge (RFC 9470) and say how to answer it"),
        ],
        operands: .command, run: ExecCommand.run)

    static let env = Command(
        "env", synopsis: "env [KEY] [--shell bash|zsh|sh|fish] [--env NAME] [--min-valid DUR]",
        summary: "Print export lines for eval: the token and the session key.",
        options: [
            .choice("shell", ["bash", "zsh", "sh", "fish"], "bash, zsh, sh or fish (default: from $SHELL)"),
            .value("env", "NAME", "the variable that holds the token (default AUTHDECK_TOKEN)"),
            .value(
                "min-valid", "DUR", "refresh first unless the token stays valid this long (default: the refresh window)"
            ),
        ],
        operands: .sessions, run: EnvCommand.run)

    static let dockerCredential = Command(
        "docker-credential", synopsis: "docker-credential get|store|erase|list",
        summary: "A Docker credential helper (docker-credential-authdeck): a registry's session token as its secret.",
        options: [
            .value(
                "min-valid", "DUR", "refresh first unless the token stays valid this long (default: the refresh window)"
            )
        ],
        operands: .words(["get", "store", "erase", "list"]), run: DockerCredentialCommand.run)

    static let gitCredential = Command(
        "git-credential", synopsis: "git-credential get|store|erase [--host HOST --username NAME]",
        summary: "A git credential helper: the token of the session mapped to the host, as its password.",
        options: [
            .value(
                "host", "HOST",
                "answer for this host (host or host:port) with --session, besides config.json's map"),
            .value("username", "NAME", "the username to send with --host (default x-access-token)"),
            .value(
                "min-valid", "DUR", "refresh first unless the token stays valid this long (default: the refresh window)"
            ),
        ],
        operands: .words(["get", "store", "erase"]), run: GitCredentialCommand.run)

    static let awsCredentials = Command(
        "aws-credentials",
        synopsis: "aws-credentials --role-arn ARN [KEY] [--duration DUR] [--role-session-name NAME]",
        summary: "AWS credentials for a role, from the session's ID token (STS AssumeRoleWithWebIdentity), "
            + "as credential_process prints them.",
        options: [
            .value("role-arn", "ARN", "the IAM role to assume (arn:aws:iam::ACCOUNT:role/NAME)"),
            .value("duration", "DUR", "how long the credentials last, 15m to 12h (default: the role's, often 1h)"),
            .value("role-session-name", "NAME", "the role session name (default authdeck-KEY)"),
        ],
        operands: .sessions, run: AWSCredentialsCommand.run)

    static let agent = Command(
        "agent", synopsis: "agent --allow KEY[,KEY…]|'*' [--socket PATH] [--confirm] [--log FILE]",
        summary: "Serve tokens on a Unix socket (AUTHDECK_AGENT_SOCK), to forward with ssh -R.",
        options: [
            .session(
                "allow", "KEY[,KEY…]|'*'",
                "sessions it serves, comma-separated, or '*' for every one (required)"),
            .file("socket", "socket path (default $XDG_RUNTIME_DIR/authdeck/agent.sock)"),
            .flag("confirm", "ask on the agent's terminal before answering each request"),
            .file("log", "append one line per request to this file (default standard error)"),
        ],
        run: AgentCommand.run)

    static let stamp = Command(
        "stamp", synopsis: "stamp [KEY] --body FILE|- [--header]",
        summary: "Print the Turnkey X-Stamp header value for a request body, signed with the session key.",
        options: [
            .file("body", "the exact request body to stamp: a file, or - for standard input"),
            .flag("header", "print the whole header line (X-Stamp: …) instead of the value"),
        ],
        operands: .sessions, run: StampCommand.run)

    static let dpopProof = Command(
        "dpop-proof", synopsis: "dpop-proof [KEY] --method METHOD --url URL [--nonce N]",
        summary: "Print a DPoP proof for one request with the session's token (its DPoP header value).",
        options: [
            .value("method", "METHOD", "the request's HTTP method (GET, POST…)"),
            .value("url", "URL", "the request's URL (query and fragment are left out of the proof)"),
            .value("nonce", "N", "the DPoP-Nonce the server answered, to put in the proof"),
        ],
        operands: .sessions, run: DPoPProofCommand.run)

    static let refresh = Command(
        "refresh", synopsis: "refresh [KEY|--all]", summary: "Refresh sessions now.",
        options: [.flag("all", "every refreshable session")], operands: .sessions,
        run: SessionCommands.refresh)

    static let logout = Command(
        "logout", synopsis: "logout [KEY|--all|--expired] [--revoke] [--yes] [--end-session]",
        summary: "Remove sessions from the store.",
        options: [
            .flag("all", "every session (asks first on a terminal; without one, only with --yes)"),
            .flag("expired", "every session that expired and cannot be refreshed"),
            .flag("revoke", "also revoke the tokens at the provider"),
            .flag("yes", "do not ask before removing several sessions"),
            .flag(
                "end-session",
                "first end the session at the provider in the browser (OpenID Connect RP-Initiated Logout); "
                    + "config.json's postLogoutRedirectURI or listen says where the browser comes back"),
            .flag("no-browser", "with --end-session: print the provider's sign-out address instead of opening it"),
            .value("timeout", "SECONDS", "with --end-session: how long to wait for the browser (default 300)"),
        ],
        operands: .sessions, run: StoreCommands.logout)

    static let status = Command(
        "status", synopsis: "status [KEY] [--json]",
        summary: "Show when access and refresh tokens expire, checked against the server when it can.",
        options: [.flag("json", "print JSON")], operands: .sessions, run: StoreCommands.status)

    static let inspect = Command(
        "inspect", synopsis: "inspect [KEY] [--json]",
        summary: "Decode the ID and access tokens and check their signatures, issuer, audience and times.",
        options: [.flag("json", "print one JSON document: headers, claims and checks")], operands: .sessions,
        run: InspectCommand.inspect)

    static let introspect = Command(
        "introspect", synopsis: "introspect [KEY] [--json]",
        summary: "Ask the provider whether the access token is active (RFC 7662 introspection).",
        options: [.flag("json", "print the provider's answer as JSON")], operands: .sessions,
        run: InspectCommand.introspect)

    static let openURL = Command(
        "open-url", synopsis: "open-url URL",
        summary: "Hand an authdeck:// redirect to the waiting sign-in (what the desktop entry runs).",
        run: SessionCommands.openURL)

    static let totp = Command(
        "totp", synopsis: "totp add|list|rm|code",
        summary: "Keep TOTP seeds of test accounts in the store (- reads the seed from standard input).",
        subcommands: [
            Command(
                "add", synopsis: "totp add USER --secret BASE32|- | --uri otpauth://…|- [--replace]",
                summary: "Store a test account's TOTP seed (USER defaults to the otpauth link's account).",
                options: [
                    .value("secret", "BASE32|-", "the base32 seed, or - for standard input"),
                    .value(
                        "uri", "otpauth://…|-",
                        "an otpauth:// enrolment link, or - for standard input"),
                    .flag("replace", "overwrite a stored seed"),
                ]),
            Command(
                "list", synopsis: "totp list [--json]", summary: "List the stored seeds' accounts.",
                options: [.flag("json", "print a JSON array")]),
            Command("rm", synopsis: "totp rm USER", summary: "Remove a test account's seed."),
            Command("code", synopsis: "totp code USER", summary: "Print a test account's current code."),
        ],
        run: TOTPCommand.run)

    static let sandbox = Command(
        "sandbox",
        synopsis: "sandbox [--port N] [--users FILE] [--outbox FILE] [--config-out FILE] "
            + "[--fault NAME[,NAME…]|FILE|list]",
        summary: "Run the built-in local identity provider and auth proxy on 127.0.0.1, with faults on demand.",
        options: [
            .value("port", "N", "port (default 8750; 0 picks a free one)"), .file("users", "users JSON file"),
            .file("outbox", "where one-time codes are appended"),
            .file("config-out", "write a config.json pointing every backend here"),
            .value("token-lifetime", "SECONDS", "access-token lifetime in seconds (default 3600)"),
            .value("device-interval", "SECONDS", "device-grant polling interval in seconds (default 5)"),
            .value(
                "post-logout-redirect-uri", "URI",
                "the post-logout redirect URI its clients register, written to config.json "
                    + "(default http://127.0.0.1:8751/logout)"),
            .choice(
                "fault", ["list"] + SandboxFault.allCases.map(\.rawValue), files: true,
                placeholder: "NAME[,NAME…]|FILE|list",
                "faults to switch on: NAME[,NAME…], a JSON file, or list"),
            .value("delay-ms", "N", "the slow-provider delay in milliseconds (default 8000)"),
            .value(
                "trust-issuer", "ISSUER=FILE",
                "an outside OIDC issuer whose ID tokens the auth proxy takes, its JWKS in FILE; repeatable"),
        ],
        subcommands: [
            Command(
                "faults",
                synopsis: "sandbox faults [NAME[,NAME…]|none|list] [--delay-ms N] [--url URL] "
                    + "[--json]",
                summary: "Show or switch the faults of a running sandbox.",
                options: [
                    .value("delay-ms", "N", "the slow-provider delay in milliseconds"),
                    .value("url", "URL", "the sandbox's base URL (else the config's)"),
                    .flag("json", "print JSON"),
                ],
                operands: .words(["none", "list"] + SandboxFault.allCases.map(\.rawValue))),
            Command(
                "panel", synopsis: "sandbox panel [--url URL]",
                summary: "Switch a running sandbox's faults on the terminal.",
                options: [.value("url", "URL", "the sandbox's base URL (else the config's)")]),
            Command(
                "approve", synopsis: "sandbox approve URL [--user NAME] [--deny]",
                summary: "Answer a sandbox consent page from the terminal, as a browser would.",
                options: [
                    .choice(
                        "user", ["ada", "bob", "cleo", "dora"], placeholder: "NAME",
                        "the sandbox user to sign in as (default ada)"),
                    .flag("deny", "deny instead of approving"),
                ]),
        ],
        run: SandboxCommand.run)

    static let store = Command(
        "store", synopsis: "store lock|migrate|import|export",
        summary: "Master-key handling, and moving sessions in and out of the store.",
        subcommands: [
            Command("lock", synopsis: "store lock", summary: "Forget the cached unlocked store key."),
            Command(
                "migrate", synopsis: "store migrate --to secret-service|passphrase|pass [--pass-entry NAME]",
                summary: "Keep the master key with the Secret Service, under a passphrase, or in pass.",
                options: [
                    .choice(
                        "to", ["secret-service", "passphrase", "pass"], "secret-service, passphrase or pass"),
                    .value("pass-entry", "NAME", "the pass entry for the key (default authdeck/master-key)"),
                ]),
            Command(
                "import", synopsis: "store import FILE|- [--replace|--skip-existing]",
                summary: "Add sessions from an export bundle or JSON lines.",
                options: [
                    .flag("replace", "overwrite existing keys"),
                    .flag("skip-existing", "import only sessions whose keys are free"),
                ],
                operands: .files),
            Command(
                "export", synopsis: "store export FILE|-",
                summary: "Write every session and TOTP seed to an encrypted bundle.", operands: .files),
        ],
        run: StoreMaintenance.run)

    static let trace = Command(
        "trace", synopsis: "trace show|diff|replay",
        summary: "Read a customer's exported sign-in trace, compare two, or reproduce one against the sandbox.",
        subcommands: [
            Command(
                "show", synopsis: "trace show FILE [--plain|--expand N,…|--all] [--json]",
                summary: "Open a trace file on the TUI's Trace screen (printed when piped or with --plain).",
                options: [
                    .value("expand", "N,…", "steps whose details to show, comma-separated"),
                    .flag("all", "every step's details"),
                    .flag("plain", "print to the terminal instead of opening the Trace screen"),
                    .flag("json", "print the steps as JSON"),
                ],
                operands: .files),
            Command(
                "diff", synopsis: "trace diff A B [--json]",
                summary: "Compare two traces and mark the first divergence.",
                options: [.flag("json", "print JSON")], operands: .files),
            Command(
                "replay", synopsis: "trace replay FILE [--timeout S] [--trace-out FILE] [--json]",
                summary: "Reproduce a trace's sign-in against a sandbox with the faults it shows.",
                options: [
                    .value("timeout", "S", "the longest wait for a timed-out sign-in (default 10)"),
                    .file("trace-out", "keep the replay's own trace in this file"),
                    .flag("json", "print JSON"),
                ],
                operands: .files),
        ],
        run: TraceCommand.run)

    static let doctor = Command(
        "doctor", synopsis: "doctor",
        summary: "Check config, store, keyring, browser, redirect registration and provider reachability.",
        options: [.flag("json", "print the checks as JSON")], run: DoctorCommand.run)

    static func named(_ name: String) -> Command? {
        all.first { $0.name == name }
    }
}
