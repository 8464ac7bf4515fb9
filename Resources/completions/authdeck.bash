# bash completion for authdeck, generated from its command table (Sources/AuthdeckCommands/CommandTable/Commands.swift)
# by `make completions`: edit the table, not this file.

# Adds the session keys that start with the word being completed to COMPREPLY, each written as one shell
# word (printf %q). Keys are data: read line by line and compared in bash, never given to compgen -W,
# which would expand a `$(…)` inside one.
_authdeck_sessions() {
    local key word
    while IFS= read -r key; do
        [ -n "$key" ] || continue
        printf -v word '%q' "$key"
        if [[ $key == "$cur"* || $word == "$cur"* ]]; then COMPREPLY+=("$word"); fi
    done < <(authdeck list --json 2>/dev/null | python3 -c 'import json,sys
try:
    print("\n".join(s["key"] for s in json.load(sys.stdin)))
except Exception:
    pass' 2>/dev/null)
}

_authdeck() {
    local cur prev scope word i options="" operands="" subcommands="" files=0 commands=0 sessions=0
    COMPREPLY=()
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "tui list login use token exec env git-credential aws-credentials agent stamp dpop-proof refresh logout status inspect introspect open-url totp docker-credential sandbox store trace doctor --help --version" -- "$cur"))
        return
    fi
    # The command, then the subcommand: the first word after it that is not an option.
    scope="${COMP_WORDS[1]}"
    for ((i = 2; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        [[ "$word" == -* ]] && continue
        case "$scope $word" in
            "totp add"|"totp list"|"totp rm"|"totp code"|"sandbox faults"|"sandbox panel"|"sandbox approve"|"store lock"|"store migrate"|"store import"|"store export"|"trace show"|"trace diff"|"trace replay") scope="$scope $word" ;;
        esac
        break
    done
    case "$prev" in
        --session) _authdeck_sessions; return ;;
        --config) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --unlock-for|--keyring-timeout) return ;;
    esac
    case "$scope" in
        "tui")
            case "$prev" in
                --theme) COMPREPLY=($(compgen -W "dark light monochrome" -- "$cur")); return ;;
            esac
            options="--theme" ;;
        "list")
            options="--json" ;;
        "login")
            case "$prev" in
                --backend) COMPREPLY=($(compgen -W "direct sandbox sandbox-turnkey sandbox-portal turnkey portal" -- "$cur")); return ;;
                --session-key|--issuer|--client-id|--key-id|--scope|--contact|--binding-message|--audience|--requested-token-type|--browser|--step-up|--login-hint|--max-age|--acr-values|--claims|--resource|--authorization-details|--param|--listen|--timeout|--public-key) return ;;
                --client-secret-file|--private-key-file|--client-certificate|--client-certificate-key|--trace|--oidc-token) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --auth-method) COMPREPLY=($(compgen -W "client_secret_basic client_secret_post client_secret_jwt private_key_jwt tls_client_auth self_signed_tls_client_auth none" -- "$cur")); return ;;
                --passkey) COMPREPLY=($(compgen -W "software hardware" -- "$cur")); return ;;
                --grant) COMPREPLY=($(compgen -W "authorization-code device client-credentials ciba token-exchange" -- "$cur")); return ;;
                --subject-session) _authdeck_sessions; return ;;
                --prompt) COMPREPLY=($(compgen -W "login consent select_account none" -- "$cur")); return ;;
            esac
            options="--backend --session-key --replace --issuer --client-id --client-secret-file --auth-method --private-key-file --key-id --client-certificate --client-certificate-key --scope --dpop --contact --passkey --no-browser --device --grant --binding-message --subject-session --audience --requested-token-type --browser --step-up --par --request-object --prompt --login-hint --max-age --acr-values --claims --resource --authorization-details --param --listen --timeout --trace --json --yes --oidc-token-only --oidc-token --public-key"
            operands="google apple discord x oidc email sms email-link" ;;
        "use")
            options="--here"
            sessions=1 ;;
        "token")
            case "$prev" in
                --min-valid) return ;;
                --format) COMPREPLY=($(compgen -W "plain json exec-credential" -- "$cur")); return ;;
            esac
            options="--id-token --json --min-valid --format"
            sessions=1 ;;
        "exec")
            case "$prev" in
                --env|--min-valid) return ;;
                --env-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
            esac
            options="--env --env-file --mask --min-valid --step-up-watch"
            commands=1 ;;
        "env")
            case "$prev" in
                --shell) COMPREPLY=($(compgen -W "bash zsh sh fish" -- "$cur")); return ;;
                --env|--min-valid) return ;;
            esac
            options="--shell --env --min-valid"
            sessions=1 ;;
        "git-credential")
            case "$prev" in
                --host|--username|--min-valid) return ;;
            esac
            options="--host --username --min-valid"
            operands="get store erase" ;;
        "aws-credentials")
            case "$prev" in
                --role-arn|--duration|--role-session-name) return ;;
            esac
            options="--role-arn --duration --role-session-name"
            sessions=1 ;;
        "agent")
            case "$prev" in
                --allow) _authdeck_sessions; return ;;
                --socket|--log) COMPREPLY=($(compgen -f -- "$cur")); return ;;
            esac
            options="--allow --socket --confirm --log" ;;
        "stamp")
            case "$prev" in
                --body) COMPREPLY=($(compgen -f -- "$cur")); return ;;
            esac
            options="--body --header"
            sessions=1 ;;
        "dpop-proof")
            case "$prev" in
                --method|--url|--nonce) return ;;
            esac
            options="--method --url --nonce"
            sessions=1 ;;
        "refresh")
            options="--all"
            sessions=1 ;;
        "logout")
            case "$prev" in
                --timeout) return ;;
            esac
            options="--all --expired --revoke --yes --end-session --no-browser --timeout"
            sessions=1 ;;
        "status")
            options="--json"
            sessions=1 ;;
        "inspect")
            options="--json"
            sessions=1 ;;
        "introspect")
            options="--json"
            sessions=1 ;;
        "open-url")
            : ;;
        "totp")
            subcommands="add list rm code" ;;
        "totp add")
            case "$prev" in
                --secret|--uri) return ;;
            esac
            options="--secret --uri --replace" ;;
        "totp list")
            options="--json" ;;
        "totp rm")
            : ;;
        "totp code")
            : ;;
        "docker-credential")
            case "$prev" in
                --min-valid) return ;;
            esac
            options="--min-valid"
            operands="get store erase list" ;;
        "sandbox")
            case "$prev" in
                --port|--token-lifetime|--device-interval|--post-logout-redirect-uri|--delay-ms|--trust-issuer) return ;;
                --users|--outbox|--config-out) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --fault) COMPREPLY=($(compgen -W "list token-5xx-html slow-provider code-expired code-reused access-denied access-denied-no-state authorization-response-mixup authorization-response-no-iss discovery-wrong-issuer id-token-future-iat id-token-wrong-aud id-token-wrong-iss id-token-wrong-nonce id-token-bad-signature id-token-alg-none id-token-no-iat id-token-no-sub id-token-kid-absent-single-jwks id-token-kid-absent-multiple-jwks rotated-signing-key signing-key-rotation no-email-claim userinfo-wrong-sub device-slow-down device-expired otp-rate-limit otp-expired totp-lockout redirect-unreachable dpop-nonce" -f -- "$cur")); return ;;
            esac
            options="--port --users --outbox --config-out --token-lifetime --device-interval --post-logout-redirect-uri --fault --delay-ms --trust-issuer"
            subcommands="faults panel approve" ;;
        "sandbox faults")
            case "$prev" in
                --delay-ms|--url) return ;;
            esac
            options="--delay-ms --url --json"
            operands="none list token-5xx-html slow-provider code-expired code-reused access-denied access-denied-no-state authorization-response-mixup authorization-response-no-iss discovery-wrong-issuer id-token-future-iat id-token-wrong-aud id-token-wrong-iss id-token-wrong-nonce id-token-bad-signature id-token-alg-none id-token-no-iat id-token-no-sub id-token-kid-absent-single-jwks id-token-kid-absent-multiple-jwks rotated-signing-key signing-key-rotation no-email-claim userinfo-wrong-sub device-slow-down device-expired otp-rate-limit otp-expired totp-lockout redirect-unreachable dpop-nonce" ;;
        "sandbox panel")
            case "$prev" in
                --url) return ;;
            esac
            options="--url" ;;
        "sandbox approve")
            case "$prev" in
                --user) COMPREPLY=($(compgen -W "ada bob cleo dora" -- "$cur")); return ;;
            esac
            options="--user --deny" ;;
        "store")
            subcommands="lock migrate import export" ;;
        "store lock")
            : ;;
        "store migrate")
            case "$prev" in
                --to) COMPREPLY=($(compgen -W "secret-service passphrase pass" -- "$cur")); return ;;
                --pass-entry) return ;;
            esac
            options="--to --pass-entry" ;;
        "store import")
            options="--replace --skip-existing"
            files=1 ;;
        "store export")
            files=1 ;;
        "trace")
            subcommands="show diff replay" ;;
        "trace show")
            case "$prev" in
                --expand) return ;;
            esac
            options="--expand --all --plain --json"
            files=1 ;;
        "trace diff")
            options="--json"
            files=1 ;;
        "trace replay")
            case "$prev" in
                --timeout) return ;;
                --trace-out) COMPREPLY=($(compgen -f -- "$cur")); return ;;
            esac
            options="--timeout --trace-out --json"
            files=1 ;;
        "doctor")
            options="--json" ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$options --session --config --unlock-for --keyring-timeout --quiet --help" -- "$cur"))
    elif [ -n "$subcommands" ] && [ "$scope" = "${COMP_WORDS[1]}" ]; then
        COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
    elif [ "$commands" = 1 ]; then
        COMPREPLY=($(compgen -c -- "$cur"))
    elif [ -n "$operands" ] || [ "$files" = 1 ] || [ "$sessions" = 1 ]; then
        [ -n "$operands" ] && COMPREPLY=($(compgen -W "$operands" -- "$cur"))
        [ "$sessions" = 1 ] && _authdeck_sessions
        [ "$files" = 1 ] && COMPREPLY+=($(compgen -f -- "$cur"))
    else
        COMPREPLY=($(compgen -W "$options --session --config --unlock-for --keyring-timeout --quiet --help" -- "$cur"))
    fi
}
complete -F _authdeck authdeck
