# fish completion for authdeck
function __authdeck_sessions
    authdeck list --json 2>/dev/null | python3 -c 'import json,sys
try:
    print("\n".join(s["key"] for s in json.load(sys.stdin)))
except Exception:
    pass' 2>/dev/null
end

set -l commands tui list login use token exec env git-credential agent stamp refresh logout status open-url totp sandbox store trace doctor
set -l faults token-5xx-html slow-provider code-expired code-reused access-denied access-denied-no-state id-token-future-iat id-token-wrong-aud id-token-wrong-iss id-token-wrong-nonce rotated-signing-key no-email-claim device-slow-down device-expired otp-rate-limit otp-expired totp-lockout redirect-unreachable
complete -c authdeck -f
complete -c authdeck -n "not __fish_seen_subcommand_from $commands" -a "$commands"
complete -c authdeck -n "not __fish_seen_subcommand_from $commands" -l version -d 'print the version'
complete -c authdeck -l session -x -a '(__authdeck_sessions)' -d 'session for one command'
complete -c authdeck -l config -r -F -d 'configuration file'
complete -c authdeck -l unlock-for -x -d 'minutes to keep the store unlocked'
complete -c authdeck -l keyring-timeout -x -d 'seconds to wait for the Secret Service'
complete -c authdeck -l quiet -d 'print less'
complete -c authdeck -l help -d 'show help'
complete -c authdeck -n "__fish_seen_subcommand_from login" -a "google apple discord x oidc email sms"
complete -c authdeck -n "__fish_seen_subcommand_from login" -l backend -x -a "direct sandbox sandbox-turnkey sandbox-portal turnkey portal"
complete -c authdeck -n "__fish_seen_subcommand_from login" -l session-key -x
complete -c authdeck -n "__fish_seen_subcommand_from login" -l replace
complete -c authdeck -n "__fish_seen_subcommand_from login" -l issuer -x
complete -c authdeck -n "__fish_seen_subcommand_from login" -l client-id -x
complete -c authdeck -n "__fish_seen_subcommand_from login" -l client-secret-file -r -F
complete -c authdeck -n "__fish_seen_subcommand_from login" -l scope -x
complete -c authdeck -n "__fish_seen_subcommand_from login" -l contact -x
complete -c authdeck -n "__fish_seen_subcommand_from login" -l no-browser
complete -c authdeck -n "__fish_seen_subcommand_from login" -l device
complete -c authdeck -n "__fish_seen_subcommand_from login" -l listen -x
complete -c authdeck -n "__fish_seen_subcommand_from login" -l timeout -x
complete -c authdeck -n "__fish_seen_subcommand_from login" -l trace -r -F
complete -c authdeck -n "__fish_seen_subcommand_from use token env stamp refresh logout status" -a '(__authdeck_sessions)'
complete -c authdeck -n "__fish_seen_subcommand_from use" -l here
complete -c authdeck -n "__fish_seen_subcommand_from token" -l id-token
complete -c authdeck -n "__fish_seen_subcommand_from refresh logout" -l all
complete -c authdeck -n "__fish_seen_subcommand_from logout" -l revoke
complete -c authdeck -n "__fish_seen_subcommand_from logout" -l expired -d 'expired sessions that cannot refresh'
complete -c authdeck -n "__fish_seen_subcommand_from logout" -l yes -d 'do not ask'
complete -c authdeck -n "__fish_seen_subcommand_from list token status doctor login" -l json
complete -c authdeck -n "__fish_seen_subcommand_from totp" -a "add list rm code"
complete -c authdeck -n "__fish_seen_subcommand_from totp" -l replace
complete -c authdeck -n "__fish_seen_subcommand_from totp" -l secret -x
complete -c authdeck -n "__fish_seen_subcommand_from totp" -l uri -x
complete -c authdeck -n "__fish_seen_subcommand_from store" -a "lock migrate import export"
complete -c authdeck -n "__fish_seen_subcommand_from store" -l to -x -a "secret-service passphrase"
complete -c authdeck -n "__fish_seen_subcommand_from store" -l replace
complete -c authdeck -n "__fish_seen_subcommand_from store" -l skip-existing
complete -c authdeck -n "__fish_seen_subcommand_from sandbox" -l port -x
complete -c authdeck -n "__fish_seen_subcommand_from sandbox" -l users -r -F
complete -c authdeck -n "__fish_seen_subcommand_from sandbox" -l outbox -r -F
complete -c authdeck -n "__fish_seen_subcommand_from sandbox" -l config-out -r -F
complete -c authdeck -n "__fish_seen_subcommand_from sandbox" -a "faults panel approve"
complete -c authdeck -n "__fish_seen_subcommand_from sandbox" -l fault -x -a "list $faults" -d 'faults to switch on'
complete -c authdeck -n "__fish_seen_subcommand_from faults" -a "none list $faults"
complete -c authdeck -n "__fish_seen_subcommand_from sandbox" -l delay-ms -x -d 'slow-provider delay'
complete -c authdeck -n "__fish_seen_subcommand_from sandbox" -l url -x -d 'the sandbox base URL'
complete -c authdeck -n "__fish_seen_subcommand_from sandbox" -l user -x -a "ada bob cleo dora"
complete -c authdeck -n "__fish_seen_subcommand_from sandbox" -l deny
complete -c authdeck -n "__fish_seen_subcommand_from trace" -a "show diff replay"
complete -c authdeck -n "__fish_seen_subcommand_from trace" -F
complete -c authdeck -n "__fish_seen_subcommand_from trace" -l expand -x -d 'step numbers'
complete -c authdeck -n "__fish_seen_subcommand_from trace" -l all
complete -c authdeck -n "__fish_seen_subcommand_from trace" -l plain -d 'print instead of opening the viewer'
complete -c authdeck -n "__fish_seen_subcommand_from trace sandbox" -l json
complete -c authdeck -n "__fish_seen_subcommand_from trace" -l timeout -x
complete -c authdeck -n "__fish_seen_subcommand_from trace" -l trace-out -r -F
complete -c authdeck -n "__fish_seen_subcommand_from token exec env git-credential" -l min-valid -x -d 'refresh unless valid this long'
complete -c authdeck -n "__fish_seen_subcommand_from token" -l format -x -a "plain json exec-credential"
complete -c authdeck -n "__fish_seen_subcommand_from exec env" -l env -x -d 'variable that holds the token'
complete -c authdeck -n "__fish_seen_subcommand_from env" -l shell -x -a "bash zsh sh fish"
complete -c authdeck -n "__fish_seen_subcommand_from git-credential" -a "get store erase"
complete -c authdeck -n "__fish_seen_subcommand_from git-credential" -l host -x
complete -c authdeck -n "__fish_seen_subcommand_from git-credential" -l username -x
complete -c authdeck -n "__fish_seen_subcommand_from agent" -l allow -x -a '(__authdeck_sessions)'
complete -c authdeck -n "__fish_seen_subcommand_from agent" -l socket -r -F
complete -c authdeck -n "__fish_seen_subcommand_from agent" -l confirm -d 'ask before each answer'
complete -c authdeck -n "__fish_seen_subcommand_from agent" -l log -r -F
complete -c authdeck -n "__fish_seen_subcommand_from stamp" -l body -r -F
complete -c authdeck -n "__fish_seen_subcommand_from stamp" -l header
