// Words for what the UI shows: timeline entries as sentences, status as a
// badge, times, counts. Pure, so every case is unit tested.

import productNames from "./app-names.json";
import type { AppIdentity, ConnectionView, DeliverySummary, Event, FolderState, ServerView, Status, WaitingCall } from "./bindings";

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/** A local time as HH:MM:SS.mmm. */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** A local date and time for tooltips, e.g. 2025-03-01 14:02:03. */
export function formatDateTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * A moment in a few words: the time of day (HH:MM:SS) when it is today,
 * else the date too.
 */
export function formatMoment(ms: number, now: number = Date.now()): string {
  const d = new Date(ms);
  const today = new Date(now);
  const sameDay =
    d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() && d.getDate() === today.getDate();
  return sameDay ? formatDateTime(ms).slice(11) : formatDateTime(ms);
}

/**
 * An AI app as people know it, whole: "Claude Code 2.0.14" for a client
 * that said `claude-code` and `2.0.14`, or "An AI app" when it did not
 * say. Where the name and version are shown apart (the version quieter),
 * `appName` and `appVersion` give each.
 */
export function appLabel(app: AppIdentity | null | undefined): string {
  const name = appName(app?.name);
  const version = appVersion(app);
  return version === "" ? name : `${name} ${version}`;
}

/**
 * An app's request that waits in its bridge for the server (it starts or
 * restarts), e.g. "tools/call “read_text_file” waits for the server since
 * 10:15:02".
 */
export function waitingText(w: WaitingCall, now: number = Date.now()): string {
  const what = w.target ? `${w.method} “${w.target}”` : w.method;
  return `${what} waits for the server since ${formatMoment(w.sinceMs, now)}`;
}

/** The version an AI app gave, trimmed ("" when none, or when it gave no name). */
export function appVersion(app: Pick<AppIdentity, "name" | "version"> | null | undefined): string {
  return (app?.name.trim() ?? "") === "" ? "" : (app?.version.trim() ?? "");
}

/** What an AI app said of itself, for a title: "It calls itself “claude-code” 2.0.14"; undefined when it said nothing. */
export function appSaid(name: string | null | undefined, version: string | null | undefined): string | undefined {
  const n = name?.trim() ?? "";
  if (n === "") return undefined;
  const v = version?.trim() ?? "";
  return `It calls itself “${n}”${v === "" ? "" : ` ${v}`}`;
}

/**
 * An AI app's words as a connection's row and detail show them: the label
 * ("Claude 1.2"), the name, the version alone and what it said of itself
 * (the title), from the one identity.
 */
export function appWords(app: AppIdentity | null | undefined): {
  label: string;
  name: string;
  version: string;
  said: string | undefined;
} {
  return { label: appLabel(app), name: appName(app?.name), version: appVersion(app), said: appSaid(app?.name, app?.version) };
}

/**
 * The product names of the AI apps Rootgate knows, by the name each gives
 * in its `initialize` (`clientInfo.name`, compared in lower case): the
 * table of the core's `AppKind::from_client_name`
 * (crates/rootgate-apps/src/client_names.rs, where each name's source is
 * said), kept in `app-names.json`, which the shell's tests check against
 * the core's. The connections and the record carry the app's own name.
 */
const PRODUCTS: Readonly<Record<string, string>> = productNames;

/** Gemini CLI v0.2.0 to v0.8.x named its client after each server (`gemini-cli-mcp-client-<server>`). */
const GEMINI_PER_SERVER = "gemini-cli-mcp-client-";

/** An AI app's name alone: its product's name when Rootgate knows it, else as given, or "An AI app" when it gave none. */
export function appName(name: string | null | undefined): string {
  const n = name?.trim() ?? "";
  if (n === "") return "An AI app";
  const lower = n.toLowerCase();
  if (Object.hasOwn(PRODUCTS, lower)) return PRODUCTS[lower];
  if (lower.startsWith(GEMINI_PER_SERVER) && lower.length > GEMINI_PER_SERVER.length) return PRODUCTS["gemini-cli-mcp-client"];
  return n;
}

