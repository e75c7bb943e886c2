// The pure parts of everyday use: the retry countdown's words, the layout
// breakpoint, the Activity view's filters and export, the shortcut table
// and the server form's checks.
import { describe, expect, it } from "vitest";
import { activityExport, exportFileName, filterEntries, isFiltered, ofKind, type ActivityFilter } from "./activity";
import type { Entry, Event } from "./bindings";
import { emptyForm, envRow } from "./draft";
import { COMPACT_BELOW, layoutFor, mainAction, MIN_WINDOW } from "./layout";
import { formatSeconds, gaveUpAttempts, gaveUpText, isRetrying, nextTickIn, retryLabel, secondsLeft, waitsForYou } from "./retry";
import { editingOf, keyAction, keysText, SHORTCUTS, VIEW_KEYS, type KeyLike } from "./shortcuts";
import { server } from "./testing";
import { fieldOfMessage, firstInvalid, formErrors } from "./validate";

const T = 1_700_000_000_000;

describe("the retry countdown", () => {
  const retry = { atMs: T + 6_000, attempt: 4, of: 5 };

  it("says the whole seconds left, rounded up, and which attempt of how many", () => {
    expect(retryLabel(retry, T)).toBe("retrying in 6 s · 4 of 5");
    expect(retryLabel(retry, T + 100)).toBe("retrying in 6 s · 4 of 5");
    expect(retryLabel(retry, T + 1_000)).toBe("retrying in 5 s · 4 of 5");
    expect(retryLabel(retry, T + 5_999)).toBe("retrying in 1 s · 4 of 5");
    expect(retryLabel(retry, T + 6_000)).toBe("retrying now · 4 of 5");
    expect(retryLabel(retry, T + 9_000)).toBe("retrying now · 4 of 5");
    expect(secondsLeft(retry, T + 7_000)).toBe(0);
  });

  it("writes long waits in minutes", () => {
    expect(formatSeconds(59)).toBe("59 s");
    expect(formatSeconds(60)).toBe("1 min");
    expect(formatSeconds(65)).toBe("1 min 5 s");
    expect(retryLabel({ atMs: T + 90_000, attempt: 1, of: 5 }, T)).toBe("retrying in 1 min 30 s · 1 of 5");
  });

  it("ticks when the number changes, and stops once the retry is due", () => {
    expect(nextTickIn(retry, T)).toBe(1_005);
    expect(nextTickIn(retry, T + 300)).toBe(705);
    expect(nextTickIn(retry, T + 5_999)).toBe(6);
    expect(nextTickIn(retry, T + 6_000)).toBeNull();
    // Ticking at each returned moment shows each whole second once.
    const seen: string[] = [];
    let now = T + 250;
    for (let wait = nextTickIn(retry, now); wait !== null; wait = nextTickIn(retry, now)) {
      seen.push(retryLabel(retry, now));
      now += wait;
    }
    seen.push(retryLabel(retry, now));
    expect(seen).toEqual([6, 5, 4, 3, 2, 1].map((n) => `retrying in ${n} s · 4 of 5`).concat("retrying now · 4 of 5"));
  });

  it("is shown for a failed server with a retry, not for a plain failure", () => {
    const failed = { state: "failed" as const, reason: "exited at once" };
    expect(isRetrying(server("a", { status: failed, retry }))).toBe(true);
    expect(isRetrying(server("a", { status: failed, retry: null }))).toBe(false);
    // A retry that started: the status says starting.
    expect(isRetrying(server("a", { status: { state: "starting" }, retry }))).toBe(false);
  });

  it("says a server Rootgate gave up on waits for the person, with how many attempts it made", () => {
    const failed = { state: "failed" as const, reason: "x" };
    expect(waitsForYou(server("a", { status: failed, gaveUp: true }))).toBe(true);
    expect(waitsForYou(server("a", { status: { state: "stopped", lastExit: null }, gaveUp: true }))).toBe(true);
    expect(waitsForYou(server("a", { status: { state: "starting" }, gaveUp: true }))).toBe(false);
    expect(waitsForYou(server("a", { status: failed }))).toBe(false);
    expect(gaveUpText(5)).toBe("Gave up after 5 attempts; start it when ready.");
    expect(gaveUpText(1)).toBe("Gave up after 1 attempt; start it when ready.");
    expect(gaveUpText(null)).toMatch(/stopped restarting it .*start it when ready/);
    expect(gaveUpText(3, true)).toMatch(/as you asked; start it when ready/);
  });

  it("finds the attempts of each server's newest gave-up entry, unless it started since", () => {
    const e = (seq: number, srv: string, event: Event): Entry => ({ seq, atMs: T + seq, server: srv, event });
    const entries = [
      e(1, "a", { kind: "gaveUp", attempts: 2 }),
      e(2, "a", { kind: "starting", commandLine: "x" }),
      e(3, "a", { kind: "gaveUp", attempts: 5 }),
      e(4, "b", { kind: "gaveUp", attempts: 5 }),
      e(5, "b", { kind: "starting", commandLine: "x" }),
      e(6, "c", { kind: "gaveUp", attempts: 4 }),
    ];
    const found = gaveUpAttempts(entries, new Set(["a", "b"]));
    expect([...found]).toEqual([["a", 5]]);
    expect(gaveUpAttempts(entries, new Set()).size).toBe(0);
  });
});

