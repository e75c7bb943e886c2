// The questions asked when AI apps needed a folder, against the fake
// backend: loaded at start, replaced by the backend's changes, answered
// (a Share that needs the consent prompt's warnings queues the prompt; a
// Not now on a shared folder asks before it withdraws), and prompts
// answered on the desktop leaving the window's queue.
import { describe, expect, it } from "vitest";
import { AppState } from "./app.svelte";
import { answerText } from "./questions.svelte";
import { started } from "./testing";
import { fakeBackend, prompt, question, settle } from "../testing";

describe("the questions asked", () => {
  it("are loaded at start, newest first, and counted while not answered", async () => {
    const b = fakeBackend();
    b.api.listQuestions.mockResolvedValue([
      question(1, { answer: "notNow", answeredAtMs: 1 }),
      question(3),
      question(2, { answer: "share", answeredAtMs: 1, shared: true }),
    ]);
    const app = new AppState(b.api, b.events);
    await app.start();
    expect(app.questions.list.map((q) => q.id)).toEqual([3, 2, 1]);
    expect(app.questions.pending).toBe(1);
    expect(app.questions.list.map(answerText)).toEqual(["No answer yet", "Share", "Not now"]);
  });

  it("follow the backend's changes, and a list fetched before a change does not undo it", async () => {
    const b = fakeBackend();
    let answer: (v: ReturnType<typeof question>[]) => void = () => {};
    b.api.listQuestions.mockReturnValue(new Promise((r) => (answer = r)));
    const app = new AppState(b.api, b.events);
    const starting = app.start();
    await settle();
    b.handlers.changes?.([{ kind: "questions", questions: [question(1), question(2, { open: true })] }]);
    answer([question(1)]);
    await starting;
    expect(app.questions.list.map((q) => q.id)).toEqual([2, 1]);
    expect(app.questions.list[0].open).toBe(true);
  });

  it("answers Share at once when the backend needs nothing more, and lists them again", async () => {
    const { app, api } = await started();
    app.questions.loaded([question(7)]);
    api.listQuestions.mockResolvedValue([question(7, { answer: "share", answeredAtMs: 2, shared: true })]);
    await app.questions.answer(app.questions.list[0], "share");
    expect(api.answerQuestion).toHaveBeenCalledWith(7, "share");
    expect(app.prompts.queue).toEqual([]);
    expect(app.questions.list[0].answer).toBe("share");
    expect(app.questions.busy).toBeNull();
  });

  it("queues the consent prompt when a Share must show the folder's warnings first", async () => {
    const { app, api } = await started();
    app.questions.loaded([question(4, { folder: "/home/me" })]);
    const withWarnings = prompt(40, {
      realPath: "/home/me",
      warnings: [{ kind: "homeFolder", message: "This is your whole home folder." }],
    });
    api.answerQuestion.mockResolvedValue(withWarnings);
    await app.questions.answer(app.questions.list[0], "share");
    expect(app.prompts.queue.map((p) => p.id)).toEqual([40]);
  });

  it("asks before Not now withdraws a shared folder, and does nothing if told no", async () => {
    const { app, api } = await started();
    app.questions.loaded([question(5, { answer: "share", answeredAtMs: 2, shared: true })]);
    const answering = app.questions.answer(app.questions.list[0], "notNow");
    await settle();
    expect(app.notices.confirmRequest?.title).toBe("Withdraw this folder from files?");
    app.notices.confirmRequest?.resolve(false);
    await answering;
    expect(api.answerQuestion).not.toHaveBeenCalled();

    const again = app.questions.answer(app.questions.list[0], "notNow");
    await settle();
    app.notices.confirmRequest?.resolve(true);
    await again;
    expect(api.answerQuestion).toHaveBeenCalledWith(5, "notNow");
  });

  it("says why when an answer fails", async () => {
    const { app, api } = await started();
    app.questions.loaded([question(6)]);
    api.answerQuestion.mockRejectedValue({ code: "notFound", message: "this question is not in Rootgate's record" });
    await app.questions.answer(app.questions.list[0], "share");
    expect(app.notices.toasts.map((t) => t.message).join(" ")).toContain("not in Rootgate's record");
    expect(app.questions.busy).toBeNull();
  });

  it("take a prompt answered on the desktop off the window's queue", async () => {
    const { app, handlers } = await started();
    handlers.changes?.([{ kind: "prompts", prompts: [prompt(1), prompt(2)] }]);
    handlers.changes?.([{ kind: "promptsClosed", prompts: [1] }]);
    expect(app.prompts.queue.map((p) => p.id)).toEqual([2]);
  });
});
