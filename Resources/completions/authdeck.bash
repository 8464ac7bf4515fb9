# bash completion for authdeck
_authdeck_sessions() {
    authdeck list --json 2>/dev/null | python3 -c 'import json,sys
try:
    print(" ".join(s["key"] for s in json.load(sys.stdin)))
except Exception:
    pass' 2>/dev/null
}

_authdeck() {
    local cur prev command
    COMPREPLY=()
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    command="${COMP_WORDS[1]}"
    local commands="tui list login use token exec env git-credential agent stamp refresh logout status open-url totp sandbox store trace doctor"
    local faults="token-5xx-html slow-provider code-expired code-reused access-denied access-denied-no-state id-token-future-iat id-token-wrong-aud id-token-wrong-iss id-token-wrong-nonce rotated-signing-key no-email-claim device-slow-down device-expired otp-rate-limit otp-expired totp-lockout redirect-unreachable"
    local global="--session --config --unlock-for --keyring-timeout --quiet --help"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    case "$prev" in
        --config|--client-secret-file|--trace|--users|--outbox|--config-out|--uri|--trace-out)
            COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --session) COMPREPLY=($(compgen -W "$(_authdeck_sessions)" -- "$cur")); return ;;
        --backend) COMPREPLY=($(compgen -W "direct sandbox sandbox-turnkey sandbox-portal turnkey portal" -- "$cur")); return ;;
        --fault) COMPREPLY=($(compgen -W "list $faults" -f -- "$cur")); return ;;
        --to) COMPREPLY=($(compgen -W "secret-service passphrase" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "plain json exec-credential" -- "$cur")); return ;;
        --shell) COMPREPLY=($(compgen -W "bash zsh sh fish" -- "$cur")); return ;;
        --body|--socket|--log) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --allow) COMPREPLY=($(compgen -W "$(_authdeck_sessions) '*'" -- "$cur")); return ;;
    esac
    case "$command" in
        login)
            if [ "$COMP_CWORD" -eq 2 ]; then
                COMPREPLY=($(compgen -W "google apple discord x oidc email sms" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "--backend --session-key --replace --issuer --client-id --client-secret-file --scope --contact --no-browser --device --listen --timeout --trace --json $global" -- "$cur"))
            fi ;;
        use|token|refresh|logout|status|env|stamp)
            local options="$global"
            case "$command" in
                use) options="--here $global" ;;
                token) options="--id-token --json --min-valid --format $global" ;;
                env) options="--shell --env --min-valid $global" ;;
                stamp) options="--body --header $global" ;;
                refresh) options="--all $global" ;;
                logout) options="--all --expired --revoke --yes $global" ;;
                status) options="--json $global" ;;
            esac
            COMPREPLY=($(compgen -W "$(_authdeck_sessions) $options" -- "$cur")) ;;
        list) COMPREPLY=($(compgen -W "--json $global" -- "$cur")) ;;
        exec) COMPREPLY=($(compgen -W "--env --min-valid -- $global" -- "$cur")) ;;
        git-credential) COMPREPLY=($(compgen -W "get store erase --host --username --min-valid $global" -- "$cur")) ;;
        agent) COMPREPLY=($(compgen -W "--allow --socket --confirm --log $global" -- "$cur")) ;;
        totp) COMPREPLY=($(compgen -W "add list rm code --secret --uri --replace --json $global" -- "$cur")) ;;
        store) COMPREPLY=($(compgen -W "lock migrate import export --to --replace --skip-existing $global" -- "$cur")) ;;
        sandbox)
            if [ "${COMP_WORDS[2]}" = "faults" ] && [ "$COMP_CWORD" -eq 3 ]; then
                COMPREPLY=($(compgen -W "none list $faults" -- "$cur"))
            elif [ "$COMP_CWORD" -eq 2 ] && [[ "$cur" != -* ]]; then
                COMPREPLY=($(compgen -W "faults panel approve" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "--port --users --outbox --config-out --token-lifetime --device-interval --fault --delay-ms --url --user --deny --json $global" -- "$cur"))
            fi ;;
        trace)
            if [ "$COMP_CWORD" -eq 2 ]; then
                COMPREPLY=($(compgen -W "show diff replay" -- "$cur"))
            elif [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W "--expand --all --plain --json --timeout --trace-out $global" -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi ;;
        doctor) COMPREPLY=($(compgen -W "--json $global" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "$global" -- "$cur")) ;;
    esac
}
complete -F _authdeck authdeck
