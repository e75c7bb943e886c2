"""A roots-aware MCP server written with the official Python SDK (PyPI `mcp` 2.x).

Rootgate's tests run it as a real child process to check what a server built
on the Python SDK receives. It does not ask for roots on its own at start
(the SDK does not); it asks when told the list changed and inside a tool call.

Tools:
  get_roots     asks the client (`roots/list`) now and returns what it got
  cached_roots  returns the list fetched after the last `list_changed`
Every list received is also printed to stderr as `py-roots: <uris>` and, with
`--report FILE`, appended to FILE as one JSON line `{"roots": [{"uri", "name"}]}`.
"""
import json
import sys
import warnings

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer

# The SDK marks its roots API deprecated (SEP-2577); this server exists to
# exercise exactly that API, so the warning is noise here.
warnings.simplefilter("ignore")

server = MCPServer("rootgate-test-py-roots")
_cached: list[dict] = []


def _as_list(result: types.ListRootsResult) -> list[dict]:
    return [{"uri": str(r.uri), "name": r.name} for r in result.roots]


_report = sys.argv[sys.argv.index("--report") + 1] if "--report" in sys.argv else None


def _log(roots: list[dict]) -> None:
    print("py-roots: " + " ".join(r["uri"] for r in roots), file=sys.stderr, flush=True)
    if _report:
        with open(_report, "a", encoding="utf-8") as f:
            f.write(json.dumps({"roots": roots}) + "\n")


@server.tool()
async def get_roots(ctx: Context) -> str:
    """Ask the client for its roots now and return them as JSON."""
    roots = _as_list(await ctx.session.list_roots())
    _log(roots)
    return json.dumps({"roots": roots})


@server.tool()
async def cached_roots() -> str:
    """Return the roots fetched after the last roots/list_changed notification."""
    return json.dumps({"roots": _cached})


async def _on_list_changed(ctx, params) -> None:
    roots = _as_list(await ctx.session.list_roots())
    _cached[:] = roots
    _log(roots)


server._lowlevel_server.add_notification_handler(
    "notifications/roots/list_changed", types.NotificationParams, _on_list_changed
)

if __name__ == "__main__":
    server.run("stdio")
