#!/usr/bin/env bash
# `make bench`: measures the targets of SPEC section 8 and prints a table (scripts/bench.py does the work). It runs
# inside a private D-Bus session with gnome-keyring so the Secret Service rows compare against a real keyring.
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
"$here/with-keyring.sh" python3 "$here/bench.py" "$bin"

# The TUI (issue 6), under tmux because it needs a terminal: `authdeck tui` with AUTHDECK_BENCH_EXIT_AFTER_FIRST_FRAME=1
# draws its first full frame, replays 200 key presses (down/up) through the reducer, renderer and ncurses, prints
# its figures on stderr and exits. Times are inside the process, from the command's start (process start is the
# first row above).
tui_rows() {
    command -v tmux >/dev/null || { echo "  (TUI rows skipped: tmux is not installed)" >&2; return; }
    local work
    work=$(mktemp -d)
    printf 'bench passphrase\n' >"$work/passphrase"
    chmod 600 "$work/passphrase"
    printf '{}\n' >"$work/config.json"
    for count in 10000 100000; do
        local home=$work/home-$count
        python3 - "$count" >"$work/sessions-$count.jsonl" <<'PY'
import sys
count = int(sys.argv[1])
for n in range(count):
    expires = f"2030-01-01T{n % 24:02d}:00:00Z" if n % 7 else "2020-01-01T00:00:00Z"
    print('{"key":"s%06d","backend":"direct","provider":"%s","subject":"sub%d","email":"user%d@example.com",'
          '"phone":null,"issuer":"https://issuer.example","createdAt":"2025-01-01T00:00:00Z","expiresAt":"%s",'
          '"status":"active","refreshable":false,"selected":false,"accessToken":"t%d"}'
          % (n, ["google", "discord", "x", "apple"][n % 4], n, n, expires, n))
PY
        env -u DBUS_SESSION_BUS_ADDRESS AUTHDECK_HOME="$home" AUTHDECK_PASSPHRASE_FILE="$work/passphrase" \
            "$bin" store import "$work/sessions-$count.jsonl" >/dev/null 2>&1
        tmux -S "$work/tmux.sock" new-session -d -x 120 -y 40 \
            "env -u DBUS_SESSION_BUS_ADDRESS AUTHDECK_HOME='$home' AUTHDECK_PASSPHRASE_FILE='$work/passphrase' \
             AUTHDECK_CONFIG='$work/config.json' AUTHDECK_BENCH_EXIT_AFTER_FIRST_FRAME=1 '$bin' tui 2>'$work/out-$count'; \
             touch '$work/done-$count'"
        for _ in $(seq 1 600); do [ -e "$work/done-$count" ] && break; sleep 0.05; done
        local line
        line=$(grep '^bench:' "$work/out-$count" || echo "bench: failed $(head -c 80 "$work/out-$count")")
        local first key rss
        first=$(sed -n 's/.*first-frame-ms=\([0-9.]*\).*/\1/p' <<<"$line")
        key=$(sed -n 's/.*key-to-frame-ms=\([0-9.]*\).*/\1/p' <<<"$line")
        rss=$(sed -n 's/.*rss-kb=\([0-9]*\).*/\1/p' <<<"$line")
        local target=$([ "$count" = 10000 ] && echo "≤ 50 ms" || echo "≤ 300 ms")
        printf '  %-52s %14s  %12s\n' "TUI start to first full frame, $([ "$count" = 10000 ] && echo 10,000 || echo 100,000) sessions" \
            "${first:-?} ms" "$target" >&2
        if [ "$count" = 10000 ]; then
            printf '  %-52s %14s  %12s\n' "TUI key press to frame, 10,000 sessions, mean of 200" "${key:-?} ms" \
                "≤ 2 ms" >&2
            printf '  %-52s %14s  %12s\n' "TUI RSS after first frame, 10,000 sessions" \
                "$(awk -v k="${rss:-0}" 'BEGIN { printf "%.1f MB", k / 1024 }')" "≤ 25 MB" >&2
        fi
    done
    # Cleaned up here rather than in a RETURN trap: under set -u such a trap outlives the function and its locals.
    tmux -S "$work/tmux.sock" kill-server 2>/dev/null || true
    rm -rf "$work"
}
tui_rows || echo "  (the TUI rows did not finish)" >&2
