#!/usr/bin/env bash
# `make bench`: measures the targets of SPEC section 8 and prints a table. Rows are added as features land.
set -euo pipefail
bin=$1
printf '%-44s %12s %12s\n' "what" "figure" "target"
start=$(date +%s%N); "$bin" --version >/dev/null; end=$(date +%s%N)
printf '%-44s %9.2f ms %12s\n' "authdeck --version (process start)" "$(echo "($end-$start)/1000000" | bc -l)" "-"
