// A server on the official TypeScript SDK 1.x (@modelcontextprotocol/sdk,
// pinned in tests/peers) whose one tool's description is read, at each
// start, from the file named by its argument: a server whose tool changes
// between starts without its command changing, as a package upgraded in
// place, or a server that loads its tools from a plugin file, does. It is
// how a tool's description can be changed to slip new instructions to a
// model, which Rootgate must notice.
//
// Tools:
//   fetch_page  says which URL it was given (it fetches nothing)
//
// Run it with node: `node ts_described_server.mjs DESCRIPTION_FILE`.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { readFileSync } from "node:fs";
import { z } from "zod";

const description = readFileSync(process.argv[2], "utf8").trim();
const server = new McpServer({ name: "ts-described-server", version: "1.0.0" });
server.registerTool(
  "fetch_page",
  {
    description,
    inputSchema: { url: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ url }) => ({ content: [{ type: "text", text: `fetched ${url}` }] }),
);
await server.connect(new StdioServerTransport());