/**
 * What a server row says of the AI apps that run it through their bridges
 * (each bridge runs its own process of the server): "running for Goose",
 * "running for Claude Code · 3 connections", "running for 3 AI apps · 5
 * connections", with the apps named in `title`; null when no live
 * connection runs it.
 */
export function runningFor(
  connections: readonly ConnectionView[],
  server: string,
): { label: string; title: string } | null {
  const running = connections.filter((c) => c.live && c.server === server && c.status.state === "running");
  if (running.length === 0) return null;
  const byApp = new Map<string, number>();
  for (const c of running) {
    const name = appName(c.app?.name);
    byApp.set(name, (byApp.get(name) ?? 0) + 1);
  }
  const names = [...byApp.keys()];
  const apps = names.length === 1 ? names[0] : `${names.length} AI apps`;
  const label = running.length === 1 ? `running for ${apps}` : `running for ${apps} · ${running.length} connections`;
  const named = names.map((n) => ((byApp.get(n) ?? 0) > 1 ? `${n} (${byApp.get(n)} connections)` : n));
  const list = named.length <= 1 ? named[0] : `${named.slice(0, -1).join(", ")} and ${named[named.length - 1]}`;
  const title = `${list} ${running.length === 1 ? "reaches" : "reach"} it through Rootgate, each in a process of its own`;
  return { label, title };
}

/**
 * The path a `file://` URI names, for showing (RFC 8089: percent-decoded;
 * `localhost` or no host is this machine, another host a network share, a
 * drive letter a Windows path). Anything else, or a URI that does not
 * decode, is shown as it is.
 */
