#!/usr/bin/env python3
"""The lowest `rootsize` round trip any client could reach with a bench server.

usage: python3 floor_rootsize.py [--size 10000] [--iters 50] [--warmup 10] -- <server argv...>

A "client" that does no work at all: it starts the server like the drivers
do (same minimal environment, BENCH_ROOTS_BASE roots), and answers each
`roots/list` with bytes serialised before the clock started, written with
blocking os.write calls (variant "prepared"); for comparison it also answers
with json.dumps per request ("dumps"). It prints one JSON line per variant
with the server-measured `rtt_ns` statistics (ms), the same quantity as the
contract's `server_roots_rtt_ms`. The prepared variant is the floor set by
the pipe and the server's own reading of the line; no real client, which
has to build and serialise the answer when asked, can go below it.

What it is not: a driver of the contract (no spawn or propagate, no RSS),
or anything the product runs.
"""
import json
import os
import subprocess
import sys
import time


def stats(xs):
    s = sorted(xs)
    q = lambda p: s[min(len(s) - 1, int(p * (len(s) - 1) + 0.5))]
    return {"count": len(s), "min": s[0], "median": q(0.5), "p90": q(0.9), "p99": q(0.99), "max": s[-1]}


def main():
    argv = sys.argv[1:]
    dd = argv.index("--")
    opts, server = argv[:dd], argv[dd + 1:]
    opt = lambda n, d: int(opts[opts.index(n) + 1]) if n in opts else d
    size, iters, warmup = opt("--size", 10000), opt("--iters", 50), opt("--warmup", 10)
    base = (os.environ.get("BENCH_ROOTS_BASE") or os.path.join(
        os.environ.get("BENCH_HOME") or os.path.expanduser("~/.cache/rootgate-bench"), "fixtures")).rstrip("/")
    env = {k: os.environ[k] for k in ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER") if k in os.environ}
    p = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         env=env, bufsize=0)
    fd = p.stdin.fileno()

    def write(data):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]

    send = lambda o: write(json.dumps(o, separators=(",", ":")).encode() + b"\n")
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-11-25", "capabilities": {"roots": {"listChanged": True}},
                     "clientInfo": {"name": "floor", "version": "1"}}})
    p.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    roots = [{"uri": f"file://{base}/roots/s{size}/dir-{i:05d}", "name": f"dir-{i}"} for i in range(size)]
    body = json.dumps({"roots": roots}, separators=(",", ":")).encode()
    next_id = 100
    for variant in ("prepared", "dumps"):
        rtts = []
        for i in range(-warmup, iters):
            next_id += 1
            send({"jsonrpc": "2.0", "id": next_id, "method": "tools/call",
                  "params": {"name": "roots_probe", "arguments": {}}})
            while True:
                msg = json.loads(p.stdout.readline())
                if msg.get("method") == "roots/list":
                    if variant == "prepared":
                        write(b'{"jsonrpc":"2.0","id":%d,"result":' % msg["id"] + body + b"}\n")
                    else:
                        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"roots": roots}})
                elif msg.get("id") == next_id:
                    info = msg["result"]["structuredContent"]
                    if info["count"] != size:
                        sys.exit(f"count {info['count']} != {size}")
                    if i >= 0:
                        rtts.append(info["rtt_ns"] / 1e6)
                    break
        print(json.dumps({"client": "floor-" + variant, "metric": "rootsize", "size": size, "iters": iters,
                          "server_roots_rtt_ms": stats(rtts), "server": " ".join(server),
                          "loadavg": open("/proc/loadavg").read().split()[:3],
                          "at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}), flush=True)
    p.stdin.close()
    p.wait(5)


if __name__ == "__main__":
    main()
