#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh test) and runs the whole test suite:
# formatting, lints, every Rust test (unit, in-memory protocol, and real MCP
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
# Tauri's `generate_context!` writes the UI's compressed assets (and its
# icon) into the shell's OUT_DIR while the shell compiles, and lists them
# among the shell's inputs. Written after that compile began, they make
# cargo take the shell for changed on its next run, and it was compiled
# once more: by nextest after the build (27 s on a clean clone), by the
# package after the end-to-end run's shipped build (20 s). Each is named by
# its content's digest, so an old time is true of what it holds; a changed
# UI makes new files, and its own files are newer than the shell.
settle_codegen_outputs() {
  local target=${CARGO_TARGET_DIR:-target}
  find "$target"/*/build -regextype posix-extended \
    \( -path '*/out/tauri-codegen-assets/*' -o -regex '.*/out/[0-9a-f]{64}' \) \
    -type f -exec touch -d @0 {} + 2>/dev/null || true
}
step "setup (scripts/setup.sh test)"
bash scripts/setup.sh test
step "cargo fmt --check"
cargo fmt --all -- --check
step "import and call circles, crate rules, test-only names, one graph (scripts/check-layers.py --graphs, and its own test)"
python3 scripts/check-layers.py --graphs
python3 -m unittest scripts/test_check_layers.py
step "cargo build, linted by clippy (the tests and every binary they run)"
# One compile for the lints and the build: clippy-driver builds the
# workspace's own crates as cargo's workspace wrapper, with its lints denied
# as `cargo clippy --all-targets -- -D warnings` would (CLIPPY_ARGS is how
# cargo-clippy hands clippy-driver its arguments), and the dependencies are
# built once, by rustc. A separate `cargo clippy` type-checked every
# dependency a second time: 259 of its 1,141 s of compile units in a fresh
# target folder on a 2-core machine (cargo --timings; BENCHMARKS.md, "The
# test command: one compile, unoptimised dependencies"). Exported for every
# cargo run below (nextest's, the end-to-end
# run's shipped build, the package's): the wrapper is part of what cargo
# compares, so each of them reuses this build.
export RUSTC_WORKSPACE_WRAPPER
RUSTC_WORKSPACE_WRAPPER=$(rustc --print sysroot)/bin/clippy-driver
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
# Tests run our example server, the launcher and the app as real processes,
# and nextest builds only test targets, so the binaries are built first, in
# the same cargo run as the tests, so with the same features (cargo turns the
# dev-dependencies' features on for every package of a run that builds a
# test). nextest then finds everything built. The workspace declares its
# dependencies' features so that this graph and the shipped app's differ
# only in Tauri's and the shell's own features (Cargo.toml), and the
# end-to-end run's shipped build reuses nearly all of this one.
cargo build --workspace --all-targets --locked
settle_codegen_outputs
step "cargo nextest (with a keyring daemon of its own: scripts/with-keyring.sh); beside it, tauri-driver's compile"
# The Rust tests mostly wait on the servers and windows they start; on a
# machine without tauri-driver yet (scripts/tauri-driver.sh compiles it once
# per machine, in a target folder of its own), that compile uses the other
# core meanwhile. Its output is shown when the Rust tests are done. (The
# UI's tests ran here too once, and timed out under the Rust tests' heaviest
# test, a thousand bridges at once: they run after, below.)
mkdir -p .ci/out
side_log=.ci/out/beside-nextest.log
bash scripts/tauri-driver.sh >"$side_log" 2>&1 &
side=$!
rust_status=0
bash scripts/with-keyring.sh cargo nextest run --workspace --locked --no-fail-fast || rust_status=$?
side_status=0
wait "$side" || side_status=$?
cat "$side_log"
[ "$rust_status" = 0 ] || { echo "test.sh: the Rust tests failed" >&2; exit "$rust_status"; }
[ "$side_status" = 0 ] || { echo "test.sh: tauri-driver's install failed" >&2; exit "$side_status"; }
step "bridge benchmark, smoke run (correctness only: a few calls of each kind through rootgate connect)"
QUICK=1 PREBUILT=1 OUT="$PWD/.ci/out/bridge-smoke.jsonl" bash crates/rootgate-bench/bridge/run.sh
step "UI: type check and unit tests"
(cd ui && npm run --silent check && npm test --silent)
if [ -f scripts/e2e.sh ]; then
  step "end to end"
  bash scripts/e2e.sh
  settle_codegen_outputs
fi
step "Debian package: build (debug profile), install, check the installed commands, remove"
deb=$(bash scripts/package.sh --debug)
bash scripts/package-smoke.sh "$deb"
