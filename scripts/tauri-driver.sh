#!/usr/bin/env bash
# Puts tauri-driver (the WebDriver server scripts/e2e.sh and
# scripts/bench-app.sh drive the app through) at .ci/tools/bin/tauri-driver.
# It is compiled from crates.io once per machine, not once per clone: cargo
# installs it into a cache outside the clone,
# ${XDG_CACHE_HOME:-~/.cache}/rootgate/tauri-driver-2 (ROOTGATE_CACHE sets
# another place for that rootgate folder), and .ci/tools/bin/tauri-driver is a
# link to it. A second CI run on the same machine, in a fresh clone, finds it
# there; a bare machine compiles it once (about 3 minutes of CPU). Safe to
# rerun: it does nothing while the link works.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
link=.ci/tools/bin/tauri-driver
[ -x "$link" ] && exit 0
cache=${ROOTGATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rootgate}/tauri-driver-2
if [ ! -x "$cache/bin/tauri-driver" ]; then
  printf '\033[1mtauri-driver:\033[0m installing it into %s\n' "$cache" >&2
  mkdir -p "$(dirname "$cache")"
  # Into a folder of this run's own, moved into place whole, so that two
  # clones installing at once never see half an install.
  tmp=$(mktemp -d "$cache.XXXXXX")
  # Not ours to lint: built without the test command's clippy wrapper.
  env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS \
    cargo install tauri-driver --locked --version '^2' --root "$tmp" >&2
  mv -T "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"
fi
mkdir -p "$(dirname "$link")"
ln -sfn "$cache/bin/tauri-driver" "$link"
