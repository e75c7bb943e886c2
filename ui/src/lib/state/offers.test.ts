// The offers state against the fake backend: asked when the open server
// runs, asked again when it says a list changed, forgotten when it stops;
// a tool call's progress (routed through AppState's changes), its
// cancellation ("Cancelled", not an error), failures in words; answers
// that arrive after another server was opened are dropped.
import { describe, expect, it } from "vitest";
import { AppState } from "./app.svelte";
import type { TryOutcome } from "../bindings";
import { MAX_RUNS } from "./offers.svelte";
import { fakeBackend, offers, outcome, settle } from "../testing";

function setup() {
  const b = fakeBackend();
  const app = new AppState(b.api, b.events);
  return { app, o: app.offers, ...b };
}

/** A promise the test resolves or rejects by hand. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("what the open server offers", () => {
  it("is asked only once the server runs, and parsed", async () => {
    const { o, api } = setup();
    api.serverOffers.mockResolvedValue(
      offers({ tools: [{ name: "echo", inputSchema: { type: "object" } }, "garbage"], prompts: null }),
    );
    o.follow("s1", false);
    await settle();
    expect(api.serverOffers).not.toHaveBeenCalled();
    o.follow("s1", true);
    await settle();
    expect(api.serverOffers).toHaveBeenCalledWith("s1");
    expect(o.tools.items.map((t) => t.name)).toEqual(["echo"]);
    expect(o.tools.skipped).toBe(1);
    expect(o.offers?.prompts.offered).toBe(false);
    // Following the same again asks nothing more.
    o.follow("s1", true);
    await settle();
    expect(api.serverOffers).toHaveBeenCalledTimes(1);
  });

  it("is asked again when the server says a list changed, and forgotten when it stops", async () => {
    const { app, o, api, handlers } = setup();
    await app.start();
    o.follow("s1", true);
    await settle();
    api.serverOffers.mockResolvedValue(offers({ tools: [{ name: "new_tool", inputSchema: { type: "object" } }] }));
    handlers.changes?.([{ kind: "offersChanged", server: "other", offer: "tools" }]);
    await settle();
    expect(api.serverOffers).toHaveBeenCalledTimes(1);
    handlers.changes?.([{ kind: "offersChanged", server: "s1", offer: "tools" }]);
    await settle();
    expect(api.serverOffers).toHaveBeenCalledTimes(2);
    expect(o.tools.items.map((t) => t.name)).toEqual(["new_tool"]);
    o.follow("s1", false);
    expect(o.offers).toBe(null);
    expect(o.tools.items).toEqual([]);
  });

  it("says why when the offers cannot be had", async () => {
    const { o, api } = setup();
    api.serverOffers.mockRejectedValue({ code: "server", message: "Files is not running" });
    o.follow("s1", true);
    await settle();
    expect(o.error).toBe("Files is not running.");
  });

  it("drops an answer for a server no longer open", async () => {
    const { o, api } = setup();
    const late = deferred<ReturnType<typeof offers>>();
    api.serverOffers.mockReturnValueOnce(late.promise);
    o.follow("s1", true);
    o.follow("s2", true);
    await settle();
    late.resolve(offers({ tools: [{ name: "from_s1", inputSchema: {} }] }));
    await settle();
    expect(o.server).toBe("s2");
    expect(o.tools.items.map((t) => t.name)).toEqual([]);
  });
});

describe("trying things", () => {
  it("numbers each tool call, shows its progress and what it answered", async () => {
    const { app, o, api, handlers } = setup();
    await app.start();
    o.follow("s1", true);
    await settle();
    const answer = deferred<TryOutcome>();
    api.callTool.mockReturnValueOnce(answer.promise);
    const done = o.callTool("trigger-long-running-operation", { duration: 10, steps: 5 });
    const run = o.runOf("tools", "trigger-long-running-operation");
    expect(run?.state).toBe("running");
    expect(api.callTool).toHaveBeenCalledWith("s1", run?.id, "trigger-long-running-operation", { duration: 10, steps: 5 });
    handlers.changes?.([{ kind: "callProgress", call: run?.id ?? 0, progress: 2, total: 5, message: null }]);
    expect(o.runOf("tools", "trigger-long-running-operation")?.progress).toEqual({ progress: 2, total: 5, message: null });
    // Another call's progress is not this one's.
    handlers.changes?.([{ kind: "callProgress", call: 999, progress: 4, total: 5, message: null }]);
    expect(o.runOf("tools", "trigger-long-running-operation")?.progress?.progress).toBe(2);
    answer.resolve(outcome({ content: [{ type: "text", text: "done" }] }, { durationMs: 10_000 }));
    await done;
    const after = o.runOf("tools", "trigger-long-running-operation");
    expect(after?.state).toBe("done");
    expect(after?.outcome?.durationMs).toBe(10_000);
    // The next call has another number.
    await o.callTool("echo", { message: "hi" });
    expect(o.runOf("tools", "echo")?.id).not.toBe(run?.id);
  });

  it("cancels a call: it ends as cancelled, not as a failure", async () => {
    const { o, api } = setup();
    o.follow("s1", true);
    await settle();
    const answer = deferred<TryOutcome>();
    api.callTool.mockReturnValueOnce(answer.promise);
    const done = o.callTool("slow", {});
    const run = o.runOf("tools", "slow");
    if (!run) throw new Error("no run");
    await o.cancel(run);
    expect(api.cancelCall).toHaveBeenCalledWith(run.id);
    expect(o.runOf("tools", "slow")?.cancelling).toBe(true);
    answer.reject({ code: "cancelled", message: "The call was cancelled" });
    await done;
    expect(o.runOf("tools", "slow")).toMatchObject({ state: "cancelled", error: null, cancelling: false });
  });

  it("says in words why a call failed", async () => {
    const { o, api } = setup();
    o.follow("s1", true);
    api.callTool.mockRejectedValueOnce({ code: "server", message: "the server stopped while the call was under way" });
    await o.callTool("echo", {});
    expect(o.runOf("tools", "echo")).toMatchObject({
      state: "failed",
      error: "The server stopped while the call was under way.",
    });
  });

  it("reads resources, subscribes to them and notes when they change", async () => {
    const { app, o, api, handlers } = setup();
    await app.start();
    o.follow("s1", true);
    await o.readResource("demo://a");
    expect(api.readResource).toHaveBeenCalledWith("s1", "demo://a");
    expect(o.runOf("resources", "demo://a")?.state).toBe("done");
    expect(await o.setSubscribed("demo://a", true)).toBe(null);
    expect([...o.subscribed]).toEqual(["demo://a"]);
    handlers.changes?.([{ kind: "resourceUpdated", server: "s1", uri: "demo://a" }]);
    expect(o.updated.has("demo://a")).toBe(true);
    // Reading it again clears the mark.
    await o.readResource("demo://a");
    expect(o.updated.has("demo://a")).toBe(false);
    api.unsubscribeResource.mockRejectedValueOnce({ code: "server", message: "method not found" });
    expect(await o.setSubscribed("demo://a", false)).toBe("Method not found.");
    expect([...o.subscribed]).toEqual(["demo://a"]);
  });

  it("gets prompts with their arguments", async () => {
    const { o, api } = setup();
    o.follow("s1", true);
    await o.getPrompt("args-prompt", { city: "Paris" });
    expect(api.getPrompt).toHaveBeenCalledWith("s1", "args-prompt", { city: "Paris" });
    expect(o.runOf("prompts", "args-prompt")?.sent).toEqual({ city: "Paris" });
  });

  it("keeps the last few runs, and drops a run's answer once another server is open", async () => {
    const { o, api } = setup();
    o.follow("s1", true);
    for (let i = 0; i < MAX_RUNS + 5; i++) await o.callTool(`t${i}`, {});
    expect(o.runs.tools.size).toBe(MAX_RUNS);
    expect(o.runOf("tools", "t0")).toBe(null);
    const late = deferred<TryOutcome>();
    api.callTool.mockReturnValueOnce(late.promise);
    const done = o.callTool("slow", {});
    o.follow("s2", true);
    late.resolve(outcome({ content: [] }));
    await done;
    expect(o.runOf("tools", "slow")).toBe(null);
  });
});
