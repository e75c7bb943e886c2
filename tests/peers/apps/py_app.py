"""An AI app stand-in on the official Python SDK client (PyPI `mcp` 2.3.0,
pinned in tests/peers/requirements.txt).

It starts the command after `--` as its MCP server over stdio and then does
what its driver asks, one JSON object per line on stdin, answering one JSON
object per line on stdout, in the same words as ts_app.mjs (the subset the
tests use): callTool, listTools, listResources, readResource, listPrompts,
getPrompt, ping, serverInfo, setRoots, close. The client connects in the
SDK's default mode, which probes `server/discover` first and falls back to
`initialize`, as an AI app on this SDK does. Options before `--`: --roots
URI[,URI...], --sampling, --name NAME.
"""

import json
import os
import sys
import time

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main():
    argv = sys.argv[1:]
    sep = argv.index("--")
    opts, command = argv[:sep], argv[sep + 1 :]

    def value(name):
        return opts[opts.index(name) + 1] if name in opts else None

    roots = [
        types.Root(uri=u, name=u.rstrip("/").split("/")[-1])
        for u in (value("--roots") or "").split(",")
        if u
    ]

    async def list_roots(_context):
        return types.ListRootsResult(roots=roots)

    async def sampling(_context, params):
        out({"event": "sampling", "params": dump(params)})
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="sampled by the stand-in"),
            model="stand-in",
        )

    kwargs = {}
    if value("--roots") is not None:
        kwargs["list_roots_callback"] = list_roots
    if "--sampling" in opts:
        kwargs["sampling_callback"] = sampling
    # The SDK gives a server only a small default environment, as AI apps
    # do; Rootgate's own folders are passed as an app's config would.
    env = {k: os.environ[k] for k in ("XDG_CONFIG_HOME", "XDG_RUNTIME_DIR") if k in os.environ}
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    started = time.perf_counter()
    try:
        client = Client(
            params,
            client_info=types.Implementation(name=value("--name") or "py-app-stand-in", version="1.0.0"),
            **kwargs,
        )
        await client.__aenter__()
    except BaseException as e:  # the stand-in reports any failure to connect
        out({"event": "connectFailed", "error": str(e)})
        return
    info = client.server_info
    out(
        {
            "event": "connected",
            "ms": (time.perf_counter() - started) * 1000,
            "server": dump(info) if info else None,
            "protocolVersion": client.protocol_version,
        }
    )

    async def run(req):
        op = req["op"]
        if op == "callTool":
            return dump(await client.call_tool(req["name"], req.get("arguments") or {}))
        if op == "listTools":
            return dump(await client.list_tools())
        if op == "listResources":
            return dump(await client.list_resources())
        if op == "readResource":
            return dump(await client.read_resource(req["uri"]))
        if op == "listPrompts":
            return dump(await client.list_prompts())
        if op == "getPrompt":
            return dump(await client.get_prompt(req["name"], req.get("arguments") or {}))
        if op == "ping":
            return dump(await client.send_ping())
        if op == "serverInfo":
            return {"protocolVersion": client.protocol_version, "instructions": client.instructions}
        if op == "setRoots":
            roots[:] = [types.Root(uri=r["uri"], name=r.get("name")) for r in req["roots"]]
            await client.send_roots_list_changed()
            return {}
        raise ValueError(f"unknown op {op}")

    async with anyio.create_task_group() as tasks:
        stdin = anyio.wrap_file(sys.stdin)
        async for line in stdin:
            if not line.strip():
                continue
            req = json.loads(line)
            if req["op"] == "close":
                break

            async def answer(req=req):
                try:
                    out({"tag": req.get("tag"), "ok": await run(req)})
                except Exception as e:  # every failure is an answer, not a crash
                    out({"tag": req.get("tag"), "error": str(e)})

            tasks.start_soon(answer)
        tasks.cancel_scope.cancel()
    await client.__aexit__(None, None, None)


anyio.run(main)
