// An AI app stand-in of the 2026-07-28 era, on the official TypeScript SDK
// 2.x client (@modelcontextprotocol/client, pinned in tests/peers). It starts
// the command after `--` as its server over stdio and negotiates the era as
// the option says:
//
//   --pin     versionNegotiation { pin: "2026-07-28" }: modern only, no
//             fallback (a modern-only app)
//   --auto    versionNegotiation "auto": probes server/discover, falls back
//   --first-call NAME   calls tool NAME right after connecting (see below)
//   --elicitation   declares elicitation, answering "accept" with the
//             driver's content (`elicit` on a callTool request)
//
// Then it does what its driver asks, one JSON object per line on stdin,
// answering one per line on stdout, as tests/peers/apps/ts_app.mjs does:
//   {"op":"callTool","name":...,"arguments":{...},"elicit":{...}}  {"op":"close"}
// First line out: {"event":"connected", server, protocolVersion} or
// {"event":"connectFailed", error}; elicitations asked: {"event":"elicitation"}.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import readline from "node:readline";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const opts = sep >= 0 ? argv.slice(0, sep) : argv;
const [command, ...args] = argv.slice(sep + 1);
const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

const mode = opts.includes("--pin") ? { pin: "2026-07-28" } : opts.includes("--auto") ? "auto" : "legacy";
const capabilities = {};
if (opts.includes("--elicitation")) capabilities.elicitation = { form: {} };
let elicitContent = {};

const client = new Client(
  { name: "ts2-app-stand-in", version: "2.0.0" },
  { capabilities, versionNegotiation: { mode } },
);
if (capabilities.elicitation)
  client.setRequestHandler("elicitation/create", async (req) => {
    out({ event: "elicitation", params: req.params });
    return { action: "accept", content: elicitContent };
  });

const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
try {
  await client.connect(transport);
} catch (e) {
  out({ event: "connectFailed", error: String(e?.message ?? e) });
  process.exit(1);
}
// --first-call NAME: call tool NAME (no arguments) as the very next thing
// after connecting, as an agent does; its result comes with the connected
// event.
const firstAt = opts.indexOf("--first-call");
let first;
if (firstAt >= 0) {
  try {
    first = { ok: await client.callTool({ name: opts[firstAt + 1], arguments: {} }) };
  } catch (e) {
    first = { error: String(e?.message ?? e) };
  }
}
out({ event: "connected", server: client.getServerVersion(), protocolVersion: client.getNegotiatedProtocolVersion(), first });

async function run(req) {
  switch (req.op) {
    case "callTool":
      if (req.elicit) elicitContent = req.elicit;
      return client.callTool({ name: req.name, arguments: req.arguments ?? {} });
    case "close":
      await client.close();
      process.exit(0);
    default:
      throw new Error(`unknown op ${req.op}`);
  }
}

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === "") continue;
  const req = JSON.parse(line);
  run(req).then(
    (ok) => out({ tag: req.tag, ok }),
    (e) => out({ tag: req.tag, error: String(e?.message ?? e), code: e?.code }),
  );
}
await client.close();
