#!/usr/bin/env bash
# `make run`: the TUI against the built-in sandbox. Until the sandbox and the TUI exist, shows the help.
set -euo pipefail
bin=$1
exec "$bin" --help
