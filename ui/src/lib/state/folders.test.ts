// The folders' state against the fake backend: the picker, answering and
// cancelling a consent prompt, removing a folder after confirmation.
import { describe, expect, it } from "vitest";
import { started } from "./testing";
import { folder, prompt } from "../testing";

describe("folders", () => {
  it("changes nothing when the picker is cancelled", async () => {
    const { app, api } = await started();
    api.pickFolders.mockResolvedValue([]);
    await app.folders.add();
    expect(app.prompts.queue).toEqual([]);
    expect(app.notices.toasts).toEqual([]);
    expect(app.folders.picking).toBe(false);
  });

  it("does not open the picker twice", async () => {
    const { app, api } = await started();
    let done: (v: never[]) => void = () => {};
    api.pickFolders.mockReturnValue(new Promise((r) => (done = r)));
    const first = app.folders.add();
    expect(app.folders.picking).toBe(true);
    await app.folders.add();
    expect(api.pickFolders).toHaveBeenCalledTimes(1);
    done([]);
    await first;
    expect(app.folders.picking).toBe(false);
  });

  it("shares with exactly the ticked servers and closes the prompt", async () => {
    const { app, api } = await started();
    app.prompts.enqueue([prompt(1), prompt(2)]);
    api.answerPrompt.mockResolvedValue(folder("r1", { servers: ["a"] }));
    await app.folders.answerPrompt(app.prompts.queue[0], ["a"], null);
    expect(api.answerPrompt).toHaveBeenCalledWith(1, ["a"], null);
    expect(app.prompts.queue.map((p) => p.id)).toEqual([2]);
    expect(app.folders.list.map((f) => f.id)).toEqual(["r1"]);
  });

  it("says why sharing failed, in the backend's words", async () => {
    const { app, api } = await started();
    app.prompts.enqueue([prompt(1)]);
    api.answerPrompt.mockRejectedValue({ code: "stale", message: "the folder now leads elsewhere; choose it again" });
    await app.folders.answerPrompt(app.prompts.queue[0], [], null);
    expect(app.prompts.queue).toEqual([]);
    expect(app.notices.toasts[0].message).toBe("The folder now leads elsewhere; choose it again.");
  });

  it("cancels a prompt", async () => {
    const { app, api } = await started();
    app.prompts.enqueue([prompt(3)]);
    await app.folders.cancelPrompt(app.prompts.queue[0]);
    expect(api.cancelPrompt).toHaveBeenCalledWith(3);
    expect(app.prompts.queue).toEqual([]);
  });

  it("removes a folder only after confirmation", async () => {
    const { app, api } = await started();
    api.listFolders.mockResolvedValue([folder("r1")]);
    await app.reload();
    const removing = app.folders.remove(app.folders.list[0]);
    expect(app.notices.confirmRequest?.body).toContain("withdrawn from every server at once");
    app.notices.confirmRequest?.resolve(false);
    await removing;
    expect(api.removeFolder).not.toHaveBeenCalled();
    const again = app.folders.remove(app.folders.list[0]);
    app.notices.confirmRequest?.resolve(true);
    await again;
    expect(api.removeFolder).toHaveBeenCalledWith("r1");
    expect(app.folders.list).toEqual([]);
  });
});
