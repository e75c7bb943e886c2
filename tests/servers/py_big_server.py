"""A server with a lot to offer, on the official Python SDK (`mcp` 2.x).

It stands in for the large servers people run (hundreds of tools, thousands
of resources, answers of megabytes), so that Rootgate's listing and the
window's lists are tried at that size against a real SDK's answers, not a
hand-made one.

Options (all optional):
  --tools N        N tools, `tool_0000` … (default 500); each echoes its
                   `text` argument.
  --resources N    N text resources, `big://item/0000` … (default 5000).
  --result-bytes N the tool `large_result` returns N bytes of text
                   (default 5,000,000).

Run it with the interpreter of `tests/peers/.venv`; Rootgate's tests do.
"""

from __future__ import annotations

import argparse

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources.types import TextResource


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--resources", type=int, default=5000)
    parser.add_argument("--result-bytes", type=int, default=5_000_000)
    args = parser.parse_args()

    server = MCPServer("py-big-server")

    def echo(text: str = "") -> str:
        """Returns the text it was given."""
        return text

    for i in range(args.tools):
        server.add_tool(
            echo,
            name=f"tool_{i:04d}",
            title=f"Tool {i}",
            description=f"Tool number {i} of {args.tools}: echoes its text.",
        )

    size = args.result_bytes

    def large_result() -> str:
        """Returns a long text, to try a result of megabytes."""
        line = "0123456789abcdefghijklmnopqrstuvwxyz" * 2 + "\n"
        return (line * (size // len(line) + 1))[:size]

    server.add_tool(large_result, name="large_result")

    for i in range(args.resources):
        server.add_resource(
            TextResource(
                uri=f"big://item/{i:04d}",
                name=f"item-{i:04d}",
                description=f"Resource {i} of {args.resources}",
                mime_type="text/plain",
                text=f"This is resource {i}.",
            )
        )

    server.run("stdio")


if __name__ == "__main__":
    main()
