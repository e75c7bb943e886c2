// The bridge benchmark's client: the official TypeScript SDK client
// (@modelcontextprotocol/sdk, as an AI app would use it) against the server
// command after `--`, which is the server itself, `rootgate connect NAME`, or
// another proxy. Prints one JSON object with, in milliseconds:
//   spawn:   spawn -> initialize answered (client.connect), over --spawns runs
//   rtt:     a trivial tools/call round trip, over --calls sequential calls
//   big:     a tools/call whose result is 1 MiB of text, over --big calls
//   flight:  100 tools/call in flight at once, over --rounds rounds: the time per
//            round, and calls per second
//   rss_kb:  peak RSS (VmHWM) of the process the client started, read before
//            closing (the bridge or the proxy; for a direct server, the server)
// Statistics are {count,min,median,p90,p99,max}, quantiles as ../shared/bench says.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import fs from "node:fs";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const opts = Object.fromEntries(
  argv.slice(0, sep).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const [command, ...args] = argv.slice(sep + 1);
const num = (k, d) => (opts[k] === undefined ? d : Number(opts[k]));
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))];
  return { count: s.length, min: s[0], median: q(0.5), p90: q(0.9), p99: q(0.99), max: s[s.length - 1] };
};
// Servers start with the bench protocol's small environment (../shared/bench:
// inheriting all of it, NODE_EXTRA_CA_CERTS among it, added ~40 ms to every
// Node start), plus where Rootgate's settings are, for the bridge.
const env = Object.fromEntries(
  ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR"]
    .filter((k) => process.env[k] !== undefined)
    .map((k) => [k, process.env[k]]),
);

async function connect() {
  const client = new Client({ name: "bridge-bench", version: "1.0.0" }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler((await import("@modelcontextprotocol/sdk/types.js")).ListRootsRequestSchema, async () => ({ roots: [] }));
  const transport = new StdioClientTransport({ command, args, env, stderr: "ignore" });
  const t0 = performance.now();
  await client.connect(transport);
  return { client, transport, ms: performance.now() - t0 };
}

const spawnMs = [];
for (let i = 0; i < num("spawns", 20) + 1; i++) {
  const { client, ms } = await connect();
  if (i > 0) spawnMs.push(ms); // the first warms the disk cache
  await client.close();
}

const { client, transport } = await connect();
const call = (name, a = {}) => client.callTool({ name, arguments: a });
for (let i = 0; i < 50; i++) await call("noop");
const rtt = [];
for (let i = 0; i < num("calls", 1000); i++) {
  const t = performance.now();
  await call("noop");
  rtt.push(performance.now() - t);
}
const bigMs = [];
for (let i = 0; i < num("big", 50) + 3; i++) {
  const t = performance.now();
  const r = await call("big", { bytes: 1048576 });
  if (r.content[0].text.length !== 1048576) throw new Error("short big result");
  if (i >= 3) bigMs.push(performance.now() - t);
}
const flight = [];
for (let i = 0; i < num("rounds", 30) + 2; i++) {
  const t = performance.now();
  await Promise.all(Array.from({ length: 100 }, () => call("noop")));
  if (i >= 2) flight.push(performance.now() - t);
}
let rssKb = null;
try {
  const status = fs.readFileSync(`/proc/${transport.pid}/status`, "utf8");
  rssKb = Number(/VmHWM:\s+(\d+)/.exec(status)[1]);
} catch {}
await client.close();
const flightStats = stats(flight);
console.log(
  JSON.stringify({
    label: opts.label ?? command,
    spawn: stats(spawnMs),
    rtt: stats(rtt),
    big: stats(bigMs),
    flight: flightStats,
    flight_calls_per_s: (100 * 1000) / flightStats.median,
    rss_kb: rssKb,
  }),
);
