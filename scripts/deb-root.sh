#!/usr/bin/env bash
# `make setup`'s clean Debian root for `make deb-check`: a tarball made by mmdebstrap from Debian's mirror (the
# apt variant: the essential packages and apt), with INSTALLED installed and CACHED only downloaded into apt's
# cache, its package lists kept, so `apt-get install ./authdeck_*.deb` resolves and installs the
# package's dependencies there without the network. CACHED come with their Recommends, as apt-get install
# brings them. Made once; made again when the lists or this script change.
# Usage: scripts/deb-root.sh TARBALL "INSTALLED..." "CACHED..."
set -euo pipefail
cd "$(dirname "$0")/.."
tarball=$1
installed=$2
cached=$3
suite=bookworm
stamp="$tarball.packages"
# A change to the lists or to this script makes the root again.
wanted="$suite | $installed | $cached | $(md5sum <"$0")"
if [ -s "$tarball" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
    echo "make setup: $tarball is there already"
    exit 0
fi
mkdir -p "$(dirname "$tarball")"
rm -f "$stamp" "$tarball.new"
start=$(date +%s)
mmdebstrap --quiet --format=tar --variant=apt --include="${installed// /,}" \
    --skip=cleanup/apt/lists --skip=cleanup/apt/cache \
    --customize-hook="chroot \"\$1\" apt-get install --download-only -y -qq -o APT::Install-Recommends=true $cached" \
    "$suite" "$tarball.new" \
    "deb http://deb.debian.org/debian $suite main" \
    "deb http://deb.debian.org/debian $suite-updates main" \
    "deb http://deb.debian.org/debian-security $suite-security main"
mv "$tarball.new" "$tarball"
echo "$wanted" >"$stamp"
echo "make setup: made $tarball in $(($(date +%s) - start)) s"
