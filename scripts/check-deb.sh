#!/usr/bin/env bash
# `make deb-check`: the package passes lintian with no error (its warnings are printed), and in a fresh copy of the
# clean Debian root `make setup` made (scripts/deb-root.sh) it installs with apt-get, works from /usr, and removes
# and purges leaving nothing behind (scripts/deb-check-inside.sh, run there under chroot).
# Usage: scripts/check-deb.sh ROOT_TARBALL PACKAGE.deb
set -euo pipefail
cd "$(dirname "$0")/.."
tarball=$1
package=$2
fail() {
    echo "make deb-check: $*" >&2
    exit 1
}
[ "$(id -u)" = 0 ] || fail "run as root: the install test chroots into a clean Debian root"
[ -s "$tarball" ] || fail "no clean Debian root at $tarball: run make setup"
[ -f "$package" ] || fail "no package $package: run make deb"
version=$(sed -n 's/^ *public static let current = "\(.*\)"$/\1/p' Sources/AuthBase/AuthdeckVersion.swift)

echo "make deb-check: lintian $package"
# Errors fail, and so does any warning but these two, each a choice made on purpose:
# - hardening-no-pie: authdeck-full is not position-independent, which spares it 125,888 relocations at every
#   start (RELEASE_FLAGS in the Makefile); its image gets no address randomisation, its stack, heap and libraries
#   still do.
# - initial-upload-closes-no-bugs: the package is built locally, not uploaded to Debian, so no ITP bug exists.
# (--show-overrides would fail even an overridden error, so the overrides are listed from their file.)
accepted='hardening-no-pie|initial-upload-closes-no-bugs'
lintian --allow-root --fail-on error --display-level '>=warning' "$package" | tee .build/lintian.log ||
    fail "lintian found errors in $package (above)"
unexpected=$(grep -E '^W: ' .build/lintian.log | grep -Ev "^W: authdeck: ($accepted) " || true)
[ -z "$unexpected" ] || fail "lintian warns of more than the accepted $accepted (above)"
sed -n 's/^authdeck: /make deb-check: lintian override, argued in packaging\/debian\/lintian-overrides: /p' \
    packaging/debian/lintian-overrides

# The root lives in a tmpfs mounted in a mount namespace of this check's own: when the check ends, for any
# reason, the root and its /proc are gone with the namespace, and nothing is left to delete.
root=$PWD/.build/deb-check
mkdir -p "$root"
start=$(date +%s)
unshare --mount --pid --fork --kill-child /bin/sh -c '
    set -e
    mount -t tmpfs -o size=2g,mode=0755 deb-check "$1"
    tar -xf "$2" -C "$1"
    cp "$3" scripts/deb-check-inside.sh "$1/tmp/"
    mount -t proc proc "$1/proc"
    exec chroot "$1" /bin/bash /tmp/deb-check-inside.sh "/tmp/$(basename "$3")" "$4"' \
    - "$root" "$tarball" "$package" "$version"
echo "make deb-check: $package installs, works and purges cleanly ($(($(date +%s) - start)) s in the clean root)"
