#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh test) and runs the whole test suite:
# formatting, lints, every Rust test (unit, in-memory protocol, and real MCP
# servers from npm, PyPI and our own fixture as child processes), the UI's
# type check and unit tests, and the end-to-end tests of the built app in a
# real WebKit window under Xvfb. Last, the Debian package: built, installed,
# its commands checked where it installed them, and removed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh test
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
step "cargo fmt --check"
cargo fmt --all -- --check
step "import circles (scripts/check-layers.py)"; python3 scripts/check-layers.py
step "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "cargo build"
# Tests run our fixture server and the app as real processes; nextest builds
# only test targets, so the workspace's binaries are built first.
cargo build --workspace --locked
step "cargo nextest (with a keyring daemon of its own: scripts/with-keyring.sh)"
bash scripts/with-keyring.sh cargo nextest run --workspace --locked --no-fail-fast
step "bridge benchmark, smoke run (correctness only: a few calls of each kind through rootgate connect)"
QUICK=1 OUT="$PWD/.ci/out/bridge-smoke.jsonl" bash crates/rootgate-bench/bridge/run.sh
step "UI: type check and unit tests"
(cd ui && npm run --silent check && npm test --silent)
if [ -f scripts/e2e.sh ]; then
  step "end to end"
  bash scripts/e2e.sh
fi
step "Debian package: build (debug profile), install, check the installed commands, remove"
deb=$(bash scripts/package.sh --debug)
bash scripts/package-smoke.sh "$deb"
