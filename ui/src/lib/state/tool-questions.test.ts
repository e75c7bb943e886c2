// The AI apps' tool calls that wait for the person, against the fake
// backend: loaded at start, oldest first, replaced by the backend's
// changes (a list fetched before a change does not undo it), moved through
// with Next and Previous, answered (the call leaves at once), and an
// answer that cannot be given said in words, the call gone all the same.
import { describe, expect, it } from "vitest";
import { AppState } from "./app.svelte";
import { questionId } from "./tool-questions.svelte";
import { started } from "./testing";
import { fakeBackend, settle, toolQuestion } from "../testing";

const keys = (app: AppState) => app.toolQuestions.list.map((q) => q.ask.key);

describe("the tool calls that wait", () => {
  it("are loaded at start, oldest first, the oldest shown", async () => {
    const b = fakeBackend();
    b.api.toolQuestions.mockResolvedValue([toolQuestion(3), toolQuestion(1), toolQuestion(2)]);
    const app = new AppState(b.api, b.events);
    await app.start();
    expect(keys(app)).toEqual(["1", "2", "3"]);
    expect(app.toolQuestions.current?.ask.key).toBe("1");
    expect(app.toolQuestions.at).toBe(0);
  });

  it("say when they cannot be loaded", async () => {
    const b = fakeBackend();
    b.api.toolQuestions.mockRejectedValue({ code: "server", message: "no core" });
    const app = new AppState(b.api, b.events);
    await app.start();
    expect(app.notices.toasts.map((t) => t.message)).toContain("No core.");
  });

  it("follow the backend's changes, and a list fetched before a change does not undo it", async () => {
    const b = fakeBackend();
    let answer: (v: ReturnType<typeof toolQuestion>[]) => void = () => {};
    b.api.toolQuestions.mockReturnValue(new Promise((r) => (answer = r)));
    const app = new AppState(b.api, b.events);
    const starting = app.start();
    await settle();
    b.handlers.changes?.([{ kind: "toolQuestions", questions: [toolQuestion(2), toolQuestion(1)] }]);
    answer([toolQuestion(1)]);
    await starting;
    expect(keys(app)).toEqual(["1", "2"]);
    // An answer from the desktop takes one away; the whole list comes each time.
    b.handlers.changes?.([{ kind: "toolQuestions", questions: [toolQuestion(2)] }]);
    expect(keys(app)).toEqual(["2"]);
  });

  it("are moved through with Next and Previous, which stop at either end, and the one chosen stays shown while others come and go", async () => {
    const { app, handlers } = await started();
    app.toolQuestions.loaded([toolQuestion(1), toolQuestion(2), toolQuestion(3)]);
    app.toolQuestions.move(1);
    expect(app.toolQuestions.current?.ask.key).toBe("2");
    app.toolQuestions.move(5);
    expect(app.toolQuestions.current?.ask.key).toBe("3");
    app.toolQuestions.move(-1);
    expect(app.toolQuestions.current?.ask.key).toBe("2");
    handlers.changes?.([{ kind: "toolQuestions", questions: [toolQuestion(2), toolQuestion(3), toolQuestion(4)] }]);
    expect(app.toolQuestions.current?.ask.key).toBe("2");
    expect(app.toolQuestions.at).toBe(0);
    app.toolQuestions.move(-1);
    expect(app.toolQuestions.current?.ask.key).toBe("2");
    // The one shown goes: the oldest is shown.
    handlers.changes?.([{ kind: "toolQuestions", questions: [toolQuestion(3), toolQuestion(4)] }]);
    expect(app.toolQuestions.current?.ask.key).toBe("3");
  });

  it("tell calls of two connections with the same request id apart", () => {
    expect(questionId(toolQuestion(1, { connection: "a" }))).not.toBe(questionId(toolQuestion(1, { connection: "b" })));
  });

  it("are answered with the connection and the app's request id, and leave the list at once", async () => {
    const { app, api } = await started();
    app.toolQuestions.loaded([toolQuestion(1, { connection: "c9" }), toolQuestion(2)]);
    await app.toolQuestions.answer(app.toolQuestions.list[0], "always");
    expect(api.answerToolQuestion).toHaveBeenCalledWith("c9", "1", "always");
    expect(keys(app)).toEqual(["2"]);
    expect(app.toolQuestions.busy).toBeNull();
    expect(app.notices.toasts).toEqual([]);
  });

  it("take one answer at a time", async () => {
    const { app, api } = await started();
    app.toolQuestions.loaded([toolQuestion(1), toolQuestion(2)]);
    let finish: () => void = () => {};
    api.answerToolQuestion.mockReturnValueOnce(new Promise((r) => (finish = () => r(null))));
    const first = app.toolQuestions.answer(app.toolQuestions.list[0], "once");
    expect(app.toolQuestions.busy).toBe(questionId(toolQuestion(1)));
    await app.toolQuestions.answer(app.toolQuestions.list[1], "deny");
    expect(api.answerToolQuestion).toHaveBeenCalledTimes(1);
    finish();
    await first;
    expect(keys(app)).toEqual(["2"]);
  });

  it("say in words that a call no longer waits when its answer comes too late, and drop it", async () => {
    const { app, api } = await started();
    app.toolQuestions.loaded([toolQuestion(1)]);
    api.answerToolQuestion.mockRejectedValueOnce({ code: "notFound", message: "no such tool question" });
    await app.toolQuestions.answer(app.toolQuestions.list[0], "once");
    expect(keys(app)).toEqual([]);
    expect(app.notices.toasts.map((t) => t.message)).toEqual([
      "Claude Code's call to “write_file” no longer waits: it was answered on the desktop, its time ran out, or Claude Code cancelled it.",
    ]);
  });

  it("say any other failure with the backend's words", async () => {
    const { app, api } = await started();
    app.toolQuestions.loaded([toolQuestion(1)]);
    api.answerToolQuestion.mockRejectedValueOnce({ code: "settings", message: "the settings file could not be written" });
    await app.toolQuestions.answer(app.toolQuestions.list[0], "always");
    expect(app.notices.toasts.map((t) => t.message)).toEqual([
      "Your answer to Claude Code's call to “write_file” could not be given: The settings file could not be written.",
    ]);
    expect(keys(app)).toEqual([]);
  });
});
