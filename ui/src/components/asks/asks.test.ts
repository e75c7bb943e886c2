// The AI apps' tool calls that wait for the person, in the whole window
// against the fake backend: shown above whatever view is open with the
// app, tool, server, masked arguments, claims, why and the seconds left
// (counting down on a fake clock); answered with Allow once, Always for
// the app, or Deny; several shown in order with a count, Previous and
// Next; focus moved to a call when it appears but never out of a text
// field being typed in, and back when none waits; Escape refusing
// nothing; and an answer that comes too late said in words.
import { flushSync } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ToolQuestion } from "../../lib/bindings";
import { settle, toolQuestion } from "../../lib/testing";
import { all, q, startApp, unmountAll } from "../testing/window";

afterEach(() => {
  unmountAll();
  vi.useRealTimers();
});

const text = (el: Element | null) => el?.textContent?.replace(/\s+/g, " ").trim() ?? "";

/** The window, with `waiting` the calls that wait when it starts. */
async function withCalls(waiting: ToolQuestion[] = []) {
  const started = await startApp((b) => b.api.toolQuestions.mockResolvedValue(waiting));
  flushSync();
  return started;
}

/** The backend says which calls wait now (the whole list, as it always does). */
function waitNow(handlers: Awaited<ReturnType<typeof withCalls>>["handlers"], questions: ToolQuestion[]) {
  handlers.changes?.([{ kind: "toolQuestions", questions }]);
  flushSync();
}

async function press(testid: string) {
  q(testid)?.click();
  flushSync();
  await settle();
  flushSync();
}

/** A call that waits until `seconds` from now on the test's clock. */
const due = (n: number, seconds: number, over: Partial<ToolQuestion> = {}, ask: Partial<ToolQuestion["ask"]> = {}) =>
  toolQuestion(n, over, { untilMs: Date.now() + seconds * 1000, ...ask });

