"""The other proxy of the bridge benchmark: FastMCP's own (PyPI `fastmcp`,
pinned in requirements-fastmcp.txt), the way its documentation tells a user
to put a proxy in front of a local stdio server: `create_proxy` on an MCP
config naming the server, run on stdio.

Usage: python fastmcp_proxy.py COMMAND [ARG...]
"""

import sys

from fastmcp.server import create_proxy

config = {"mcpServers": {"server": {"command": sys.argv[1], "args": sys.argv[2:], "transport": "stdio"}}}
create_proxy(config, name="fastmcp-proxy").run(transport="stdio", show_banner=False)
