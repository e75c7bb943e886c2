#!/usr/bin/env python3
"""The resident gate against today's bridge (`rootgate connect --alone`),
side by side in one run (issue #42, its first part):

- start-up: spawn of `rootgate connect NAME` to the `initialize` answer, the
  gate already running (warm) and with each connection alone, p50 and p90
  over ITER runs, against the server started directly (the floor);
- the door's peak RSS (VmHWM, the process's own count since its exec)
  while its connection lives; `/usr/bin/time -f %M rootgate connect ...`
  gives the peak over its whole life, the `rootgate` it started as
  included (a fork of this Python would count in wait4's);
- N app sessions at once (N = 1, 5, 20): Rootgate's processes (doors and
  gate, or bridges) and their total RSS, servers excluded, and the number
  of server processes.

Usage: scripts/bench-gate.py [--bin target/release/rootgate] [--iter 40]
Each run makes its own settings in a temporary home, with the built-in
example server (`rootgate --example-server`) approved; nothing of the
person's is read or written.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench-gate", "version": "1"}}}


def settings(home: Path, program: Path) -> None:
    """Settings with the built-in example server approved, written by the
    store (the bench crate's `approved-settings`)."""
    made = program.parent / "approved-settings"
    subprocess.run([str(made), str(home / ".config/rootgate/settings.json"), "example",
                    str(program), "--example-server"], check=True)


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def start(cmd, env):
    return subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)


def initialize(proc) -> float:
    t0 = time.perf_counter()
    proc.stdin.write((json.dumps(INIT) + "\n").encode())
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("no answer")
        if json.loads(line).get("id") == 1:
            return t0


def startup(cmd, env, iterations):
    times = []
    for _ in range(iterations):
        t0 = time.perf_counter()
        proc = start(cmd, env)
        initialize(proc)
        times.append((time.perf_counter() - t0) * 1000)
        proc.stdin.close()
        proc.wait()
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9) - 1]


def descendants(pid: int):
    out = []
    frontier = [pid]
    children = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                ppid = int(Path(p, "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(p.name))
    while frontier:
        for c in children.get(frontier.pop(), []):
            out.append(c)
            frontier.append(c)
    return out


def exe_name(pid: int) -> str:
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        return ""


def gate_pids(program: Path, settings: Path):
    """The gate serving `settings` (a gate of an earlier run may still be
    waiting out its idle time for its own)."""
    pids = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                cmd = Path(p, "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if cmd[:4] == [str(program).encode(), b"gate", b"--settings", str(settings).encode()]:
                pids.append(int(p.name))
    return pids


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def sessions(program, env, n, alone):
    """N sessions at once: Rootgate's own processes (doors and the gate, or
    the bridges), the launchers under them, and the servers, each with
    their total RSS; and the peak RSS of one door or bridge."""
    cmd = [str(program), "connect"] + (["--alone"] if alone else []) + ["example"]
    procs = [start(cmd, env) for _ in range(n)]
    for p in procs:
        initialize(p)
    settings = Path(env["XDG_CONFIG_HOME"]) / "rootgate/settings.json"
    ours = [p.pid for p in procs] + ([] if alone else gate_pids(program, settings))
    below = {d for pid in ours for d in descendants(pid)} - set(ours)
    launchers = [d for d in below if exe_name(d) == "rootgate-launcher"]
    servers = [d for d in below if b"--example-server" in cmdline(d) and d not in launchers]
    row = {
        "ours": len(ours), "ours_kib": sum(rss_kib(p) for p in ours),
        "launchers_kib": sum(rss_kib(p) for p in launchers),
        "servers": len(servers), "servers_kib": sum(rss_kib(p) for p in servers),
        "door_peak_kib": max(rss_kib(p.pid, "VmHWM") for p in procs),
    }
    for p in procs:
        p.stdin.close()
    for p in procs:
        p.wait()
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/rootgate")
    ap.add_argument("--iter", type=int, default=40)
    args = ap.parse_args()
    program = Path(args.bin).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        settings(home, program)
        env = dict(os.environ, XDG_CONFIG_HOME=str(home / ".config"), HOME=str(home))
        direct = [str(program), "--example-server"]
        # Warm the gate: the first door starts it.
        warm = start([str(program), "connect", "example"], env)
        initialize(warm)
        floor = program.parent / "relay-floor"
        rows = [("server started directly", startup(direct, env, args.iter)),
                ("byte-relay floor (relay-floor, a process copying bytes)",
                 startup([str(floor)] + direct, env, args.iter)),
                ("door, gate running", startup([str(program), "connect", "example"], env, args.iter)),
                ("--alone (today's bridge)", startup([str(program), "connect", "--alone", "example"], env, args.iter))]
        warm.stdin.close()
        warm.wait()
        print("| spawn → initialize answer | p50 ms | p90 ms |\n|---|---|---|")
        for name, (p50, p90) in rows:
            print(f"| {name} | {p50:.2f} | {p90:.2f} |")
        print("\n| sessions | mode | Rootgate processes | their RSS (MiB) | launchers' RSS (MiB) "
              "| servers | servers' RSS (MiB) | peak RSS of one door or bridge: VmHWM (MiB) |")
        print("|---|---|---|---|---|---|---|---|")
        for n in (1, 5, 20):
            for alone in (False, True):
                r = sessions(program, env, n, alone)
                mode = "--alone bridges" if alone else "doors + gate"
                print(f"| {n} | {mode} | {r['ours']} | {r['ours_kib'] / 1024:.1f} | "
                      f"{r['launchers_kib'] / 1024:.1f} | {r['servers']} | {r['servers_kib'] / 1024:.1f} | "
                      f"{r['door_peak_kib'] / 1024:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
