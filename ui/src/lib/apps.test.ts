import { describe, expect, it } from "vitest";
import type { Need } from "./bindings";
import {
  diffKind,
  diffLines,
  diffStats,
  entryChip,
  importBlocked,
  importSource,
  importValues,
  joinedMessage,
  listWords,
  missingNeeds,
  routable,
  routeBlocked,
  scopeLabel,
  sentence,
  standingNote,
  writtenMessage,
} from "./apps";
import { appEntry, appFile } from "./testing";

const need = (token: string, over: Partial<Need> = {}): Need => ({
  token,
  usedIn: ["environment variable GITHUB_TOKEN"],
  hint: "A GitHub token",
  secret: true,
  required: true,
  ...over,
});

describe("entryChip: where an entry stands, in words", () => {
  it("says each state", () => {
    expect(entryChip(appEntry("files"))).toEqual({ text: "Not imported", tone: "neutral", state: "notImported" });
    expect(entryChip(appEntry("files", { importedAs: { id: "s1", name: "files-2" } }))).toEqual({
      text: "Imported as files-2",
      tone: "info",
      state: "imported",
    });
    expect(
      entryChip(appEntry("files", { importedAs: { id: "s1", name: "files" }, routedTo: "files" })),
    ).toEqual({ text: "Routed through Rootgate (files)", tone: "good", state: "routed" });
    expect(entryChip(appEntry("files", { routedTo: "by-hand" })).text).toBe("Routed through Rootgate (by-hand)");
    expect(
      entryChip(appEntry("web", { remote: true, commandLine: "https://example.com/mcp", notImportable: "remote" })),
    ).toEqual({ text: "Remote server — not imported", tone: "neutral", state: "remote" });
  });
});

describe("importBlocked: Import is pressed only for an entry that can be imported", () => {
  it("is null for an importable entry, and a sentence otherwise", () => {
    expect(importBlocked(appEntry("files"))).toBeNull();
    expect(importBlocked(appEntry("files", { importedAs: { id: "s1", name: "files" } }))).toBe(
      "It is already in Rootgate as files.",
    );
    expect(importBlocked(appEntry("files", { routedTo: "files" }))).toBe("It already runs through Rootgate as files.");
    expect(importBlocked(appEntry("web", { remote: true, notImportable: "`web` is a remote server (https://x)" }))).toBe(
      "`web` is a remote server (https://x).",
    );
  });
});

describe("needs: Import waits for every required value", () => {
  const needs = [need("${input:token}"), need("envFile", { required: false, secret: false })];

  it("lists the required ones still empty", () => {
    expect(missingNeeds(needs, {}).map((n) => n.token)).toEqual(["${input:token}"]);
    expect(missingNeeds(needs, { "${input:token}": "   " }).map((n) => n.token)).toEqual(["${input:token}"]);
    expect(missingNeeds(needs, { "${input:token}": "ghp_x" })).toEqual([]);
  });

  it("sends only the required ones' values, as typed", () => {
    expect(importValues(needs, { "${input:token}": " ghp_x ", envFile: "whatever" })).toEqual({
      "${input:token}": " ghp_x ",
    });
    expect(importValues([], {})).toEqual({});
  });
});

describe("routeBlocked: Route through Rootgate wants an imported server not routed yet", () => {
  it("says why not, or is null", () => {
    const imported = appEntry("files", { importedAs: { id: "s1", name: "files" } });
    const routed = { ...imported, routedTo: "files" };
    expect(routeBlocked(appFile([imported]))).toBeNull();
    expect(routable(appFile([imported, appEntry("other")])).map((e) => e.key)).toEqual(["files"]);
    expect(routeBlocked(appFile([appEntry("files")]))).toMatch(/^Import a server first/);
    expect(routeBlocked(appFile([routed]))).toBe("Every imported server already goes through Rootgate.");
    expect(routeBlocked(appFile([]))).toBe("It has no servers to route.");
    expect(routeBlocked(appFile([imported], { problem: "line 3: expected a comma" }))).toBe(
      "Line 3: expected a comma.",
    );
  });
});

