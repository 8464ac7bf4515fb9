#!/usr/bin/env bash
# Lists what a test run's log says was skipped: Swift Testing's own "skipped" lines (a trait such as
# `.enabled(if:)`) and the "skipped: reason" lines tests print when part of them cannot run here (not root, a tool
# missing, a port taken). Usage: scripts/list-skips.sh LOG
set -euo pipefail
log=$1
# Every line whose first four words include "skipped" ("skipped: why", "SuiteName: skipped …", Swift Testing's
# "Test name() skipped"), but for the runner's pass and fail lines: a failed expectation may quote many lines of
# a command's output, and its prose may say "skipped" further along. The symbol before a skipped test is dropped.
skips=$(grep -avE '^(✔|✘|↳)|Expectation failed|^Skipped here' "$log" | sed -E 's/^[^[:alnum:]]*[[:space:]]+//' \
    | grep -aiE '^([^[:space:]]+[[:space:]]+){0,3}skipped\b' | sort | uniq -c | sort -rn || true)
if [ -z "$skips" ]; then
    echo "Skipped here: nothing."
else
    echo "Skipped here ($(printf '%s\n' "$skips" | wc -l) kinds; count, then what and why):"
    printf '%s\n' "$skips"
fi
