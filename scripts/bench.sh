#!/usr/bin/env bash
# `make bench`: measures the targets of SPEC section 8 and prints a table (scripts/bench.py does the work). It runs
# inside a private D-Bus session with gnome-keyring so the Secret Service rows compare against a real keyring.
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
"$here/with-keyring.sh" python3 "$here/bench.py" "$bin"
