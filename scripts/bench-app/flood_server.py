#!/usr/bin/env python3
"""An MCP server that asks its client `roots/list` COUNT times, to fill one
server's timeline for scripts/bench-app.sh (a timeline of 100,000 entries).

It speaks just enough MCP over stdio (newline-delimited JSON-RPC): it answers
`initialize` and `ping`, refuses other requests, and after
`notifications/initialized` sends COUNT `roots/list` requests, at most WINDOW
unanswered at a time (so neither side's pipe fills while the other is busy
writing). When the last answer is in, it writes one JSON line to DONE_FILE
(the count and how long it took) and then waits quietly until stdin closes.

It uses only the standard library and writes nothing to stderr, so the
timeline it leaves is its requests and nothing else. It is a benchmark
helper, not a test peer, and does nothing with the roots it is told.

    flood_server.py --count 100000 --done /tmp/flood.done
"""

import argparse
import json
import sys
import time

SUPPORTED = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--window", type=int, default=64)
    parser.add_argument("--done", required=True)
    args = parser.parse_args()

    out = sys.stdout
    sent = answered = 0
    started = None

    def send(message):
        out.write(json.dumps(message, separators=(",", ":")) + "\n")

    def ask():
        nonlocal sent
        sent += 1
        send({"jsonrpc": "2.0", "id": f"f{sent}", "method": "roots/list"})

    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        message = json.loads(line)
        method = message.get("method")
        if method is None:
            # An answer to one of our requests.
            answered += 1
            if sent < args.count:
                ask()
            if answered == args.count:
                with open(args.done, "a", encoding="utf-8") as done:
                    done.write(json.dumps({"answered": answered, "seconds": time.monotonic() - started}) + "\n")
        elif method == "initialize":
            asked = message.get("params", {}).get("protocolVersion")
            version = asked if asked in SUPPORTED else SUPPORTED[-1]
            send({
                "jsonrpc": "2.0",
                "id": message["id"],
                "result": {
                    "protocolVersion": version,
                    "capabilities": {},
                    "serverInfo": {"name": "rootgate-bench-flood", "version": "1"},
                },
            })
        elif method == "notifications/initialized":
            started = time.monotonic()
            for _ in range(min(args.window, args.count)):
                ask()
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
        elif "id" in message:
            send({"jsonrpc": "2.0", "id": message["id"],
                  "error": {"code": -32601, "message": f"method not found: {method}"}})
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