describe("the layout breakpoint", () => {
  it("is compact below the breakpoint, at the smallest window too, and roomy above", () => {
    expect(layoutFor(MIN_WINDOW.width)).toEqual({ iconSidebar: true, rowMenus: true });
    expect(layoutFor(COMPACT_BELOW - 1).iconSidebar).toBe(true);
    expect(layoutFor(COMPACT_BELOW)).toEqual({ iconSidebar: false, rowMenus: false });
    expect(layoutFor(1120).rowMenus).toBe(false);
    // Not laid out yet: roomy.
    expect(layoutFor(0).iconSidebar).toBe(false);
    expect(layoutFor(Number.NaN).iconSidebar).toBe(false);
  });

  it("keeps the one action that fits the server's state beside the menu", () => {
    const stopped = { start: true, stop: false };
    const running = { start: false, stop: true };
    expect(mainAction({ retrying: false, allowed: stopped })).toBe("start");
    expect(mainAction({ retrying: false, allowed: running })).toBe("stop");
    expect(mainAction({ retrying: true, allowed: { start: false, stop: false } })).toBe("stopRetrying");
    expect(mainAction({ retrying: false, allowed: { start: false, stop: false } })).toBe("start");
  });
});

describe("the Activity view's filters", () => {
  const e = (seq: number, srv: string, event: Event): Entry => ({ seq, atMs: T + seq, server: srv, event });
  const entries: Entry[] = [
    e(1, "a", { kind: "starting", commandLine: "node files.js" }),
    e(2, "a", {
      kind: "rootsAnswered",
      requestId: "1",
      generation: 1,
      roots: [{ root: "r1", uri: "file:///home/me/Invoices", name: "Invoices" }],
    }),
    e(3, "b", { kind: "failed", reason: "the command exited at once (exit code 1) without speaking MCP" }),
    e(4, "b", { kind: "restartScheduled", attempt: 1, of: 5, delayMs: 1000 }),
    e(5, "a", { kind: "exited", status: "exit code 0", expected: true }),
    e(6, "b", { kind: "exited", status: "exit code 1", expected: false }),
    e(7, "a", { kind: "call", method: "tools/call", target: "read", durationMs: 3, outcome: "ok" }),
  ];
  const names = (id: string) => (id === "a" ? "Files" : "Crashy");
  const all: ActivityFilter = { server: null, kind: "all", search: "" };
  const seqs = (f: Partial<ActivityFilter>) => filterEntries(entries, { ...all, ...f }, names).map((x) => x.seq);

  it("keeps everything, without a copy, with no filter", () => {
    expect(filterEntries(entries, all, names)).toBe(entries);
    expect(isFiltered(all)).toBe(false);
    expect(isFiltered({ ...all, search: "  " })).toBe(false);
  });

  it("keeps failures only: failed, unexpected exits, restarts and give-ups", () => {
    expect(seqs({ kind: "failures" })).toEqual([3, 4, 6]);
    expect(ofKind({ kind: "gaveUp", attempts: 5 }, "failures")).toBe(true);
    expect(ofKind({ kind: "call", method: "m", target: null, durationMs: 1, outcome: "timed out" }, "failures")).toBe(true);
  });

  it("filters by kind, server, and words found in the sentence, the server's name or the folders named", () => {
    expect(seqs({ kind: "folders" })).toEqual([2]);
    expect(seqs({ kind: "requests" })).toEqual([7]);
    expect(seqs({ kind: "lifecycle" })).toEqual([1, 3, 4, 5, 6]);
    expect(seqs({ server: "b" })).toEqual([3, 4, 6]);
    expect(seqs({ search: "invoices" })).toEqual([2]);
    expect(seqs({ search: "CRASHY exit" })).toEqual([3, 6]);
    expect(seqs({ search: "crashy", kind: "failures", server: "a" })).toEqual([]);
    expect(seqs({ search: "nothing-like-this" })).toEqual([]);
  });

  it("exports what is shown as JSON, with the filter that chose it", () => {
    const shown = filterEntries(entries, { ...all, kind: "failures" }, names);
    const doc = JSON.parse(activityExport(shown, { ...all, kind: "failures", search: " exit " }, names, T));
    expect(doc.exportedAt).toBe(new Date(T).toISOString());
    expect(doc.filter).toEqual({ server: null, kind: "failures", search: "exit" });
    expect(doc.count).toBe(3);
    expect(doc.entries[0]).toMatchObject({
      seq: 3,
      server: "b",
      serverName: "Crashy",
      kind: "failed",
      text: "Failed: the command exited at once (exit code 1) without speaking MCP.",
    });
    expect(doc.entries[0].at).toBe(new Date(T + 3).toISOString());
    expect(exportFileName(T)).toMatch(/^rootgate-activity-\d{4}-\d\d-\d\d-\d{6}\.json$/);
  });
});

