"""Tables of a bridge benchmark run (run.sh): each measure per client, the
median over rounds of each round's statistic, and each proxy's ratio to the
direct connection and issue #16's targets. Fails (exit 1) when a proxy's
results are missing, so a smoke run catches a bridge that does not work."""

import json
import statistics
import sys

lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
env = [l for l in lines if l.get("metric") == "env"]
runs = [l for l in lines if "label" in l]
labels = list(dict.fromkeys(r["label"] for r in runs))
if "direct" not in labels or len(labels) < 2:
    sys.exit("bridge benchmark: no results for the direct connection and at least one proxy")


def med(label, key, stat):
    return statistics.median(r[key][stat] for r in runs if r["label"] == label)


def value(label, what):
    if what == "flight_calls_per_s":
        return statistics.median(r[what] for r in runs if r["label"] == label)
    if what == "rss_kb":
        return max(r["rss_kb"] or 0 for r in runs if r["label"] == label)
    key, stat = what
    return med(label, key, stat)


rows = [
    ("tools/call round trip p50 (ms)", ("rtt", "median")),
    ("tools/call round trip p99 (ms)", ("rtt", "p99")),
    ("1 MiB result, median (ms)", ("big", "median")),
    ("100 in flight, median round (ms)", ("flight", "median")),
    ("100 in flight, calls/s", "flight_calls_per_s"),
    ("spawn to initialize result, median (ms)", ("spawn", "median")),
    ("peak RSS of the process started (MiB)", "rss_kb"),
]
print(f"load {env[0].get('loadavg')} -> {env[-1].get('loadavg_end')}, started {env[0].get('started')}, rounds: {len(runs) // len(labels)}")
print()
print("| measure | " + " | ".join(labels) + " |")
print("|---|" + "---|" * len(labels))
for name, what in rows:
    cells = []
    for label in labels:
        v = value(label, what)
        cells.append(f"{v / 1024:.1f}" if what == "rss_kb" else f"{v:.3f}" if v < 10 else f"{v:.1f}")
    print(f"| {name} | " + " | ".join(cells) + " |")
print()
targets = [
    ("p50", ("rtt", "median"), lambda r, d: r / d, "≤ 1.10×", lambda x: x <= 1.10),
    ("p99", ("rtt", "p99"), lambda r, d: r / d, "≤ 1.25×", lambda x: x <= 1.25),
    ("1 MiB", ("big", "median"), lambda r, d: r / d, "≤ 1.2×", lambda x: x <= 1.2),
    ("100 in flight", "flight_calls_per_s", lambda r, d: r / d, "≥ 0.9×", lambda x: x >= 0.9),
    ("start-up", ("spawn", "median"), lambda r, d: r - d, "≤ direct + 20 ms", lambda x: x <= 20),
]
print("| proxy | " + " | ".join(t[0] for t in targets) + " | RSS |")
print("|---|" + "---|" * (len(targets) + 1))
for label in labels[1:]:
    cells = []
    for _, what, f, aim, ok in targets:
        x = f(value(label, what), value("direct", what))
        shown = f"+{x:.1f} ms" if aim.startswith("≤ direct") else f"{x:.2f}×"
        cells.append(f"{shown} ({'met' if ok(x) else 'missed'}; aim {aim})")
    rss = value(label, "rss_kb") / 1024
    cells.append(f"{rss:.1f} MiB" + (" (met; aim ≤ 12 MiB)" if label == "rootgate" and rss <= 12 else " (aim ≤ 12 MiB)" if label == "rootgate" else ""))
    print(f"| {label} | " + " | ".join(cells) + " |")
