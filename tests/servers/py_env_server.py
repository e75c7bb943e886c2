"""An MCP server on the official Python SDK (PyPI `mcp` 2.x) that says what it
was started with: its arguments and its environment, for Rootgate's tests of
the values an AI app's config leaves to the app (Gemini CLI's
`$GEMINI_DATA_TOKEN`, VS Code's `${input:token}`, ...), which the person types
at import and Rootgate gives the server when it starts.

Tools:
  argv   returns its arguments (after the script's path) as a JSON list
  env    returns its environment as a JSON object
"""
import json
import os
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("rootgate-test-py-env")


@server.tool()
def argv() -> str:
    """Return the arguments this server was started with, as JSON."""
    return json.dumps(sys.argv[1:])


@server.tool()
def env() -> str:
    """Return the environment this server was started with, as JSON."""
    return json.dumps(dict(os.environ))


if __name__ == "__main__":
    server.run("stdio")
