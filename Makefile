# authdeck — build, test and run on Debian. `make setup` needs root (it runs apt-get).
SWIFT ?= swift
SWIFT_BUILD_FLAGS ?=
# Release builds carry the Swift runtime and Foundation inside the binary and are not position-independent, so
# authdeck-full needs none of their 125,888 relative relocations at start (~1.5 ms and 1.6 MB of dirtied pages).
# Never -no-pie without --static-swift-stdlib: against the shared Swift runtime the loader warns on every start.
# No $ORIGIN run path either (--disable-local-rpath): with the runtime inside, nothing is loaded from beside the
# binary, and an installed one must not prefer libraries there (lintian's custom-library-search-path).
RELEASE_FLAGS = -c release --static-swift-stdlib -Xlinker -no-pie --disable-local-rpath
PREFIX ?= /usr/local
ZSH_COMPLETIONS ?= $(PREFIX)/share/zsh/site-functions
BIN = $(shell $(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)/authdeck
RELEASE_BIN = $(shell $(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/authdeck

# The Debian packages authdeck builds against and tests with.
DEBIAN_PACKAGES = pkg-config libncurses-dev libssl-dev libcjose-dev libjansson-dev libsqlite3-dev nettle-dev \
	libmicrohttpd-dev libsecret-1-dev libkeyutils-dev libqrencode-dev libfido2-dev python3-fido2 \
	libcurl4-openssl-dev libcurl4 ca-certificates keyutils tmux dbus dbus-x11 gnome-keyring libsecret-tools sqlite3 python3 python3-keyring \
	procps glewlwyd openssl python3-venv git openssh-server openssh-client python3-cryptography \
	fish zsh zbar-tools gh oathtool curl util-linux dash chromium pass gnupg awscli dpkg-dev lintian mmdebstrap

# skopeo, Debian's docker-registry and htpasswd: the registry credential helper's test pushes through them.
DEBIAN_PACKAGES += skopeo docker-registry apache2-utils
# strace: the token cache's test counts the files a cached `token` opens (none of the database's).
DEBIAN_PACKAGES += strace
# The interoperability suite's django-oauth-toolkit, in a venv under .build (never system-wide). oauthlib 4 breaks
# the toolkit's device authorization view (3.4.1), so it stays below 4. Without the network this step only warns:
# the suite then says it skipped that server.
INTEROP_VENV = .build/interop-venv
INTEROP_PYPI = "django-oauth-toolkit>=3.4,<3.5" "oauthlib>=3.2.2,<4"
# idpyoidc's authorization server (token exchange, RFC 8693), in a venv of its own: it pins other versions of the
# libraries the toolkit uses.
EXCHANGE_VENV = .build/exchange-venv
EXCHANGE_PYPI = "idpyoidc==5.0.0"
# Python's HPKE (RFC 9180), the peer the OTP encryption to Turnkey's enclave is checked against: Debian's
# python3-cryptography predates it (46 added hpke), so a venv of its own.
HPKE_VENV = .build/hpke-venv
HPKE_PYPI = "cryptography>=46"
# moto's server, a local AWS STS that `authdeck aws-credentials` is tested against with the real aws CLI.
MOTO_VENV = .build/moto-venv
MOTO_PYPI = "moto[server]>=5,<6"
# The clean Debian root `make deb-check` installs the package into: a tarball made once by mmdebstrap from the
# mirror, with zsh, fish, desktop-file-utils and man-db (to see the completions, the URL handler and the man page
# land where they look) and the runtime libraries' packages downloaded but not installed, so the install needs no
# network.
DEB_ROOT = .build/deb-root/bookworm.tar
DEB_ROOT_INSTALLED = zsh fish desktop-file-utils man-db
DEB_ROOT_CACHED = libc6 libgcc-s1 libstdc++6 libssl3 libcjose0 libjansson4 libqrencode4 libncursesw6 libtinfo6 \
	libsqlite3-0 libnettle8 libkeyutils1 libcurl4 libmicrohttpd12 libsecret-1-0 libfido2-1

.PHONY: setup build release test lint format run bench fuzz install deb deb-check clean

setup:
	@if [ "$$(id -u)" != 0 ]; then echo "make setup: run as root (it installs Debian packages)" >&2; exit 1; fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(DEBIAN_PACKAGES)
	@# Debian's kubectl, unless one is installed already (another package owning /usr/bin/kubectl would make
	@# dpkg refuse it and fail the whole setup).
	command -v kubectl >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		kubernetes-client
	( python3 -m venv $(INTEROP_VENV) && $(INTEROP_VENV)/bin/pip install -q $(INTEROP_PYPI) ) \
		|| echo "make setup: django-oauth-toolkit not installed; the interop suite will skip it" >&2
	( python3 -m venv $(EXCHANGE_VENV) && $(EXCHANGE_VENV)/bin/pip install -q $(EXCHANGE_PYPI) ) \
		|| echo "make setup: idpyoidc not installed; the interop suite will skip it" >&2
	( python3 -m venv $(HPKE_VENV) && $(HPKE_VENV)/bin/pip install -q $(HPKE_PYPI) ) \
		|| echo "make setup: cryptography>=46 not installed; the HPKE tests will say they skipped" >&2
	( python3 -m venv $(MOTO_VENV) && $(MOTO_VENV)/bin/pip install -q $(MOTO_PYPI) ) \
		|| echo "make setup: moto not installed; the AWS credential tests will say they skipped" >&2
	scripts/deb-root.sh $(DEB_ROOT) "$(DEB_ROOT_INSTALLED)" "$(DEB_ROOT_CACHED)"

build:
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

release:
	$(SWIFT) build $(RELEASE_FLAGS)

# Tests run inside a private D-Bus session with an unlocked gnome-keyring, so the Secret Service is real; the run
# ends by listing everything that was skipped here and why (scripts/list-skips.sh over .build/test-output.log).
# Then the fuzz smoke run and a 75-second soak (below).
test: build
	scripts/run-tests.sh $(SWIFT) $(SWIFT_BUILD_FLAGS) && scripts/fuzz.sh --smoke \
		&& python3 scripts/soak.py "$(BIN)" --seconds 75

# Mechanical style (.swift-format: 120 columns, 4 spaces): `make lint` fails on any finding, `make format` fixes
# what it can in place.
LINT_PATHS = Package.swift Sources Tests Fuzz
lint:
	$(SWIFT) format lint --strict --parallel --recursive $(LINT_PATHS)
format:
	$(SWIFT) format format --in-place --parallel --recursive $(LINT_PATHS)

run: build
	scripts/run-sandbox.sh "$(BIN)"

bench: release
	scripts/bench.sh "$(RELEASE_BIN)"

# The soak (scripts/soak.py): the TUI in tmux, token/exec/agent loops, sign-ins, imports and logouts on 30-second
# tokens while the sandbox switches faults and writers are killed with SIGKILL, for SOAK_SECONDS (default 600); it
# ends with the store's integrity, every session's token, the sandbox's count of refresh-token replays, RSS and
# leftover processes, and keeps its logs when it fails.
.PHONY: soak
soak: build
	python3 scripts/soak.py "$(BIN)"

# libFuzzer targets in Fuzz/, built with swiftc outside Package.swift; FUZZ_SECONDS (default 60) per target.
# Crash inputs are kept in Fuzz/crashes/. fuzz-smoke is the short run `make test` ends with.
.PHONY: fuzz-smoke
fuzz:
	scripts/fuzz.sh
fuzz-smoke:
	scripts/fuzz.sh --smoke

# The shell completions and the man page's command and option lists, generated from the command table
# (Sources/AuthdeckCommands/CommandTable/Commands.swift); SupportToolingTests fails when the committed files differ from it.
.PHONY: completions
completions: build
	"$(BIN)-full" --generate completions bash > Resources/completions/authdeck.bash
	"$(BIN)-full" --generate completions zsh > Resources/completions/_authdeck
	"$(BIN)-full" --generate completions fish > Resources/completions/authdeck.fish
	"$(BIN)-full" --generate man < Resources/authdeck.1 > Resources/authdeck.1.new
	mv Resources/authdeck.1.new Resources/authdeck.1

# The two binaries (authdeck hands most commands to lib/authdeck/authdeck-full; docker-credential-authdeck is a
# link to authdeck, which reads its name), the data files, the man page,
# shell completions and the authdeck:// URL handler.
install: release
	install -D -m 0755 "$(RELEASE_BIN)" "$(DESTDIR)$(PREFIX)/bin/authdeck"
	install -D -m 0755 "$(RELEASE_BIN)-full" "$(DESTDIR)$(PREFIX)/lib/authdeck/authdeck-full"
	ln -sf authdeck "$(DESTDIR)$(PREFIX)/bin/docker-credential-authdeck"
	install -d "$(DESTDIR)$(PREFIX)/share/authdeck"
	install -m 0644 Resources/providers.json Resources/sandbox-users.json Resources/callback-success.html \
		Resources/callback-error.html "$(DESTDIR)$(PREFIX)/share/authdeck/"
	install -D -m 0644 Resources/authdeck.1 "$(DESTDIR)$(PREFIX)/share/man/man1/authdeck.1"
	ln -sf authdeck.1 "$(DESTDIR)$(PREFIX)/share/man/man1/docker-credential-authdeck.1"
	install -D -m 0644 Resources/completions/authdeck.bash "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/authdeck"
	install -D -m 0644 Resources/completions/_authdeck "$(DESTDIR)$(ZSH_COMPLETIONS)/_authdeck"
	install -D -m 0644 Resources/completions/authdeck.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/authdeck.fish"
	install -D -m 0644 Resources/authdeck-url-handler.desktop \
		"$(DESTDIR)$(PREFIX)/share/applications/authdeck-url-handler.desktop"

# authdeck_VERSION-N_amd64.deb from the release build (scripts/make-deb.sh), and its check, which CI runs: lintian
# finds no error, and in a clean root from `make setup` it installs with apt-get, signs in against its sandbox, and
# removes and purges leaving nothing behind (scripts/check-deb.sh).
deb: release
	scripts/make-deb.sh "$(RELEASE_BIN)"
deb-check: deb
	scripts/check-deb.sh $(DEB_ROOT) authdeck_*_amd64.deb

clean:
	rm -rf .build
