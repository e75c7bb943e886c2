#!/usr/bin/env node
// The bridge benchmark's server: an MCP stdio server in Node built-ins only,
// as fast as a server can be, so that what is measured is what lies between
// the client and it. Tools: `noop` (a tiny result) and `big` (a text result
// of `bytes` bytes, default 1 MiB). It asks for roots/list once after
// initialized when the client declares roots, as most servers do, and
// ignores the answer.
const KNOWN = new Set(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);
let clientHasRoots = false;
const cache = new Map();
const big = (n) => {
  if (!cache.has(n)) cache.set(n, "x".repeat(n));
  return cache.get(n);
};
const TOOLS = [
  { name: "noop", description: "returns at once", inputSchema: { type: "object", properties: {} } },
  { name: "big", description: "returns `bytes` bytes of text", inputSchema: { type: "object", properties: { bytes: { type: "number" } } } },
];
const send = (o) => process.stdout.write(JSON.stringify(o) + "\n");
let buf = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
process.stdin.on("end", () => process.exit(0));
function handle(m) {
  if (m.method === undefined) return; // answers to our roots/list
  const id = m.id;
  switch (m.method) {
    case "initialize": {
      const pv = m.params?.protocolVersion;
      clientHasRoots = !!m.params?.capabilities?.roots;
      send({ jsonrpc: "2.0", id, result: { protocolVersion: KNOWN.has(pv) ? pv : "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "bridge-bench", version: "1.0.0" } } });
      break;
    }
    case "notifications/initialized":
      if (clientHasRoots) process.stdout.write(`{"jsonrpc":"2.0","id":0,"method":"roots/list"}\n`);
      break;
    case "tools/list": send({ jsonrpc: "2.0", id, result: { tools: TOOLS } }); break;
    case "ping": send({ jsonrpc: "2.0", id, result: {} }); break;
    case "tools/call":
      if (m.params?.name === "big") {
        send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: big(m.params.arguments?.bytes ?? 1048576) }] } });
      } else {
        send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "ok" }] } });
      }
      break;
    default:
      if (id !== undefined) send({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${m.method}` } });
  }
}
