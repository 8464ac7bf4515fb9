#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with a real, unlocked gnome-keyring (the Secret Service),
# so tests talk to the real thing and never to the user's own keyring.
# Before running the command it checks that a secret can be stored and read back, and fails loudly if not:
# tests that need the Secret Service must never pass against a keyring that is not there.
set -euo pipefail
if [ "${AUTHDECK_IN_KEYRING_SESSION:-}" != 1 ]; then
    export AUTHDECK_IN_KEYRING_SESSION=1
    keyring_home=$(mktemp -d /tmp/authdeck-keyring.XXXXXX)
    trap 'rm -rf "$keyring_home"' EXIT
    export AUTHDECK_KEYRING_HOME="$keyring_home"
    # dbus-daemon warns that it cannot raise its fd limit in containers; that is noise, not a failure.
    status=0
    dbus-run-session -- "$0" "$@" 2> >(grep --line-buffered -v -e 'Failed to set fd limit' \
        -e 'Activating service name' -e 'Successfully activated service' >&2) || status=$?
    exit "$status"
fi
export XDG_DATA_HOME="$AUTHDECK_KEYRING_HOME/data"
# The keyring daemon keeps its control socket under XDG_RUNTIME_DIR; keep it private to this run as well.
export XDG_RUNTIME_DIR="$AUTHDECK_KEYRING_HOME/run"
mkdir -p -m 0700 "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
# An unlocked login keyring; the password only guards this throw-away keyring.
# The daemon outlives this script; its stderr goes to a log so it holds no caller's pipe open.
eval "$(printf 'authdeck-test\n' | gnome-keyring-daemon --unlock --components=secrets \
    2>>"$AUTHDECK_KEYRING_HOME/gnome-keyring.log")"
export GNOME_KEYRING_CONTROL
probe="probe-$$-$RANDOM"
if ! printf '%s' "$probe" \
        | timeout 10 secret-tool store --label='authdeck self-check' application authdeck-self-check \
        || [ "$(timeout 10 secret-tool lookup application authdeck-self-check)" != "$probe" ]; then
    echo "with-keyring.sh: the private Secret Service does not work (store/lookup failed)" >&2
    exit 1
fi
timeout 10 secret-tool clear application authdeck-self-check || true
"$@"
