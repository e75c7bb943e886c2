import { describe, expect, it } from "vitest";
import type { Event, Status } from "./bindings";
import {
  appLabel,
  appName,
  appVersion,
  formatMoment,
  waitingText,
  shellQuote,
  uriToPath,
  deliveryNotes,
  folderStateLabel,
  allowedActions,
  count,
  howItLearns,
  describeEvent,
  eventTone,
  formatTime,
  highlightParts,
  splitForEllipsis,
  statusBadge,
  statusText,
  describeDownload,
  downloadRegistry,
  splitPackage,
} from "./format";

describe("formatTime", () => {
  it("is HH:MM:SS.mmm in local time", () => {
    const ms = new Date(2025, 0, 2, 3, 4, 5, 67).getTime();
    expect(formatTime(ms)).toBe("03:04:05.067");
  });
  it("pads the afternoon and whole seconds", () => {
    expect(formatTime(new Date(2025, 0, 2, 23, 59, 0, 0).getTime())).toBe("23:59:00.000");
  });
});

describe("describeEvent: every timeline kind is a sentence", () => {
  const root = (n: number) => ({ root: `root-${n}`, uri: `file:///home/me/p${n}`, name: `p${n}` });
  const cases: [Event, string][] = [
    [
      { kind: "starting", commandLine: "npx -y @modelcontextprotocol/server-filesystem" },
      "Starting: npx -y @modelcontextprotocol/server-filesystem",
    ],
    [{ kind: "spawned", pid: 4242 }, "Process started (pid 4242)."],
    [
      { kind: "initialized", protocolVersion: "2025-11-25", serverName: "example", serverVersion: "1.2.0" },
      "Connected to example 1.2.0, protocol 2025-11-25.",
    ],
    [
      { kind: "initialized", protocolVersion: "2025-06-18", serverName: "", serverVersion: "" },
      "Connected to the server, protocol 2025-06-18.",
    ],
    [
      { kind: "rootsAnswered", requestId: "1", generation: 3, roots: [root(1), root(2)] },
      "Asked for roots → told 2 folders",
    ],
    [{ kind: "rootsAnswered", requestId: "2", generation: 4, roots: [root(1)] }, "Asked for roots → told 1 folder"],
    [{ kind: "rootsAnswered", requestId: "3", generation: 5, roots: [] }, "Asked for roots → told no folders"],
    [{ kind: "listChangedSent", generation: 6 }, "Told the server its folders changed."],
    [
      {
        kind: "eraFound",
        era: "modern",
        how: 'it refused initialize (JSON-RPC error -32022: "Unsupported protocol version: 2025-11-25", naming versions 2026-07-28), as a server that speaks only the modern era does, so it is started again and spoken to with server/discover',
      },
      'Speaks the modern protocol (2026-07-28): it refused initialize (JSON-RPC error -32022: "Unsupported protocol version: 2025-11-25", naming versions 2026-07-28), as a server that speaks only the modern era does, so it is started again and spoken to with server/discover.',
    ],
    [
      {
        kind: "eraFound",
        era: "legacy",
        how: "it accepted initialize (2025-11-25), so it is spoken to in the legacy era, where a server that speaks both eras gets its folders whichever way its code asks for them",
      },
      "Speaks the legacy protocol (initialize): it accepted initialize (2025-11-25), so it is spoken to in the legacy era, where a server that speaks both eras gets its folders whichever way its code asks for them.",
    ],
    [
      { kind: "rootsAskedInRound", method: "tools/call", target: "grep", key: "roots", generation: 2, roots: [root(1)] },
      "Asked for roots while handling tools/call “grep” → told 1 folder",
    ],
    [
      { kind: "inputNotOffered", method: "tools/call", target: "ask", key: "name", asked: "elicitation/create" },
      "Asked for “elicitation/create” while handling tools/call “ask”: Rootgate does not offer it, so the call ended.",
    ],
    [
      { kind: "restartedForArguments", reason: "it takes its folders as arguments, and they changed" },
      "Restarted with its folders as arguments anew: it takes its folders as arguments, and they changed.",
    ],
    [
      { kind: "waitingForFolders", reason: "it takes one folder as an argument" },
      "Not started yet: it takes one folder as an argument.",
    ],
    [
      { kind: "call", method: "tools/call", target: "read_text_file", durationMs: 12, outcome: "ok" },
      "The AI app called tools/call “read_text_file”: answered in 12 ms.",
    ],
    [
      { kind: "call", method: "tools/list", target: null, durationMs: 3000, outcome: "error -32603: the server stopped" },
      "The AI app called tools/list: error -32603: the server stopped after 3 s.",
    ],
    [
      { kind: "notPickedUp", generation: 7, waitedMs: 3000 },
      "Did not ask for its folders within 3 s of being told they changed: what was added is not picked up yet.",
    ],
    [
      { kind: "restartedToWithdraw", reason: "“Photos” was withdrawn" },
      "Restarted so a withdrawn folder takes effect: “Photos” was withdrawn.",
    ],
    [
      { kind: "enforced", readWrite: ["/home/a/docs", "/dev/null", "/dev/full"], readOnly: ["/usr"], held: true, network: false },
      "Held in a sandbox (bubblewrap, with Landlock inside): it may read and write only in 1 folder, read only what it needs to run, and has no network.",
    ],
    [
      { kind: "enforced", readWrite: ["/home/a/docs", "/home/a/src"], readOnly: ["/usr"], held: true, network: true },
      "Held in a sandbox (bubblewrap, with Landlock inside): it may read and write only in 2 folders, read only what it needs to run, and may use the network.",
    ],
    [
      { kind: "enforced", readWrite: ["/dev/null"], readOnly: ["/usr"], held: true, network: false },
      "Held in a sandbox (bubblewrap, with Landlock inside): it may read and write in no folder, read only what it needs to run, and has no network.",
    ],
    [
      // Not held: the network setting is not what it reaches, so it is not said to be off.
      { kind: "enforced", readWrite: ["/home/a/docs"], readOnly: ["/usr"], held: false, network: false },
      "Not held in a sandbox (bubblewrap cannot make one here): Landlock and a filter keep it to 1 folder and what it needs to run, but it still reaches the network and sees other processes.",
    ],
    [
      { kind: "restartedToEnforce", reason: "its roots are enforced" },
      "Restarted under new folder rules: its roots are enforced.",
    ],
    [
      { kind: "requestRefused", method: "sampling/createMessage" },
      "Refused its request “sampling/createMessage”: Rootgate does not offer it.",
    ],
    [{ kind: "stopping", reason: "stopped" }, "Stopping, as asked."],
    [{ kind: "stopping", reason: "restarting" }, "Stopping to restart."],
    [{ kind: "stopping", reason: "Rootgate is shutting down" }, "Stopping: Rootgate is shutting down."],
    [{ kind: "exited", status: "exit code 0", expected: true }, "Exited: exit code 0."],
    [{ kind: "exited", status: "killed by SIGKILL", expected: false }, "Exited unexpectedly: killed by SIGKILL."],
    [
      { kind: "failed", reason: "could not start `nope`: No such file or directory" },
      "Failed: could not start `nope`: No such file or directory.",
    ],
    [{ kind: "failed", reason: "it said no." }, "Failed: it said no."],
    [
      { kind: "restartScheduled", attempt: 1, of: 3, delayMs: 2000 },
      "Stopped unexpectedly; starting it again in 2 s (attempt 1 of 3).",
    ],
    [
      { kind: "restartScheduled", attempt: 2, of: 3, delayMs: 500 },
      "Stopped unexpectedly; starting it again in 500 ms (attempt 2 of 3).",
    ],
    [{ kind: "gaveUp", attempts: 3 }, "Kept failing; Rootgate stopped restarting it after 3 attempts."],
  ];
  it.each(cases)("%o", (event, want) => {
    expect(describeEvent(event)).toBe(want);
  });

  it("says the name of a kind it does not know instead of failing", () => {
    expect(describeEvent({ kind: "somethingNew" } as never)).toBe("somethingNew");
  });

  it("never shows JSON", () => {
    for (const [event] of cases) expect(describeEvent(event)).not.toMatch(/[{}]|"kind"/);
  });

  it("gives failures and unexpected exits a bad tone", () => {
    expect(eventTone({ kind: "failed", reason: "x" })).toBe("bad");
    expect(eventTone({ kind: "exited", status: "exit code 1", expected: false })).toBe("bad");
    expect(eventTone({ kind: "exited", status: "exit code 0", expected: true })).toBe("neutral");
    expect(eventTone({ kind: "initialized", protocolVersion: "p", serverName: "s", serverVersion: "v" })).toBe("good");
    expect(eventTone({ kind: "gaveUp", attempts: 3 })).toBe("bad");
    expect(eventTone({ kind: "restartScheduled", attempt: 1, of: 3, delayMs: 1 })).toBe("warn");
  });
});

