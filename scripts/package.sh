#!/usr/bin/env bash
# Builds Rootgate's Debian package with Tauri's bundler and prints its path
# as the last line of output. The package holds the desktop app
# (/usr/bin/rootgate-desktop), the `rootgate` command AI apps run
# (/usr/bin/rootgate, which opens the app found beside it), what its
# search, add and install commands run (/usr/bin/rootgate-installer), the
# servers' launcher (/usr/bin/rootgate-launcher), a desktop entry and icons; the
# `bundle` section of src-tauri/tauri.conf.json says what goes where, and
# Tauri fills in the package's dependencies (WebKitGTK, GTK). Removing the
# package leaves every user's settings (~/.config/rootgate) alone.
#
#   scripts/package.sh [--debug|--release] [--install]
#
#   --debug    (the default) the dev profile: what CI installs and checks
#              with scripts/package-smoke.sh. Built exactly as scripts/e2e.sh
#              builds the app it tests (with Tauri's `custom-protocol`
#              feature, which every packaged Tauri app has), so after an
#              end-to-end run nothing is compiled again
#   --release  optimised: the package to install and use. Built from the
#              packages scripts/run.sh builds, so after it, too, only Tauri
#              and what depends on it are compiled again
#   --install  install it with apt afterwards (as root, or through sudo);
#              a package of the same version is replaced
#
# Safe to rerun. It installs what it needs first (scripts/setup.sh package:
# the app's Debian packages, the UI, and the Tauri CLI from npm into
# packaging/node_modules, pinned by packaging/package-lock.json). The package
# is written to cargo's target folder (CARGO_TARGET_DIR if set), as
# target/PROFILE/bundle/deb/Rootgate_VERSION_ARCH.deb.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf '\033[1mpackage:\033[0m %s\n' "$*" >&2; }
die() { printf 'package: %s\n' "$*" >&2; exit 1; }

profile=debug
install=
for arg in "$@"; do
  case $arg in
    --debug) profile=debug ;;
    --release) profile=release ;;
    --install) install=1 ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) die "unknown argument: $arg (see scripts/package.sh --help)" ;;
  esac
done

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "need root to run: $* (install sudo or run as root)"
  fi
}

# Everything the script prints but the package's path goes to stderr.
bash scripts/setup.sh package >&2

target=${CARGO_TARGET_DIR:-target}
case $target in /*) ;; *) target=$PWD/$target ;; esac
out=$target/$profile/bundle/deb

# The binaries that are not the Tauri app's own, as bundle > linux > deb >
# files names them: links to this profile's build (the bundler copies what
# they point to). They are built by the same cargo run as the app, below.
mkdir -p packaging/stage
for bin in rootgate rootgate-door rootgate-installer rootgate-launcher; do
  ln -sfn "$target/$profile/$bin" "packaging/stage/$bin"
done

# One cargo run (the arguments after `--` are cargo's) builds the app with
# Tauri's custom-protocol feature, which turns Tauri's development mode off
# as in every packaged Tauri app, the `rootgate` command and the launcher;
# the bundler then makes the package from them. The packages built are the
# three the package holds, in both profiles: cargo unifies features over the
# packages of one run, so any other choice compiles tokio, rmcp, the core and
# more again with other features. scripts/run.sh builds the same three in
# release, without custom-protocol, so after it only Tauri and what depends
# on it are compiled again; scripts/e2e.sh builds them in debug with
# `--features tauri/custom-protocol`, as the bundler passes it, so after an
# end-to-end run nothing is. Both builds stay in the one target folder. A package of
# the other profile, or an older one, is never picked up: the folder is
# emptied first. The launcher's binary is its own crate's since the crates
# were split (and the door's, rootgate-door): without `-p rootgate-launcher` a clean target folder has none,
# and the bundler stops ("packaging/stage/rootgate-launcher does not exist").
cargo_args=(-p rootgate -p rootgate-cli -p rootgate-core -p rootgate-launcher -p rootgate-door)
if [ "$profile" = release ]; then
  profile_flag=()
else
  profile_flag=(--debug)
fi
rm -rf "$out"
say "building the app and the package ($profile)"
packaging/node_modules/.bin/tauri build "${profile_flag[@]}" --bundles deb --ci \
  -- --locked "${cargo_args[@]}" >&2

shopt -s nullglob
debs=("$out"/*.deb)
[ ${#debs[@]} = 1 ] || die "expected one package in $out, found ${#debs[@]}"
deb=${debs[0]}

if [ -n "$install" ]; then
  say "installing $deb"
  # --reinstall: a rebuilt package of an installed version replaces it.
  as_root apt-get install --reinstall "$deb" >&2
fi
printf '%s\n' "$deb"
