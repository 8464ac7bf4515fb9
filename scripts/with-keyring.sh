#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with a real, unlocked gnome-keyring (the Secret Service),
# so tests talk to the real thing and never to the user's own keyring.
# Before running the command it checks that a secret can be stored and read back, and fails loudly if not:
# tests that need the Secret Service must never pass against a keyring that is not there.
set -euo pipefail
if [ "${AUTHDECK_IN_KEYRING_SESSION:-}" != 1 ]; then
    export AUTHDECK_IN_KEYRING_SESSION=1
    keyring_home=$(mktemp -d /tmp/authdeck-keyring.XXXXXX)
    export AUTHDECK_KEYRING_HOME="$keyring_home"
    # Set before the bus starts: a keyring daemon that D-Bus activates gets the bus's environment, and must find
    # the unlocked daemon of this run (its control socket under XDG_RUNTIME_DIR), not start a locked one elsewhere.
    export XDG_DATA_HOME="$keyring_home/data"
    export XDG_RUNTIME_DIR="$keyring_home/run"
    mkdir -p -m 0700 "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
    # A bus of our own (not dbus-run-session, which leaves the keyring daemon running and holding the caller's
    # pipes): its PID is known, and so is every process it or the tests started, by this run's folder in their
    # environment.
    bus=$(dbus-daemon --session --fork --nopidfile --print-address=1 --print-pid=1 2>/dev/null) || {
        echo "with-keyring.sh: cannot start a private dbus-daemon" >&2
        exit 1
    }
    export DBUS_SESSION_BUS_ADDRESS="${bus%%$'\n'*}"
    bus_pid="${bus##*$'\n'}"
    # SIGKILL: a run started from a test binary hands its children a signal mask with SIGTERM blocked, so the
    # daemons would never see a SIGTERM; they are throw-away, and their folder goes with them.
    stop_run() {
        local pid
        for pid in $(grep -lsF "AUTHDECK_KEYRING_HOME=$keyring_home" /proc/[0-9]*/environ | cut -d/ -f3); do
            [ "$pid" != $$ ] && kill -KILL "$pid" 2>/dev/null || true
        done
        kill -KILL "$bus_pid" 2>/dev/null || true
        rm -rf "$keyring_home"
    }
    trap stop_run EXIT
    status=0
    "$0" "$@" || status=$?
    exit "$status"
fi
# An unlocked login keyring; the password only guards this throw-away keyring.
# Its stderr goes to a log so it holds no caller's pipe open; the outer half of this script stops it at the end.
eval "$(printf 'authdeck-test\n' | gnome-keyring-daemon --unlock --components=secrets \
    2>>"$AUTHDECK_KEYRING_HOME/gnome-keyring.log")"
export GNOME_KEYRING_CONTROL
# The daemon takes its bus name a moment after it answers; asking before that would activate another one.
for _ in $(seq 50); do
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true' && break
    sleep 0.1
done
probe="probe-$$-$RANDOM"
if ! printf '%s' "$probe" \
        | timeout 10 secret-tool store --label='authdeck self-check' application authdeck-self-check \
        || [ "$(timeout 10 secret-tool lookup application authdeck-self-check)" != "$probe" ]; then
    echo "with-keyring.sh: the private Secret Service does not work (store/lookup failed)" >&2
    exit 1
fi
timeout 10 secret-tool clear application authdeck-self-check || true
"$@"
