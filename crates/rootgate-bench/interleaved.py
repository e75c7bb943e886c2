#!/usr/bin/env python3
"""Tables for an interleaved run (interleaved.sh): each round ran every client
once per case, so each round's ratio to the TypeScript client compares runs a
few seconds apart. Prints, per case, every client's median of its per-round
medians, and the per-round ratios to the target's baseline (the TypeScript
client, or the no-SDK floor `raw` for spawn-roots) with their median.

Usage: python3 interleaved.py OUT_DIR
"""
import functools
import json
import statistics
import sys
from pathlib import Path

CLIENTS = ["ts", "raw", "rootgate-tmpfs", "rootgate"]
# (label, metric, N or size, field, statistic, baseline client, limit)
CASES = [
    ("propagate raw-py N=1, median ms", "propagate", 1, "ms", "median", "ts", 0.8),
    ("propagate raw-py N=50, median ms", "propagate", 50, "ms", "median", "ts", 0.5),
    ("propagate raw-py N=50, p99 ms", "propagate", 50, "ms", "p99", "ts", 0.5),
    ("rootsize raw-py 10,000 roots, server-measured median ms", "rootsize", 10000,
     "server_roots_rtt_ms", "median", "ts", 0.5),
    ("spawn-roots raw-py N=50, median ms", "spawn-roots", 50, "ms", "median", "raw", 1.05),
]


@functools.cache
def records(out: Path, client: str) -> tuple:
    """Every result line of a client's JSONL file, read once for all cases."""
    path = out / f"{client}.jsonl"
    if not path.exists():
        return ()
    found = []
    for line in path.read_text().splitlines():
        try:
            found.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return tuple(found)


def rounds(out: Path, client: str, metric: str, size: int, field: str, stat: str):
    """The statistic of each round, keyed by round number."""
    found = {}
    for o in records(out, client):
        if o.get("metric") != metric:
            continue
        if (o.get("size") if metric == "rootsize" else o.get("n")) != size:
            continue
        found[o["round"]] = o[field][stat]
    return found


def paired(baseline: dict, ours: dict) -> list:
    """Ours over the baseline, round by round, for rounds both ran."""
    return [ours[r] / baseline[r] for r in sorted(baseline) if r in ours and baseline[r] > 0]


def main() -> None:
    out = Path(sys.argv[1])
    print("| case | " + " | ".join(CLIENTS) + " | Rootgate (tmpfs) / baseline, per round | median ratio | limit | |")
    print("|---|" + "---|" * (len(CLIENTS) + 4))
    for label, metric, size, field, stat, baseline, limit in CASES:
        per = {c: rounds(out, c, metric, size, field, stat) for c in CLIENTS}
        if not any(per.values()):
            continue
        med = {c: (statistics.median(v.values()) if v else None) for c, v in per.items()}
        cells = [f"{med[c]:.3g}" if med[c] is not None else "–" for c in CLIENTS]
        ratios = paired(per[baseline], per["rootgate-tmpfs"])
        if ratios:
            r = statistics.median(ratios)
            spread = " ".join(f"{x:.2f}" for x in ratios)
            verdict = "met" if r <= limit else "missed"
            print(f"| {label} | " + " | ".join(cells) + f" | {spread} (vs {baseline}) | {r:.2f}× | ≤ {limit}× | {verdict} |")
        else:
            print(f"| {label} | " + " | ".join(cells) + f" | – | – | ≤ {limit}× | |")
    # The ext4 column against the same baselines.
    print()
    print("| case | Rootgate (ext4) / baseline, per round | median ratio |")
    print("|---|---|---|")
    for label, metric, size, field, stat, baseline, limit in CASES:
        ratios = paired(
            rounds(out, baseline, metric, size, field, stat),
            rounds(out, "rootgate", metric, size, field, stat),
        )
        if ratios:
            print(f"| {label} | " + " ".join(f"{x:.2f}" for x in ratios) + f" (vs {baseline}) | {statistics.median(ratios):.2f}× |")


if __name__ == "__main__":
    main()
