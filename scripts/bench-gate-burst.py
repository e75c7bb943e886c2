#!/usr/bin/env python3
"""One gate, connections in bursts: N connections to the built-in example
server opened at once (initialize, tools/list), then all closed, ROUNDS
times; the gate's RSS while they are open and a second after they closed.
A connection that ended must leave nothing behind: RSS that levels off is
the allocator keeping its peak, RSS that grows each round would be a leak
(BENCHMARKS.md, "A gate's memory in bursts").

Usage: scripts/bench-gate-burst.py PATH/TO/rootgate N [ROUNDS]
"""
import json, os, subprocess, sys, tempfile
from pathlib import Path
prog = Path(sys.argv[1]).resolve(); n = int(sys.argv[2])
home = Path(tempfile.mkdtemp())
s = home / ".config/rootgate/settings.json"
subprocess.run([str(prog.parent / "approved-settings"), str(s), "example", str(prog), "--example-server"], check=True)
env = dict(os.environ, XDG_CONFIG_HOME=str(home / ".config"), HOME=str(home))
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "leak", "version": "1"}}}
def gate():
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try: c = (p / "cmdline").read_bytes()
            except OSError: continue
            if b"gate\0--settings\0" + str(s).encode() in c: return int(p.name)
def rss(pid):
    return int([l for l in Path(f"/proc/{pid}/status").read_text().splitlines() if l.startswith("VmRSS")][0].split()[1])//1024
for round_ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 4):
    ps = []
    for i in range(n):
        p = subprocess.Popen([str(prog), "connect", "example"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        p.stdin.write((json.dumps(INIT) + "\n").encode()); p.stdin.flush()
        ps.append(p)
    for p in ps:
        while json.loads(p.stdout.readline()).get("id") != 1: pass
        p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'); p.stdin.flush()
    for p in ps:
        while json.loads(p.stdout.readline()).get("id") != 2: pass
    g = gate(); during = rss(g)
    for p in ps: p.stdin.close()
    for p in ps: p.wait()
    import time; time.sleep(1)
    print(f"round {round_}: {n} at once: gate rss {during} MiB while open, {rss(g)} MiB after", flush=True)
os.kill(gate(), 15)
