// The open server's detail state against the fake backend: its log, its
// long timeline loaded a page at a time, its folders' delivery.
import { describe, expect, it, vi } from "vitest";
import { MAX_LOG_LINES, TIMELINE_FIRST_PAGE, TIMELINE_PAGE } from "./server-detail.svelte";
import { started } from "./testing";
import { delivered, entry, server, settle } from "../testing";

describe("the open server's log", () => {
  it("appends log lines of the open server and keeps the newest 5,000", async () => {
    const { app, api, handlers } = await started();
    api.listServers.mockResolvedValue([server("s1")]);
    await app.reload();
    await app.nav.openDetail("s1");
    const lines = Array.from({ length: MAX_LOG_LINES + 10 }, (_, i) => ({
      kind: "log" as const,
      server: "s1",
      line: { seq: i + 1, atMs: 0, text: `line ${i + 1}` },
    }));
    handlers.changes?.(lines);
    handlers.changes?.([{ kind: "log", server: "other", line: { seq: 99_999, atMs: 0, text: "not mine" } }]);
    expect(app.detail.log.length).toBe(MAX_LOG_LINES);
    expect(app.detail.log[0].text).toBe("line 11");
    expect(app.detail.log.at(-1)?.text).toBe(`line ${MAX_LOG_LINES + 10}`);
  });
});

describe("a server's long timeline", () => {
  // A server with `n` entries (seq 1..n), answering pages as the core does.
  function timelineOf(n: number) {
    const all = Array.from({ length: n }, (_, i) => entry(i + 1));
    return (before: number | null, limit: number) => {
      const end = before === null ? all.length : Math.min(all.length, before - 1);
      const start = Math.max(0, end - limit);
      return { entries: all.slice(start, end), older: start };
    };
  }

  async function opening(n: number) {
    const b = await started();
    b.api.listServers.mockResolvedValue([server("s1")]);
    await b.app.reload();
    const page = timelineOf(n);
    let release: () => void = () => {};
    const older = new Promise<void>((r) => (release = r));
    b.api.serverTimeline.mockImplementation(async (_id: string, before: number | null, limit: number) => {
      if (before !== null) await older;
      return page(before, limit);
    });
    const open = b.app.nav.openDetail("s1");
    await vi.waitFor(() => expect(b.app.detail.loading).toBe(false));
    return { ...b, open, release };
  }

  it("shows the newest page at once, then puts older pages before it until all are in", async () => {
    const { app, api, open, release } = await opening(12_000);
    // Shown while the older pages are still to come.
    expect(app.detail.timeline.map((e) => e.seq)).toEqual(
      Array.from({ length: TIMELINE_FIRST_PAGE }, (_, i) => 12_000 - TIMELINE_FIRST_PAGE + 1 + i),
    );
    release();
    await open;
    expect(app.detail.timeline).toHaveLength(12_000);
    expect(app.detail.timeline.every((e, i) => e.seq === i + 1)).toBe(true);
    // The first page, then as many full pages as the rest needs, and no
    // call after the oldest entry is in.
    const rest = Math.ceil((12_000 - TIMELINE_FIRST_PAGE) / TIMELINE_PAGE);
    expect(api.serverTimeline.mock.calls.map((c) => c[2])).toEqual([
      TIMELINE_FIRST_PAGE,
      ...Array.from({ length: rest }, () => TIMELINE_PAGE),
    ]);
  });

  it("stops loading older pages when the server's detail is closed", async () => {
    const { app, api, open, release } = await opening(12_000);
    await vi.waitFor(() => expect(api.serverTimeline).toHaveBeenCalledTimes(2));
    app.nav.closeDetail();
    release();
    await open;
    expect(app.detail.timeline).toEqual([]);
    expect(api.serverTimeline).toHaveBeenCalledTimes(2);
  });
});

describe("delivery of folders", () => {
  it("updates a server's row from a delivery change and fetches the open server's folders again", async () => {
    const { app, api, handlers } = await started();
    api.listServers.mockResolvedValue([server("a"), server("b")]);
    await app.reload();
    api.serverFolders.mockResolvedValue([{ root: "r1", name: "one", state: "waiting" }]);
    await app.nav.openDetail("a");
    await vi.waitFor(() => expect(app.detail.folders.map((f) => f.state)).toEqual(["waiting"]));
    api.serverFolders.mockResolvedValue([{ root: "r1", name: "one", state: "notPickedUp" }]);
    handlers.changes?.([
      {
        kind: "delivery",
        server: "a",
        delivery: delivered({ state: { state: "notPickedUp", sinceMs: 1 }, following: "ignores", notPickedUp: 1 }),
      },
      { kind: "delivery", server: "b", delivery: delivered({ told: 2 }) },
    ]);
    expect(app.servers.list.map((s) => s.delivery.following)).toEqual(["ignores", "unknown"]);
    expect(app.servers.list[1].delivery.told).toBe(2);
    await vi.waitFor(() => expect(app.detail.folders.map((f) => f.state)).toEqual(["notPickedUp"]));
    // A change for another server does not fetch the open one's again.
    const calls = api.serverFolders.mock.calls.length;
    handlers.changes?.([{ kind: "delivery", server: "b", delivery: delivered({ told: 3 }) }]);
    await settle();
    expect(api.serverFolders).toHaveBeenCalledTimes(calls);
  });

  it("forgets that a server ignores changes and shows the answer", async () => {
    const { app, api } = await started();
    api.listServers.mockResolvedValue([server("a", { delivery: delivered({ following: "ignores" }) })]);
    await app.reload();
    api.forgetFollowing.mockResolvedValue(server("a", { delivery: delivered() }));
    await app.servers.forgetFollowing(app.servers.list[0]);
    expect(api.forgetFollowing).toHaveBeenCalledWith("a");
    expect(app.servers.list[0].delivery.following).toBe("unknown");
  });
});
