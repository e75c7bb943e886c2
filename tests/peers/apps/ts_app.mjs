// An AI app stand-in on the official TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in tests/peers): it starts the command
// after `--` as its MCP server over stdio, as Claude Desktop or Cursor do,
// and then does what its driver asks, one JSON object per line on stdin,
// answering one JSON object per line on stdout:
//
//   {"op":"callTool","name":"echo","arguments":{...}}   -> {"ok": result}
//   {"op":"callTool",...,"cancelAfterMs":200}           -> {"error": "..."} (the SDK's AbortError)
//   {"op":"callTool",...,"progress":true}               -> progress events, then {"ok": ...}
//   {"op":"listTools"|"listResources"|"listResourceTemplates"|"listPrompts"}
//   {"op":"readResource","uri":...}  {"op":"subscribe","uri":...}  {"op":"unsubscribe","uri":...}
//   {"op":"getPrompt","name":...,"arguments":{...}}  {"op":"complete","params":{...}}
//   {"op":"setLevel","level":"debug"}  {"op":"ping"}  {"op":"serverInfo"}
//   {"op":"setRoots","roots":[{uri,name}]}  (and tells the server they changed)
//   {"op":"close"}
//
// What the server sends on its own is written as events: {"event":"log",...},
// {"event":"resourceUpdated","uri"}, {"event":"progress",...},
// {"event":"listChanged","kind"}, {"event":"sampling",...} (answered with a
// fixed text), {"event":"elicitation",...} (answered "accept" with the
// driver's content), {"event":"closed"} when the server's side ends. Options before `--`: --roots URI[,URI...] (declare roots
// and list these), --sampling, --elicitation, --name NAME, and
// --first-call NAME (see below),
// --config FILE --server NAME: start the server as the app does from its
// config file (Claude Desktop's and Cursor's `mcpServers.NAME`, Claude
// Code's `mcpServers.NAME` or `projects.PATH.mcpServers.NAME` with
// --project PATH, VS Code's `servers.NAME`, Zed's `context_servers.NAME`,
// opencode's `mcp.NAME` with the program and its arguments in one
// `command` list and `environment`;
// comments and trailing commas allowed as VS Code and Zed allow them):
// command, args, env, with the SDK's default environment (HOME, PATH, ...)
// plus that env, instead of the command after `--`.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  PromptListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import readline from "node:readline";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const opts = sep >= 0 ? argv.slice(0, sep) : argv;
const flag = (name) => opts.includes(name);
const value = (name) => {
  const i = opts.indexOf(name);
  return i >= 0 ? opts[i + 1] : undefined;
};
const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

// What to start, from the command line or from an AI app's config file.
async function serverParams() {
  const file = value("--config");
  if (file === undefined) {
    const [command, ...args] = argv.slice(sep + 1);
    return { command, args, env: process.env, stderr: "inherit" };
  }
  const { readFile } = await import("node:fs/promises");
  const name = value("--server");
  const config = JSON.parse(withoutComments(await readFile(file, "utf8")));
  const project = value("--project");
  const servers = project !== undefined ? config.projects?.[project]?.mcpServers : config.mcpServers ?? config.servers ?? config.context_servers ?? config.mcp;
  const entry = servers?.[name];
  if (Array.isArray(entry?.command)) {
    const [command, ...args] = entry.command;
    return { command, args, env: entry.environment, stderr: "inherit" };
  }
  if (!entry?.command) {
    out({ event: "connectFailed", error: `no server "${name}" in ${file}` });
    process.exit(1);
  }
  return { command: entry.command, args: entry.args ?? [], env: entry.env, stderr: "inherit" };
}

// JSON with comments and trailing commas, as VS Code and Zed write it, made
// plain JSON: comments outside strings are dropped, and a comma before a
// closing bracket.
function withoutComments(text) {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      i = text.indexOf("*/", i + 2) + 1;
    } else {
      out += c;
    }
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