export function uriToPath(uri: string): string {
  const m = /^file:\/\/([^/?#]*)([^?#]*)/i.exec(uri);
  if (!m) return uri;
  const host = m[1].toLowerCase() === "localhost" ? "" : m[1];
  let path: string;
  try {
    path = decodeURIComponent(m[2] === "" ? "/" : m[2]);
  } catch {
    return uri;
  }
  if (/^\/[A-Za-z]:(\/|$)/.test(path) && host === "") return path.slice(1).replaceAll("/", "\\");
  return host === "" ? path : `//${host}${path}`;
}

/** A word as a POSIX shell reads it: as it is when safe, else in single quotes (the core's `shell_quote`). */
export function shellQuote(word: string): string {
  return word !== "" && /^[A-Za-z0-9\-_./:=@%+,]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** "1 folder", "3 folders", "no folders". */
export function count(n: number, one: string, many = `${one}s`, zero?: string): string {
  if (n === 0 && zero !== undefined) return zero;
  return `${n} ${n === 1 ? one : many}`;
}

function sentence(text: string): string {
  const t = text.trim();
  if (t === "") return t;
  return /[.!?)]$/.test(t) ? t : `${t}.`;
}

/** One timeline event in plain words. */
export function describeEvent(event: Event): string {
  switch (event.kind) {
    case "starting":
      return `Starting: ${event.commandLine}`;
    case "spawned":
      return `Process started (pid ${event.pid}).`;
    case "initialized": {
      const who = [event.serverName, event.serverVersion].filter((s) => s.trim() !== "").join(" ");
      return `Connected to ${who || "the server"}, protocol ${event.protocolVersion}.`;
    }
    case "rootsAnswered":
      return `Asked for roots → told ${count(event.roots.length, "folder", "folders", "no folders")}`;
    case "eraFound":
      return event.era === "modern"
        ? sentence(`Speaks the modern protocol (2026-07-28): ${event.how}`)
        : sentence(`Speaks the legacy protocol (initialize): ${event.how}`);
    case "rootsAskedInRound": {
      const what = event.target ? `${event.method} “${event.target}”` : event.method;
      return `Asked for roots while handling ${what} → told ${count(event.roots.length, "folder", "folders", "no folders")}`;
    }
    case "inputNotOffered": {
      const what = event.target ? `${event.method} “${event.target}”` : event.method;
      return `Asked for “${event.asked}” while handling ${what}: Rootgate does not offer it, so the call ended.`;
    }
    case "listChangedSent":
      return "Told the server its folders changed.";
    case "notPickedUp":
      return `Did not ask for its folders within ${formatDelay(event.waitedMs)} of being told they changed: what was added is not picked up yet.`;
    case "restartedToWithdraw":
      return sentence(`Restarted so a withdrawn folder takes effect: ${event.reason}`);
    case "enforced": {
      const n = event.readWrite.filter((p) => !p.startsWith("/dev/")).length;
      const folders = count(n, "folder", "folders", "no folder");
      const writes = n === 0 ? "it may read and write in no folder" : `it may read and write only in ${folders}`;
      // Held only where bubblewrap made its sandbox; a server that is not
      // held reaches the network whatever was set for it.
      return event.held
        ? `Held in a sandbox (bubblewrap, with Landlock inside): ${writes}, read only what it needs to run, and ${event.network ? "may use the network" : "has no network"}.`
        : `Not held in a sandbox (bubblewrap cannot make one here): Landlock and a filter keep it to ${folders} and what it needs to run, but it still reaches the network and sees other processes.`;
    }
    case "restartedToEnforce":
      return sentence(`Restarted under new folder rules: ${event.reason}`);
    case "requestRefused":
      return `Refused its request “${event.method}”: Rootgate does not offer it.`;
    case "firstRequest":
      return event.said;
    case "call": {
      const what = event.target ? `${event.method} “${event.target}”` : event.method;
      return event.outcome === "ok"
        ? `The AI app called ${what}: answered in ${formatDelay(event.durationMs)}.`
        : sentence(`The AI app called ${what}: ${event.outcome} after ${formatDelay(event.durationMs)}`);
    }
    case "stopping":
      switch (event.reason) {
        case "stopped":
          return "Stopping, as asked.";
        case "restarting":
          return "Stopping to restart.";
        case "stopped while starting":
          return "Stopping while it was still starting.";
        default:
          return sentence(`Stopping: ${event.reason}`);
      }
    case "exited":
      return event.expected
        ? sentence(`Exited: ${event.status}`)
        : sentence(`Exited unexpectedly: ${event.status}`);
    case "failed":
      return sentence(`Failed: ${event.reason}`);
    case "restartScheduled":
      return `Stopped unexpectedly; starting it again in ${formatDelay(event.delayMs)} (attempt ${event.attempt} of ${event.of}).`;
    case "gaveUp":
      return `Kept failing; Rootgate stopped restarting it after ${count(event.attempts, "attempt")}.`;
    case "restartedForArguments":
      return sentence(`Restarted with its folders as arguments anew: ${event.reason}`);
    case "waitingForFolders":
      return sentence(`Not started yet: ${event.reason}`);
    case "tried":
      return describeTried(event);
    default: {
      // A kind this window does not know yet (newer backend): say its name.
      const unknown: never = event;
      return String((unknown as { kind?: unknown }).kind ?? "Something happened.");
    }
  }
}

/** How many times, in words: "once", "twice", "3 times". */
export function times(n: number): string {
  return n === 1 ? "once" : n === 2 ? "twice" : `${n} times`;
}

/**
 * What the person tried from the window (a server's Tools, Resources or
 * Prompts) and what it came to: "You called tool “read_text_file”: ok in
 * 12 ms · asked for roots twice." The arguments are not in the sentence
 * (the entry's detail lines have them): they can be long.
 */
function describeTried(e: Extract<Event, { kind: "tried" }>): string {
  const what =
    e.method === "tools/call"
      ? `You called tool “${e.target}”`
      : e.method === "resources/read"
        ? `You read resource “${e.target}”`
        : e.method === "prompts/get"
          ? `You got prompt “${e.target}”`
          : `You tried ${e.method} “${e.target}”`;
  const took = formatDelay(e.durationMs);
  const detail = e.detail?.trim() ? `: ${e.detail.trim()}` : "";
  let outcome: string;
  switch (e.outcome) {
    case "ok":
      outcome = `ok in ${took}`;
      break;
    case "toolError":
      outcome = `the tool said it failed, after ${took}${detail}`;
      break;
    case "cancelled":
      outcome = `cancelled after ${took}`;
      break;
    default:
      outcome = `failed after ${took}${detail}`;
  }
  const roots = e.rootsAsked > 0 ? ` · asked for roots ${times(e.rootsAsked)}` : "";
  return sentence(`${what}: ${outcome}${roots}`);
}

/**
 * How a server learns its folders, in a sentence for its detail: which
 * protocol era it is spoken to in (running: the era in use; not running: the
 * era it will start in, or that it will be asked), and what that means for a
 * withdrawal. Roots are advice; the detail says so beside it.
 */
export function howItLearns(server: Pick<ServerView, "status" | "era" | "seenEra" | "foldersAsArguments">): {
  era: string;
  how: string;
  modern: boolean;
} {
  const era = server.status.state === "running" ? server.status.era : server.era === "auto" ? server.seenEra : server.era;
  const args = server.foldersAsArguments
    ? " It also takes them as arguments, and is restarted with the new list when they change."
    : "";
  const chosen = server.era === "auto" ? "" : " (set on this server)";
  switch (era) {
    case "modern":
      return {
        modern: true,
        era: `Modern protocol, 2026-07-28${chosen}`,
        how: `It gets its folders with each request it handles. Nothing is sent when they change: a withdrawal takes effect with its next request.${args}`,
      };
    case "legacy":
      return {
        modern: false,
        era: `Legacy protocol, initialize${chosen}`,
        how: `It asks for its folders (roots/list) and is told when they change; Rootgate checks that it asks again.${args}`,
      };
    default:
      return {
        modern: false,
        era: "Found when it first starts",
        how: `Rootgate opens with the legacy handshake (initialize), which servers of both protocols accept, and speaks the modern protocol only if it refuses; it remembers which.${args}`,
      };
  }
}

/** Where one folder stands with a server, in a few words. */
export function folderStateLabel(state: FolderState): string {
  switch (state) {
    case "told":
      return "told";
    case "waiting":
      return "waiting for the server";
    case "notPickedUp":
      return "not picked up yet";
    case "withdrawing":
      return "withdrawn · waiting for the server";
    case "restartedToApply":
      return "withdrawn · restarted to apply";
    case "onRequest":
      return "given with each request";
  }
}

export function folderStateTone(state: FolderState): Tone {
  switch (state) {
    case "told":
    case "onRequest":
      return "good";
    case "waiting":
    case "withdrawing":
      return "info";
    case "notPickedUp":
      return "warn";
    case "restartedToApply":
      return "neutral";
  }
}

/**
 * What a server's row says about its folders beyond the count: changes it
 * has not picked up, and whether it follows changes at all. Empty when all
 * is well.
 */
export function deliveryNotes(d: DeliverySummary): { text: string; tone: Tone; title: string }[] {
  const notes: { text: string; tone: Tone; title: string }[] = [];
  if (d.following === "ignores") {
    notes.push({
      text: "does not follow changes",
      tone: "warn",
      title:
        "It did not ask for its folders after being told they changed, so Rootgate restarts it whenever a folder is withdrawn.",
    });
  }
  if (d.notPickedUp > 0) {
    notes.push({
      text: `${count(d.notPickedUp, "folder")} not picked up yet`,
      tone: "warn",
      title: "It was told of these folders and has not asked for them. Restart it to apply them.",
    });
  }
  const waiting = d.waiting + d.withdrawing;
  if (waiting > 0) {
    notes.push({
      text: "waiting for the server",
      tone: "info",
      title: "It was told its folders changed and has not asked for them yet.",
    });
  }
  return notes;
}

/** A delay in words: "250 ms", "2 s", "1.5 s". */
export function formatDelay(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 100) / 10;
  return `${s} s`;
}

/** How serious an event is, for its colour. */
export type Tone = "neutral" | "good" | "info" | "warn" | "bad";

export function eventTone(event: Event): Tone {
  switch (event.kind) {
    case "initialized":
      return "good";
    case "rootsAnswered":
    case "rootsAskedInRound":
    case "listChangedSent":
    case "firstRequest":
      return "info";
    case "inputNotOffered":
      return "warn";
    case "call":
      return event.outcome === "ok" ? "neutral" : "warn";
    case "tried":
      return event.outcome === "failed" ? "bad" : event.outcome === "toolError" ? "warn" : "neutral";
    case "restartedToWithdraw":
    case "restartedToEnforce":
    case "restartedForArguments":
    case "waitingForFolders":
    case "notPickedUp":
    case "requestRefused":
    case "restartScheduled":
      return "warn";
    case "enforced":
      return "good";
    case "failed":
    case "gaveUp":
      return "bad";
    case "exited":
      return event.expected ? "neutral" : "bad";
    default:
      return "neutral";
  }
}

/** What a status badge says: a short label, and the detail next to it. */
export interface Badge {
  state: Status["state"];
  label: string;
  detail: string | null;
  tone: Tone;
  busy: boolean;
}

export function statusBadge(status: Status): Badge {
  switch (status.state) {
    case "starting":
      return { state: "starting", label: "starting", detail: null, tone: "info", busy: true };
    case "running":
      return {
        state: "running",
        label: `running · ${status.serverName || "unnamed server"} · ${status.era === "modern" ? "modern protocol" : "protocol"} ${status.protocolVersion}`,
        detail: null,
        tone: "good",
        busy: false,
      };
    case "stopping":
      return { state: "stopping", label: "stopping", detail: null, tone: "info", busy: true };
    case "stopped":
      return {
        state: "stopped",
        label: status.lastExit ? `stopped · ${status.lastExit}` : "stopped",
        detail: null,
        tone: "neutral",
        busy: false,
      };
    case "failed":
      return { state: "failed", label: "failed", detail: status.reason, tone: "bad", busy: false };
    case "waiting":
      return {
        state: "waiting",
        label: "waiting for its folders",
        detail: sentence(`It starts when they are shared: ${status.reason}`),
        tone: "warn",
        busy: false,
      };
    default: {
      const unknown: never = status;
      const state = String((unknown as { state?: unknown }).state);
      return { state: state as Status["state"], label: state, detail: null, tone: "neutral", busy: false };
    }
  }
}

/** The whole badge as one line of text (for titles and announcements). */
export function statusText(status: Status): string {
  const b = statusBadge(status);
  return b.detail ? `${b.label}: ${b.detail}` : b.label;
}

/** Which of Start, Stop and Restart make sense in a status. */
export function allowedActions(status: Status): { start: boolean; stop: boolean; restart: boolean } {
  switch (status.state) {
    case "stopped":
    case "failed":
      return { start: true, stop: false, restart: false };
    case "starting":
      return { start: false, stop: true, restart: true };
    case "running":
      return { start: false, stop: true, restart: true };
    case "stopping":
      return { start: false, stop: false, restart: false };
    default:
      return { start: false, stop: true, restart: false };
  }
}

/**
 * Splits a path so its end stays visible when the middle is cut: the head
 * shrinks with an ellipsis, the tail (the last segment, or its last
 * `tailMax` characters) never does. head + tail is always the whole path.
 */
export function splitForEllipsis(path: string, tailMax = 32): { head: string; tail: string } {
  const trimmed = path.replace(/[/\\]+$/, "");
  const cut = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
  let at = cut > 0 ? cut : 0;
  if (path.length - at > tailMax) at = Math.max(0, path.length - tailMax);
  return { head: path.slice(0, at), tail: path.slice(at) };
}

/** Splits `text` around case-insensitive matches of `query`, for highlighting. */
export function highlightParts(text: string, query: string): { text: string; match: boolean }[] {
  if (query === "") return [{ text, match: false }];
  const lower = text.toLowerCase();
  const q = query.toLowerCase();
  // Lower-casing that changes lengths would misplace the marks.
  if (lower.length !== text.length) return [{ text, match: lower.includes(q) }];
  const parts: { text: string; match: boolean }[] = [];
  let from = 0;
  for (;;) {
    const at = lower.indexOf(q, from);
    if (at < 0) break;
    if (at > from) parts.push({ text: text.slice(from, at), match: false });
    parts.push({ text: text.slice(at, at + q.length), match: true });
    from = at + q.length;
  }
  if (from < text.length) parts.push({ text: text.slice(from), match: false });
  return parts;
}

/** Where a runner that downloads at start (see `Download`) gets its packages, in words. */
export function downloadRegistry(tool: string): { registry: string; python: boolean } {
  switch (tool) {
    case "npx":
    case "npm exec":
    case "bunx":
    case "pnpm dlx":
    case "yarn dlx":
      return { registry: "the npm registry", python: false };
    case "uvx":
    case "uv tool run":
    case "pipx run":
      return { registry: "PyPI", python: true };
    default:
      return { registry: "its package registry", python: false };
  }
}

/**
 * A package as a runner names it, split into its name and the version it
 * asks for ("" when none): `@scope/pkg@1.2.3` → `@scope/pkg`, `1.2.3`;
 * `pkg==2.0` → `pkg`, `2.0`; `pkg>=1.0` → `pkg`, `>=1.0` (a range).
 */
export function splitPackage(spec: string, python: boolean): { name: string; version: string } {
  if (python) {
    const m = /^([^=<>!~@\s]+?)\s*(===|==|~=|!=|>=|<=|>|<|@)\s*(.*)$/.exec(spec);
    if (!m) return { name: spec, version: "" };
    return { name: m[1], version: m[2] === "==" || m[2] === "===" || m[2] === "@" ? m[3] : `${m[2]}${m[3]}` };
  }
  const at = spec.indexOf("@", 1);
  return at < 0 ? { name: spec, version: "" } : { name: spec.slice(0, at), version: spec.slice(at + 1) };
}

/**
 * What the approval dialog says of a command that downloads code at start:
 * what it downloads and from where (`lead`), and whether approving covers
 * one version (`pinned`) or whatever the registry serves next time (then
 * `pinAs`, the spelling that would pin it).
 */
export function describeDownload(d: { tool: string; package: string; pinned: boolean }): {
  lead: string;
  name: string;
  version: string;
  registry: string;
  tool: string;
  pinned: boolean;
  status: string;
  pinAs: string | null;
} {
  const { registry, python } = downloadRegistry(d.tool);
  const { name, version } = splitPackage(d.package, python);
  const lead = `This command downloads ${name} from ${registry} each time it starts (${d.tool}).`;
  if (d.pinned) {
    const status = `Pinned to ${version}: approving covers that version only.`;
    return { lead, name, version, registry, tool: d.tool, pinned: true, status, pinAs: null };
  }
  const asked = version === "" ? "" : ` (“${version}” is a range or a tag, not one version)`;
  return {
    lead,
    name,
    version,
    registry,
    tool: d.tool,
    pinned: false,
    status: `Not pinned${asked}: approving it approves whatever version the registry serves next time.`,
    pinAs: python ? `${name}==x.y.z` : `${name}@x.y.z`,
  };
}