describe("statusBadge", () => {
  const running: Status = {
    state: "running",
    era: "legacy",
    pid: 1,
    protocolVersion: "2025-11-25",
    serverName: "rootgate-example",
    serverVersion: "0.1.0",
    capabilities: {},
  };

  it("says what is running and on which protocol", () => {
    expect(statusBadge(running)).toMatchObject({
      state: "running",
      label: "running · rootgate-example · protocol 2025-11-25",
      tone: "good",
      busy: false,
    });
  });

  it("shows a spinner while starting and stopping", () => {
    expect(statusBadge({ state: "starting" })).toMatchObject({ label: "starting", busy: true });
    expect(statusBadge({ state: "stopping" })).toMatchObject({ label: "stopping", busy: true });
  });

  it("tells how the last run ended when stopped", () => {
    expect(statusBadge({ state: "stopped", lastExit: null }).label).toBe("stopped");
    expect(statusBadge({ state: "stopped", lastExit: "exit code 0" }).label).toBe("stopped · exit code 0");
  });

  it("keeps a failure's reason visible", () => {
    const b = statusBadge({ state: "failed", reason: "the server stopped on its own" });
    expect(b).toMatchObject({ label: "failed", detail: "the server stopped on its own", tone: "bad" });
    expect(statusText({ state: "failed", reason: "boom" })).toBe("failed: boom");
  });

  it("names an unnamed server", () => {
    expect(statusBadge({ ...running, serverName: "" }).label).toBe("running · unnamed server · protocol 2025-11-25");
  });
});

