#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with a real, unlocked gnome-keyring (the Secret Service),
# so tests talk to the real thing and never to the user's own keyring.
set -euo pipefail
if [ "${AUTHDECK_IN_KEYRING_SESSION:-}" != 1 ]; then
    export AUTHDECK_IN_KEYRING_SESSION=1
    keyring_home=$(mktemp -d /tmp/authdeck-keyring.XXXXXX)
    trap 'rm -rf "$keyring_home"' EXIT
    export AUTHDECK_KEYRING_HOME="$keyring_home"
    dbus-run-session -- "$0" "$@"
    exit $?
fi
export XDG_DATA_HOME="$AUTHDECK_KEYRING_HOME/data"
mkdir -p "$XDG_DATA_HOME"
# An unlocked login keyring; the password only guards this throw-away keyring.
eval "$(printf 'authdeck-test\n' | gnome-keyring-daemon --unlock --components=secrets)"
export GNOME_KEYRING_CONTROL
"$@"
