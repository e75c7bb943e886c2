"""Tables of a bridge benchmark run (run.sh): each measure per client, the
median over rounds of each round's statistic, and each proxy's ratio to the
direct connection and issue #16's targets. A ratio is taken within each
round (the clients of a round run back to back, so they share the machine's
state of the moment) and the median of those is reported, with the lowest
and highest round in brackets: on a 2-core machine the direct connection's
own p50 moves by half between runs, and a ratio of medians from different
moments would mostly measure that drift. Fails (exit 1) when a proxy's
results are missing, so a smoke run catches a bridge that does not work."""

import json
import statistics
import sys

lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
env = [l for l in lines if l.get("metric") == "env"]
runs = [l for l in lines if "label" in l]
labels = ["direct"] + [l for l in dict.fromkeys(r["label"] for r in runs) if l != "direct"]
if not any(r["label"] == "direct" for r in runs) or len(labels) < 2:
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
def per_round(label, what):
    """The label's value of `what` in each round, in order."""
    mine = [r for r in runs if r["label"] == label]
    if what == "flight_calls_per_s":
        return [r[what] for r in mine]
    if what == "rss_kb":
        return [r["rss_kb"] or 0 for r in mine]
    key, stat = what
    return [r[key][stat] for r in mine]


def paired(label, what, f):
    """f(proxy, direct) in each round: (median, lowest, highest)."""
    xs = [f(r, d) for r, d in zip(per_round(label, what), per_round("direct", what))]
    return statistics.median(xs), min(xs), max(xs)


targets = [
    ("p50", ("rtt", "median"), lambda r, d: r / d, "≤ 1.10×", lambda x: x <= 1.10),
    ("p99", ("rtt", "p99"), lambda r, d: r / d, "≤ 1.25×", lambda x: x <= 1.25),
    ("1 MiB", ("big", "median"), lambda r, d: r / d, "≤ 1.2×", lambda x: x <= 1.2),
    ("100 in flight", "flight_calls_per_s", lambda r, d: r / d, "≥ 0.9×", lambda x: x >= 0.9),
    ("start-up", ("spawn", "median"), lambda r, d: r - d, "≤ direct + 20 ms", lambda x: x <= 20),
]
print("Ratios to direct: the median of the rounds' own ratios [lowest, highest round].")
print()
print("| proxy | " + " | ".join(t[0] for t in targets) + " | RSS |")
print("|---|" + "---|" * (len(targets) + 1))
for label in labels[1:]:
    cells = []
    for _, what, f, aim, ok in targets:
        x, lo, hi = paired(label, what, f)
        if aim.startswith("≤ direct"):
            shown = f"{x:+.1f} ms [{lo:+.1f}, {hi:+.1f}]"
        else:
            shown = f"{x:.3f}× [{lo:.2f}, {hi:.2f}]"
        cells.append(f"{shown} ({'met' if ok(x) else 'missed'}; aim {aim})")
    rss = value(label, "rss_kb") / 1024
    cells.append(f"{rss:.1f} MiB" + (" (met; aim ≤ 12 MiB)" if label == "rootgate" and rss <= 12 else " (aim ≤ 12 MiB)" if label == "rootgate" else ""))
    print(f"| {label} | " + " | ".join(cells) + " |")

# Issue #25's targets: what the bridge costs over the byte-copying floor,
# paired within each round as above.
if "floor" in labels:
    def paired_to(label, base, what, f):
        xs = [f(r, b) for r, b in zip(per_round(label, what), per_round(base, what))]
        return statistics.median(xs), min(xs), max(xs)

    floor_targets = [
        ("p50", ("rtt", "median"), lambda r, b: r / b, "≤ 1.2×", lambda x: x <= 1.2),
        ("100 in flight", "flight_calls_per_s", lambda r, b: r / b, "≥ 0.9×", lambda x: x >= 0.9),
        ("1 MiB", ("big", "median"), lambda r, b: r / b, "≤ 1.1×", lambda x: x <= 1.1),
        ("start-up", ("spawn", "median"), lambda r, b: r - b, "≤ floor + 5 ms", lambda x: x <= 5),
    ]
    print()
    print("Ratios to the floor (issue #25): the median of the rounds' own ratios [lowest, highest round].")
    print()
    print("| proxy | " + " | ".join(t[0] for t in floor_targets) + " | RSS |")
    print("|---|" + "---|" * (len(floor_targets) + 1))
    for label in labels[1:]:
        if label in ("floor", "fastmcp"):
            continue
        cells = []
        for _, what, f, aim, ok in floor_targets:
            x, lo, hi = paired_to(label, "floor", what, f)
            shown = f"{x:+.1f} ms [{lo:+.1f}, {hi:+.1f}]" if aim.startswith("≤ floor") else f"{x:.3f}× [{lo:.2f}, {hi:.2f}]"
            cells.append(f"{shown} ({'met' if ok(x) else 'missed'}; aim {aim})")
        rss = value(label, "rss_kb") / 1024
        cells.append(f"{rss:.1f} MiB ({'met' if rss <= 12 else 'missed'}; aim ≤ 12 MiB)")
        print(f"| {label} | " + " | ".join(cells) + " |")
