// AI apps' connections against the fake backend: loaded at start, put in
// place by id, kept as many as the core keeps, a connection's detail.
import { describe, expect, it } from "vitest";
import { AppState } from "./app.svelte";
import { MAX_CONNECTION_TIMELINE, MAX_ENDED_CONNECTIONS } from "./connections.svelte";
import { started } from "./testing";
import { connection, entry, fakeBackend, prompt, settle } from "../testing";

describe("AI apps' connections", () => {
  const running = {
    state: "running" as const,
    era: "legacy" as const,
    pid: 9,
    protocolVersion: "2025-11-25",
    serverName: "files",
    serverVersion: "1",
    capabilities: {},
  };

  it("are loaded at start, live ones first", async () => {
    const b = fakeBackend();
    b.api.listConnections.mockResolvedValue([
      connection("old", { live: false, endedAtMs: 1_700_000_100_000, startedAtMs: 1_700_000_000_000 }),
      connection("new", { startedAtMs: 1_700_000_050_000 }),
    ]);
    const app = new AppState(b.api, b.events);
    await app.start();
    expect(app.connections.list.map((c) => c.id)).toEqual(["new", "old"]);
    expect(app.connections.live).toBe(1);
  });

  it("says so when they cannot be loaded", async () => {
    const b = fakeBackend();
    b.api.listConnections.mockRejectedValue({ code: "server", message: "no connections here" });
    const app = new AppState(b.api, b.events);
    await app.start();
    expect(app.connections.list).toEqual([]);
    expect(app.notices.toasts.map((t) => t.message)).toContain("No connections here.");
  });

  it("keep a connection a change brought while the list was on its way", async () => {
    const b = fakeBackend();
    let answer: (v: ReturnType<typeof connection>[]) => void = () => {};
    b.api.listConnections.mockReturnValue(new Promise((r) => (answer = r)));
    const app = new AppState(b.api, b.events);
    const starting = app.start();
    await settle();
    b.handlers.changes?.([{ kind: "connection", connection: connection("c1", { calls: 3 }) }]);
    answer([connection("c1", { calls: 1 }), connection("c2")]);
    await starting;
    expect(app.connections.list.find((c) => c.id === "c1")?.calls).toBe(3);
    expect(app.connections.list.map((c) => c.id).sort()).toEqual(["c1", "c2"]);
  });

  it("are put in place by id from connection changes, and an ended one goes after the live ones", async () => {
    const { app, handlers } = await started();
    handlers.changes?.([
      { kind: "connection", connection: connection("a", { startedAtMs: 1 }) },
      { kind: "connection", connection: connection("b", { startedAtMs: 2 }) },
    ]);
    expect(app.connections.list.map((c) => c.id)).toEqual(["b", "a"]);
    handlers.changes?.([{ kind: "connection", connection: connection("a", { startedAtMs: 1, status: running, calls: 2 }) }]);
    expect(app.connections.list.map((c) => c.id)).toEqual(["b", "a"]);
    expect(app.connections.list[1]).toMatchObject({ status: running, calls: 2 });
    handlers.changes?.([
      { kind: "connection", connection: connection("b", { startedAtMs: 2, live: false, endedAtMs: 5 }) },
    ]);
    expect(app.connections.list.map((c) => [c.id, c.live])).toEqual([
      ["a", true],
      ["b", false],
    ]);
    // The last of several changes of one connection in a batch wins.
    handlers.changes?.([
      { kind: "connection", connection: connection("a", { startedAtMs: 1, calls: 3 }) },
      { kind: "connection", connection: connection("a", { startedAtMs: 1, calls: 4 }) },
    ]);
    expect(app.connections.list.filter((c) => c.id === "a").map((c) => c.calls)).toEqual([4]);
    expect(app.connections.live).toBe(1);
  });

  it("keep only as many ended connections as the core does, and the open one", async () => {
    const { app, handlers } = await started();
    const ended = (i: number) =>
      connection(`e${i}`, { live: false, startedAtMs: i, endedAtMs: 1_000 + i });
    handlers.changes?.([{ kind: "connection", connection: ended(0) }]);
    void app.nav.openConnection("e0");
    handlers.changes?.(
      Array.from({ length: MAX_ENDED_CONNECTIONS + 5 }, (_, i) => ({ kind: "connection" as const, connection: ended(i + 1) })),
    );
    handlers.changes?.([{ kind: "connection", connection: connection("live") }]);
    const ids = app.connections.list.map((c) => c.id);
    expect(ids[0]).toBe("live");
    expect(ids.filter((id) => id !== "live" && id !== "e0")).toHaveLength(MAX_ENDED_CONNECTIONS);
    // The oldest ended are forgotten, the open one is not.
    expect(ids).toContain("e0");
    expect(ids).not.toContain("e1");
    expect(ids).toContain(`e${MAX_ENDED_CONNECTIONS + 5}`);
  });

  it("opens a connection's detail with its timeline, and appends its entries only", async () => {
    const { app, api, handlers } = await started();
    handlers.changes?.([{ kind: "connection", connection: connection("c1") }]);
    api.connectionTimeline.mockResolvedValue([entry(1), entry(2)]);
    await app.nav.openConnection("c1");
    expect(api.connectionTimeline).toHaveBeenCalledWith("c1");
    expect(app.nav.view).toBe("connections");
    expect(app.connections.inDetail?.id).toBe("c1");
    expect(app.connections.timeline.map((e) => e.seq)).toEqual([1, 2]);
    expect(app.connections.loading).toBe(false);
    handlers.changes?.([
      { kind: "connectionEntry", connection: "c1", entry: entry(2) },
      { kind: "connectionEntry", connection: "c1", entry: entry(3) },
      { kind: "connectionEntry", connection: "other", entry: entry(4) },
    ]);
    expect(app.connections.timeline.map((e) => e.seq)).toEqual([1, 2, 3]);
    // A connection's entries are not a server's, nor the activity's.
    expect(app.activity.entries).toEqual([]);
    expect(app.detail.timeline).toEqual([]);
  });

  it("keeps entries that came while the timeline was loading, and the newest it may hold", async () => {
    const { app, api, handlers } = await started();
    let answer: (v: ReturnType<typeof entry>[]) => void = () => {};
    api.connectionTimeline.mockReturnValue(new Promise((r) => (answer = r)));
    const open = app.nav.openConnection("c1");
    expect(app.connections.loading).toBe(true);
    handlers.changes?.([{ kind: "connectionEntry", connection: "c1", entry: entry(3) }]);
    answer([entry(1), entry(2)]);
    await open;
    expect(app.connections.timeline.map((e) => e.seq)).toEqual([1, 2, 3]);
    handlers.changes?.(
      Array.from({ length: MAX_CONNECTION_TIMELINE }, (_, i) => ({
        kind: "connectionEntry" as const,
        connection: "c1",
        entry: entry(10 + i),
      })),
    );
    expect(app.connections.timeline).toHaveLength(MAX_CONNECTION_TIMELINE);
    expect(app.connections.timeline.at(-1)?.seq).toBe(10 + MAX_CONNECTION_TIMELINE - 1);
  });

  it("closes the detail on Back, on another view and on a server's detail, and drops a late timeline", async () => {
    const { app, api, handlers } = await started();
    handlers.changes?.([{ kind: "connection", connection: connection("c1") }]);
    await app.nav.openConnection("c1");
    app.nav.closeConnection();
    expect(app.nav.connection).toBeNull();
    expect(app.connections.inDetail).toBeNull();
    expect(app.nav.view).toBe("connections");

    await app.nav.openConnection("c1");
    app.nav.show("folders");
    expect(app.nav.connection).toBeNull();

    await app.nav.openConnection("c1");
    await app.nav.openDetail("s1");
    expect(app.nav.connection).toBeNull();
    expect(app.nav.view).toBe("servers");

    let answer: (v: ReturnType<typeof entry>[]) => void = () => {};
    api.connectionTimeline.mockReturnValue(new Promise((r) => (answer = r)));
    const open = app.nav.openConnection("c1");
    app.nav.closeConnection();
    answer([entry(1)]);
    await open;
    expect(app.connections.timeline).toEqual([]);
    expect(app.connections.loading).toBe(false);
  });

  it("queues the prompts the backend opened by itself, after the others and without repeats", async () => {
    const { app, handlers } = await started();
    app.prompts.enqueue([prompt(1)]);
    const suggested = prompt(2, {
      suggestion: { app: "Claude Code", server: "s1", serverName: "files", imported: false },
      servers: [{ id: "s1", name: "files", granted: false, suggested: true, enforced: false, restarts: false, connected: [] }],
    });
    handlers.changes?.([{ kind: "prompts", prompts: [suggested] }]);
    handlers.changes?.([{ kind: "prompts", prompts: [suggested, prompt(3)] }]);
    expect(app.prompts.queue.map((p) => p.id)).toEqual([1, 2, 3]);
    expect(app.prompts.queue[1].suggestion?.app).toBe("Claude Code");
  });
});
