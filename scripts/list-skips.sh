#!/usr/bin/env bash
# Lists what a test run's log says was skipped: Swift Testing's own "skipped" lines (a trait such as
# `.enabled(if:)`) and the "skipped: reason" lines tests print when part of them cannot run here (not root, a tool
# missing, a port taken). Usage: scripts/list-skips.sh LOG
set -euo pipefail
log=$1
# Every line with the word "skipped", but for the runner's pass and fail lines (an expectation's text may quote
# a command's own "skipped N" output). The leading symbol Swift Testing puts before a skipped test is dropped.
skips=$(grep -aiwE 'skipped' "$log" | grep -avE '^(✔|✘|↳)|Expectation failed' \
    | sed -E 's/^[^[:alnum:]]*[[:space:]]+//' | sort | uniq -c | sort -rn || true)
if [ -z "$skips" ]; then
    echo "Skipped here: nothing."
else
    echo "Skipped here ($(printf '%s\n' "$skips" | wc -l) kinds; count, then what and why):"
    printf '%s\n' "$skips"
fi