describe("allowedActions", () => {
  it("offers only what makes sense", () => {
    expect(allowedActions({ state: "stopped", lastExit: null })).toEqual({ start: true, stop: false, restart: false });
    expect(allowedActions({ state: "failed", reason: "x" })).toEqual({ start: true, stop: false, restart: false });
    expect(allowedActions({ state: "starting" })).toEqual({ start: false, stop: true, restart: true });
    expect(allowedActions({ state: "stopping" })).toEqual({ start: false, stop: false, restart: false });
  });
});

describe("splitForEllipsis", () => {
  it("keeps the last segment whole", () => {
    expect(splitForEllipsis("/home/me/projects/rootgate")).toEqual({ head: "/home/me/projects", tail: "/rootgate" });
  });
  it("always adds up to the whole path", () => {
    for (const p of ["/", "/a", "C:\\Users\\me\\x", "/very/" + "long".repeat(30), "relative"]) {
      const { head, tail } = splitForEllipsis(p);
      expect(head + tail).toBe(p);
    }
  });
  it("cuts a very long last segment", () => {
    const p = "/x/" + "a".repeat(100);
    expect(splitForEllipsis(p, 32).tail.length).toBe(32);
  });
});

describe("highlightParts", () => {
  it("marks every case-insensitive match", () => {
    expect(highlightParts("Error: error ERROR", "error")).toEqual([
      { text: "Error", match: true },
      { text: ": ", match: false },
      { text: "error", match: true },
      { text: " ", match: false },
      { text: "ERROR", match: true },
    ]);
  });
  it("returns the text whole without a query", () => {
    expect(highlightParts("abc", "")).toEqual([{ text: "abc", match: false }]);
  });
});

