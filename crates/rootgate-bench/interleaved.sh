#!/bin/bash
# Interleaved side-by-side rounds of the targets of issue #6: each round runs every client once
# on the same metric, so slow drift of the host affects them alike.
# Needs the shared benchmark installed (../shared/bench/setup.sh) and a
# release build of the driver. Tables: python3 interleaved.py "$OUT".
# ROUNDS (default 5) sets how many rounds; METRICS (default "propagate
# rootsize") which of propagate, rootsize and spawn-roots they run.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The shared benchmark sits beside the repository, as in the guide.
source "${SHARED_BENCH:-$HERE/../../../shared/bench}/env.sh"
export BENCH_ROOTS_BASE=$FIXTURES
OUT=${OUT:?set OUT to the directory for the results}
mkdir -p "$OUT"
D=${D:-$HERE/../../target/release/rootgate-bench-driver}
SRV="$PY -I -S $BENCH_DIR/servers/raw_server.py"
declare -A C=(
  [ts]="$NODE $JS/ts_client_bench.mjs"
  [raw]="$PY $BENCH_DIR/raw_client_bench.py"
  [rootgate-tmpfs]="$D --settings-dir /dev/shm"
  [rootgate]="$D"
)
{ echo "start $(date -Is) $(uptime)"; } > "$OUT/load.txt"
METRICS=${METRICS:-propagate rootsize}
want() { [[ " $METRICS " == *" $1 "* ]]; }
# One run of client $c in round $round (both set by the loop below).
run() { ${C[$c]} "$@" -- $SRV 2>>"$OUT/$c.stderr" | sed "s/^{/{\"round\":$round,/" >> "$OUT/$c.jsonl"; }
for round in $(seq 1 ${ROUNDS:-5}); do
  for c in ts raw rootgate-tmpfs rootgate; do
    if want propagate; then
      run propagate --n 1 --iters 200
      run propagate --n 50 --iters 200
    fi
    if want rootsize; then run rootsize --sizes 10000 --iters 200; fi
    if want spawn-roots; then run spawn-roots --n 50 --reps 3; fi
  done
done
{ echo "end $(date -Is) $(uptime)"; } >> "$OUT/load.txt"
