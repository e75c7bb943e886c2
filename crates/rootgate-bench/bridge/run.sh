#!/usr/bin/env bash
# The bridge benchmark: what `rootgate connect` costs an AI app, against the
# same client talking to the same server directly, and against FastMCP's
# proxy (a proxy a user could pick instead), in one run, interleaved round
# by round. The client is the official TypeScript SDK (driver.mjs), the
# server a bare Node MCP server (server.mjs). See BENCHMARKS.md for the
# targets and the results.
#
#   bash crates/rootgate-bench/bridge/run.sh            the full run (3 rounds)
#   QUICK=1 bash crates/rootgate-bench/bridge/run.sh    a smoke run: correctness, few iterations
#
# Environment: PREBUILT=1 (use the binaries already built, do not build),
# ROUNDS (default 3, QUICK 1), PROXIES ("floor tokio-floor rootgate fastmcp";
# "tokio-floor" for the floor on the bridge's kind of event loop, and
# "before" with BEFORE=an earlier rootgate binary;
# QUICK leaves FastMCP out unless set), PROFILE (release; QUICK: debug, the
# test suite's own build, since a smoke run checks correctness only), OUT (default
# $BENCH_HOME/results/bridge.jsonl). Uses ../shared/bench's pinned SDK
# (bash ../shared/bench/setup.sh installs it) and installs FastMCP's pinned
# requirements into $BENCH_HOME/venv-fastmcp.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../../.." && pwd -P)
. "$repo/../shared/bench/env.sh"
bash "$repo/../shared/bench/setup.sh" >/dev/null

quick=${QUICK:-0}
if [ "$quick" = 1 ]; then
  rounds=${ROUNDS:-1}; proxies=${PROXIES:-floor rootgate}; profile=${PROFILE:-debug}
  sizes=(--spawns 3 --calls 100 --big 5 --rounds 3)
else
  rounds=${ROUNDS:-3}; proxies=${PROXIES:-floor tokio-floor rootgate fastmcp}; profile=${PROFILE:-release}
  sizes=(--spawns 20 --calls 1000 --big 50 --rounds 30)
fi
out=${OUT:-$BENCH_HOME/results/bridge.jsonl}
mkdir -p "$(dirname "$out")"

target=${CARGO_TARGET_DIR:-$repo/target}
rootgate=$target/$profile/rootgate
floor=$target/$profile/relay-floor
tokio_floor=$target/$profile/relay-floor-tokio
# PREBUILT=1 uses the binaries already in the target folder (the test
# command's own build has made them): building three packages on their own
# here resolves features apart from the workspace's build and compiled
# everything above tokio a second time, about 340 s of CPU on a cold run.
if [ "${PREBUILT:-0}" = 1 ]; then
  needed=("$rootgate" "$floor")
  [[ " $proxies " == *" tokio-floor "* ]] && needed+=("$tokio_floor")
  for bin in "${needed[@]}"; do
    [ -x "$bin" ] || { echo "PREBUILT=1, but $bin is not built" >&2; exit 2; }
  done
else
  case $profile in
    release) (cd "$repo" && cargo build --release --locked -q -p rootgate-cli -p rootgate-core -p rootgate-bench) ;;
    debug) (cd "$repo" && cargo build --locked -q -p rootgate-cli -p rootgate-core -p rootgate-bench) ;;
    *) echo "PROFILE must be release or debug" >&2; exit 2 ;;
  esac
fi

if [[ " $proxies " == *" fastmcp "* ]]; then
  venv=$BENCH_HOME/venv-fastmcp
  want="$(sha256sum "$here/requirements-fastmcp.txt" | cut -d' ' -f1) $PY"
  if [ "$(cat "$venv/.stamp" 2>/dev/null)" != "$want" ]; then
    rm -rf "$venv"
    "$PY" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$here/requirements-fastmcp.txt"
    echo "$want" > "$venv/.stamp"
  fi
fi

mkdir -p "$JS/bridge"
cp "$here/driver.mjs" "$here/server.mjs" "$JS/bridge/"
server=("$NODE" "$JS/bridge/server.mjs")

# Rootgate's settings for the bridge: the server, approved, in a folder of
# its own. Written as the app writes them (the command line is what the
# person approves, quoted as Rootgate quotes it: these paths need no quotes).
config=$(mktemp -d)
trap 'rm -rf "$config"' EXIT
mkdir -p "$config/rootgate"
"$PY" - "$config/rootgate/settings.json" "${server[@]}" <<'PYEOF'
import json, sys
path, command, *args = sys.argv[1:]
line = " ".join([command, *args])
spec = {"id": "srv-bench", "name": "bench", "command": command, "args": args, "env": {}, "cwd": None,
        "enabled": True, "withdrawal": "notify", "enforceRoots": False, "approvedCommand": line}
json.dump({"version": 1, "roots": [], "grants": [], "servers": [spec]}, open(path, "w"))
PYEOF
chmod 700 "$config" "$config/rootgate"

run() {  # run <label> <command...>
  XDG_CONFIG_HOME=$config "$NODE" "$JS/bridge/driver.mjs" --label "$1" "${sizes[@]}" -- "${@:2}" >> "$out"
}
printf '{"metric":"env","loadavg":"%s","started":"%s","quick":%s}\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$(date -Is)" "$quick" > "$out"
# Every other round runs in the opposite order, so that no client always
# comes first (after a pause) or last (after the others warmed the caches).
order=(direct $proxies)
for r in $(seq "$rounds"); do
  if (( r % 2 == 0 )); then clients=($(printf '%s\n' "${order[@]}" | tac)); else clients=("${order[@]}"); fi
  for p in "${clients[@]}"; do
    case $p in
      direct) run direct "${server[@]}" ;;
      floor) run floor "$floor" "${server[@]}" ;;
      # The floor on the bridge's kind of event loop (one thread, a task per
      # writer): against the floor, what the event loop alone costs.
      tokio-floor) run tokio-floor "$tokio_floor" "${server[@]}" ;;
      rootgate) run rootgate "$rootgate" connect bench ;;
      # A copy of an earlier build, for a change measured side by side in
      # one run: PROXIES="floor before rootgate" BEFORE=/path/to/rootgate.
      before) run before "${BEFORE:?BEFORE must name an earlier rootgate binary}" connect bench ;;
      fastmcp) run fastmcp "$BENCH_HOME/venv-fastmcp/bin/python" "$here/fastmcp_proxy.py" "${server[@]}" ;;
    esac
  done
done
printf '{"metric":"env","loadavg_end":"%s"}\n' "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"
"$PY" "$here/summarize.py" "$out"
