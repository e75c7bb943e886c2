"""A server of the 2026-07-28 era on the official Python SDK (`mcp` 2.3.0).

It stands in for the servers new code is written with: it answers
`server/discover`, and asks for roots only while it handles a call, through
an `InputRequiredResult`. Its tools report exactly what the client answered,
so a test proves what the server itself received, not what Rootgate says it
sent.

Tools:
- `ask_roots`: asks for roots through the SDK's `ListRoots` resolver and
  returns the URIs it was given, one per line.
- `ask_twice`: asks for roots, then (with its own `requestState`) asks again,
  and returns both answers and the state it got back.
- `ask_unoffered`: asks for an elicitation, which a client that did not
  declare it cannot answer.
- `ask_both`: asks for roots and a name in one round, and again for what
  a retry left out; returns both.
- `client_capabilities`: the capabilities the call declared, as JSON.
- `protocol`: the protocol version the call came in, so a test can tell
  the era it was served in (a dual-era SDK server answers both).
- `legacy_roots`: asks for roots the 1.x way (`ctx.session.list_roots()`,
  what servers written for the 1.x SDK keep doing after upgrading) and
  returns the URIs it was given; in the modern era its SDK refuses, and the
  refusal is the tool's error.
- `add_tool`: adds a tool of the given name and tells the clients that
  listen (`subscriptions/listen`) that the tool list changed.
- `touch`: tells the clients that listen for a resource that it changed.

Run it with the interpreter of `tests/peers/.venv`; Rootgate's tests do.
"""

from __future__ import annotations

import json
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.resolve import ListRoots, Resolve
from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListRootsRequest,
    ListRootsResult,
)

server = MCPServer("py-modern-server")


def roots(_ctx: Context) -> ListRoots:
    return ListRoots()


@server.tool()
def ask_roots(given: Annotated[ListRootsResult, Resolve(roots)]) -> str:
    """Asks the client for its roots and says which it was given."""
    return "\n".join(str(root.uri) for root in given.roots) or "(no roots)"


@server.tool()
def ask_twice(ctx: Context) -> str | InputRequiredResult:
    """Asks for roots in two rounds, the second carrying state of its own."""
    state = ctx.request_state
    answers = ctx.input_responses or {}
    if state is None:
        return InputRequiredResult(
            input_requests={"first": ListRootsRequest()}, request_state="round-1"
        )
    if state == "round-1":
        first = answers.get("first")
        return InputRequiredResult(
            input_requests={"second": ListRootsRequest()},
            request_state="round-2:" + json.dumps(_uris(first)),
        )
    first = json.loads(state.removeprefix("round-2:"))
    second = _uris(answers.get("second"))
    return json.dumps({"first": first, "second": second, "state": state})


@server.tool()
def ask_unoffered(ctx: Context) -> str | InputRequiredResult:
    """Asks for a form to be filled in, which needs elicitation."""
    if ctx.input_responses:
        return "answered: " + json.dumps(
            {k: v.model_dump(mode="json") for k, v in ctx.input_responses.items()}
        )
    return InputRequiredResult(
        input_requests={
            "name": ElicitRequest(
                params=ElicitRequestFormParams(
                    message="Your name?",
                    requested_schema={
                        "type": "object",
                        "properties": {"name": {"type": "string"}},
                    },
                )
            )
        }
    )


@server.tool()
def ask_both(ctx: Context) -> str | InputRequiredResult:
    """Asks for roots and a name together, and again for whichever is missing."""
    answers = ctx.input_responses or {}
    need = {}
    if "roots" not in answers:
        need["roots"] = ListRootsRequest()
    if "name" not in answers:
        need["name"] = ElicitRequest(
            params=ElicitRequestFormParams(
                message="Your name?",
                requested_schema={"type": "object", "properties": {"name": {"type": "string"}}},
            )
        )
    if need:
        return InputRequiredResult(input_requests=need, request_state="both")
    name = answers["name"]
    content = getattr(name, "content", None)
    if content is None and isinstance(name, dict):
        content = name.get("content")
    return json.dumps({"roots": _uris(answers["roots"]), "name": content})


@server.tool()
def client_capabilities(ctx: Context) -> str:
    """The client capabilities this call declared."""
    caps = ctx.client_capabilities
    return json.dumps(caps.model_dump(mode="json", by_alias=True, exclude_none=True) if caps else None)


@server.tool()
async def legacy_roots(ctx: Context) -> str:
    """Asks for roots the way servers written for the 1.x SDK do."""
    import warnings

    with warnings.catch_warnings():
        # The SDK marks this API deprecated (SEP-2577); exercising it is the point.
        warnings.simplefilter("ignore")
        given = await ctx.session.list_roots()
    return "\n".join(str(root.uri) for root in given.roots) or "(no roots)"


@server.tool()
def protocol(ctx: Context) -> str:
    """The protocol version of this call."""
    return str(ctx.protocol_version)


@server.tool()
async def add_tool(ctx: Context, name: str) -> str:
    """Adds a tool named `name` and says the tool list changed."""

    def added() -> str:
        return name

    server.add_tool(added, name=name, description=f"Added by add_tool: {name}")
    await ctx.notify_tools_changed()
    return name


@server.tool()
async def touch(ctx: Context, uri: str) -> str:
    """Says the resource at `uri` changed, to the clients that listen for it."""
    await ctx.notify_resource_updated(uri)
    return uri


def _uris(answer: object) -> list[str]:
    roots = getattr(answer, "roots", None)
    if roots is None and isinstance(answer, dict):
        roots = answer.get("roots", [])
    out = []
    for root in roots or []:
        uri = root.get("uri") if isinstance(root, dict) else getattr(root, "uri", None)
        out.append(str(uri))
    return out


if __name__ == "__main__":
    server.run("stdio")