describe("the keyboard shortcuts", () => {
  const key = (k: string, over: Partial<KeyLike> = {}): KeyLike => ({
    key: k,
    ctrlKey: false,
    metaKey: false,
    altKey: false,
    shiftKey: false,
    ...over,
  });
  const ctx = { dialogOpen: false, inDetail: false, editing: null };

  it("answer the keys the window has, and none while a dialog is open", () => {
    expect(keyAction(key("2", { ctrlKey: true }), ctx)).toEqual({ kind: "view", view: "servers" });
    expect(keyAction(key("O", { ctrlKey: true }), ctx)).toEqual({ kind: "addFolder" });
    expect(keyAction(key("ArrowLeft", { altKey: true }), ctx)).toEqual({ kind: "back" });
    expect(keyAction(key("?", { shiftKey: true }), ctx)).toEqual({ kind: "help" });
    expect(keyAction(key("F1"), ctx)).toEqual({ kind: "help" });
    expect(keyAction(key("Escape"), { ...ctx, inDetail: true })).toEqual({ kind: "up" });
    for (const k of [key("2", { ctrlKey: true }), key("?"), key("ArrowLeft", { altKey: true }), key("Escape")]) {
      expect(keyAction(k, { ...ctx, dialogOpen: true, inDetail: true })).toBeNull();
    }
  });

  it("leave typing alone: ? in a text field, Escape in a search box with text, Ctrl+Shift and others", () => {
    expect(keyAction(key("?"), { ...ctx, editing: { value: "" } })).toBeNull();
    expect(keyAction(key("Escape"), { ...ctx, inDetail: true, editing: { value: "abc" } })).toBeNull();
    expect(keyAction(key("Escape"), { ...ctx, inDetail: true, editing: { value: "" } })).toEqual({ kind: "up" });
    expect(keyAction(key("Escape"), ctx)).toBeNull();
    expect(keyAction(key("2", { ctrlKey: true, shiftKey: true }), ctx)).toBeNull();
    expect(keyAction(key("ArrowLeft"), ctx)).toBeNull();
    expect(keyAction(key("x", { ctrlKey: true }), ctx)).toBeNull();
    expect(keyAction(key("Escape", { defaultPrevented: true }), { ...ctx, inDetail: true })).toBeNull();
  });

  it("tell text fields from other controls", () => {
    const input = document.createElement("input");
    input.value = "hi";
    expect(editingOf(input)).toEqual({ value: "hi" });
    const box = document.createElement("input");
    box.type = "checkbox";
    expect(editingOf(box)).toBeNull();
    expect(editingOf(document.createElement("textarea"))).toEqual({ value: "" });
    expect(editingOf(document.createElement("button"))).toBeNull();
    expect(editingOf(null)).toBeNull();
  });

  it("are all on the sheet: every view key, Ctrl+O, Alt+←, Esc, ? and the controls' own keys", () => {
    const listed = SHORTCUTS.flatMap((g) => g.items.map((i) => keysText(i)));
    for (const k of Object.keys(VIEW_KEYS)) expect(listed).toContain(`Ctrl+${k}`);
    expect(listed).toContain("Ctrl+O");
    expect(listed).toContain("Alt+← or Mouse back button");
    expect(listed).toContain("? or F1");
    expect(listed.filter((l) => l === "Esc").length).toBeGreaterThanOrEqual(2);
    expect(listed.some((l) => l.includes("Home") && l.includes("End"))).toBe(true);
    // Each key the window answers is on the sheet.
    const answered = [
      key("o", { ctrlKey: true }),
      ...Object.keys(VIEW_KEYS).map((k) => key(k, { ctrlKey: true })),
      key("ArrowLeft", { altKey: true }),
      key("?"),
    ];
    for (const k of answered) expect(keyAction(k, ctx)).not.toBeNull();
  });
});

describe("the server form's checks", () => {
  it("finds every mistake at once, each at its field, the first in the order shown", () => {
    const form = { ...emptyForm(), env: [envRow("", "a value")], cwd: "relative/dir" };
    const errors = formErrors(form);
    expect(Object.keys(errors).sort()).toEqual(["command", "cwd", "env", "name"]);
    expect(errors.env).toMatch(/variable 1 has a value but no name/);
    expect(firstInvalid(errors)).toBe("name");
    expect(firstInvalid(formErrors({ ...form, name: "x" }))).toBe("command");
    expect(formErrors({ ...emptyForm(), name: "x", command: "node", cwd: "/srv" })).toEqual({});
    expect(firstInvalid({})).toBeNull();
  });

  it("puts the backend's refusal at the field it is about", () => {
    expect(fieldOfMessage('A server named "Files" already exists; choose another name.')).toBe("name");
    expect(fieldOfMessage("The server needs a name.")).toBe("name");
    expect(fieldOfMessage("The command cannot be found: nope")).toBe("command");
    expect(fieldOfMessage("Argument 2 contains a NUL byte.")).toBe("args");
    expect(fieldOfMessage('Environment variable name "1X" is not valid: it starts with a digit.')).toBe("env");
    expect(fieldOfMessage('The working directory "x" must be an absolute path.')).toBe("cwd");
    expect(fieldOfMessage("The settings file could not be written.")).toBeNull();
  });
});
