#!/usr/bin/env python3
"""One gate, connections one after another: its RSS, descriptors and threads
after 1, 10, 50, 100, 200 and 400 connections (each: initialize, tools/list,
close). A connection that ended must leave nothing in the gate (BENCHMARKS.md,
"The resident gate and its door").

Usage: scripts/bench-gate-memory.py PATH/TO/rootgate COUNT
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
def stats(pid):
    rss = [l for l in Path(f"/proc/{pid}/status").read_text().splitlines() if l.startswith("VmRSS")][0].split()[1]
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    thr = len(os.listdir(f"/proc/{pid}/task"))
    return f"rss {int(rss)//1024} MiB fds {fds} threads {thr}"
for i in range(1, n + 1):
    p = subprocess.Popen([str(prog), "connect", "example"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdin.write((json.dumps(INIT) + "\n").encode()); p.stdin.flush()
    while json.loads(p.stdout.readline()).get("id") != 1: pass
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'); p.stdin.flush()
    while json.loads(p.stdout.readline()).get("id") != 2: pass
    p.stdin.close(); p.wait()
    if i in (1, 10, 50, 100, 200, 400): print(i, stats(gate()), flush=True)