describe("a tool call that waits for the person", () => {
  it("shows nothing while no call waits", async () => {
    await withCalls();
    expect(q("tool-asks")).toBeNull();
    expect(text(q("tool-ask-announce"))).toBe("");
  });

  it("shows the app, the tool, the server, the masked arguments, the claims and why, above whatever view is open", async () => {
    const { app } = await withCalls([
      due(1, 30, {}, { arguments: '{\n  "path": "/home/me/a.txt",\n  "token": "••••••"\n}', destructive: true }),
    ]);
    expect(text(q("tool-ask-title"))).toBe("Claude Code wants to run “write_file” on files");
    expect(q("tool-ask-arguments")?.textContent).toBe('{\n  "path": "/home/me/a.txt",\n  "token": "••••••"\n}\n');
    expect(all("tool-ask-claims").flatMap((c) => [...c.querySelectorAll<HTMLElement>("[data-claim]")].map((b) => b.dataset.claim))).toEqual([
      "not-read-only",
      "destructive",
    ]);
    expect(text(q("tool-ask-claims"))).toContain("It says it may destroy data");
    expect(text(q("tool-ask-why"))).toBe("Why it is asked: it does not say it only reads.");
    expect(text(q("tool-ask-countdown"))).toBe("Refused by itself in 30 s");
    expect(text(q("tool-ask-announce"))).toBe("Claude Code wants to run write_file on files.");
    expect(text(q("tool-ask-always"))).toBe("Always for Claude Code");
    for (const view of ["settings", "connections", "folders"] as const) {
      app.nav.show(view);
      flushSync();
      expect(q("tool-asks")).not.toBeNull();
    }
  });

  it("says what the tool claims: only to read, not to, or nothing Rootgate has seen", async () => {
    const { handlers } = await withCalls([due(1, 30, {}, { readOnly: null, destructive: null })]);
    const claimed = () => [...(q("tool-ask-claims")?.querySelectorAll<HTMLElement>("[data-claim]") ?? [])].map((b) => b.textContent);
    expect(claimed()).toEqual(["What it claims is not known"]);
    waitNow(handlers, [due(1, 30, {}, { readOnly: true, destructive: false })]);
    expect(claimed()).toEqual(["It says it only reads"]);
    waitNow(handlers, [due(1, 30, {}, { readOnly: false, destructive: null })]);
    expect(claimed()).toEqual(["It does not say it only reads"]);
    waitNow(handlers, [due(1, 30, {}, { readOnly: null, destructive: true })]);
    expect(claimed()).toEqual(["It says it may destroy data"]);
  });

  it("writes out characters that would disguise the app's name or the arguments", async () => {
    await withCalls([due(1, 30, { appTitle: "Cur\u202Esor" }, { arguments: '{\n  "name": "invoice\u202Efdp.exe"\n}' })]);
    expect(text(q("tool-ask-title"))).toContain("Cur<U+202E>sor wants to run");
    expect(q("tool-ask-arguments")?.textContent).toContain("invoice<U+202E>fdp.exe");
  });

  it("counts down a second at a time, and says when the time ran out", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
    vi.setSystemTime(1_700_000_000_000);
    await withCalls([due(1, 12)]);
    expect(text(q("tool-ask-countdown"))).toBe("Refused by itself in 12 s");
    expect(q("tool-ask-countdown")?.classList.contains("soon")).toBe(false);
    vi.advanceTimersByTime(2_000);
    flushSync();
    expect(text(q("tool-ask-countdown"))).toBe("Refused by itself in 10 s");
    expect(q("tool-ask-countdown")?.classList.contains("soon")).toBe(true);
    vi.advanceTimersByTime(10_000);
    flushSync();
    expect(text(q("tool-ask-countdown"))).toBe("Its time ran out: refused");
  });

  it("answers Allow once, Always for the app and Deny with the call's connection and key, each call leaving at once", async () => {
    const { api } = await withCalls([due(1, 30, { connection: "c7" }), due(2, 30), due(3, 30)]);
    await press("tool-ask-once");
    expect(api.answerToolQuestion).toHaveBeenLastCalledWith("c7", "1", "once");
    await press("tool-ask-always");
    expect(api.answerToolQuestion).toHaveBeenLastCalledWith("c1", "2", "always");
    await press("tool-ask-deny");
    expect(api.answerToolQuestion).toHaveBeenLastCalledWith("c1", "3", "deny");
    expect(q("tool-asks")).toBeNull();
  });

  it("offers only Allow once and Deny for an app that gave no name, since no rule can be kept for it", async () => {
    await withCalls([due(1, 30, { appName: "", appTitle: "An AI app" })]);
    expect(q("tool-ask-once")).not.toBeNull();
    expect(q("tool-ask-always")).toBeNull();
    expect(q("tool-ask-deny")).not.toBeNull();
  });

  it("shows several in order, oldest first, with a count, Previous and Next", async () => {
    const { api } = await withCalls([
      due(3, 40, {}, { tool: "third" }),
      due(1, 20, {}, { tool: "first" }),
      due(2, 30, {}, { tool: "second" }),
    ]);
    expect(q("tool-asks")?.dataset.count).toBe("3");
    expect(text(q("tool-ask-count"))).toBe("1 of 3");
    expect(text(q("tool-ask-title"))).toContain("“first”");
    expect((q("tool-ask-previous") as HTMLButtonElement).disabled).toBe(true);
    await press("tool-ask-next");
    expect(text(q("tool-ask-count"))).toBe("2 of 3");
    expect(text(q("tool-ask-title"))).toContain("“second”");
    await press("tool-ask-next");
    expect((q("tool-ask-next") as HTMLButtonElement).disabled).toBe(true);
    await press("tool-ask-previous");
    expect(text(q("tool-ask-title"))).toContain("“second”");
    // The one shown is the one answered.
    await press("tool-ask-deny");
    expect(api.answerToolQuestion).toHaveBeenLastCalledWith("c1", "2", "deny");
    expect(text(q("tool-ask-count"))).toBe("1 of 2");
    expect(text(q("tool-ask-title"))).toContain("“first”");
    await press("tool-ask-once");
    expect(q("tool-ask-count")).toBeNull();
    expect(text(q("tool-ask-title"))).toContain("“third”");
  });

  it("takes focus when a call appears, moves it to the next call after an answer, and gives it back when none waits", async () => {
    const { handlers } = await withCalls();
    const before = q("nav-settings") ?? document.querySelector<HTMLElement>("nav button, aside button");
    if (!before) throw new Error("no button to start from");
    before.focus();
    expect(document.activeElement).toBe(before);
    waitNow(handlers, [due(1, 30), due(2, 30)]);
    expect(document.activeElement).toBe(q("tool-asks"));
    // Answered from the keyboard: the next call's buttons are new, so Enter
    // pressed again cannot answer it unseen; focus is on the call itself.
    q("tool-ask-once")?.focus();
    await press("tool-ask-once");
    expect(text(q("tool-ask-title"))).toContain("write_file");
    expect(document.activeElement).toBe(q("tool-asks"));
    await press("tool-ask-deny");
    expect(q("tool-asks")).toBeNull();
    await settle();
    expect(document.activeElement).toBe(before);
  });

  it("never takes focus from a text field being typed in", async () => {
    const { handlers } = await withCalls();
    const field = document.createElement("input");
    field.type = "text";
    document.querySelector("main")?.append(field);
    field.focus();
    waitNow(handlers, [due(1, 30)]);
    expect(q("tool-asks")).not.toBeNull();
    expect(document.activeElement).toBe(field);
    // A second call does not take it either.
    waitNow(handlers, [due(1, 30), due(2, 30)]);
    expect(document.activeElement).toBe(field);
  });

  it("refuses nothing on Escape, and leaves every button reachable with Tab", async () => {
    const { api } = await withCalls([due(1, 30), due(2, 30)]);
    const panel = q("tool-asks");
    panel?.focus();
    panel?.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    flushSync();
    await settle();
    expect(api.answerToolQuestion).not.toHaveBeenCalled();
    expect(q("tool-asks")).not.toBeNull();
    const buttons = [...(panel?.querySelectorAll<HTMLButtonElement>("button") ?? [])];
    expect(buttons.map((b) => b.dataset.testid)).toEqual([
      "tool-ask-previous",
      "tool-ask-next",
      "tool-ask-once",
      "tool-ask-always",
      "tool-ask-deny",
    ]);
    for (const b of buttons) expect(b.tabIndex).toBe(0);
    expect(buttons.filter((b) => b.disabled).map((b) => b.dataset.testid)).toEqual(["tool-ask-previous"]);
  });

  it("says in words when an answer comes too late, and the call goes", async () => {
    const { app, api } = await withCalls([due(1, 30)]);
    api.answerToolQuestion.mockRejectedValueOnce({ code: "notFound", message: "no such tool question" });
    await press("tool-ask-once");
    expect(q("tool-asks")).toBeNull();
    expect(app.notices.toasts.map((t) => t.message)).toEqual([
      "Claude Code's call to “write_file” no longer waits: it was answered on the desktop, its time ran out, or Claude Code cancelled it.",
    ]);
  });
});
