// The window's root state against the fake backend: starting up (everything
// loaded, app-ready marked after the lists, a first run), and the backend's
// events handed to the areas (a settings revision reloads, timeline entries
// reach the activity and the open server, prompts queue, notices toast).
import { describe, expect, it, vi } from "vitest";
import { AppState } from "./app.svelte";
import { started } from "./testing";
import { READY_MARK } from "../ready";
import { entry, fakeBackend, folder, prompt, server, settle } from "../testing";

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
      installs: [],
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
  it("reloads folders and servers on a settings revision", async () => {
    const { app, api, handlers } = await started();
    api.listFolders.mockResolvedValue([folder("r1")]);
    handlers.changes?.([{ kind: "settings", revision: 2 }]);
    await settle();
    expect(app.folders.list.map((f) => f.id)).toEqual(["r1"]);
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

describe("the layout", () => {
  it("lays the window out for its width", async () => {
    const { app } = await started();
    app.width = 760;
    expect(app.layout).toEqual({ iconSidebar: true, rowMenus: true });
    app.width = 1120;
    expect(app.layout.rowMenus).toBe(false);
  });
});
