import { describe, expect, it, vi } from "vitest";
import { AppState } from "./app.svelte";
import { MAX_CONNECTION_TIMELINE, MAX_ENDED_CONNECTIONS } from "./connections.svelte";
import { MAX_LOG_LINES, TIMELINE_FIRST_PAGE, TIMELINE_PAGE } from "./server-detail.svelte";
import { READY_MARK } from "../ready";
import { connection, delivered, entry, fakeBackend, folder, prompt, server, settle } from "../testing";

async function started() {
  const b = fakeBackend();
  const app = new AppState(b.api, b.events);
  await app.start();
  return { app, ...b };
}

describe("startup", () => {
  it("loads everything, shows the recovery banner and notices, and opens waiting prompts", async () => {
    const b = fakeBackend();
    b.api.appInfo.mockResolvedValue({
      version: "1",
      settingsPath: "/s",
      recovery: "moved to /s.unreadable-1",
      rootsNote: "n",
      enforcement: { state: "available" },
      notices: ["/nope does not exist"],
      cliPath: null,
    });
    b.api.openPrompts.mockResolvedValue([prompt(1), prompt(2)]);
    b.api.listServers.mockResolvedValue([server("a")]);
    const app = new AppState(b.api, b.events);
    await app.start();
    expect(app.notices.recovery).toBe("moved to /s.unreadable-1");
    expect(app.notices.toasts.map((t) => t.message)).toEqual(["/nope does not exist"]);
    expect(app.prompts.queue.map((p) => p.id)).toEqual([1, 2]);
    expect(app.servers.list.map((s) => s.id)).toEqual(["a"]);
    expect(app.loaded).toBe(true);
    expect(app.firstRun).toBe(false);
  });

  it("marks app-ready only after the saved folders and servers have loaded", async () => {
    // Earlier tests' apps mark too, a frame after they start: let those land first.
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
    performance.clearMarks(READY_MARK);
    const b = fakeBackend();
    let answer: () => void = () => {};
    b.api.listFolders.mockReturnValue(new Promise((r) => (answer = () => r([folder("r1")]))));
    const app = new AppState(b.api, b.events);
    const starting = app.start();
    await settle();
    await new Promise((r) => setTimeout(r, 50));
    expect(performance.getEntriesByName(READY_MARK)).toHaveLength(0);
    // Servers start only once the window shows its folders and servers.
    expect(b.api.windowShown).not.toHaveBeenCalled();
    answer();
    await starting;
    await vi.waitFor(() => expect(performance.getEntriesByName(READY_MARK)).toHaveLength(1));
    expect(app.folders.list.map((f) => f.id)).toEqual(["r1"]);
    expect(b.api.windowShown).toHaveBeenCalledTimes(1);
  });

  it("is a first run with no servers and no folders", async () => {
    const { app } = await started();
    expect(app.firstRun).toBe(true);
  });
});