describe("count", () => {
  it("pluralises", () => {
    expect(count(1, "folder")).toBe("1 folder");
    expect(count(2, "folder")).toBe("2 folders");
    expect(count(0, "folder", "folders", "no folders")).toBe("no folders");
  });
});

describe("howItLearns", () => {
  const stopped = { state: "stopped" as const, lastExit: null };
  const running = (era: "legacy" | "modern") => ({
    state: "running" as const,
    era,
    pid: 1,
    protocolVersion: era === "modern" ? "2026-07-28" : "2025-11-25",
    serverName: "s",
    serverVersion: "1",
    capabilities: {},
  });
  it("says what a running server's era means for a withdrawal", () => {
    const modern = howItLearns({ status: running("modern"), era: "auto", seenEra: "modern", foldersAsArguments: false });
    expect(modern.era).toBe("Modern protocol, 2026-07-28");
    expect(modern.how).toContain("with each request");
    expect(modern.how).toContain("takes effect with its next request");
    const legacy = howItLearns({ status: running("legacy"), era: "auto", seenEra: "legacy", foldersAsArguments: true });
    expect(legacy.era).toBe("Legacy protocol, initialize");
    expect(legacy.how).toContain("is told when they change");
    expect(legacy.how).toContain("as arguments");
  });
  it("uses the era in use over the one remembered, and names a forced one", () => {
    // Running legacy although once seen modern: the running one is the truth.
    expect(howItLearns({ status: running("legacy"), era: "auto", seenEra: "modern", foldersAsArguments: false }).era).toBe(
      "Legacy protocol, initialize",
    );
    expect(howItLearns({ status: stopped, era: "modern", seenEra: null, foldersAsArguments: false }).era).toBe(
      "Modern protocol, 2026-07-28 (set on this server)",
    );
    expect(howItLearns({ status: stopped, era: "auto", seenEra: null, foldersAsArguments: false }).era).toBe(
      "Found when it first starts",
    );
  });
});

describe("delivery", () => {
  const quiet = {
    state: { state: "upToDate" as const },
    following: "follows" as const,
    told: 3,
    waiting: 0,
    notPickedUp: 0,
    withdrawing: 0,
    restartedToApply: 0,
    onRequest: 0,
    restarted: null,
  };

  it("says nothing while a server holds what it is granted", () => {
    expect(deliveryNotes(quiet)).toEqual([]);
  });

  it("names changes not picked up, waiting, and a server that does not follow", () => {
    expect(deliveryNotes({ ...quiet, following: "ignores", notPickedUp: 2, withdrawing: 1 }).map((n) => n.text)).toEqual([
      "does not follow changes",
      "2 folders not picked up yet",
      "waiting for the server",
    ]);
  });

  it("labels every folder state", () => {
    expect(
      (["told", "waiting", "notPickedUp", "withdrawing", "restartedToApply"] as const).map(folderStateLabel),
    ).toEqual([
      "told",
      "waiting for the server",
      "not picked up yet",
      "withdrawn · waiting for the server",
      "withdrawn · restarted to apply",
    ]);
  });
});

describe("formatMoment", () => {
  const now = new Date(2025, 2, 1, 18, 0, 0).getTime();
  it("is the time of day for a moment today", () => {
    expect(formatMoment(new Date(2025, 2, 1, 9, 5, 7).getTime(), now)).toBe("09:05:07");
  });
  it("says the date for any other day", () => {
    expect(formatMoment(new Date(2025, 1, 28, 23, 59, 1).getTime(), now)).toBe("2025-02-28 23:59:01");
  });
});

