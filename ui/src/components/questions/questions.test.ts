// The Questions view against the fake backend: its place in the sidebar
// and on Ctrl+6, the questions newest first with app, folder, server, when
// and answer, answering from the keyboard, a Share whose folder has
// warnings opening the consent prompt, and the Connections view's word on
// which folders a connection sees.
import { flushSync } from "svelte";
import { afterEach, describe, expect, it } from "vitest";
import { connection, fakeBackend, prompt, question, settle } from "../../lib/testing";
import { all, q, startApp, unmountAll } from "../testing/window";

afterEach(unmountAll);

const text = (el: Element | null | undefined) => el?.textContent?.replace(/\s+/g, " ").trim();

async function shown(setup: (b: ReturnType<typeof fakeBackend>) => void = () => {}) {
  const started = await startApp(setup);
  started.app.nav.show("questions");
  flushSync();
  await settle();
  return started;
}

describe("the Questions view", () => {
  it("has a place in the sidebar with the questions not answered, and Ctrl+6 shows it", async () => {
    const { app } = await startApp((b) =>
      b.api.listQuestions.mockResolvedValue([question(1), question(2, { answer: "share", answeredAtMs: 1 })]),
    );
    expect(q("nav-questions")?.getAttribute("aria-keyshortcuts")).toBe("Control+6");
    expect(text(q("pending-questions"))).toBe("1");
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "6", ctrlKey: true, bubbles: true }));
    flushSync();
    await settle();
    expect(app.nav.view).toBe("questions");
    expect(document.activeElement?.id).toBe("questions-title");
  });

  it("says what it is for when nothing was asked", async () => {
    await shown();
    expect(text(q("empty-questions")?.querySelector("h2"))).toBe("Nothing asked yet");
  });

  it("lists each question newest first: app, folder, server, when, where and the answer", async () => {
    await shown((b) =>
      b.api.listQuestions.mockResolvedValue([
        question(1, { answer: "notNow", answeredAtMs: 1_700_000_200_000 }),
        question(2, { app: "Cursor", folder: "/home/me/code/b", serverName: "git", desktop: false }),
        question(3, { open: true }),
      ]),
    );
    const rows = all("question-row");
    expect(rows.map((r) => r.dataset.questionId)).toEqual(["3", "2", "1"]);
    expect(rows.map((r) => text(r.querySelector('[data-testid="question-answer"]')))).toEqual([
      "No answer yet",
      "No answer yet",
      "Not now",
    ]);
    const cursor = rows[1];
    expect(text(cursor.querySelector('[data-testid="question-app"]'))).toBe("Cursor");
    expect(cursor.querySelector('[data-testid="question-folder"]')?.textContent).toContain("/home/me/code/b");
    expect(text(cursor.querySelector('[data-testid="question-server"]'))).toBe("git");
    expect(text(cursor)).toContain("in this window");
    expect(rows[0].querySelector('[data-testid="question-open"]')).not.toBeNull();
    expect(rows[2].querySelector('[data-testid="question-not-now"]')?.getAttribute("aria-pressed")).toBe("true");
  });

  it("answers from the keyboard: Tab reaches Share, Enter gives it", async () => {
    const { api } = await shown((b) => b.api.listQuestions.mockResolvedValue([question(9)]));
    const share = q("question-share") as HTMLButtonElement;
    share.focus();
    expect(document.activeElement).toBe(share);
    // A button's Enter is its click.
    share.click();
    await settle();
    expect(api.answerQuestion).toHaveBeenCalledWith(9, "share");
  });

  it("shows the consent prompt when the folder has a warning, and follows the backend's answer", async () => {
    const { app, api, handlers } = await shown((b) => {
      b.api.listQuestions.mockResolvedValue([question(4, { folder: "/home/me" })]);
      b.api.answerQuestion.mockResolvedValue(
        prompt(44, { realPath: "/home/me", warnings: [{ kind: "homeFolder", message: "This is your home folder." }] }),
      );
    });
    (q("question-share") as HTMLButtonElement).click();
    await settle();
    flushSync();
    expect(api.answerQuestion).toHaveBeenCalledWith(4, "share");
    expect(app.prompts.queue.map((p) => p.id)).toEqual([44]);
    expect(q("consent-cancel")).not.toBeNull();
    handlers.changes?.([
      { kind: "promptsClosed", prompts: [44] },
      { kind: "questions", questions: [question(4, { folder: "/home/me", answer: "share", answeredAtMs: 5, shared: true })] },
    ]);
    flushSync();
    expect(q("consent-cancel")).toBeNull();
    expect(text(q("question-answer"))).toBe("Share");
    expect((q("question-share") as HTMLButtonElement).disabled).toBe(true);
  });
});

describe("a connection's folders", () => {
  it("say which folders a Workspace connection sees, and why", async () => {
    const { app } = await startApp((b) =>
      b.api.listConnections.mockResolvedValue([
        connection("a", {
          sees: {
            folders: ["file:///home/me/code/a"],
            workspace: true,
            appFolders: ["file:///home/me/code/a"],
            why: "Workspace: the shared folders the app works in (its roots: /home/me/code/a)",
          },
        }),
      ]),
    );
    app.nav.show("connections");
    flushSync();
    await settle();
    expect(q("connection-sees")?.textContent).toContain("/home/me/code/a");
    app.nav.openConnection("a");
    flushSync();
    await settle();
    expect(text(q("connection-sees-why"))).toBe(
      "Why: Workspace: the shared folders the app works in (its roots: /home/me/code/a).",
    );
  });
});
