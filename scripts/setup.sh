#!/usr/bin/env bash
# Installs what Rootgate needs to build, run and test, and nothing globally
# that a package manager would not: Debian packages through apt, the test
# peers (real MCP servers from npm and PyPI) into tests/peers/. Safe to rerun:
# each step checks first and skips what is already there.
#
#   scripts/setup.sh app      what building and running the app needs
#   scripts/setup.sh test     that, plus what the test suite needs
#   scripts/setup.sh package  what the app needs, plus what packages it
#                             (scripts/package.sh: the Tauri CLI, into
#                             packaging/node_modules)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
what=${1:-test}

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
die() { printf 'setup: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "need root to run: $* (install sudo or run as root)"
  fi
}

# Debian packages: building the app (WebKitGTK for Tauri's webview), then
# what the tests drive (a virtual X display, WebKit's WebDriver, xdotool for
# the real GTK folder dialog, ImageMagick for screenshots).
APP_PKGS=(build-essential pkg-config curl libwebkit2gtk-4.1-dev libssl-dev
  libayatana-appindicator3-dev librsvg2-dev libxdo-dev)
# util-linux (unshare, setpriv) and mount: the folder-availability tests
# unmount folders in a private mount namespace and drop root's DAC rights.
# A real keyring for the secrets' tests (scripts/with-keyring.sh): a session
# bus of their own (dbus-daemon's dbus-run-session, dbus-bin's dbus-send),
# GNOME Keyring's Secret Service on it, and secret-tool to read back what it
# keeps as the desktop sees it. The tray's tests close the app's window as a
# window manager asks (WM_DELETE_WINDOW, sent with python3-xlib: Xvfb has no
# window manager) and check the Start at login entry with
# desktop-file-validate (desktop-file-utils).
TEST_PKGS=(xvfb xauth webkit2gtk-driver xdotool imagemagick python3-venv fonts-nanum util-linux mount
  dbus-daemon dbus-bin gnome-keyring libsecret-tools dunst python3-xlib desktop-file-utils)
pkgs=("${APP_PKGS[@]}")
[ "$what" = test ] && pkgs+=("${TEST_PKGS[@]}")
# desktop-file-validate checks the package's desktop entry; its dpkg trigger
# also updates the menus' cache when the package is installed.
[ "$what" = package ] && pkgs+=(desktop-file-utils)
command -v node >/dev/null || pkgs+=(nodejs npm)
command -v python3 >/dev/null || pkgs+=(python3)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command -v cargo >/dev/null || die "Rust is not installed: install it with rustup (https://rustup.rs), version 1.88 or newer, then rerun"
if [ "$what" = test ] && ! command -v cargo-nextest >/dev/null; then
  say "installing cargo-nextest"
  cargo install --locked cargo-nextest >/dev/null
fi

digest() { cat "$@" | sha256sum | cut -d' ' -f1; }

# The UI: npm packages locked by ui/package-lock.json, built into ui/dist,
# which the app embeds when it is compiled.
if [ -f ui/package.json ]; then
  want=$(digest ui/package.json ui/package-lock.json)
  if [ "$(cat ui/node_modules/.rootgate-stamp 2>/dev/null)" != "$want" ]; then
    say "installing the UI's npm packages"
    (cd ui && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" > ui/node_modules/.rootgate-stamp
  fi
  # Built again only when something it is built from changed: scripts that
  # call this one in turn (test.sh, e2e.sh, package.sh) build it once.
  want=$(cd ui && find index.html package.json package-lock.json ./*.config.* tsconfig.json src \
    -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
  if [ "$(cat ui/dist/.rootgate-stamp 2>/dev/null)" != "$want" ]; then
    say "building the UI"
    (cd ui && npm run --silent build)
    echo "$want" > ui/dist/.rootgate-stamp
  fi
fi

# The Tauri CLI, whose bundler builds the Debian package: a prebuilt binary
# from npm (nothing to compile), locked by packaging/package-lock.json.
if [ "$what" = package ]; then
  want=$(digest packaging/package.json packaging/package-lock.json)
  if [ "$(cat packaging/node_modules/.rootgate-stamp 2>/dev/null)" != "$want" ]; then
    say "installing the Tauri CLI into packaging/node_modules"
    (cd packaging && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" > packaging/node_modules/.rootgate-stamp
  fi
  say "ready"
  exit 0
fi

[ "$what" = test ] || exit 0

# Test peers, locked: npm packages by package-lock.json, Python packages by a
# full pin list. A stamp of the lock files' digest makes a rerun a no-op.
peers=tests/peers
want=$(digest "$peers/package.json" "$peers/package-lock.json")
if [ "$(cat "$peers/node_modules/.rootgate-stamp" 2>/dev/null)" != "$want" ]; then
  say "installing npm test peers into $peers/node_modules"
  (cd "$peers" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$peers/node_modules/.rootgate-stamp"
fi
# The end-to-end tests' WebDriver client (scripts/e2e.sh).
want=$(digest tests/e2e/package.json tests/e2e/package-lock.json)
if [ "$(cat tests/e2e/node_modules/.rootgate-stamp 2>/dev/null)" != "$want" ]; then
  say "installing the end-to-end tests' npm packages into tests/e2e/node_modules"
  (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > tests/e2e/node_modules/.rootgate-stamp
fi
py=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')
want="$(digest "$peers/requirements.txt") $py"
if [ "$(cat "$peers/.venv/.rootgate-stamp" 2>/dev/null)" != "$want" ]; then
  say "installing Python test peers into $peers/.venv"
  rm -rf "$peers/.venv"
  "$py" -m venv "$peers/.venv"
  "$peers/.venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$peers/requirements.txt"
  echo "$want" > "$peers/.venv/.rootgate-stamp"
fi
say "ready"
