#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh test) and runs the whole test suite:
# formatting, lints (in the build: see below), every Rust test (unit, in-memory protocol, and real MCP
# servers from npm, PyPI and our own fixture as child processes), the UI's
# type check and unit tests, and the end-to-end tests of the built app in a
# real WebKit window under Xvfb. Last, the Debian package: built, installed,
# its commands checked where it installed them, and removed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# CI builds a clean clone once: incremental compilation's caches would only be
# written (time, and gigabytes of disk), never read. A developer's rerun keeps them.
if [ "${CI:-}" = true ]; then export CARGO_INCREMENTAL=0; fi

# Each step's time: wall clock, and CPU (user+sys of everything it ran,
# which another build on the machine hardly changes), printed when the next
# step starts and, for every step, at the end.
cpu_ticks() { local s; s=$(</proc/$$/stat); s=${s##*) }; set -- $s; echo $((${14} + ${15})); }
step_name= step_wall= step_cpu= times_=()
step_done() {
  [ -n "$step_name" ] || return 0
  local wall cpu
  wall=$(awk -v a="$step_wall" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
  cpu=$(( ($(cpu_ticks) - step_cpu + 50) / 100 ))
  times_+=("$(printf '%6s s %6s s CPU  %s' "$wall" "$cpu" "$step_name")")
  printf '\033[2m-- %s s, %s s CPU: %s\033[0m\n' "$wall" "$cpu" "$step_name"
  step_name=
}
summary() {
  local status=$?
  step_done
  printf '\n\033[1m== time per step (wall, CPU)\033[0m\n'
  printf '%s\n' "${times_[@]}"
  printf '%6s s %6s s CPU  all\n' "$SECONDS" "$(( ($(cpu_ticks) + 50) / 100 ))"
  exit "$status"
}
trap summary EXIT
step() {
  step_done
  step_name=$*; step_wall=$EPOCHREALTIME; step_cpu=$(cpu_ticks)
  printf '\n\033[1m== %s\033[0m\n' "$*"
}
step "setup (scripts/setup.sh test)"
bash scripts/setup.sh test
step "cargo fmt --check"
cargo fmt --all -- --check
step "import circles, test-only names, one graph (scripts/check-layers.py --graphs)"; python3 scripts/check-layers.py --graphs
step "cargo build with clippy's lints, -D warnings (the tests and every binary they run)"
# Clippy's lints run inside the build that the tests use, not in a
# `cargo clippy` of their own: clippy-driver is rustc with clippy's lints
# added, and as cargo's workspace wrapper it compiles our crates with
# them, and with `-D warnings`, as `cargo clippy --workspace --all-targets
# -- -D warnings` lints them (dependencies are built by plain rustc, their
# lints capped, as clippy leaves them). A separate `cargo clippy` type-checks
# every dependency once more, which was a third of the test command's time
# on a clean machine (BENCHMARKS.md, "The test command's time"). Exported, so
# that every later build (nextest's, the end-to-end run's shipped build, the
# package's) finds the same compiler and flags and reuses what this one
# built.
RUSTC_WORKSPACE_WRAPPER=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver) ||
  { echo "test.sh: clippy is not installed (rustup component add clippy)" >&2; exit 1; }
export RUSTC_WORKSPACE_WRAPPER
export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-D warnings"
# Tests run our example server, the launcher and the app as real processes,
# and nextest builds only test targets, so the binaries are built first, in
# the same cargo run as the tests, so with the same features (cargo turns the
# dev-dependencies' features on for every package of a run that builds a
# test). nextest then finds everything built. The workspace declares its
# dependencies' features so that this graph and the shipped app's differ
# only in Tauri's and the shell's own features (Cargo.toml), and the
# end-to-end run's shipped build reuses nearly all of this one.
cargo build --workspace --all-targets --locked
step "cargo nextest (with a keyring daemon of its own: scripts/with-keyring.sh); beside it, the UI's type check and unit tests, and tauri-driver"
# The Rust tests mostly wait on the servers and windows they start, and use
# about one of the machine's cores; the UI's checks and tests (Node only) and
# tauri-driver's one-time compile (its own target folder, for the end-to-end
# run) use the other meanwhile. Their output is shown when the Rust tests
# are done, so the two logs do not interleave.
mkdir -p .ci/out
side_log=.ci/out/beside-nextest.log
# (tauri-driver is not ours: built without our lints and flags.)
( (cd ui && npm run --silent check && npm test --silent) &&
  env -u RUSTC_WORKSPACE_WRAPPER -u RUSTFLAGS bash scripts/tauri-driver.sh ) >"$side_log" 2>&1 &
side=$!
rust_status=0
bash scripts/with-keyring.sh cargo nextest run --workspace --locked --no-fail-fast || rust_status=$?
side_status=0
wait "$side" || side_status=$?
printf '\n\033[1m== beside the Rust tests: the UI type check and unit tests, tauri-driver\033[0m\n'
cat "$side_log"
[ "$rust_status" = 0 ] || { echo "test.sh: the Rust tests failed" >&2; exit "$rust_status"; }
[ "$side_status" = 0 ] || { echo "test.sh: the UI's type check or unit tests, or tauri-driver's install, failed" >&2; exit "$side_status"; }
step "bridge benchmark, smoke run (correctness only: a few calls of each kind through rootgate connect)"
QUICK=1 PREBUILT=1 OUT="$PWD/.ci/out/bridge-smoke.jsonl" bash crates/rootgate-bench/bridge/run.sh
if [ -f scripts/e2e.sh ]; then
  step "end to end"
  bash scripts/e2e.sh
fi
step "Debian package: build (debug profile), install, check the installed commands, remove"
deb=$(bash scripts/package.sh --debug)
bash scripts/package-smoke.sh "$deb"
