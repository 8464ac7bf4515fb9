# fish completion for authdeck, generated from its command table (Sources/AuthdeckCommands/CommandTable/Commands.swift)
# by `make completions`: edit the table, not this file.
function __authdeck_sessions
    authdeck list --json 2>/dev/null | python3 -c 'import json,sys
try:
    print("\n".join(s["key"] for s in json.load(sys.stdin)))
except Exception:
    pass' 2>/dev/null
end

# The command and subcommand typed so far ("totp list"): the subcommand is the first word after the
# command that is not an option.
function __authdeck_scope
    set -l words (commandline -opc)
    test (count $words) -ge 2; or return 0
    set -l scope $words[2]
    for i in (seq 3 (count $words))
        string match -q -- '-*' $words[$i]; and continue
        contains -- "$scope $words[$i]" 'totp add' 'totp list' 'totp rm' 'totp code' 'sandbox faults' 'sandbox panel' 'sandbox approve' 'store lock' 'store migrate' 'store import' 'store export' 'trace show' 'trace diff' 'trace replay'; and set scope "$scope $words[$i]"
        break
    end
    echo $scope
end

function __authdeck_in
    set -l scope (__authdeck_scope)
    test "$scope" = "$argv[1]"
end

complete -c authdeck -f
complete -c authdeck -n '__authdeck_in ""' -l version -d 'print the version'
complete -c authdeck -n '__authdeck_in ""' -a tui -d 'Open the ncurses front end (what `authdeck` alone does on a terminal)'
complete -c authdeck -n '__authdeck_in ""' -a list -d 'List sessions: key, backend, provider, user, status, expiry'
complete -c authdeck -n '__authdeck_in ""' -a login -d 'Sign in with google, apple, discord, x, oidc, email or sms, and store the session'
complete -c authdeck -n '__authdeck_in ""' -a use -d 'Select the session that commands use by default (--here: for this directory and below)'
complete -c authdeck -n '__authdeck_in ""' -a token -d 'Print the access token (or session JWT), refreshing first if it expires within 60 s'
complete -c authdeck -n '__authdeck_in ""' -a exec -d 'Run a command with the token in $AUTHDECK_TOKEN and the key in $AUTHDECK_SESSION'
complete -c authdeck -n '__authdeck_in ""' -a env -d 'Print export lines for eval: the token and the session key'
complete -c authdeck -n '__authdeck_in ""' -a git-credential -d 'A git credential helper: the token of the session mapped to the host, as its password'
complete -c authdeck -n '__authdeck_in ""' -a agent -d 'Serve tokens on a Unix socket (AUTHDECK_AGENT_SOCK), to forward with ssh -R'
complete -c authdeck -n '__authdeck_in ""' -a stamp -d 'Print the Turnkey X-Stamp header value for a request body, signed with the session key'
complete -c authdeck -n '__authdeck_in ""' -a dpop-proof -d 'Print a DPoP proof for one request with the session\'s token (its DPoP header value)'
complete -c authdeck -n '__authdeck_in ""' -a refresh -d 'Refresh sessions now'
complete -c authdeck -n '__authdeck_in ""' -a logout -d 'Remove sessions from the store'
complete -c authdeck -n '__authdeck_in ""' -a status -d 'Show when access and refresh tokens expire, checked against the server when it can'
complete -c authdeck -n '__authdeck_in ""' -a open-url -d 'Hand an authdeck:// redirect to the waiting sign-in (what the desktop entry runs)'
complete -c authdeck -n '__authdeck_in ""' -a totp -d 'Keep TOTP seeds of test accounts in the store (- reads the seed from standard input)'
complete -c authdeck -n '__authdeck_in ""' -a sandbox -d 'Run the built-in local identity provider and auth proxy on 127.0.0.1, with faults on demand'
complete -c authdeck -n '__authdeck_in ""' -a store -d 'Master-key handling, and moving sessions in and out of the store'
complete -c authdeck -n '__authdeck_in ""' -a trace -d 'Read a customer\'s exported sign-in trace, compare two, or reproduce one against the sandbox'
complete -c authdeck -n '__authdeck_in ""' -a doctor -d 'Check config, store, keyring, browser, redirect registration and provider reachability'
complete -c authdeck -l session -x -a '(__authdeck_sessions)' -d 'use this session for one command (else $AUTHDECK_SESSION, else the selected one)'
complete -c authdeck -l config -r -F -d 'configuration file (else $AUTHDECK_CONFIG, else $XDG_CONFIG_HOME/authdeck/config.json)'
complete -c authdeck -l unlock-for -x -d 'keep the unlocked store key cached in the kernel keyring this many minutes (default 15; 0 disables)'
complete -c authdeck -l keyring-timeout -x -d 'seconds to wait for the Secret Service (default 5)'
complete -c authdeck -l quiet -d 'print nothing but data and errors'
complete -c authdeck -l help -d 'show this help'
complete -c authdeck -n '__authdeck_in "list"' -l json -d 'print a JSON array'
complete -c authdeck -n '__authdeck_in "login"' -a 'google apple discord x oidc email sms'
complete -c authdeck -n '__authdeck_in "login"' -l backend -x -a 'direct sandbox sandbox-turnkey sandbox-portal turnkey portal' -d 'who issues the session: direct, turnkey, portal, sandbox or a configured name; config.json sets turnkey\'s totpExtension (the sandbox\'s TOTP step, not in the Auth Proxy contract: off unless true) and oauthFlow (code or hosted), and portal\'s redirectURL'
complete -c authdeck -n '__authdeck_in "login"' -l session-key -x -d 'the key to store the session under'
complete -c authdeck -n '__authdeck_in "login"' -l replace -d 'overwrite a session with the same key'
complete -c authdeck -n '__authdeck_in "login"' -l issuer -x -d 'OpenID Connect issuer URL (oidc); its discovery gives every endpoint'
complete -c authdeck -n '__authdeck_in "login"' -l client-id -x -d 'OAuth client id'
complete -c authdeck -n '__authdeck_in "login"' -l client-secret-file -r -F -d 'file holding the client secret'
complete -c authdeck -n '__authdeck_in "login"' -l auth-method -x -a 'client_secret_basic client_secret_post client_secret_jwt private_key_jwt tls_client_auth self_signed_tls_client_auth none' -d 'how the client authenticates at the token and revocation endpoints'
complete -c authdeck -n '__authdeck_in "login"' -l private-key-file -r -F -d 'owner-only PEM key (RSA or P-256) that signs private_key_jwt assertions'
complete -c authdeck -n '__authdeck_in "login"' -l key-id -x -d 'the kid put in private_key_jwt assertions\' header'
complete -c authdeck -n '__authdeck_in "login"' -l client-certificate -r -F -d 'PEM certificate presented in the TLS handshake (mutual TLS, RFC 8705)'
complete -c authdeck -n '__authdeck_in "login"' -l client-certificate-key -r -F -d 'owner-only PEM private key of --client-certificate'
complete -c authdeck -n '__authdeck_in "login"' -l scope -x -d 'scopes, space-separated'
complete -c authdeck -n '__authdeck_in "login"' -l dpop -d 'DPoP-bound tokens (RFC 9449): a key per session, a proof with every request'
complete -c authdeck -n '__authdeck_in "login"' -l contact -x -d 'email address or phone number (email, sms)'
complete -c authdeck -n '__authdeck_in "login"' -l no-browser -d 'print the URL and wait for the pasted redirect'
complete -c authdeck -n '__authdeck_in "login"' -l browser -x -d 'browser command for this session, kept with it: {url} the page, {profile} its own profile folder'
complete -c authdeck -n '__authdeck_in "login"' -l step-up -x -d 'sign session KEY in again as it was, replacing it on success (RFC 9470)'
complete -c authdeck -n '__authdeck_in "login"' -l acr-values -x -d 'with --step-up: the authentication context classes to ask for'
complete -c authdeck -n '__authdeck_in "login"' -l max-age -x -d 'with --step-up: the longest time since the user last signed in'
complete -c authdeck -n '__authdeck_in "login"' -l device -d 'use the device authorization grant'
complete -c authdeck -n '__authdeck_in "login"' -l par -d 'push the authorization request first (PAR), as pushedAuthorizationRequests: true'
complete -c authdeck -n '__authdeck_in "login"' -l request-object -d 'send the authorization request as a request object signed with privateKeyFile (JAR)'
complete -c authdeck -n '__authdeck_in "login"' -l listen -x -d 'loopback receiver address, 127.0.0.1:PORT (a redirectURI port must match)'
complete -c authdeck -n '__authdeck_in "login"' -l timeout -x -d 'seconds to wait (default 300)'
complete -c authdeck -n '__authdeck_in "login"' -l trace -r -F -d 'write a JSON trace of every protocol step to this file'
complete -c authdeck -n '__authdeck_in "login"' -l json -d 'print the new session as JSON instead of its key'
complete -c authdeck -n '__authdeck_in "login"' -l yes -d 'keep a session that came without state (Portal) without asking whom it signs in'
complete -c authdeck -n '__authdeck_in "use"' -a '(__authdeck_sessions)'
complete -c authdeck -n '__authdeck_in "use"' -l here -d 'write .authdeck-session here instead of selecting'
complete -c authdeck -n '__authdeck_in "token"' -a '(__authdeck_sessions)'
complete -c authdeck -n '__authdeck_in "token"' -l id-token -d 'print the ID token instead'
complete -c authdeck -n '__authdeck_in "token"' -l json -d 'print token and expiry as JSON (--format json)'
complete -c authdeck -n '__authdeck_in "token"' -l min-valid -x -d 'refresh first unless the token stays valid this long (90, 5m, 1h30m; default 60 s)'
complete -c authdeck -n '__authdeck_in "token"' -l format -x -a 'plain json exec-credential' -d 'plain, json, or exec-credential (kubectl\'s exec plugin object)'
complete -c authdeck -n '__authdeck_in "exec"' -l env -x -d 'the variable that holds the token (default AUTHDECK_TOKEN)'
complete -c authdeck -n '__authdeck_in "exec"' -l min-valid -x -d 'refresh first unless the token stays valid this long (default 60 s)'
complete -c authdeck -n '__authdeck_in "exec"' -l step-up-watch -d 'watch the command\'s output for a step-up challenge (RFC 9470) and say how to answer it'
complete -c authdeck -n '__authdeck_in "env"' -a '(__authdeck_sessions)'
complete -c authdeck -n '__authdeck_in "env"' -l shell -x -a 'bash zsh sh fish' -d 'bash, zsh, sh or fish (default: from $SHELL)'
complete -c authdeck -n '__authdeck_in "env"' -l env -x -d 'the variable that holds the token (default AUTHDECK_TOKEN)'
complete -c authdeck -n '__authdeck_in "env"' -l min-valid -x -d 'refresh first unless the token stays valid this long (default 60 s)'
complete -c authdeck -n '__authdeck_in "git-credential"' -a 'get store erase'
complete -c authdeck -n '__authdeck_in "git-credential"' -l host -x -d 'answer for this host (host or host:port) with --session, besides config.json\'s map'
complete -c authdeck -n '__authdeck_in "git-credential"' -l username -x -d 'the username to send with --host (default x-access-token)'
complete -c authdeck -n '__authdeck_in "git-credential"' -l min-valid -x -d 'refresh first unless the token stays valid this long (default 60 s)'
complete -c authdeck -n '__authdeck_in "agent"' -l allow -x -a '(__authdeck_sessions)' -d 'sessions it serves, comma-separated, or \'*\' for every one (required)'
complete -c authdeck -n '__authdeck_in "agent"' -l socket -r -F -d 'socket path (default $XDG_RUNTIME_DIR/authdeck/agent.sock)'
complete -c authdeck -n '__authdeck_in "agent"' -l confirm -d 'ask on the agent\'s terminal before answering each request'
complete -c authdeck -n '__authdeck_in "agent"' -l log -r -F -d 'append one line per request to this file (default standard error)'
complete -c authdeck -n '__authdeck_in "stamp"' -a '(__authdeck_sessions)'
complete -c authdeck -n '__authdeck_in "stamp"' -l body -r -F -d 'the exact request body to stamp: a file, or - for standard input'
complete -c authdeck -n '__authdeck_in "stamp"' -l header -d 'print the whole header line (X-Stamp: …) instead of the value'
complete -c authdeck -n '__authdeck_in "dpop-proof"' -a '(__authdeck_sessions)'
complete -c authdeck -n '__authdeck_in "dpop-proof"' -l method -x -d 'the request\'s HTTP method (GET, POST…)'
complete -c authdeck -n '__authdeck_in "dpop-proof"' -l url -x -d 'the request\'s URL (query and fragment are left out of the proof)'
complete -c authdeck -n '__authdeck_in "dpop-proof"' -l nonce -x -d 'the DPoP-Nonce the server answered, to put in the proof'
complete -c authdeck -n '__authdeck_in "refresh"' -a '(__authdeck_sessions)'
complete -c authdeck -n '__authdeck_in "refresh"' -l all -d 'every refreshable session'
complete -c authdeck -n '__authdeck_in "logout"' -a '(__authdeck_sessions)'
complete -c authdeck -n '__authdeck_in "logout"' -l all -d 'every session (asks first on a terminal)'
complete -c authdeck -n '__authdeck_in "logout"' -l expired -d 'every session that expired and cannot be refreshed'
complete -c authdeck -n '__authdeck_in "logout"' -l revoke -d 'also revoke the tokens at the provider'
complete -c authdeck -n '__authdeck_in "logout"' -l yes -d 'do not ask before removing several sessions'
complete -c authdeck -n '__authdeck_in "status"' -a '(__authdeck_sessions)'
complete -c authdeck -n '__authdeck_in "status"' -l json -d 'print JSON'
complete -c authdeck -n '__authdeck_in "totp"' -a add -d 'Store a test account\'s TOTP seed (USER defaults to the otpauth link\'s account)'
complete -c authdeck -n '__authdeck_in "totp"' -a list -d 'List the stored seeds\' accounts'
complete -c authdeck -n '__authdeck_in "totp"' -a rm -d 'Remove a test account\'s seed'
complete -c authdeck -n '__authdeck_in "totp"' -a code -d 'Print a test account\'s current code'
complete -c authdeck -n '__authdeck_in "totp add"' -l secret -x -d 'the base32 seed, or - for standard input'
complete -c authdeck -n '__authdeck_in "totp add"' -l uri -x -d 'an otpauth:// enrolment link, or - for standard input'
complete -c authdeck -n '__authdeck_in "totp add"' -l replace -d 'overwrite a stored seed'
complete -c authdeck -n '__authdeck_in "totp list"' -l json -d 'print a JSON array'
complete -c authdeck -n '__authdeck_in "sandbox"' -a faults -d 'Show or switch the faults of a running sandbox'
complete -c authdeck -n '__authdeck_in "sandbox"' -a panel -d 'Switch a running sandbox\'s faults on the terminal'
complete -c authdeck -n '__authdeck_in "sandbox"' -a approve -d 'Answer a sandbox consent page from the terminal, as a browser would'
complete -c authdeck -n '__authdeck_in "sandbox"' -l port -x -d 'port (default 8750; 0 picks a free one)'
complete -c authdeck -n '__authdeck_in "sandbox"' -l users -r -F -d 'users JSON file'
complete -c authdeck -n '__authdeck_in "sandbox"' -l outbox -r -F -d 'where one-time codes are appended'
complete -c authdeck -n '__authdeck_in "sandbox"' -l config-out -r -F -d 'write a config.json pointing every backend here'
complete -c authdeck -n '__authdeck_in "sandbox"' -l token-lifetime -x -d 'access-token lifetime in seconds (default 3600)'
complete -c authdeck -n '__authdeck_in "sandbox"' -l device-interval -x -d 'device-grant polling interval in seconds (default 5)'
complete -c authdeck -n '__authdeck_in "sandbox"' -l fault -r -F -a 'list token-5xx-html slow-provider code-expired code-reused access-denied access-denied-no-state authorization-response-mixup authorization-response-no-iss discovery-wrong-issuer id-token-future-iat id-token-wrong-aud id-token-wrong-iss id-token-wrong-nonce id-token-bad-signature id-token-alg-none id-token-no-iat id-token-no-sub id-token-kid-absent-single-jwks id-token-kid-absent-multiple-jwks rotated-signing-key signing-key-rotation no-email-claim userinfo-wrong-sub device-slow-down device-expired otp-rate-limit otp-expired totp-lockout redirect-unreachable dpop-nonce' -d 'faults to switch on: NAME[,NAME…], a JSON file, or list'
complete -c authdeck -n '__authdeck_in "sandbox"' -l delay-ms -x -d 'the slow-provider delay in milliseconds (default 8000)'
complete -c authdeck -n '__authdeck_in "sandbox faults"' -a 'none list token-5xx-html slow-provider code-expired code-reused access-denied access-denied-no-state authorization-response-mixup authorization-response-no-iss discovery-wrong-issuer id-token-future-iat id-token-wrong-aud id-token-wrong-iss id-token-wrong-nonce id-token-bad-signature id-token-alg-none id-token-no-iat id-token-no-sub id-token-kid-absent-single-jwks id-token-kid-absent-multiple-jwks rotated-signing-key signing-key-rotation no-email-claim userinfo-wrong-sub device-slow-down device-expired otp-rate-limit otp-expired totp-lockout redirect-unreachable dpop-nonce'
complete -c authdeck -n '__authdeck_in "sandbox faults"' -l delay-ms -x -d 'the slow-provider delay in milliseconds'
complete -c authdeck -n '__authdeck_in "sandbox faults"' -l url -x -d 'the sandbox\'s base URL (else the config\'s)'
complete -c authdeck -n '__authdeck_in "sandbox faults"' -l json -d 'print JSON'
complete -c authdeck -n '__authdeck_in "sandbox panel"' -l url -x -d 'the sandbox\'s base URL (else the config\'s)'
complete -c authdeck -n '__authdeck_in "sandbox approve"' -l user -x -a 'ada bob cleo dora' -d 'the sandbox user to sign in as (default ada)'
complete -c authdeck -n '__authdeck_in "sandbox approve"' -l deny -d 'deny instead of approving'
complete -c authdeck -n '__authdeck_in "store"' -a lock -d 'Forget the cached unlocked store key'
complete -c authdeck -n '__authdeck_in "store"' -a migrate -d 'Keep the master key with the Secret Service or under a passphrase'
complete -c authdeck -n '__authdeck_in "store"' -a import -d 'Add sessions from an export bundle or JSON lines'
complete -c authdeck -n '__authdeck_in "store"' -a export -d 'Write every session and TOTP seed to an encrypted bundle'
complete -c authdeck -n '__authdeck_in "store migrate"' -l to -x -a 'secret-service passphrase' -d 'secret-service or passphrase'
complete -c authdeck -n '__authdeck_in "store import"' -F
complete -c authdeck -n '__authdeck_in "store import"' -l replace -d 'overwrite existing keys'
complete -c authdeck -n '__authdeck_in "store import"' -l skip-existing -d 'import only sessions whose keys are free'
complete -c authdeck -n '__authdeck_in "store export"' -F
complete -c authdeck -n '__authdeck_in "trace"' -a show -d 'Open a trace file on the TUI\'s Trace screen (printed when piped or with --plain)'
complete -c authdeck -n '__authdeck_in "trace"' -a diff -d 'Compare two traces and mark the first divergence'
complete -c authdeck -n '__authdeck_in "trace"' -a replay -d 'Reproduce a trace\'s sign-in against a sandbox with the faults it shows'
complete -c authdeck -n '__authdeck_in "trace show"' -F
complete -c authdeck -n '__authdeck_in "trace show"' -l expand -x -d 'steps whose details to show, comma-separated'
complete -c authdeck -n '__authdeck_in "trace show"' -l all -d 'every step\'s details'
complete -c authdeck -n '__authdeck_in "trace show"' -l plain -d 'print to the terminal instead of opening the Trace screen'
complete -c authdeck -n '__authdeck_in "trace show"' -l json -d 'print the steps as JSON'
complete -c authdeck -n '__authdeck_in "trace diff"' -F
complete -c authdeck -n '__authdeck_in "trace diff"' -l json -d 'print JSON'
complete -c authdeck -n '__authdeck_in "trace replay"' -F
complete -c authdeck -n '__authdeck_in "trace replay"' -l timeout -x -d 'the longest wait for a timed-out sign-in (default 10)'
complete -c authdeck -n '__authdeck_in "trace replay"' -l trace-out -r -F -d 'keep the replay\'s own trace in this file'
complete -c authdeck -n '__authdeck_in "trace replay"' -l json -d 'print JSON'
complete -c authdeck -n '__authdeck_in "doctor"' -l json -d 'print the checks as JSON'
