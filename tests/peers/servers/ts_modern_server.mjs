// A server of the 2026-07-28 era on the official TypeScript SDK 2.x server
// package (@modelcontextprotocol/server, pinned in tests/peers). It stands in
// for the servers new TypeScript code is written with: it answers
// `server/discover`, and asks for roots only while it handles a call, by
// returning `inputRequired({ inputRequests: { roots: listRoots() } })`.
// Its tools report exactly what the client answered, so a test proves what
// the server itself received.
//
// Tools:
//   ask_roots   asks for roots in an input round; returns the URIs it was
//               given, one per line, or "(no roots)"
//   ask_state   asks for roots with a requestState of its own, and returns
//               the state it got back and the URIs
//   protocol    the protocol version the call came in
//   legacy_roots  asks for roots the 1.x way (`server.server.listRoots()`,
//               what servers written for the 1.x SDK keep doing after
//               upgrading): the URIs it was given, one per line, or the
//               SDK's own error as the tool's error
//
// How it is wired, as the SDK allows (argv):
//   (none)         serveStdio(factory): both eras, the opening picks one
//   --modern-only  serveStdio(factory, { legacy: "reject" }): `initialize`
//                  is refused with the versions it speaks
//   --hand-wired   server.connect(new StdioServerTransport()), the 1.x
//                  way: legacy only (it answers `server/discover` with
//                  "Method not found"), a quirk real servers inherit
//
// It lives under tests/peers so that node finds the SDK in
// tests/peers/node_modules; run it with node.
import { McpServer, inputRequired } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";

const uris = (answer) =>
  Array.isArray(answer?.roots) ? answer.roots.map((r) => String(r.uri)) : [];

function make() {
const server = new McpServer({ name: "ts-modern-server", version: "1.0.0" });

server.registerTool("ask_roots", { description: "Asks for roots and says which it was given." }, async (ctx) => {
  const answer = ctx.mcpReq.inputResponses?.roots;
  if (answer === undefined) {
    return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
  }
  const given = uris(answer);
  return { content: [{ type: "text", text: given.length ? given.join("\n") : "(no roots)" }] };
});

server.registerTool("ask_state", { description: "Asks for roots with state of its own." }, async (ctx) => {
  const state = ctx.mcpReq.requestState();
  const answer = ctx.mcpReq.inputResponses?.roots;
  if (state === undefined || answer === undefined) {
    return inputRequired({ inputRequests: { roots: inputRequired.listRoots() }, requestState: "ts-state:\u00e9 \"q\"" });
  }
  return { content: [{ type: "text", text: JSON.stringify({ state, roots: uris(answer) }) }] };
});

server.registerTool("legacy_roots", { description: "Asks for roots the 1.x way." }, async () => {
  try {
    const given = uris(await server.server.listRoots());
    return { content: [{ type: "text", text: given.length ? given.join("\n") : "(no roots)" }] };
  } catch (error) {
    return { isError: true, content: [{ type: "text", text: String(error?.message ?? error) }] };
  }
});

server.registerTool("protocol", { description: "The protocol version of this call." }, async (ctx) => ({
  // The envelope keeps the reserved keys as they came; a legacy call has none.
  content: [{ type: "text", text: String(ctx.mcpReq.envelope?.["io.modelcontextprotocol/protocolVersion"] ?? "legacy") }],
}));

return server;
}

const argv = process.argv.slice(2);
if (argv.includes("--hand-wired")) {
  await make().connect(new StdioServerTransport());
} else {
  serveStdio(make, { legacy: argv.includes("--modern-only") ? "reject" : "serve" });
}
