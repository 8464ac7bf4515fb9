#!/bin/bash
# Runs inside the clean Debian root (scripts/check-deb.sh copies it to /tmp there): installs the package with
# apt-get from the packages `make setup` cached (no network), checks that what it installed works from /usr as
# the programs that read it see it, then removes and purges it (and the libraries it pulled in) and compares every
# file of the root with the list taken before the install.
# Usage: deb-check-inside.sh /tmp/PACKAGE.deb VERSION
set -euo pipefail
package=$1
version=$2
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin
fail() {
    echo "make deb-check: $*" >&2
    exit 1
}
say() { echo "make deb-check: $*"; }
# apt-get without the network: anything not in the cache `make setup` filled would be fetched through a proxy
# nobody listens on, and fail. (--no-download refuses a .deb named on the command line.)
apt() {
    apt-get -qq -o Dpkg::Use-Pty=0 -o Acquire::http::Proxy=http://127.0.0.1:9 -o Acquire::Retries=0 "$@" \
        >/tmp/apt.log 2>&1 || {
        cat /tmp/apt.log >&2
        fail "apt-get $* failed (a dependency missing from the clean root's cache goes into DEB_ROOT_CACHED" \
            "in the Makefile, then make setup)"
    }
}
# Every file and folder of the root with its type and mode, and each regular file's checksum; what apt and dpkg
# keep of their own doings (logs, caches, the status database; ldconfig's inode cache) and this check's own files
# are left out, and so is man-db's index: its dpkg trigger adds pages but leaves purging to its daily job
# (`mandb -p`), so `gone` runs that purge itself and asks whatis.
skipped=(/proc /dev /tmp /root /run /var/log /var/cache/apt /var/cache/man /var/cache/ldconfig /var/cache/debconf
    /var/lib/apt /var/lib/dpkg)
snapshot() {
    local prune=()
    for path in "${skipped[@]}"; do prune+=(-path "$path" -o); done
    unset 'prune[-1]'
    find / -xdev \( "${prune[@]}" \) -prune -o -printf '%p %y %m\n' | LC_ALL=C sort
    find / -xdev \( "${prune[@]}" \) -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum
}

# The package's Depends first, as apt installs them (their own Recommends, like ca-certificates, included), then
# the list to compare with: what the package itself adds must all be gone again after remove and after purge.
depends=$(dpkg-deb -f "$package" Depends | sed 's/([^)]*)//g; s/,/ /g')
apt install -y $depends
gone() {
    mandb -q
    ! whatis authdeck >/dev/null 2>&1 || fail "man-db's index still has authdeck's page after apt-get $1"
    snapshot >/tmp/after
    diff /tmp/before /tmp/after >&2 ||
        fail "apt-get $1 left the root different from before the install (above: < before, > after)"
    say "apt-get $1 left every file of the root as it was"
}

snapshot >/tmp/before
start=$(date +%s)
# Depends is enough: everything below runs without what is only recommended (libsecret-1-0).
apt install -y --no-install-recommends "$package"
say "installed in $(($(date +%s) - start)) s"
[ "$(dpkg-query -W -f='${Status}' libsecret-1-0 2>/dev/null || true)" != "install ok installed" ] ||
    fail "libsecret-1-0 was installed with Depends alone"

said=$(authdeck --version)
[ "$said" = "authdeck $version" ] || fail "authdeck --version says '$said', not 'authdeck $version'"

# The sandbox from /usr (authdeck hands it to /usr/lib/authdeck/authdeck-full), on a port of its own.
data=/tmp/authdeck-home
mkdir -m 700 "$data"
export AUTHDECK_HOME=$data
authdeck sandbox --port 0 --outbox /tmp/outbox.jsonl --config-out /tmp/sandbox.json >/tmp/sandbox.log 2>&1 &
sandbox=$!
for _ in $(seq 1 300); do
    [ -s /tmp/sandbox.json ] && break
    kill -0 "$sandbox" 2>/dev/null || fail "authdeck sandbox --port 0 stopped: $(cat /tmp/sandbox.log)"
    sleep 0.1
done
[ -s /tmp/sandbox.json ] || fail "authdeck sandbox --port 0 wrote no config in 30 s: $(cat /tmp/sandbox.log)"
say "sandbox up: $(head -n 1 /tmp/sandbox.log)"

