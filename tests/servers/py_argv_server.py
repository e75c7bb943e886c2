"""An MCP server on the official Python SDK (PyPI `mcp` 2.x) that says what it
was started with, for Rootgate's tests of secrets written in arguments.

Rootgate keeps a secret written in a server's arguments (`--api-key sk-…`)
in the keyring and gives it back to the process only when it starts; this
server shows that the process got it. Its resources also let a test make it
answer with an error whose message quotes the request (the SDK's "Unknown
resource: URI"), to check what the record of calls keeps of it.

Tools:
  argv   returns its arguments (after the script's path) as a JSON list
Resources:
  note://inbox   a fixed text; any other URI is an error naming it
"""
import json
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("rootgate-test-py-argv")


@server.tool()
def argv() -> str:
    """Return the arguments this server was started with, as JSON."""
    return json.dumps(sys.argv[1:])


@server.resource("note://inbox")
def inbox() -> str:
    """A fixed note, so that the server offers resources."""
    return "nothing new"


if __name__ == "__main__":
    server.run("stdio")
