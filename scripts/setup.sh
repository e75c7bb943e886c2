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
  libayatana-appindicator3-dev librsvg2-dev libxdo-dev bubblewrap)
# util-linux (unshare, setpriv) and mount: the folder-availability tests
# unmount folders in a private mount namespace and drop root's DAC rights.
# A real keyring for the secrets' tests (scripts/with-keyring.sh): a session
# bus of their own (dbus-daemon's dbus-run-session, dbus-bin's dbus-send),
# GNOME Keyring's Secret Service on it, and secret-tool to read back what it
# keeps as the desktop sees it. The tray's tests close the app's window as a
# window manager asks (WM_DELETE_WINDOW, sent with python3-xlib: Xvfb has no
# window manager) and check the Start at login entry with
# desktop-file-validate (desktop-file-utils). The gate's test starts it the
# way systemd's user socket does, with systemd's own systemd-socket-activate
# (systemd).
TEST_PKGS=(xvfb xauth webkit2gtk-driver xdotool imagemagick python3-venv fonts-nanum util-linux mount
  dbus-daemon dbus-bin gnome-keyring libsecret-tools dunst python3-xlib desktop-file-utils openssh-client strace
  systemd)
pkgs=("${APP_PKGS[@]}")
[ "$what" = test ] && pkgs+=("${TEST_PKGS[@]}")
# desktop-file-validate checks the package's desktop entry; its dpkg trigger
# also updates the menus' cache when the package is installed. The MIME
# database's (shared-mime-info) compiles the package's .mcpb type, which the
# package's check looks for.
[ "$what" = package ] && pkgs+=(desktop-file-utils shared-mime-info)
command -v node >/dev/null || pkgs+=(nodejs npm)
command -v python3 >/dev/null || pkgs+=(python3)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
install_debian_packages() {
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# On a fresh machine most of setup is downloading: the Debian packages, the
# npm and PyPI packages, and the crates cargo builds next. They come from
# different registries, so they are fetched side by side: each job below
# writes to its own log, and `finish_jobs` waits for all of them and shows
# the log of any that failed. Only what needs another job's result waits
# for it (npm for Node.js from apt, when the machine has no Node.js).
jobs_dir=$(mktemp -d "${TMPDIR:-/tmp}/rootgate-setup.XXXXXX")
job_pids=() job_names=()
job() {
  local name=$1; shift
  say "$name"
  ("$@") >"$jobs_dir/${#job_pids[@]}.log" 2>&1 &
  job_pids+=("$!") job_names+=("$name")
}
finish_jobs() {
  local i failed=0
  for i in "${!job_pids[@]}"; do
    if ! wait "${job_pids[$i]}"; then
      printf 'setup: failed: %s\n' "${job_names[$i]}" >&2
      cat "$jobs_dir/$i.log" >&2
      failed=1
    fi
  done
  job_pids=() job_names=()
  [ "$failed" = 0 ] || die "see the output above"
}
trap 'rm -rf "$jobs_dir"' EXIT

if [ ${#missing[@]} -gt 0 ]; then
  if command -v node >/dev/null && command -v python3 >/dev/null; then
    job "installing Debian packages: ${missing[*]}" install_debian_packages
  else
    say "installing Debian packages: ${missing[*]}"
    install_debian_packages
  fi
fi

command -v cargo >/dev/null || die "Rust is not installed: install it with rustup (https://rustup.rs), version 1.88 or newer, then rerun"
# The crates, into cargo's own cache, for this machine's platform only, so
# that the first build compiles instead of downloading.
host=$(rustc -vV | sed -n 's/^host: //p')
job "downloading the crates (cargo fetch)" cargo fetch --locked --target "$host"
if [ "$what" = test ] && ! command -v cargo-nextest >/dev/null; then
  job "installing cargo-nextest" cargo install --locked cargo-nextest
fi

digest() { cat "$@" | sha256sum | cut -d' ' -f1; }
# npm packages locked by DIR/package-lock.json into DIR/node_modules; a stamp
# of the lock files' digest makes a rerun a no-op.
npm_ci() {
  local dir=$1 want
  want=$(digest "$dir/package.json" "$dir/package-lock.json")
  [ "$(cat "$dir/node_modules/.rootgate-stamp" 2>/dev/null)" = "$want" ] && return 0
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$dir/node_modules/.rootgate-stamp"
}
fresh_npm() {
  [ "$(cat "$1/node_modules/.rootgate-stamp" 2>/dev/null)" = "$(digest "$1/package.json" "$1/package-lock.json")" ]
}

# The UI: npm packages locked by ui/package-lock.json, built into ui/dist,
# which the app embeds when it is compiled. Built again only when something
# it is built from changed: scripts that call this one in turn (test.sh,
# e2e.sh, package.sh) build it once.
ui() {
  npm_ci ui
  local want
  want=$(cd ui && find index.html package.json package-lock.json ./*.config.* tsconfig.json src \
    -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
  [ "$(cat ui/dist/.rootgate-stamp 2>/dev/null)" = "$want" ] && return 0
  echo "building the UI"
  (cd ui && npm run --silent build)
  echo "$want" > ui/dist/.rootgate-stamp
}
[ -f ui/package.json ] && job "installing the UI's npm packages and building the UI" ui

# The Tauri CLI, whose bundler builds the Debian package: a prebuilt binary
# from npm (nothing to compile), locked by packaging/package-lock.json.
if [ "$what" = package ] && ! fresh_npm packaging; then
  job "installing the Tauri CLI into packaging/node_modules" npm_ci packaging
fi

# Test peers, locked: npm packages by package-lock.json, Python packages by a
# full pin list. A stamp of the lock files' digest makes a rerun a no-op.
peers=tests/peers
python_peers() {
  local py want
  py=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')
  want="$(digest "$peers/requirements.txt") $py"
  [ "$(cat "$peers/.venv/.rootgate-stamp" 2>/dev/null)" = "$want" ] && return 0
  rm -rf "$peers/.venv"
  "$py" -m venv "$peers/.venv"
  "$peers/.venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$peers/requirements.txt"
  echo "$want" > "$peers/.venv/.rootgate-stamp"
}
if [ "$what" = test ]; then
  fresh_npm "$peers" || job "installing npm test peers into $peers/node_modules" npm_ci "$peers"
  # The end-to-end tests' WebDriver client (scripts/e2e.sh).
  fresh_npm tests/e2e ||
    job "installing the end-to-end tests' npm packages into tests/e2e/node_modules" npm_ci tests/e2e
  # The official SDK clients the bridge's benchmark drives (its smoke run
  # is part of the test command): installed here, beside the rest, rather
  # than at the start of that step, where it took about 40 s of a bare
  # machine's run on its own. It makes Python venvs too.
  bench_peers() { bash ../shared/bench/setup.sh; }
  # A Python without venv support (Debian's, before python3-venv is in)
  # waits for the Debian packages.
  if python3 -c 'import ensurepip' 2>/dev/null; then
    job "installing Python test peers into $peers/.venv (when their pins changed)" python_peers
    [ -f ../shared/bench/setup.sh ] &&
      job "installing the benchmark's SDK clients (../shared/bench/setup.sh)" bench_peers
  else
    finish_jobs
    say "installing Python test peers into $peers/.venv (when their pins changed)"
    python_peers
    if [ -f ../shared/bench/setup.sh ]; then
      say "installing the benchmark's SDK clients (../shared/bench/setup.sh)"
      bench_peers
    fi
  fi
fi
finish_jobs
say "ready"