# A sign-in through the command line: an email code for a user the sandbox knows, typed on standard input once
# authdeck says it was sent, into a passphrase store (no D-Bus here). The providers come from /usr/share/authdeck.
export AUTHDECK_CONFIG=/tmp/sandbox.json AUTHDECK_PASSPHRASE_FILE=/tmp/passphrase
(umask 077 && echo 'correct horse battery staple' >"$AUTHDECK_PASSPHRASE_FILE")
mkfifo /tmp/code-input
authdeck login email --contact ada@example.com --backend sandbox --timeout 60 </tmp/code-input \
    >/tmp/login.out 2>/tmp/login.err &
login=$!
exec 3>/tmp/code-input
for _ in $(seq 1 300); do
    grep -q 'A code was sent to' /tmp/login.err && break
    kill -0 "$login" 2>/dev/null || break
    sleep 0.1
done
grep -q 'A code was sent to' /tmp/login.err || fail "authdeck login sent no code: $(cat /tmp/login.err)"
code=$(sed -n 's/.*"code":"\([0-9A-Za-z]*\)".*/\1/p' /tmp/outbox.jsonl | tail -n 1)
[ -n "$code" ] || fail "the sandbox's outbox holds no code: $(cat /tmp/outbox.jsonl)"
echo "$code" >&3
exec 3>&-
wait "$login" || fail "authdeck login failed: $(cat /tmp/login.err)"
key=$(cat /tmp/login.out)
listed=$(authdeck list --json)
grep -q "\"key\":\"$key\"" <<<"$listed" || fail "the session '$key' is not listed: $(authdeck list --json)"
token=$(authdeck token "$key")
[ -n "$token" ] || fail "authdeck token $key printed nothing"
# The store's key stays cached in the kernel keyring, which the chroot shares with the machine: drop it.
locked=$(authdeck store lock 2>&1) || fail "authdeck store lock failed: $locked"
say "signed in as session '$key' and read its token"
kill "$sandbox"
wait "$sandbox" || true

# The man page, the completions where bash, zsh and fish look, the URL handler registered by Debian's
# desktop-file-utils trigger, the copyright.
# (Each output is read whole before grep -q looks at it: a writer cut off by grep's early exit fails under pipefail.)
[ "$(man -w authdeck)" = /usr/share/man/man1/authdeck.1.gz ] || fail "man finds no authdeck page in /usr/share/man"
whatis authdeck >/dev/null || fail "man-db's trigger did not index authdeck's man page"
man -w docker-credential-authdeck >/dev/null 2>&1 || fail "man finds no page for docker-credential-authdeck"
bash -c '. /usr/share/bash-completion/completions/authdeck && complete -p authdeck' >/dev/null ||
    fail "bash: the completion defines none for authdeck"
zsh -fc 'autoload -Uz compinit && compinit -u -d /tmp/zcompdump && [[ -n ${_comps[authdeck]} ]]' ||
    fail "zsh: compinit finds no completion for authdeck in its fpath"
offered=$(fish -c 'complete -C"authdeck "')
grep -q '^login' <<<"$offered" || fail "fish: no completion offers authdeck's login"
grep -q '^x-scheme-handler/authdeck=.*authdeck-url-handler.desktop' /usr/share/applications/mimeinfo.cache ||
    fail "authdeck-url-handler.desktop is not the x-scheme-handler/authdeck handler in mimeinfo.cache"
grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
    /usr/share/doc/authdeck/copyright || fail "no machine-readable copyright in /usr/share/doc/authdeck"
say "man page, bash/zsh/fish completions, URL handler and copyright are where their readers look"

apt remove -y authdeck
hash -r
! command -v authdeck >/dev/null || fail "authdeck is still on the PATH after apt-get remove"
gone remove
# With no conffiles, remove leaves nothing to purge: dpkg forgets the package at once.
[ -z "$(dpkg-query -W -f='${Status}' authdeck 2>/dev/null || true)" ] || fail "dpkg still knows authdeck after remove"

# The command users type: the Recommends come along. Then the way most people leave a package, apt-get purge while
# it is installed, and autoremove for what it brought.
apt install -y "$package"
[ "$(dpkg-query -W -f='${Status}' libsecret-1-0)" = "install ok installed" ] ||
    fail "apt-get install did not bring libsecret-1-0 (Recommends)"
apt purge -y authdeck
apt autoremove --purge -y
[ -z "$(dpkg-query -W -f='${Status}' authdeck 2>/dev/null || true)" ] || fail "dpkg still knows authdeck after purge"
gone "purge and autoremove"
