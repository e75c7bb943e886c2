#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh test) and runs the whole test suite:
# formatting, lints, and every Rust test (unit, in-memory protocol, and real
# MCP servers from npm, PyPI and our own fixture as child processes).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh test
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
step "cargo fmt --check"
cargo fmt --all -- --check
step "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "cargo nextest"
cargo nextest run --workspace --locked --no-fail-fast
