// The reading of a server's tool rules for the Tools tab: what the default
// gives a tool and why, the order in which settings win (changed, the
// app's, the tool's, the default), the apps with a setting of their own,
// a waiting call's seconds left, and a schema written as the core keeps it.
import { describe, expect, it } from "vitest";
import type { ToolRules } from "./bindings";
import {
  appSettings,
  defaultGives,
  defaultLabel,
  judge,
  listMark,
  secondsLeft,
  settingLabel,
  sortedJson,
} from "./tool-rules";
import { diffLines } from "./apps";
import { differs, lineDiff } from "./linediff";

const seen = (readOnly: boolean) => ({ fingerprint: "f", description: "d", schema: "{}", readOnly });

describe("tool rules, read", () => {
  it("name each setting and default as the choices do", () => {
    expect([settingLabel("allowed"), settingLabel("ask"), settingLabel("hidden")]).toEqual([
      "Allowed",
      "Ask each time",
      "Hidden",
    ]);
    expect(defaultLabel("allAllowed")).toBe("Every tool allowed");
    expect(defaultLabel("readOnlyAllowed")).toBe("Read-only tools allowed, the rest ask");
  });

  it("give every tool Allowed by default, and with read-only allowed ask about the ones that do not say they only read", () => {
    expect(defaultGives({ default: "allAllowed" }, "write", false)).toEqual({
      setting: "allowed",
      why: "every tool of this server is allowed",
    });
    const ro: ToolRules = { default: "readOnlyAllowed" };
    expect(defaultGives(ro, "read", true)).toEqual({ setting: "allowed", why: "it says it only reads" });
    expect(defaultGives(ro, "write", false)).toEqual({ setting: "ask", why: "it does not say it only reads" });
    // Unknown here: what Rootgate kept of the tool says, as in the core.
    expect(defaultGives({ ...ro, seen: { read: seen(true) } }, "read").setting).toBe("allowed");
    expect(defaultGives(ro, "unseen").setting).toBe("ask");
  });

  it("let a changed tool ask, then the app's setting win over the tool's, which wins over the default", () => {
    const rules: ToolRules = {
      default: "allAllowed",
      tools: { write: "hidden" },
      apps: { cursor: { write: "allowed" } },
      changed: [],
    };
    expect(judge(rules, "cursor", "write")).toEqual({ setting: "allowed", why: "set for cursor" });
    expect(judge(rules, "claude-code", "write")).toEqual({ setting: "hidden", why: "set for this tool" });
    expect(judge(rules, null, "write").setting).toBe("hidden");
    expect(judge(rules, null, "read")).toEqual({ setting: "allowed", why: "every tool of this server is allowed" });
    expect(judge({ ...rules, changed: ["write"] }, "cursor", "write")).toEqual({
      setting: "ask",
      why: "changed since you last saw it",
    });
    // Hidden stays hidden, changed or not.
    expect(judge({ ...rules, changed: ["write"] }, "claude-code", "write").setting).toBe("hidden");
  });

  it("list the apps with a setting of their own for one tool, by name", () => {
    const rules: ToolRules = {
      default: "allAllowed",
      apps: { zed: { write: "ask" }, cursor: { write: "allowed", read: "hidden" }, other: { read: "ask" } },
    };
    expect(appSettings(rules, "write")).toEqual([
      { app: "cursor", setting: "allowed" },
      { app: "zed", setting: "ask" },
    ]);
    expect(appSettings({ default: "allAllowed" }, "write")).toEqual([]);
  });

  it("mark a tool in the list as changed before hidden or asked, and a simply allowed one not at all", () => {
    const rules: ToolRules = { default: "readOnlyAllowed", tools: { gone: "hidden", free: "allowed" }, changed: ["gone"] };
    expect(listMark(rules, "gone")?.text).toBe("changed");
    expect(listMark({ ...rules, changed: [] }, "gone")?.text).toBe("hidden");
    expect(listMark(rules, "write", false)?.text).toBe("ask");
    expect(listMark(rules, "read", true)).toBeNull();
    expect(listMark(rules, "free", false)).toBeNull();
  });

  it("count whole seconds left, rounded up, never below zero", () => {
    expect(secondsLeft(45_000, 0)).toBe(45);
    expect(secondsLeft(45_000, 44_001)).toBe(1);
    expect(secondsLeft(45_000, 45_000)).toBe(0);
    expect(secondsLeft(45_000, 50_000)).toBe(0);
  });

  it("write a schema with sorted keys, two spaces in, as the core keeps it", () => {
    expect(sortedJson({ type: "object", properties: { b: { type: "string" }, a: {} }, required: [] })).toBe(
      '{\n  "properties": {\n    "a": {},\n    "b": {\n      "type": "string"\n    }\n  },\n  "required": [],\n  "type": "object"\n}',
    );
  });
});

describe("lineDiff", () => {
  it("marks the lines only before as removed and the lines only now as added, keeping the rest", () => {
    const d = lineDiff("a\nb\nc\n", "a\nB\nc\nd");
    expect(diffLines(d).map((l) => [l.kind, l.text])).toEqual([
      ["hunk", "@@ -1,3 +1,4 @@"],
      ["context", " a"],
      ["del", "-b"],
      ["add", "+B"],
      ["context", " c"],
      ["add", "+d"],
    ]);
  });

  it("keeps a removed line that starts with -- a removal, not a file header", () => {
    const kinds = diffLines(lineDiff("--flag\nsame", "same")).map((l) => l.kind);
    expect(kinds).toEqual(["hunk", "del", "context"]);
  });

  it("shows a text added from nothing, or taken away whole", () => {
    expect(diffLines(lineDiff("", "new")).map((l) => l.text)).toEqual(["@@ -1,0 +1,1 @@", "+new"]);
    expect(diffLines(lineDiff("old\nlines", "")).map((l) => l.text)).toEqual(["@@ -1,2 +1,0 @@", "-old", "-lines"]);
  });

  it("tells texts that differ from ones that differ only in line endings", () => {
    expect(differs("a\r\nb\n", "a\nb")).toBe(false);
    expect(differs("a\nb", "a\nc")).toBe(true);
  });
});
