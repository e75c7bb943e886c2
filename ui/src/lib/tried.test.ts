// The timeline's "tried" entries (what the person tried from a server's
// Tools, Resources or Prompts): their sentence, colour, detail lines and
// where Activity's filters put them. Not the panels themselves
// (offers.test.ts, components/offers.test.ts).
import { describe, expect, it } from "vitest";
import { detailLines } from "../components/common/TimelineList.svelte";
import { ofKind, searchText } from "./activity";
import type { Event } from "./bindings";
import { describeEvent, eventTone, times } from "./format";

type Tried = Extract<Event, { kind: "tried" }>;

function tried(over: Partial<Tried> = {}): Tried {
  return {
    kind: "tried",
    method: "tools/call",
    target: "read_text_file",
    arguments: { path: "/home/me/a.txt" },
    durationMs: 12,
    outcome: "ok",
    detail: null,
    rootsAsked: 0,
    ...over,
  };
}

describe("a try in the timeline", () => {
  it.each<[Partial<Tried>, string]>([
    [{}, "You called tool “read_text_file”: ok in 12 ms."],
    [{ rootsAsked: 2 }, "You called tool “read_text_file”: ok in 12 ms · asked for roots twice."],
    [{ rootsAsked: 1 }, "You called tool “read_text_file”: ok in 12 ms · asked for roots once."],
    [{ rootsAsked: 5, durationMs: 1500 }, "You called tool “read_text_file”: ok in 1.5 s · asked for roots 5 times."],
    [
      { outcome: "toolError", detail: "Access denied - path outside allowed directories" },
      "You called tool “read_text_file”: the tool said it failed, after 12 ms: Access denied - path outside allowed directories.",
    ],
    [
      { outcome: "failed", detail: "MCP error -32602: unknown tool", durationMs: 3 },
      "You called tool “read_text_file”: failed after 3 ms: MCP error -32602: unknown tool.",
    ],
    [{ outcome: "cancelled", durationMs: 3200 }, "You called tool “read_text_file”: cancelled after 3.2 s."],
    [
      { method: "resources/read", target: "demo://resource/static/document/features.md", arguments: null },
      "You read resource “demo://resource/static/document/features.md”: ok in 12 ms.",
    ],
    [
      { method: "prompts/get", target: "args-prompt", arguments: { city: "Paris" } },
      "You got prompt “args-prompt”: ok in 12 ms.",
    ],
    [{ method: "completion/complete", target: "x" }, "You tried completion/complete “x”: ok in 12 ms."],
  ])("%o", (over, want) => {
    expect(describeEvent(tried(over))).toBe(want);
  });

  it("says how many times in words", () => {
    expect([1, 2, 3, 10].map(times)).toEqual(["once", "twice", "3 times", "10 times"]);
  });

  it("is coloured by what it came to: a failure red, a tool's own error amber, the rest plain", () => {
    expect(eventTone(tried())).toBe("neutral");
    expect(eventTone(tried({ outcome: "cancelled" }))).toBe("neutral");
    expect(eventTone(tried({ outcome: "toolError" }))).toBe("warn");
    expect(eventTone(tried({ outcome: "failed" }))).toBe("bad");
  });

  it("opens on the arguments sent and the error in full", () => {
    expect(detailLines({ seq: 1, atMs: 0, server: "s1", event: tried() })).toEqual([
      { text: 'Arguments: {"path":"/home/me/a.txt"}', sub: null },
    ]);
    expect(
      detailLines({
        seq: 1,
        atMs: 0,
        server: "s1",
        event: tried({ arguments: {}, outcome: "failed", detail: "first line\nsecond line" }),
      }),
    ).toEqual([
      { text: "first line", sub: null },
      { text: "second line", sub: null },
    ]);
    // Nothing sent and nothing to add: no "More".
    expect(detailLines({ seq: 1, atMs: 0, server: "s1", event: tried({ arguments: null }) })).toEqual([]);
  });

  it("is a request in Activity, and a failure when it failed", () => {
    expect(ofKind(tried(), "requests")).toBe(true);
    expect(ofKind(tried(), "failures")).toBe(false);
    expect(ofKind(tried({ outcome: "toolError" }), "failures")).toBe(true);
    expect(ofKind(tried({ outcome: "failed" }), "failures")).toBe(true);
    expect(ofKind(tried({ outcome: "cancelled" }), "failures")).toBe(false);
    expect(ofKind(tried(), "folders")).toBe(false);
  });

  it("is found in Activity by its target, its error and its arguments", () => {
    const text = searchText({ seq: 1, atMs: 0, server: "s1", event: tried({ detail: "Access denied" }) }, "Files");
    for (const word of ["read_text_file", "access denied", "/home/me/a.txt", "tools/call", "files"]) {
      expect(text).toContain(word);
    }
  });
});
