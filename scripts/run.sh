#!/usr/bin/env bash
# Sets up what the app needs (scripts/setup.sh app: Debian packages, the UI's
# npm packages) and starts Rootgate. Arguments are passed to the app: folders
# given here are offered for sharing with a consent prompt.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh app
# The desktop app, the `rootgate` command (which AI apps run as
# `rootgate connect NAME`, and which opens the app) and the servers' launcher.
cargo build --release --locked -p rootgate -p rootgate-cli -p rootgate-core
exec target/release/rootgate "$@"