describe("diffLines: a unified diff, line by line", () => {
  it("classifies each line by its first characters", () => {
    expect(diffKind("--- /a/claude_desktop_config.json")).toBe("file");
    expect(diffKind("+++ /a/claude_desktop_config.json (routed through Rootgate)")).toBe("file");
    expect(diffKind("@@ -1,4 +1,4 @@")).toBe("hunk");
    expect(diffKind('+      "args": ["connect", "files"],')).toBe("add");
    expect(diffKind('-      "command": "node",')).toBe("del");
    expect(diffKind('   "globalShortcut": "Ctrl+Space",')).toBe("context");
    expect(diffKind("")).toBe("context");
    expect(diffKind("\\ No newline at end of file")).toBe("note");
  });

  it("reads a whole diff, a removed `--` line inside a hunk being a removal", () => {
    const diff = [
      "--- f",
      "+++ f (routed through Rootgate)",
      "@@ -1,3 +1,3 @@",
      " {",
      "---flag",
      "+++flag",
      '-  "command": "node"',
      '+  "command": "/usr/bin/rootgate"',
      " }",
      "\\ No newline at end of file",
      "",
    ].join("\n");
    const lines = diffLines(diff);
    expect(lines.map((l) => l.kind)).toEqual([
      "file",
      "file",
      "hunk",
      "context",
      "del",
      "add",
      "del",
      "add",
      "context",
      "note",
    ]);
    expect(lines[7].text).toBe('+  "command": "/usr/bin/rootgate"');
    expect(diffStats(lines)).toEqual({ added: 2, removed: 2 });
  });

  it("drops a carriage return at the end of a line, and is quick on a long diff", () => {
    expect(diffLines("@@ -1 +1 @@\r\n-a\r\n+b\r\n").map((l) => l.text)).toEqual(["@@ -1 +1 @@", "-a", "+b"]);
    const long = ["--- f", "+++ f", "@@ -1,5000 +1,5000 @@", ...Array.from({ length: 5_000 }, (_, i) => `+line ${i}`)].join(
      "\n",
    );
    const started = performance.now();
    const lines = diffLines(long);
    expect(performance.now() - started).toBeLessThan(200);
    expect(diffStats(lines)).toEqual({ added: 5_000, removed: 0 });
  });
});

describe("words", () => {
  it("says what was written, and where the folder of an import came from", () => {
    expect(writtenMessage("Claude Desktop", false)).toBe(
      "Claude Desktop now reaches its servers through Rootgate. Restart Claude Desktop to use it.",
    );
    expect(writtenMessage("Cursor", true)).toBe("Cursor's file is back as it was. Restart Cursor to use it.");
    expect(importSource("Claude Desktop's config")).toEqual({ app: "Claude Desktop", fromConfig: true });
    expect(importSource("Goose")).toEqual({ app: "Goose", fromConfig: false });
    expect(importSource(" ")).toEqual({ app: "An AI app", fromConfig: false });
    expect(listWords(["a"])).toBe("a");
    expect(listWords(["a", "b", "c"])).toBe("a, b and c");
    expect(sentence("it is remote")).toBe("It is remote.");
    expect(scopeLabel({ kind: "project", path: "/home/me/p" })).toBe("/home/me/p");
    expect(scopeLabel({ kind: "global" })).toBeNull();
  });
});

describe("links Rootgate does not trust, and servers that run the same (#30)", () => {
  const doubt = { server: { id: "s1", name: "files" }, reason: "it changed in Zed since it was imported as `files`" };

  it("a doubtful link is never 'Imported', routed or not, and can be imported again", () => {
    const entry = appEntry("zed-files", { doubtfulLink: doubt });
    expect(entryChip(entry)).toEqual({ text: "Link to files not trusted", tone: "warn", state: "doubtful" });
    expect(importBlocked(entry)).toBeNull();
    expect(standingNote(entry)).toBe("It changed in Zed since it was imported as `files`.");
    const routed = appEntry("zed-files", { doubtfulLink: doubt, routedTo: "files" });
    expect(entryChip(routed).state).toBe("doubtful");
    expect(standingNote(routed)).toContain("undo the route to get its own entry back");
    expect(routable(appFile([entry]))).toEqual([]);
  });

  it("an entry running exactly what a server runs says so", () => {
    const entry = appEntry("twin", { sameAs: { id: "s1", name: "files" } });
    expect(entryChip(entry)).toEqual({ text: "Runs the same as files", tone: "neutral", state: "same" });
    expect(standingNote(entry)).toContain("importing it uses files");
    expect(standingNote(appEntry("plain"))).toBeNull();
  });

  it("an import's toast says how the entry joined", () => {
    expect(joinedMessage("notes", "notes", { kind: "new" })).toBeNull();
    expect(joinedMessage("fs", "files", { kind: "same" })).toBe("fs runs exactly what files runs, so it uses files.");
    expect(joinedMessage("zed", "files", { kind: "chosen", differences: [] })).toBe("zed now uses files, as you chose.");
  });
});
