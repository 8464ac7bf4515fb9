#!/usr/bin/env bash
# `make deb`: authdeck_VERSION-N_amd64.deb from the release build, with Debian's own tools. The files are what
# `make install` puts under PREFIX=/usr (zsh's completion in Debian's vendor folder), stripped and compressed as
# Debian policy asks; packaging/debian holds the control file, changelog, copyright and lintian overrides.
# Depends comes from dpkg-shlibdeps over what authdeck-full links, plus the libraries the C shims open with dlopen:
# each gets a stand-in library linked against it alone, filed under the field LAZY_FIELDS gives it.
# Usage: scripts/make-deb.sh RELEASE_BIN (the release build's authdeck; authdeck-full lies beside it).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1
fail() {
    echo "make deb: $*" >&2
    exit 1
}

# The dlopen'd libraries, by the C module whose shim opens them, and the control field each goes to (README,
# "Installing with apt", says why).
declare -A LAZY_FIELDS=([CCurl]=Depends [CMicroHTTPD]=Depends [CLibsecret]=Recommends [CFido2]=Suggests)

version=$(sed -n 's/^ *public static let current = "\(.*\)"$/\1/p' Sources/AuthBase/AuthdeckVersion.swift)
[ -n "$version" ] || fail "no version found in Sources/AuthBase/AuthdeckVersion.swift"
said=$("$bin" --version)
[ "$said" = "authdeck $version" ] || fail "$bin says '$said', the sources say $version: run make release"
debian_version=$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)
[ "${debian_version%-*}" = "$version" ] ||
    fail "packaging/debian/changelog's newest entry is $debian_version: add one for $version-1 (dch -v $version-1)"

work=$PWD/.build/deb
stage=$work/authdeck
rm -rf "$work"
mkdir -p "$stage/DEBIAN"
"${MAKE:-make}" --no-print-directory install DESTDIR="$stage" PREFIX=/usr \
    ZSH_COMPLETIONS=/usr/share/zsh/vendor-completions >/dev/null

# Policy 10.1: binaries stripped (dh_strip's sections); Swift's metadata lives in allocated sections strip keeps.
strip --remove-section=.comment --remove-section=.note "$stage/usr/bin/authdeck" \
    "$stage/usr/lib/authdeck/authdeck-full"
gzip -9n "$stage/usr/share/man/man1/authdeck.1"
# The credential helper's name is a link to authdeck, so its manual page is a link to authdeck's (Policy 12.1).
ln -sf authdeck.1.gz "$stage/usr/share/man/man1/docker-credential-authdeck.1.gz"
rm -f "$stage/usr/share/man/man1/docker-credential-authdeck.1"
install -D -m 0644 packaging/debian/copyright "$stage/usr/share/doc/authdeck/copyright"
gzip -9nc packaging/debian/changelog >"$stage/usr/share/doc/authdeck/changelog.Debian.gz"
install -D -m 0644 packaging/debian/lintian-overrides "$stage/usr/share/lintian/overrides/authdeck"

# Every library a shim opens with dlopen must have a field: a new one fails here rather than going unlisted.
shims=()
while IFS= read -r line; do
    module=${line%%/shim.h:*}
    module=${module##*/}
    soname=$(sed -n 's/.*dlopen("\([^"]*\)".*/\1/p' <<<"$line")
    field=${LAZY_FIELDS[$module]:-}
    [ -n "$field" ] || fail "Sources/$module/shim.h opens $soname with dlopen: give it a field in LAZY_FIELDS"
    # A stand-in linked against that library alone, so dpkg-shlibdeps names its package and version.
    # In a folder of their own with a DEBIAN folder, as dpkg-shlibdeps expects a package's files to be.
    mkdir -p "$work/lazy/DEBIAN"
    cc -shared -o "$work/lazy/$module.so" -Wl,--no-as-needed "-l:$soname"
    shims+=("-d$field" "$work/lazy/$module.so")
done < <(grep -H 'dlopen("' Sources/*/shim.h)
[ ${#shims[@]} -gt 0 ] || fail "found no dlopen'd library in Sources/*/shim.h"

# Only dynamically linked binaries: the lean authdeck is static and needs nothing at run time.
linked=()
for binary in "$stage/usr/bin/authdeck" "$stage/usr/lib/authdeck/authdeck-full"; do
    if readelf -d "$binary" | grep -q NEEDED; then linked+=("$binary"); fi
done
# Warnings 1: "symbol found in none of the libraries" stays on; "useless dependency" would only ever name the
# stand-ins, which use no symbol on purpose.
(cd packaging && dpkg-shlibdeps --warnings=1 -T"$work/substvars" -dDepends "${linked[@]}" "${shims[@]}")

(
    cd "$stage" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum >DEBIAN/md5sums
)
chmod 0644 "$stage/DEBIAN/md5sums"
(cd packaging && dpkg-gencontrol -pauthdeck -P"$stage" -T"$work/substvars" -f"$work/files")
package=authdeck_${debian_version}_amd64.deb
rm -f authdeck_*_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$package" >/dev/null
echo "$package"