describe("a request that waits for the server", () => {
  const now = new Date(2025, 2, 1, 18, 0, 0).getTime();
  const since = new Date(2025, 2, 1, 17, 59, 58).getTime();
  it("names the method, what it names, and since when", () => {
    expect(waitingText({ method: "tools/call", target: "read_text_file", sinceMs: since }, now)).toBe(
      "tools/call “read_text_file” waits for the server since 17:59:58",
    );
    expect(waitingText({ method: "tools/list", target: null, sinceMs: since }, now)).toBe(
      "tools/list waits for the server since 17:59:58",
    );
  });
});

describe("the AI app's name", () => {
  it("is its name and version, as its initialize gave them", () => {
    expect(appLabel({ name: "Claude Code", version: "2.0.1", protocolVersion: "2025-06-18" })).toBe("Claude Code 2.0.1");
    expect(appLabel({ name: "Cursor", version: " ", protocolVersion: "2025-06-18" })).toBe("Cursor");
    expect(appLabel({ name: "claude-code", version: "2.0.14", protocolVersion: "2025-06-18" })).toBe("Claude Code 2.0.14");
    expect(appVersion({ name: "claude-code", version: " 2.0.14 " })).toBe("2.0.14");
    expect(appVersion({ name: " ", version: "1" })).toBe("");
  });
  it("is “An AI app” when the app has not said or gave no name", () => {
    expect(appLabel(null)).toBe("An AI app");
    expect(appLabel({ name: "  ", version: "1", protocolVersion: "2025-06-18" })).toBe("An AI app");
    expect(appName("")).toBe("An AI app");
    expect(appName(" Claude Code ")).toBe("Claude Code");
  });
  it("is the product's name for the apps Rootgate knows, by the name their initialize gives, and unknown ones as given", () => {
    const cases: [string, string][] = [
      ["claude-ai", "Claude Desktop"],
      ["claude-code", "Claude Code"],
      ["cursor-vscode", "Cursor"],
      ["Visual Studio Code", "VS Code"],
      ["Visual Studio Code - Insiders", "VS Code"],
      ["Zed", "Zed"],
      ["zed", "Zed"],
      ["goose", "Goose"],
      ["windsurf-client", "Windsurf"],
      ["Q DEV CLI", "Amazon Q Developer"],
      ["github-copilot-developer", "GitHub Copilot CLI"],
      ["gemini-cli-mcp-client", "Gemini CLI"],
      ["gemini-cli-mcp-client-github", "Gemini CLI"],
      ["gemini-cli-mcp-client-", "gemini-cli-mcp-client-"],
      ["@cline/core", "Cline"],
      ["codex-mcp-client", "Codex CLI"],
      ["continue-cli-client", "Continue"],
      ["opencode", "opencode"],
      ["my-own-agent", "my-own-agent"],
      ["constructor", "constructor"],
    ];
    for (const [client, shown] of cases) expect(appName(client), client).toBe(shown);
  });
});

describe("uriToPath", () => {
  it("decodes a file URI to the path it names", () => {
    expect(uriToPath("file:///home/me/the%20app%20works%20here")).toBe("/home/me/the app works here");
    expect(uriToPath("file:///home/me/%ED%95%9C%EA%B8%80")).toBe("/home/me/한글");
    expect(uriToPath("file://localhost/etc")).toBe("/etc");
    expect(uriToPath("file:///")).toBe("/");
    expect(uriToPath("FILE:///srv")).toBe("/srv");
  });
  it("keeps an encoded ? and # in the path, and leaves out a query or fragment", () => {
    expect(uriToPath("file:///home/me/a%3Fb%23c")).toBe("/home/me/a?b#c");
    expect(uriToPath("file:///home/me/a?x=1#top")).toBe("/home/me/a");
  });
  it("shows network shares and Windows drives as such", () => {
    expect(uriToPath("file://server/share/x")).toBe("//server/share/x");
    expect(uriToPath("file:///C:/Users/me")).toBe("C:\\Users\\me");
  });
  it("shows anything else as it is", () => {
    expect(uriToPath("https://example.com/x")).toBe("https://example.com/x");
    expect(uriToPath("file:///bad%ZZ")).toBe("file:///bad%ZZ");
    expect(uriToPath("/home/me")).toBe("/home/me");
  });
});

