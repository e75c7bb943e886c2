#!/usr/bin/env python3
"""Issue #6's targets, read from one run of ../shared/bench/run_all.sh.

usage: python3 targets.py RESULTS_DIR [CLIENT ...]

RESULTS_DIR holds the run's <client>.jsonl files. For each Rootgate column
given (default: every column whose name starts with "rootgate") it prints a
markdown table: each target of the issue, Rootgate's number, the baseline's
(the TypeScript SDK client "ts", or the no-SDK floor "raw" for spawn), the
ratio, the limit and whether the target is met. Statistics are the ones the
drivers printed (medians and p99 over iterations, peak VmHWM per metric).

What it does not do: run anything, or compare columns from different runs
(it refuses when the run_started stamps differ).
"""
import glob
import json
import os
import sys

SERVERS = {"raw_server.py": "raw-py", "raw_server.mjs": "raw-node", "ts_sdk_server": "ts-sdk",
           "py_sdk_roots_server": "py-sdk", "server-filesystem": "fs"}


def server_name(cmd):
    for key, label in SERVERS.items():
        if key in (cmd or ""):
            return label
    return "?"


def load(path):
    """Result lines of one client, each with `_rss` (the VmHWM printed after it)."""
    lines, prev, started = [], None, None
    for raw in open(path):
        raw = raw.strip()
        if not raw:
            continue
        o = json.loads(raw)
        if o.get("metric") == "run":
            started = o.get("run_started")
        elif o.get("metric") == "rss":
            if prev is not None:
                prev["_rss"] = o.get("vmhwm_kb")
        elif "error" in o:
            lines.append(o)
        elif o.get("metric") in ("spawn", "spawn-roots", "propagate", "rootsize"):
            o["_server"] = server_name(o.get("server"))
            lines.append(o)
            prev = o
    return started, lines


def find(lines, metric, server, **keys):
    for o in lines:
        if o.get("metric") == metric and o.get("_server") == server and all(o.get(k) == v for k, v in keys.items()):
            return o
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    clients = {os.path.basename(f)[:-6]: load(f) for f in sorted(glob.glob(os.path.join(d, "*.jsonl")))}
    stamps = {c: s for c, (s, _) in clients.items()}
    if len(set(stamps.values())) > 1:
        sys.exit(f"columns from different runs: {stamps}")
    ours = sys.argv[2:] or [c for c in clients if c.startswith("rootgate")]
    ts = clients["ts"][1]
    raw = clients["raw"][1] if "raw" in clients else None
    for name in ours:
        rg = clients[name][1]
        rows = []

        def row(what, mine, base, base_name, limit):
            if mine is None or base is None:
                rows.append((what, mine, base, base_name, None, limit, "not run"))
                return
            ratio = mine / base
            rows.append((what, mine, base, base_name, ratio, limit, "met" if ratio <= limit else "missed"))

        for n, limit in ((1, 0.8), (50, 0.5)):
            a, b = find(rg, "propagate", "raw-py", n=n), find(ts, "propagate", "raw-py", n=n)
            row(f"propagate raw-py N={n}, median ms", a and a["ms"]["median"], b and b["ms"]["median"], "ts", limit)
        a, b = find(rg, "propagate", "raw-py", n=50), find(ts, "propagate", "raw-py", n=50)
        row("propagate raw-py N=50, p99 ms", a and a["ms"]["p99"], b and b["ms"]["p99"], "ts", 0.5)
        for server in ("raw-py", "raw-node", "ts-sdk"):
            a, b = find(rg, "rootsize", server, size=10000), find(ts, "rootsize", server, size=10000)
            row(f"rootsize {server} 10,000 roots, server-measured roots/list median ms",
                a and a["server_roots_rtt_ms"]["median"], b and b["server_roots_rtt_ms"]["median"], "ts", 0.5)
        for metric in ("spawn", "spawn-roots"):
            if raw is None:
                break
            for server in ("raw-py", "raw-node", "ts-sdk", "py-sdk", "fs"):
                a, b = find(rg, metric, server, n=50), find(raw, metric, server, n=50)
                if a is None and b is None:
                    continue
                row(f"{metric} {server} N=50, median ms", a and a["ms"]["median"], b and b["ms"]["median"], "raw",
                    1.05)
        for metric in ("spawn", "spawn-roots", "propagate", "rootsize"):
            mine = [o["_rss"] for o in rg if o.get("metric") == metric and o.get("_rss")]
            base = [o["_rss"] for o in ts if o.get("metric") == metric and o.get("_rss")]
            if mine or base:
                row(f"peak RSS after {metric}, MiB", max(mine) / 1024 if mine else None,
                    max(base) / 1024 if base else None, "ts", 0.25)

        print(f"\n### Targets for `{name}` (run started {stamps[name]})\n")
        print("| target | Rootgate | baseline | ratio | limit | |")
        print("|---|---|---|---|---|---|")
        for what, mine, base, base_name, ratio, limit, verdict in rows:
            f = lambda x: "—" if x is None else (f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:.0f}")
            r = "—" if ratio is None else f"{ratio:.2f}×"
            print(f"| {what} | {f(mine)} | {f(base)} ({base_name}) | {r} | ≤ {limit}× | {verdict} |")
        errors = [o for o in rg if "error" in o]
        if errors:
            print("\nErrors: " + "; ".join(o["error"] for o in errors))


if __name__ == "__main__":
    main()