describe("events", () => {
  it("updates one server's status without reloading", async () => {
    const { app, api, handlers } = await started();
    api.listServers.mockResolvedValue([server("a"), server("b")]);
    await app.reload();
    api.listServers.mockClear();
    handlers.changes?.([{ kind: "status", server: "b", status: { state: "starting" } }]);
    expect(app.servers.list.find((s) => s.id === "b")?.status).toEqual({ state: "starting" });
    expect(app.servers.list.find((s) => s.id === "a")?.status.state).toBe("stopped");
    expect(api.listServers).not.toHaveBeenCalled();
  });

  it("reloads folders and servers on a settings revision", async () => {
    const { app, api, handlers } = await started();
    api.listFolders.mockResolvedValue([folder("r1")]);
    handlers.changes?.([{ kind: "settings", revision: 2 }]);
    await settle();
    expect(app.folders.list.map((f) => f.id)).toEqual(["r1"]);
  });

  it("keeps a status that arrived while a reload was under way", async () => {
    const { app, api, handlers } = await started();
    let answer: (v: ReturnType<typeof server>[]) => void = () => {};
    api.listServers.mockReturnValue(new Promise((r) => (answer = r)));
    const reload = app.reload();
    handlers.changes?.([{ kind: "status", server: "a", status: { state: "starting" } }]);
    answer([server("a")]);
    await reload;
    expect(app.servers.list[0].status).toEqual({ state: "starting" });
  });

  it("appends timeline entries to activity and the open server, once each", async () => {
    const { app, api, handlers } = await started();
    api.listServers.mockResolvedValue([server("s1"), server("s2")]);
    api.serverTimeline.mockResolvedValue({ entries: [entry(1), entry(2)], older: 0 });
    await app.reload();
    await app.nav.openDetail("s1");
    handlers.timeline?.([entry(2), entry(3), entry(4, "s2")]);
    expect(app.detail.timeline.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(app.activity.entries.map((e) => e.seq)).toEqual([2, 3, 4]);
  });

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

  it("queues dropped folders' prompts after the open ones, without repeats", async () => {
    const { app, handlers } = await started();
    handlers.prompts?.([prompt(5), prompt(6)]);
    handlers.prompts?.([prompt(6), prompt(7)]);
    expect(app.prompts.queue.map((p) => p.id)).toEqual([5, 6, 7]);
  });

  it("shows a notice as a toast", async () => {
    const { app, handlers } = await started();
    handlers.notice?.({ message: "“notes.txt” is not a folder" });
    expect(app.notices.toasts.at(-1)?.message).toBe("“notes.txt” is not a folder");
  });
});

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

describe("servers", () => {
  it("asks for approval instead of starting an unapproved server", async () => {
    const { app, api } = await started();
    const s = server("a", { approved: false, approvedCommand: null });
    await app.servers.start(s);
    expect(api.startServer).not.toHaveBeenCalled();
    expect(app.servers.approval?.id).toBe("a");
  });

  it("opens the approval dialog when start says the command needs approval", async () => {
    const { app, api } = await started();
    api.listServers.mockResolvedValue([server("a")]);
    await app.reload();
    api.startServer.mockRejectedValue({ code: "needsApproval", message: "not approved" });
    api.listServers.mockResolvedValue([server("a", { approved: false, commandLine: "/bin/srv --new" })]);
    await app.servers.start(app.servers.list[0]);
    expect(app.servers.approval?.commandLine).toBe("/bin/srv --new");
    expect(app.notices.toasts).toEqual([]);
  });

  it("approves the exact command line shown, then starts", async () => {
    const { app, api } = await started();
    const s = server("a", { approved: false, commandLine: "A=1 /bin/srv 'two words'" });
    api.approveCommand.mockResolvedValue({ ...s, approved: true });
    app.servers.approval = s;
    await app.servers.approveAndStart(s);
    expect(api.approveCommand).toHaveBeenCalledWith("a", "A=1 /bin/srv 'two words'");
    expect(api.startServer).toHaveBeenCalledWith("a");
    expect(app.servers.approval).toBeNull();
  });

  it("offers approval after adding a server", async () => {
    const { app, api } = await started();
    api.addServer.mockResolvedValue(server("n", { approved: false }));
    const error = await app.servers.save(null, {
      name: "n",
      command: "x",
      args: [],
      env: {},
      cwd: null,
      enabled: true,
      withdrawal: "notify",
      enforceRoots: false,
      era: "auto",
    });
    expect(error).toBeNull();
    expect(app.servers.approval?.id).toBe("n");
    expect(app.servers.form).toBeNull();
  });

  it("returns the backend's validation error for the form", async () => {
    const { app, api } = await started();
    app.servers.openAddForm();
    api.addServer.mockRejectedValue({ code: "invalid", message: 'a server named "x" already exists; choose another name' });
    const error = await app.servers.save(null, {
      name: "x",
      command: "x",
      args: [],
      env: {},
      cwd: null,
      enabled: true,
      withdrawal: "notify",
      enforceRoots: false,
      era: "auto",
    });
    expect(error).toBe('A server named "x" already exists; choose another name.');
    expect(app.servers.form).not.toBeNull();
  });

  it("tries the example: adds its template and asks for approval", async () => {
    const b = fakeBackend();
    b.api.templates.mockResolvedValue([
      {
        id: "example",
        title: "Example",
        description: "d",
        draft: {
          name: "Example server",
          command: "/app/rootgate",
          args: ["--example-server"],
          env: {},
          cwd: null,
          enabled: true,
          withdrawal: "notify",
          enforceRoots: false,
          era: "auto",
        },
      },
    ] as never);
    b.api.addServer.mockResolvedValue(server("ex", { approved: false, commandLine: "/app/rootgate --example-server" }));
    const app = new AppState(b.api, b.events);
    await app.start();
    await app.servers.tryExample();
    expect(b.api.addServer).toHaveBeenCalledWith(expect.objectContaining({ command: "/app/rootgate" }));
    expect(app.servers.approval?.commandLine).toBe("/app/rootgate --example-server");
    expect(app.nav.view).toBe("servers");
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

describe("everyday use", () => {
  const draft = {
    name: "n",
    command: "x",
    args: [],
    env: {},
    cwd: null,
    enabled: true,
    withdrawal: "notify" as const,
    enforceRoots: false,
    era: "auto" as const,
  };

  it("ends adding a server, once its approval is given, with its folder checklist, and marks its row", async () => {
    const { app, api } = await started();
    api.addServer.mockResolvedValue(server("n", { approved: false }));
    api.approveCommand.mockResolvedValue(server("n"));
    await app.servers.save(null, draft);
    expect(app.servers.highlight).toBe("n");
    expect(app.servers.checklist).toBeNull();
    await app.servers.approveAndStart(app.servers.approval!);
    expect(app.servers.checklist).toEqual({ server: "n", afterAdd: true });
    expect(app.dialogOpen).toBe(true);
  });

  it("does not open the checklist after an approval cancelled, nor after a later approval", async () => {
    const { app, api } = await started();
    api.addServer.mockResolvedValue(server("n", { approved: false }));
    api.approveCommand.mockResolvedValue(server("n"));
    await app.servers.save(null, draft);
    app.servers.cancelApproval();
    await app.servers.start(server("n", { approved: false }));
    await app.servers.approveAndStart(app.servers.approval!);
    expect(app.servers.checklist).toBeNull();
  });

  it("gives a server exactly the ticked folders in one save, and updates the folders' lists at once", async () => {
    const { app, api } = await started();
    app.folders.list = [folder("r1"), folder("r2", { servers: ["s"] }), folder("r3")];
    app.servers.list = [server("s")];
    app.servers.openChecklist("s");
    api.setServerFolders.mockResolvedValue(server("s", { name: "Saved" }));
    expect(await app.servers.setFolders("s", ["r1", "r3"])).toBeNull();
    expect(api.setServerFolders).toHaveBeenCalledWith("s", ["r1", "r3"]);
    expect(app.folders.list.map((f) => f.servers)).toEqual([["s"], [], ["s"]]);
    expect(app.servers.list[0].name).toBe("Saved");
    expect(app.servers.checklist).toBeNull();
  });

  it("says when a folder ticked now leads elsewhere, and keeps the checklist open", async () => {
    const { app, api } = await started();
    app.servers.openChecklist("s");
    api.setServerFolders.mockRejectedValue({ code: "stale", message: "the folder now leads elsewhere" });
    expect(await app.servers.setFolders("s", ["r1"])).toEqual({ message: "The folder now leads elsewhere.", stale: true });
    expect(app.servers.checklist).not.toBeNull();
  });

  it("follows a server's scheduled retry from its changes, over an older list, and stops it on request", async () => {
    const { app, api, handlers } = await started();
    const failed = { state: "failed" as const, reason: "exited at once" };
    app.servers.list = [server("s", { status: failed })];
    const retry = { atMs: 1_700_000_006_000, attempt: 4, of: 5 };
    // A list asked for before the retry was scheduled answers after it.
    let answer: (v: ReturnType<typeof server>[]) => void = () => {};
    api.listServers.mockReturnValueOnce(new Promise((r) => (answer = r)));
    const reloading = app.reload();
    handlers.changes?.([{ kind: "retry", server: "s", retry }]);
    expect(app.servers.list[0].retry).toEqual(retry);
    answer([server("s", { status: failed, retry: null })]);
    await reloading;
    expect(app.servers.list[0].retry).toEqual(retry);

    await app.servers.stopRetrying(app.servers.list[0]);
    expect(api.stopRetrying).toHaveBeenCalledWith("s");
    expect(app.servers.list[0].retry).toBeNull();
    expect(app.servers.list[0].gaveUp).toBe(true);
    expect(app.servers.stoppedRetrying.has("s")).toBe(true);
    handlers.changes?.([{ kind: "retry", server: "s", retry: null }]);
    expect(app.servers.list[0].retry).toBeNull();
    await app.servers.start(app.servers.list[0]);
    expect(app.servers.stoppedRetrying.has("s")).toBe(false);
  });

  it("counts the attempts of a server Rootgate gave up on from the activity", async () => {
    const { app, handlers } = await started();
    app.servers.list = [server("s", { gaveUp: true }), server("t")];
    handlers.timeline?.([
      { ...entry(1, "s"), event: { kind: "gaveUp", attempts: 5 } },
      { ...entry(2, "t"), event: { kind: "gaveUp", attempts: 3 } },
    ]);
    expect([...app.activity.gaveUpAfter]).toEqual([["s", 5]]);
  });

  it("goes back: the Servers item closes a detail, Escape goes up, Alt+Left goes where the person was", async () => {
    const { app, api } = await started();
    api.listServers.mockResolvedValue([server("s"), server("t")]);
    api.listConnections.mockResolvedValue([]);
    await app.reload();
    app.nav.show("activity");
    await app.nav.openDetail("s");
    expect(app.nav.place).toEqual({ view: "servers", detail: "s", connection: null });
    // The sidebar's Servers item (or Ctrl+2) in a detail: the list.
    app.nav.show("servers");
    expect(app.nav.detail).toBeNull();
    expect(app.nav.back()).toBe(true);
    await settle();
    expect(app.nav.detail).toBe("s");
    expect(app.nav.back()).toBe(true);
    expect(app.nav.view).toBe("activity");
    await app.nav.openDetail("t");
    expect(app.nav.up()).toBe(true);
    expect(app.nav.place).toEqual({ view: "servers", detail: null, connection: null });
    expect(app.nav.back()).toBe(true);
    await settle();
    expect(app.nav.detail).toBe("t");
  });

  it("skips a removed server's detail when going back, and goes up when there is nowhere else", async () => {
    const { app, api } = await started();
    api.listServers.mockResolvedValue([server("s"), server("t")]);
    await app.reload();
    await app.nav.openDetail("s");
    await app.nav.openDetail("t");
    api.listServers.mockResolvedValue([server("t")]);
    await app.reload();
    expect(app.nav.back()).toBe(true);
    // "s" is gone: back to where the person was before it (the folders).
    expect(app.nav.place).toEqual({ view: "folders", detail: null, connection: null });
    expect(app.nav.back()).toBe(false);
  });

  it("lays the window out for its width", async () => {
    const { app } = await started();
    app.width = 760;
    expect(app.layout).toEqual({ iconSidebar: true, rowMenus: true });
    app.width = 1120;
    expect(app.layout.rowMenus).toBe(false);
  });
});