let roots = (value("--roots") ?? "")
  .split(",")
  .filter((u) => u !== "")
  .map((uri) => ({ uri, name: uri.split("/").pop() }));
const capabilities = {};
if (value("--roots") !== undefined) capabilities.roots = { listChanged: true };
if (flag("--sampling")) capabilities.sampling = {};
if (flag("--elicitation")) capabilities.elicitation = {};
let elicitContent = {};

const client = new Client({ name: value("--name") ?? "ts-app-stand-in", version: "1.0.0" }, { capabilities });
if (capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
if (capabilities.sampling)
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    out({ event: "sampling", params: req.params });
    return { role: "assistant", content: { type: "text", text: "sampled by the stand-in" }, model: "stand-in" };
  });
if (capabilities.elicitation)
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    out({ event: "elicitation", params: req.params });
    return { action: "accept", content: elicitContent };
  });
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => out({ event: "log", params: n.params }));
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => out({ event: "resourceUpdated", uri: n.params.uri }));
client.setNotificationHandler(ToolListChangedNotificationSchema, () => out({ event: "listChanged", kind: "tools" }));
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => out({ event: "listChanged", kind: "resources" }));
client.setNotificationHandler(PromptListChangedNotificationSchema, () => out({ event: "listChanged", kind: "prompts" }));

const transport = new StdioClientTransport(await serverParams());
client.onclose = () => out({ event: "closed" });
const started = performance.now();
try {
  await client.connect(transport);
} catch (e) {
  out({ event: "connectFailed", error: String(e?.message ?? e) });
  process.exit(1);
}
// --first-call NAME: call tool NAME (no arguments) as the very next thing
// after `initialized`, as an agent does, before telling the driver; its
// result (or error) comes with the connected event.
const firstCall = value("--first-call");
let first;
if (firstCall !== undefined) {
  try {
    first = { ok: await client.callTool({ name: firstCall, arguments: {} }) };
  } catch (e) {
    first = { error: String(e?.message ?? e) };
  }
}
out({ event: "connected", ms: performance.now() - started, server: client.getServerVersion(), capabilities: client.getServerCapabilities(), first });

async function run(req) {
  switch (req.op) {
    case "callTool": {
      const options = {};
      if (req.cancelAfterMs !== undefined) {
        const controller = new AbortController();
        setTimeout(() => controller.abort("cancelled by the stand-in"), req.cancelAfterMs);
        options.signal = controller.signal;
      }
      if (req.progress) options.onprogress = (p) => out({ event: "progress", progress: p });
      if (req.timeoutMs) options.timeout = req.timeoutMs;
      if (req.elicit) elicitContent = req.elicit;
      return client.callTool({ name: req.name, arguments: req.arguments ?? {} }, undefined, options);
    }
    case "listTools": return client.listTools();
    case "listResources": return client.listResources();
    case "listResourceTemplates": return client.listResourceTemplates();
    case "listPrompts": return client.listPrompts();
    case "readResource": return client.readResource({ uri: req.uri });
    case "subscribe": return client.subscribeResource({ uri: req.uri });
    case "unsubscribe": return client.unsubscribeResource({ uri: req.uri });
    case "getPrompt": return client.getPrompt({ name: req.name, arguments: req.arguments ?? {} });
    case "complete": return client.complete(req.params);
    case "setLevel": return client.setLoggingLevel(req.level);
    case "ping": return client.ping();
    case "serverInfo": return { server: client.getServerVersion(), capabilities: client.getServerCapabilities(), instructions: client.getInstructions() };
    case "setRoots":
      roots = req.roots;
      await client.sendRootsListChanged();
      return {};
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
  // Each request answers in the order it finishes; `tag` ties them up.
  run(req).then(
    (ok) => out({ tag: req.tag, ok }),
    (e) => out({ tag: req.tag, error: String(e?.message ?? e), code: e?.code }),
  );
}
await client.close();
