#!/usr/bin/env bash
# `make test`'s test run: the whole suite inside a private keyring session (scripts/with-keyring.sh), its output
# kept in .build/test-output.log, and then the list of every test or check that did not run here, with its reason,
# so a skip never passes unseen. Usage: scripts/run-tests.sh SWIFT [swift test options…]
set -uo pipefail
cd "$(dirname "$0")/.."
swift=$1
shift
mkdir -p .build
log=.build/test-output.log
scripts/with-keyring.sh "$swift" test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
scripts/list-skips.sh "$log"
exit "$status"