describe("shellQuote", () => {
  it("quotes as the core's shell_quote does", () => {
    expect(shellQuote("files")).toBe("files");
    expect(shellQuote("Example server")).toBe("'Example server'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("")).toBe("''");
  });
});

describe("describeDownload", () => {
  it("says what an npm runner downloads, from where, and that an unpinned one approves any next version", () => {
    const d = describeDownload({ tool: "npx", package: "@scope/pkg", pinned: false });
    expect(d.lead).toBe("This command downloads @scope/pkg from the npm registry each time it starts (npx).");
    expect(d.pinned).toBe(false);
    expect(d.status).toBe("Not pinned: approving it approves whatever version the registry serves next time.");
    expect(d.pinAs).toBe("@scope/pkg@x.y.z");
  });
  it("says a pinned one covers that version only", () => {
    const d = describeDownload({ tool: "npx", package: "@scope/pkg@2026.8.31", pinned: true });
    expect(d.name).toBe("@scope/pkg");
    expect(d.version).toBe("2026.8.31");
    expect(d.status).toBe("Pinned to 2026.8.31: approving covers that version only.");
    expect(d.pinAs).toBeNull();
  });
  it("names a range or a tag as not one version", () => {
    expect(describeDownload({ tool: "bunx", package: "srv@latest", pinned: false }).status).toBe(
      "Not pinned (“latest” is a range or a tag, not one version): approving it approves whatever version the registry serves next time.",
    );
  });
  it("reads Python runners' spellings, from PyPI, and pins them with ==", () => {
    const d = describeDownload({ tool: "uvx", package: "mcp-server-git", pinned: false });
    expect(d.lead).toBe("This command downloads mcp-server-git from PyPI each time it starts (uvx).");
    expect(d.pinAs).toBe("mcp-server-git==x.y.z");
    expect(describeDownload({ tool: "pipx run", package: "srv==0.6", pinned: true }).status).toBe(
      "Pinned to 0.6: approving covers that version only.",
    );
    expect(describeDownload({ tool: "uv tool run", package: "fetch>=1.0", pinned: false }).version).toBe(">=1.0");
  });
  it("knows every runner the core names, and says something for one it does not", () => {
    for (const t of ["npx", "npm exec", "bunx", "pnpm dlx", "yarn dlx"]) expect(downloadRegistry(t).registry).toBe("the npm registry");
    for (const t of ["uvx", "uv tool run", "pipx run"]) expect(downloadRegistry(t).registry).toBe("PyPI");
    expect(downloadRegistry("deno run").registry).toBe("its package registry");
  });
});

describe("splitPackage", () => {
  it("splits an npm spec at the version's @, not the scope's", () => {
    expect(splitPackage("@scope/name@1.2.3", false)).toEqual({ name: "@scope/name", version: "1.2.3" });
    expect(splitPackage("@scope/name", false)).toEqual({ name: "@scope/name", version: "" });
    expect(splitPackage("name@^1.2.0", false)).toEqual({ name: "name", version: "^1.2.0" });
  });
  it("splits a Python spec at its operator, keeping a range's operator", () => {
    expect(splitPackage("srv==2.0", true)).toEqual({ name: "srv", version: "2.0" });
    expect(splitPackage("srv@1.2.0", true)).toEqual({ name: "srv", version: "1.2.0" });
    expect(splitPackage("srv[cli]~=1.4", true)).toEqual({ name: "srv[cli]", version: "~=1.4" });
    expect(splitPackage("srv", true)).toEqual({ name: "srv", version: "" });
  });
});
