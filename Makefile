# strivacity — the two commands that matter:
#   make demo   set up, build, and run the main job against the local tenant
#   make test   set up, build, and run every test (with a real, private keyring)
# Both install missing Debian packages first (with sudo when not root).

SWIFT ?= swift
BUILD_DIR ?= .build
# What building and testing need on Debian 12 besides Swift itself.
APT_PACKAGES := libsecret-1-dev libcurl4-openssl-dev pkg-config \
  libsecret-tools gnome-keyring dbus-daemon libglib2.0-bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := $(BUILD_DIR)/debug/strivacity

.PHONY: all deps build test demo clean

all: build

## deps: install the Debian packages that are missing (nothing when all are there)
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | grep -q '^install ok installed$$' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make: installing$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

## build: debug build of every product
build: deps
	$(SWIFT) build --build-path $(BUILD_DIR)

## test: every test, inside a private D-Bus session with an unlocked gnome-keyring
test: deps
	$(SWIFT) build --build-path $(BUILD_DIR) --build-tests
	Scripts/with-keyring $(SWIFT) test --build-path $(BUILD_DIR) --skip-build

## demo: a full sign-in in this terminal against the local tenant, with a private keyring
demo: build
	@KEYRING_QUIET=1 Scripts/with-keyring Scripts/demo

clean:
	rm -rf $(BUILD_DIR)
