#!/usr/bin/env bash
# `make run`: authdeck's TUI against its built-in sandbox, with nothing else to set. The sandbox's sessions live
# in their own data folder, so a real store is never touched. A second `make run` while one runs says the port is
# taken and how to pick another (SANDBOX_PORT=N).
set -euo pipefail
bin=$1
export AUTHDECK_HOME="${AUTHDECK_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/authdeck-sandbox}"
mkdir -p "$AUTHDECK_HOME"
chmod 700 "$AUTHDECK_HOME"
config="$AUTHDECK_HOME/sandbox-config.json"
log="$AUTHDECK_HOME/sandbox.log"
# The sandbox's fixed port (8750, or $SANDBOX_PORT) and its data folder ($AUTHDECK_HOME/sandbox: signing keys,
# issued tokens, sign-ups) stay the same from run to run, so yesterday's sessions still refresh today. This run's
# config and log are written aside and take their names only once its sandbox is up, so a second `make run` (which
# stops with the sandbox's one line: the port is taken) leaves the running one's files alone.
"$bin" sandbox --port "${SANDBOX_PORT:-8750}" --config-out "$config.$$" >"$log.$$" 2>&1 &
sandbox=$!
trap 'kill "$sandbox" 2>/dev/null || true; wait "$sandbox" 2>/dev/null || true; rm -f "$config.$$" "$log.$$"' EXIT
for _ in $(seq 1 200); do
    [ -s "$config.$$" ] && break
    if ! kill -0 "$sandbox" 2>/dev/null; then
        # The sandbox's own advice names its --port flag; under make run the port comes from SANDBOX_PORT.
        if grep -q '^authdeck sandbox: port [0-9]* is taken' "$log.$$"; then
            echo "make run: port ${SANDBOX_PORT:-8750} is taken (another make run?): stop it, or run" \
                "SANDBOX_PORT=N make run with another port N" >&2
        else
            cat "$log.$$" >&2
        fi
        exit 1
    fi
    sleep 0.05
done
[ -s "$config.$$" ] || { echo "make run: the sandbox wrote no config" >&2; exit 1; }
mv "$config.$$" "$config"
mv "$log.$$" "$log"
export AUTHDECK_CONFIG="$config"
echo "sandbox at $(head -n 1 "$log"); one-time codes in $AUTHDECK_HOME/sandbox-outbox.jsonl" >&2
# What another terminal needs to run commands against the same store and sandbox while this one shows the TUI.
printf 'in another terminal:\n  export AUTHDECK_HOME=%q AUTHDECK_CONFIG=%q\n' "$AUTHDECK_HOME" "$config" >&2
if [ -t 0 ] && [ -t 1 ]; then
    "$bin" tui
else
    # Not on a terminal (CI, a pipe): show what the sandbox offers instead of a screen.
    "$bin" doctor || true
fi
