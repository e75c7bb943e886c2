#!/usr/bin/env bash
# Benchmarks of the app itself (issue 6, "The app itself"): start-up against
# a bare Tauri window (crates/bare-window), idle CPU and memory with 20
# running servers, and opening and scrolling 1,000 folders and a timeline of
# 100,000 entries. Release builds, a real WebKit window under Xvfb, driven
# over WebDriver (tauri-driver) where the page must be read.
# scripts/bench-app/bench.mjs says exactly what each number is.
#
#   bash scripts/bench-app.sh
#
# It installs what it needs the way scripts/e2e.sh does (Debian packages and
# test peers via scripts/setup.sh test, tauri-driver at .ci/tools/bin
# (scripts/tauri-driver.sh), the npm
# packages of ui/ and tests/e2e/), builds the UI and
# `cargo build --release -p rootgate -p bare-window`, then prints a summary
# (Markdown) and writes it with every sample to .ci/out/bench-app/
# (summary.md, results.json). Takes about 15 minutes with the defaults.
#
# Environment: BENCH_RUNS (start-up runs, default 7), BENCH_IDLE_RUNS
# (default 3), BENCH_IDLE_SECONDS (default 60), BENCH_LIST_RUNS (default 3),
# BENCH_SERVERS (default 20), BENCH_FOLDERS (default 1000), BENCH_TIMELINE
# (default 100000), BENCH_TIMELINE_KEPT (how many of them the window should
# show, default all), BENCH_SLOW_START_SECONDS (default 3), BENCH_ONLY (a comma
# list of startup,idle,lists), BENCH_SKIP_SETUP=1 (use what is built),
# BENCH_KEEP=1 (keep the temporary settings and folders), BENCH_ROOTGATE and
# BENCH_BARE (other builds to measure, e.g. a copy of an older release build).
#
# A benchmark, not a test: it asserts no time. The machine is shared, so it
# reports CPU time (not wall time) for idle cost, and ratios against the
# bare window measured in the same run, interleaved, for start-up.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
say() { printf '\033[1mbench-app:\033[0m %s\n' "$*" >&2; }

npm_ci() {
  if [ ! -d "$1/node_modules" ]; then
    say "npm ci in $1"
    (cd "$1" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

if [ -z "${BENCH_SKIP_SETUP:-}" ]; then
  bash scripts/setup.sh test
  bash scripts/tauri-driver.sh
  npm_ci ui
  npm_ci tests/e2e
  say "building the UI"
  (cd ui && npm run build --silent)
  say "building the release app and the bare window"
  cargo build --release -p rootgate -p bare-window
fi
for cmd in xvfb-run WebKitWebDriver node; do
  command -v "$cmd" >/dev/null || { echo "bench-app: $cmd is missing (scripts/setup.sh test installs it)" >&2; exit 1; }
done

say "uptime: $(uptime)"
exec xvfb-run -a -s "-screen 0 1280x800x24" node scripts/bench-app/bench.mjs
