#!/usr/bin/env python3
"""What idle bridges cost: CPU time of N `rootgate connect` processes, each
with an app connected (initialized) and nothing asked, over a quiet minute.

Each bridge runs the bench server (server.mjs, Node built-ins only) with one
folder shared with it, so that its settings watcher, its folder monitor and
its window link are all live, as for a person's AI app left open. CPU is read
from /proc/PID/stat (utime + stime, in clock ticks) of the bridge processes
only (not their servers) at the start and the end of the idle time.

    python3 crates/rootgate-bench/bridge/idle.py --rootgate target/release/rootgate
    python3 crates/rootgate-bench/bridge/idle.py --rootgate ... --bridges 10 --seconds 60

Prints one JSON line: the CPU seconds used in all, per bridge, and as a share
of one core.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # After the command's ")": state is fields[0], utime fields[11], stime fields[12].
    return int(fields[11]) + int(fields[12])


def settings(config, node, folder):
    os.makedirs(os.path.join(config, "rootgate"), mode=0o700)
    server = [node, os.path.join(HERE, "server.mjs")]
    spec = {
        "id": "srv-idle",
        "name": "idle",
        "command": server[0],
        "args": server[1:],
        "env": {},
        "cwd": None,
        "enabled": True,
        "withdrawal": "notify",
        "enforceRoots": False,
        "approvedCommand": " ".join(server),
    }
    root = {"id": "root-idle", "name": "shared", "chosenPath": folder, "realPath": folder}
    grant = {"server": "srv-idle", "root": "root-idle", "realPath": folder, "grantedAtMs": 1}
    with open(os.path.join(config, "rootgate", "settings.json"), "w") as f:
        json.dump({"version": 1, "roots": [root], "grants": [grant], "servers": [spec]}, f)


def connect(rootgate, env):
    bridge = subprocess.Popen(
        [rootgate, "connect", "idle"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "idle-bench", "version": "1"},
        },
    }
    bridge.stdin.write((json.dumps(hello) + "\n").encode())
    bridge.stdin.flush()
    answer = json.loads(bridge.stdout.readline())
    if "result" not in answer:
        sys.exit(f"the bridge did not initialize: {answer}")
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    bridge.stdin.write((json.dumps(done) + "\n").encode())
    bridge.stdin.flush()
    return bridge


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rootgate", required=True)
    parser.add_argument("--node", default="node")
    parser.add_argument("--bridges", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--settle", type=float, default=5, help="seconds left before measuring")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "config")
        folder = os.path.join(tmp, "shared")
        os.makedirs(folder)
        settings(config, args.node, os.path.realpath(folder))
        env = dict(os.environ, XDG_CONFIG_HOME=config, XDG_RUNTIME_DIR=os.path.join(tmp, "run"))
        bridges = [connect(args.rootgate, env) for _ in range(args.bridges)]
        try:
            # Start-up work (the server's start, its roots/list) is not idling.
            time.sleep(args.settle)
            before = [cpu_ticks(b.pid) for b in bridges]
            started = time.monotonic()
            time.sleep(args.seconds)
            after = [cpu_ticks(b.pid) for b in bridges]
            elapsed = time.monotonic() - started
        finally:
            for b in bridges:
                b.stdin.close()
            for b in bridges:
                b.wait(timeout=30)
    tick = os.sysconf("SC_CLK_TCK")
    used = (sum(after) - sum(before)) / tick
    print(
        json.dumps(
            {
                "metric": "idle_bridges_cpu",
                "bridges": args.bridges,
                "seconds": round(elapsed, 1),
                "cpu_s": round(used, 2),
                "cpu_s_per_bridge": round(used / args.bridges, 3),
                "core_percent": round(100 * used / elapsed, 2),
                "loadavg": open("/proc/loadavg").read().split()[:3],
            }
        )
    )


if __name__ == "__main__":
    main()
