#!/usr/bin/env bash
# `make bench`: measures the targets of SPEC section 8 and prints a table (scripts/bench.py does the work). It runs
# inside a private D-Bus session with gnome-keyring so the Secret Service rows compare against a real keyring.
# BENCH_ONLY=SECTION[,SECTION…] runs only those sections: store, agent, sandbox (scripts/bench.py) and tui (below).
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
"$here/with-keyring.sh" python3 "$here/bench.py" "$bin"

# The TUI, under tmux because it needs a terminal: `authdeck tui` with
# AUTHDECK_BENCH_EXIT_AFTER_FIRST_FRAME=1 draws its first full frame, notes its RSS, replays 200 key presses (down/up)
# and then 130 filter keystrokes (`/`, a word, Backspace, Esc) through the reducer, renderer and ncurses, prints its
# figures on stderr and exits. Times are inside the process, from the command's start (process start is the first
# row above); each figure is the median of TUI_RUNS runs (default 9). Then a TUI left alone for 10 s at 100,000
# sessions: its CPU ticks and its wake-ups from /proc.
tui_rows() {
    command -v tmux >/dev/null || { echo "  (TUI rows skipped: tmux is not installed)" >&2; return; }
    local work runs=${TUI_RUNS:-9}
    work=$(mktemp -d)
    printf 'bench passphrase\n' >"$work/passphrase"
    chmod 600 "$work/passphrase"
    printf '{}\n' >"$work/config.json"
    local first_1000=""
    for count in 1000 100000; do
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
        local run
        : >"$work/lines-$count"
        for run in $(seq 1 "$runs"); do
            rm -f "$work/done" "$work/out"
            # A socket per run: a server whose last session just ended may still be going away.
            tmux -S "$work/tmux-$count-$run.sock" new-session -d -x 120 -y 40 \
                "env -u DBUS_SESSION_BUS_ADDRESS AUTHDECK_HOME='$home' AUTHDECK_PASSPHRASE_FILE='$work/passphrase' \
                 AUTHDECK_CONFIG='$work/config.json' AUTHDECK_BENCH_EXIT_AFTER_FIRST_FRAME=1 '$bin' tui \
                 2>'$work/out'; touch '$work/done'"
            for _ in $(seq 1 600); do [ -e "$work/done" ] && break; sleep 0.05; done
            grep '^bench:' "$work/out" >>"$work/lines-$count" || true
        done
        median() {  # the median of one field over the runs
            sed -n "s/.*$1=\([0-9.]*\).*/\1/p" "$work/lines-$count" | sort -g \
                | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
        }
        local first key filter rss label
        first=$(median first-frame-ms)
        key=$(median key-to-frame-ms)
        filter=$(median filter-key-ms)
        rss=$(median rss-kb)
        label=$([ "$count" = 1000 ] && echo 1,000 || echo 100,000)
        if [ "$count" = 1000 ]; then
            first_1000=$first
            printf '  %-52s %14s  %12s\n' "TUI start to first full frame, $label sessions" "${first:-?} ms" "–" >&2
            continue
        fi
        printf '  %-52s %14s  %12s\n' "TUI start to first full frame, $label sessions" "${first:-?} ms" \
            "≤ 100 ms" >&2
        printf '  %-52s %14s  %12s\n' "  … ratio to 1,000 sessions" \
            "$(awk -v a="${first:-0}" -v b="${first_1000:-0}" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else print "?" }')" \
            "–" >&2
        printf '  %-52s %14s  %12s\n' "TUI key press to frame, $label sessions, mean of 200" "${key:-?} ms" \
            "≤ 2 ms" >&2
        printf '  %-52s %14s  %12s\n' "TUI filter keystroke to frame, $label, mean of 130" "${filter:-?} ms" \
            "≤ 2 ms" >&2
        printf '  %-52s %14s  %12s\n' "TUI RSS after first frame, $label sessions" \
            "$(awk -v k="${rss:-0}" 'BEGIN { printf "%.1f MB", k / 1024 }')" "≤ 25 MB" >&2
        # Left alone for 10 s: CPU ticks (1/100 s) and wake-ups (voluntary context switches) of the loop's thread.
        tmux -S "$work/tmux-idle.sock" new-session -d -x 120 -y 40 \
            "env -u DBUS_SESSION_BUS_ADDRESS AUTHDECK_HOME='$home' AUTHDECK_PASSPHRASE_FILE='$work/passphrase' \
             AUTHDECK_CONFIG='$work/config.json' '$bin' tui"
        sleep 3
        local shell pid
        shell=$(tmux -S "$work/tmux-idle.sock" display-message -p '#{pane_pid}')
        pid=$(cut -d' ' -f1 "/proc/$shell/task/$shell/children" 2>/dev/null || true)
        [ -n "$pid" ] || pid=$shell   # the shell may have exec'd the program itself
        idle() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
        wakes() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$pid/status"; }
        local ticks0 wakes0
        ticks0=$(idle); wakes0=$(wakes)
        sleep 10
        printf '  %-52s %14s  %12s\n' "TUI idle for 10 s, 100,000 sessions: CPU / wake-ups" \
            "$(( ($(idle) - ticks0) * 10 )) ms / $(( $(wakes) - wakes0 ))" "≈ 0" >&2
        tmux -S "$work/tmux-idle.sock" kill-server 2>/dev/null || true
    done
    # Cleaned up here rather than in a RETURN trap: under set -u such a trap outlives the function and its locals.
    local socket
    for socket in "$work"/tmux-*.sock; do tmux -S "$socket" kill-server 2>/dev/null || true; done
    rm -rf "$work"
}
case ",${BENCH_ONLY:-tui}," in
*,tui,*) tui_rows || echo "  (the TUI rows did not finish)" >&2 ;;
esac
