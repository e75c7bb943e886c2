"""The official Python SDK client (`mcp` 2.x: ClientSession over stdio) doing
what `rootgate-offers` does, on the same server, for a side-by-side number:
every tool, resource, template and prompt listed (all pages), the 5 MB
`large_result` tool called, one small call. One JSON line per run, then a
summary with the medians, in the same keys as `rootgate-offers`.

Usage: tests/peers/.venv/bin/python crates/rootgate-bench/offers_py.py
       --server tests/servers/py_big_server.py [--runs 5] [--tools 500]
       [--resources 5000] [--result-bytes 5000000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def every_page(call, field):
    items, cursor = [], None
    while True:
        page = await call(cursor=cursor) if cursor else await call()
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            return items


async def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--server", required=True)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--tools", type=int, default=500)
    p.add_argument("--resources", type=int, default=5000)
    p.add_argument("--result-bytes", type=int, default=5_000_000)
    a = p.parse_args()
    params = StdioServerParameters(
        command=sys.executable,
        args=[a.server, "--tools", str(a.tools), "--resources", str(a.resources),
              "--result-bytes", str(a.result_bytes)],
    )
    samples = {"offers_ms": [], "large_ms": [], "echo_ms": []}
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        for _ in range(a.runs):
            t = time.perf_counter()
            tools = await every_page(s.list_tools, "tools")
            resources = await every_page(s.list_resources, "resources")
            await every_page(s.list_resource_templates, "resource_templates")
            await every_page(s.list_prompts, "prompts")
            offers_ms = (time.perf_counter() - t) * 1000
            t = time.perf_counter()
            large = await s.call_tool("large_result", {})
            large_ms = (time.perf_counter() - t) * 1000
            got = sum(len(c.text) for c in large.content if getattr(c, "text", None))
            t = time.perf_counter()
            await s.call_tool("tool_0000", {"text": "hello"})
            echo_ms = (time.perf_counter() - t) * 1000
            if len(tools) != a.tools + 1 or len(resources) != a.resources or got != a.result_bytes:
                print(f"short: {len(tools)} tools, {len(resources)} resources, {got} bytes", file=sys.stderr)
                return 1
            line = {"offers_ms": offers_ms, "large_ms": large_ms, "echo_ms": echo_ms}
            for k, v in line.items():
                samples[k].append(v)
            print(json.dumps(line))
    print(json.dumps({"summary": {"client": "python-sdk", "runs": a.runs,
                                  **{f"{k}_median": statistics.median(v) for k, v in samples.items()}}}))
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
