import { createRawSnippet, flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";
import App from "../App.svelte";
import { AppState } from "../lib/app.svelte";
import { connection, delivered, entry, fakeBackend, folder, prompt, server, settle } from "../lib/testing";
import VirtualList from "./VirtualList.svelte";

let mounted: Record<string, unknown>[] = [];
afterEach(() => {
  for (const m of mounted) unmount(m);
  mounted = [];
  document.body.innerHTML = "";
});

function q(testid: string): HTMLElement | null {
  return document.querySelector(`[data-testid="${testid}"]`);
}
function all(testid: string): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>(`[data-testid="${testid}"]`)];
}

describe("VirtualList", () => {
  it("renders only the rows in view plus overscan", () => {
    const items = Array.from({ length: 10_000 }, (_, i) => i);
    const row = createRawSnippet((item: () => number) => ({
      render: () => `<span data-testid="row">${item()}</span>`,
    }));
    mounted.push(
      mount(VirtualList<number>, {
        target: document.body,
        props: { items, rowHeight: 20, overscan: 5, label: "numbers", row },
      }),
    );
    flushSync();
    const rows = all("row");
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.length).toBeLessThan(60);
    expect(rows[0].textContent).toBe("0");
  });
});

async function startApp(setup: (b: ReturnType<typeof fakeBackend>) => void = () => {}, prepareViewsAfterMs = 60_000) {
  const b = fakeBackend();
  setup(b);
  const app = new AppState(b.api, b.events);
  mounted.push(mount(App, { target: document.body, props: { app, autostart: false, prepareViewsAfterMs } }));
  await app.start();
  flushSync();
  return { app, ...b };
}

describe("the window", () => {
  it("shows a server's timeline, and the folders an answer named under it when asked", async () => {
    const { app } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { name: "Files" })]);
      const answered = {
        ...entry(2),
        event: {
          kind: "rootsAnswered" as const,
          requestId: "7",
          generation: 1,
          roots: [
            { root: "r1", uri: "file:///home/me/a", name: "a" },
            { root: "r2", uri: "file:///home/me/b", name: "b" },
          ],
        },
      };
      b.api.serverTimeline.mockResolvedValue({ entries: [entry(1), answered, entry(3)], older: 0 });
    });
    await app.openDetail("s1");
    flushSync();
    expect(all("timeline-entry").map((e) => e.dataset.kind)).toEqual(["spawned", "rootsAnswered", "spawned"]);
    expect(all("timeline-entry-detail")).toEqual([]);
    const show = all("timeline-entry")[1].querySelector("button");
    expect(show?.textContent?.trim()).toBe("Show folders");
    show?.click();
    flushSync();
    expect(all("timeline-entry-detail").map((d) => d.textContent?.replace(/\s+/g, " ").trim())).toEqual([
      "file:///home/me/a “a”",
      "file:///home/me/b “b”",
    ]);
    // The detail lines sit right under the answer they belong to.
    const rows = [...document.querySelectorAll('[role="listitem"]')].map(
      (r) => r.querySelector("[data-testid]")?.getAttribute("data-testid") ?? "",
    );
    expect(rows).toEqual(["timeline-entry", "timeline-entry", "timeline-entry-detail", "timeline-entry-detail", "timeline-entry"]);
    show?.click();
    flushSync();
    expect(all("timeline-entry-detail")).toEqual([]);
  });

  it("shows the first run and the empty folder list", async () => {
    await startApp();
    expect(q("first-run")).not.toBeNull();
    expect(q("first-run-example")).not.toBeNull();
    expect(q("empty-folders")).not.toBeNull();
  });

  it("lists folders with the servers that see them", async () => {
    await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { name: "Files" })]);
      b.api.listFolders.mockResolvedValue([
        folder("r1", { name: "Photos", servers: ["s1"] }),
        folder("r2", { name: "Notes", available: false }),
      ]);
    });
    const rows = all("folder-row");
    expect(rows.map((r) => r.dataset.rootId)).toEqual(["r1", "r2"]);
    expect(rows[0].querySelector('[data-testid="folder-servers"]')?.textContent).toContain("Files");
    expect(rows[1].querySelector('[data-testid="folder-servers"]')?.textContent).toContain("shared with no one");
    expect(rows[1].textContent).toContain("unavailable");
    expect(rows[0].querySelector('[data-testid="folder-path"]')?.textContent).toBe("/home/me/r1");
    expect(q("first-run")).toBeNull();
  });

  it("asks consent with no server ticked, and shares with exactly the ticked one", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([
        prompt(7, {
          name: "proj",
          chosenPath: "/home/me/link",
          warnings: [{ kind: "homeFolder", message: "This is your home folder." }],
          servers: [
            { id: "a", name: "A", granted: false, suggested: false, enforced: false, restarts: false },
            { id: "b", name: "B", granted: false, suggested: false, enforced: false, restarts: false },
          ],
        }),
      ]);
      b.api.answerPrompt.mockResolvedValue(folder("r7"));
    });
    const dialog = q("consent-dialog");
    expect(dialog?.getAttribute("role")).toBe("dialog");
    expect(dialog?.getAttribute("aria-modal")).toBe("true");
    expect(dialog?.textContent).toContain("Share “proj”?");
    expect(q("consent-real-path")?.textContent).toBe("/home/me/folder7");
    expect(q("consent-chosen-path")?.textContent).toContain("/home/me/link");
    expect(all("consent-warning").map((w) => w.textContent?.trim())).toEqual(["This is your home folder."]);
    expect(q("consent-note")?.textContent).toContain("tells a server where to work");
    const boxes = all("consent-server") as HTMLInputElement[];
    expect(boxes.map((b) => b.checked)).toEqual([false, false]);
    expect(q("consent-share")?.textContent?.trim()).toBe("Keep without sharing");
    boxes[1].click();
    flushSync();
    expect(q("consent-share")?.textContent?.trim()).toBe("Share");
    q("consent-share")?.click();
    await settle();
    flushSync();
    expect(api.answerPrompt).toHaveBeenCalledWith(7, ["b"], null);
    expect(q("consent-dialog")).toBeNull();
  });

  it("ticks the current grants when changing access", async () => {
    await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([
        prompt(8, {
          root: "r1",
          servers: [
            { id: "a", name: "A", granted: true, suggested: false, enforced: false, restarts: false },
            { id: "b", name: "B", granted: false, suggested: false, enforced: false, restarts: false },
          ],
        }),
      ]);
    });
    expect((all("consent-server") as HTMLInputElement[]).map((b) => b.checked)).toEqual([true, false]);
  });

  it("cancels consent with Escape", async () => {
    const { api } = await startApp((b) => b.api.openPrompts.mockResolvedValue([prompt(9)]));
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await settle();
    flushSync();
    expect(api.cancelPrompt).toHaveBeenCalledWith(9);
    expect(q("consent-dialog")).toBeNull();
  });

  it("shows a form error for an environment line without '='", async () => {
    const { app, api } = await startApp();
    app.show("servers");
    flushSync();
    q("add-server")?.click();
    flushSync();
    const set = (id: string, v: string) => {
      const el = q(id) as HTMLInputElement | HTMLTextAreaElement;
      el.value = v;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    };
    set("server-name", "Mine");
    set("server-command", "mine");
    set("server-env", "TOKEN");
    flushSync();
    (q("server-form") as HTMLFormElement).requestSubmit();
    flushSync();
    expect(q("server-form-error")?.textContent).toContain("KEY=VALUE");
    expect(api.addServer).not.toHaveBeenCalled();
  });

  it("offers enforcement only where the kernel has it, and says why not", async () => {
    const { app, api } = await startApp((b) =>
      b.api.appInfo.mockResolvedValue({
        version: "0.1.0",
        settingsPath: "/tmp/settings.json",
        recovery: null,
        rootsNote: "note",
        notices: [],
        enforcement: { state: "unavailable", reason: "this Linux kernel does not provide Landlock" },
        cliPath: null,
      }),
    );
    app.show("servers");
    flushSync();
    q("add-server")?.click();
    flushSync();
    const box = q("server-enforce") as HTMLInputElement;
    expect(box.disabled).toBe(true);
    expect(q("server-enforce-help")?.textContent).toContain("does not provide Landlock");
    expect(api.addServer).not.toHaveBeenCalled();
  });

  it("sends the enforcement choice with the server", async () => {
    const { app, api } = await startApp();
    app.show("servers");
    flushSync();
    q("add-server")?.click();
    flushSync();
    const set = (id: string, v: string) => {
      const el = q(id) as HTMLInputElement;
      el.value = v;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    };
    set("server-name", "Held");
    set("server-command", "held-server");
    const box = q("server-enforce") as HTMLInputElement;
    expect(box.disabled).toBe(false);
    box.click();
    flushSync();
    (q("server-form") as HTMLFormElement).requestSubmit();
    flushSync();
    await vi.waitFor(() => expect(api.addServer).toHaveBeenCalled());
    expect(api.addServer.mock.calls[0][0]).toMatchObject({ name: "Held", enforceRoots: true });
  });

  it("shows server rows with their status", async () => {
    const { app } = await startApp((b) =>
      b.api.listServers.mockResolvedValue([
        server("a", {
          name: "Alpha",
          status: {
            state: "running",
            era: "legacy",
            pid: 3,
            protocolVersion: "2025-11-25",
            serverName: "alpha",
            serverVersion: "1",
            capabilities: {},
          },
        }),
        server("b", { name: "Beta", approved: false, status: { state: "failed", reason: "no such file" } }),
      ]),
    );
    app.show("servers");
    flushSync();
    const rows = all("server-row");
    expect(rows.map((r) => r.dataset.serverId)).toEqual(["a", "b"]);
    const status = (r: HTMLElement) => r.querySelector<HTMLElement>('[data-testid="server-status"]');
    expect(status(rows[0])?.dataset.state).toBe("running");
    expect(status(rows[0])?.textContent).toContain("running · alpha · protocol 2025-11-25");
    expect(status(rows[1])?.textContent).toContain("no such file");
    expect(rows[1].textContent).toContain("Needs approval");
    const btn = (r: HTMLElement, id: string) => r.querySelector<HTMLButtonElement>(`[data-testid="${id}"]`);
    expect(btn(rows[0], "server-start")?.disabled).toBe(true);
    expect(btn(rows[0], "server-stop")?.disabled).toBe(false);
    expect(btn(rows[1], "server-start")?.disabled).toBe(false);
    btn(rows[1], "server-start")?.click();
    flushSync();
    expect(q("approval-command")?.textContent).toBe("/bin/srv");
  });
});

describe("a server that takes folders as arguments", () => {
  it("shows the approval the command with the folders filled in", async () => {
    const { app } = await startApp((b) =>
      b.api.listServers.mockResolvedValue([
        server("fs", {
          approved: false,
          commandLine: "npx -y srv ${folders}",
          foldersAsArguments: true,
          resolvedCommandLine: "npx -y srv /home/me/a /home/me/b",
        }),
      ]),
    );
    app.show("servers");
    flushSync();
    all("server-row")[0].querySelector<HTMLButtonElement>('[data-testid="server-start"]')?.click();
    flushSync();
    expect(q("approval-command")?.textContent).toBe("npx -y srv ${folders}");
    expect(q("approval-resolved")?.textContent).toBe("npx -y srv /home/me/a /home/me/b");
  });

  it("says in the approval why it will not start yet", async () => {
    const { app } = await startApp((b) =>
      b.api.listServers.mockResolvedValue([
        server("git", {
          approved: false,
          foldersAsArguments: true,
          waitsFor: "it takes one folder as an argument, and 2 are shared with it: share exactly one",
        }),
      ]),
    );
    app.show("servers");
    flushSync();
    all("server-row")[0].querySelector<HTMLButtonElement>('[data-testid="server-start"]')?.click();
    flushSync();
    expect(q("approval-resolved")).toBeNull();
    expect(q("approval-filled")?.textContent).toContain("will not start yet: it takes one folder");
  });

  it("says nothing of arguments for a server told its folders only as roots", async () => {
    const { app } = await startApp((b) => b.api.listServers.mockResolvedValue([server("plain", { approved: false })]));
    app.show("servers");
    flushSync();
    all("server-row")[0].querySelector<HTMLButtonElement>('[data-testid="server-start"]')?.click();
    flushSync();
    expect(q("approval-command")).not.toBeNull();
    expect(q("approval-filled")).toBeNull();
  });
});

describe("folders a server has not picked up", () => {
  const running = {
    state: "running" as const,
    era: "legacy" as const,
    pid: 3,
    protocolVersion: "2025-11-25",
    serverName: "once",
    serverVersion: "1",
    capabilities: {},
  };

  it("shows on the row, and per folder in the detail with a way to apply", async () => {
    const { app, api } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([
        server("a", {
          name: "Asks once",
          status: running,
          delivery: delivered({ following: "ignores", notPickedUp: 1, told: 1 }),
        }),
      ]);
      b.api.listFolders.mockResolvedValue([
        folder("r1", { name: "Kept", servers: ["a"] }),
        folder("r2", { name: "New", servers: ["a"] }),
      ]);
      b.api.serverFolders.mockResolvedValue([
        { root: "r1", name: "Kept", state: "told" },
        { root: "r2", name: "New", state: "notPickedUp" },
        { root: "r3", name: "Gone", state: "restartedToApply" },
      ]);
    });
    app.show("servers");
    flushSync();
    expect(all("delivery-note").map((n) => n.textContent)).toEqual([
      "does not follow changes",
      "1 folder not picked up yet",
    ]);
    await app.openDetail("a");
    await vi.waitFor(() => expect(app.detailFolders).toHaveLength(3));
    flushSync();
    const items = all("sees-item");
    expect(items.map((i) => i.dataset.state)).toEqual(["told", "notPickedUp", "restartedToApply"]);
    expect(items.map((i) => i.querySelector('[data-testid="folder-state"]')?.textContent)).toEqual([
      "told",
      "not picked up yet",
      "withdrawn · restarted to apply",
    ]);
    expect(q("ignores-changes")?.textContent).toContain("Does not follow changes");
    q("restart-to-apply")?.click();
    await settle();
    expect(api.restartServer).toHaveBeenCalledWith("a");
    api.forgetFollowing.mockResolvedValue(server("a", { name: "Asks once", status: running, delivery: delivered() }));
    q("forget-following")?.click();
    await settle();
    flushSync();
    expect(api.forgetFollowing).toHaveBeenCalledWith("a");
    expect(q("ignores-changes")).toBeNull();
  });
});

describe("queued consent prompts", () => {
  it("shows the next prompt, usable, after the first is cancelled", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([prompt(1), prompt(2)]);
      b.api.answerPrompt.mockResolvedValue(folder("r2"));
    });
    expect(q("consent-dialog")?.textContent).toContain("Folder 1 of 2");
    q("consent-cancel")?.click();
    await settle();
    flushSync();
    expect(q("consent-real-path")?.textContent).toBe("/home/me/folder2");
    expect(q("consent-dialog")?.closest("[inert]")).toBeNull();
    q("consent-share")?.click();
    await settle();
    expect(api.answerPrompt).toHaveBeenCalledWith(2, [], null);
  });
});

describe("views", () => {
  const slot = (view: string) => document.querySelector<HTMLElement>(`[data-view="${view}"]`);

  it("are made when first shown, then kept hidden, with focus on the shown one's heading", async () => {
    const { app } = await startApp((b) => b.api.listFolders.mockResolvedValue([folder("r1")]));
    // At start only the first view is made.
    expect(slot("folders")?.hidden).toBe(false);
    expect(slot("servers")).toBeNull();
    expect(slot("activity")).toBeNull();
    const row = all("folder-row")[0];
    expect(row).toBeDefined();

    app.show("activity");
    flushSync();
    await settle();
    expect(slot("folders")?.hidden).toBe(true);
    expect(slot("activity")?.hidden).toBe(false);
    expect(slot("servers")).toBeNull();
    expect(document.activeElement?.id).toBe("activity-title");

    app.show("folders");
    flushSync();
    await settle();
    expect(slot("activity")?.hidden).toBe(true);
    expect(slot("folders")?.hidden).toBe(false);
    // The same row, not one made again.
    expect(all("folder-row")[0]).toBe(row);
    expect(document.activeElement?.id).toBe("folders-title");
  });

  it("not shown yet are made, hidden, a while after start-up", async () => {
    const { app } = await startApp(() => {}, 10);
    await vi.waitFor(() => expect(slot("connections")).not.toBeNull());
    expect(slot("servers")?.hidden).toBe(true);
    expect(slot("activity")?.hidden).toBe(true);
    expect(slot("connections")?.hidden).toBe(true);
    expect(slot("folders")?.hidden).toBe(false);
    expect(app.view).toBe("folders");
  });
});

describe("the Connections view", () => {
  const running = {
    state: "running" as const,
    era: "legacy" as const,
    pid: 3,
    protocolVersion: "2025-11-25",
    serverName: "example",
    serverVersion: "1",
    capabilities: {},
  };
  const today = (h: number, m: number, sec: number) => {
    const d = new Date();
    d.setHours(h, m, sec, 0);
    return d.getTime();
  };
  const text = (el: Element | null | undefined) => el?.textContent?.replace(/\s+/g, " ").trim();

  async function shown(setup: (b: ReturnType<typeof fakeBackend>) => void = () => {}) {
    const started = await startApp(setup);
    started.app.show("connections");
    flushSync();
    await settle();
    return started;
  }

  it("says how to connect an AI app, with a configured server's name", async () => {
    await shown((b) =>
      b.api.listServers.mockResolvedValue([
        server("x", { name: "Not approved", approved: false }),
        server("e", { name: "Example server" }),
      ]),
    );
    expect(document.activeElement?.id).toBe("connections-title");
    expect(text(q("empty-connections")?.querySelector("h2"))).toBe("No AI app has connected yet");
    expect(q("empty-connections")?.textContent).toContain("in place of the server's own command");
    expect(q("connect-command")?.textContent).toBe("rootgate connect 'Example server'");
    expect(q("connect-json")?.textContent).toBe('"command": "rootgate",\n"args": ["connect", "Example server"]');
    expect(all("connection-row")).toEqual([]);
  });

  it("names the rootgate command by its full path when the app knows it", async () => {
    await shown((b) => {
      b.api.listServers.mockResolvedValue([server("e", { name: "files" })]);
      b.api.appInfo.mockResolvedValue({
        version: "0.1.0",
        settingsPath: "/tmp/settings.json",
        recovery: null,
        rootsNote: "note",
        enforcement: { state: "available" },
        notices: [],
        cliPath: "/usr/bin/rootgate",
      });
    });
    expect(q("connect-command")?.textContent).toBe("/usr/bin/rootgate connect files");
    expect(q("connect-json")?.textContent).toBe('"command": "/usr/bin/rootgate",\n"args": ["connect", "files"]');
  });

  it("says to add a server first when there is none", async () => {
    await shown();
    expect(q("connect-command")).toBeNull();
    expect(q("empty-connections")?.textContent).toContain("rootgate connect NAME");
    expect(q("empty-connections")?.textContent).toContain("Add a server in Servers first");
  });

  it("lists live connections first, each with its app, server, times, status, calls and folders", async () => {
    const { app } = await shown((b) =>
      b.api.listConnections.mockResolvedValue([
        connection("gone", {
          app: null,
          serverName: "Files",
          startedAtMs: today(9, 0, 1),
          live: false,
          endedAtMs: today(9, 30, 2),
          status: running,
          calls: 1,
        }),
        connection("live", {
          serverName: "Example server",
          startedAtMs: today(10, 15, 0),
          status: running,
          calls: 2,
          appRoots: ["file:///home/me/the%20app%20works%20here", "file:///home/me/notes"],
        }),
      ]),
    );
    const rows = all("connection-row");
    expect(rows.map((r) => [r.dataset.connectionId, r.dataset.live])).toEqual([
      ["live", "true"],
      ["gone", "false"],
    ]);
    const inRow = (r: HTMLElement, id: string) => r.querySelector(`[data-testid="${id}"]`);
    expect(text(inRow(rows[0], "connection-app"))).toBe("Claude Code 2.0.1");
    expect(text(inRow(rows[0], "connection-server"))).toBe("Example server");
    expect(text(inRow(rows[0], "connection-when"))).toBe("since 10:15:00 · 2 calls");
    expect(inRow(rows[0], "server-status")?.getAttribute("data-state")).toBe("running");
    expect([...rows[0].querySelectorAll('[data-testid="connection-root"]')].map((p) => p.textContent)).toEqual([
      "/home/me/the app works here",
      "/home/me/notes",
    ]);
    expect(text(inRow(rows[0], "connection-roots"))).toMatch(/^works in /);
    expect(text(inRow(rows[1], "connection-app"))).toBe("An AI app");
    expect(text(inRow(rows[1], "connection-when"))).toBe("since 09:00:01 · ended 09:30:02 · 1 call");
    // A bridge that is gone is not running any more, whatever it said last.
    expect(inRow(rows[1], "server-status")).toBeNull();
    expect(text(inRow(rows[1], "connection-ended"))).toBe("ended");
    expect(inRow(rows[1], "connection-roots")).toBeNull();
    expect(text(document.querySelector("#connections-title + .sub"))).toMatch(/^1 live, 1 ended\. AI apps that reach/);
    expect(text(q("live-connections"))).toBe("1");
    expect(q("live-connections")?.getAttribute("title")).toBe("1 live connection");
    expect(app.connections).toHaveLength(2);
  });

  it("shows a connection as soon as it starts, and as it changes", async () => {
    const { handlers } = await shown();
    expect(q("empty-connections")).not.toBeNull();
    handlers.changes?.([{ kind: "connection", connection: connection("c1", { app: null }) }]);
    flushSync();
    expect(q("empty-connections")).toBeNull();
    expect(text(q("connection-app"))).toBe("An AI app");
    handlers.changes?.([{ kind: "connection", connection: connection("c1", { status: running, calls: 1 }) }]);
    flushSync();
    expect(all("connection-row")).toHaveLength(1);
    expect(text(q("connection-app"))).toBe("Claude Code 2.0.1");
    expect(text(q("connection-calls"))).toBe("1 call");
    handlers.changes?.([
      { kind: "connection", connection: connection("c1", { live: false, endedAtMs: Date.now(), calls: 1 }) },
    ]);
    flushSync();
    expect(text(document.querySelector("#connections-title + .sub"))).toMatch(/^1 ended\. AI apps/);
    expect(q("connection-row")?.dataset.live).toBe("false");
  });

  it("opens a connection's detail from its row, with its facts and timeline, and Back returns to the list", async () => {
    const call = {
      seq: 7,
      atMs: 1_700_000_000_007,
      server: "s1",
      event: { kind: "call" as const, method: "tools/call", target: "list_roots", durationMs: 3, outcome: "ok" },
    };
    const { api, handlers } = await shown((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { name: "Example server" })]);
      b.api.listConnections.mockResolvedValue([
        connection("c1", {
          serverName: "Example server",
          status: running,
          calls: 1,
          appRoots: ["file:///home/me/proj"],
        }),
      ]);
      b.api.connectionTimeline.mockResolvedValue([entry(1), call]);
    });
    const open = q("connection-open") as HTMLButtonElement;
    // A button: Tab reaches it and Enter presses it.
    expect(open.tagName).toBe("BUTTON");
    expect(open.getAttribute("aria-label")).toBe("Open Claude Code 2.0.1 to Example server");
    open.click();
    await settle();
    flushSync();
    expect(api.connectionTimeline).toHaveBeenCalledWith("c1");
    const detail = q("connection-detail");
    expect(detail?.dataset.connectionId).toBe("c1");
    expect(text(detail?.querySelector("h1"))).toBe("Claude Code 2.0.1 to Example server");
    expect(document.activeElement?.id).toBe("connection-title");
    expect(q("server-status")?.dataset.state).toBe("running");
    expect(text(q("connection-calls"))).toBe("1 call");
    expect(text(q("connection-root"))).toBe("/home/me/proj");
    const entries = all("connection-entry");
    expect(entries.map((e) => e.dataset.kind)).toEqual(["spawned", "call"]);
    expect(entries[1].textContent).toContain("The AI app called tools/call “list_roots”: answered in 3 ms.");
    // What happens next shows at once.
    handlers.changes?.([
      {
        kind: "connectionEntry",
        connection: "c1",
        entry: { ...call, seq: 8, event: { ...call.event, target: "ask_roots" } },
      },
    ]);
    flushSync();
    expect(all("connection-entry").map((e) => e.dataset.kind)).toEqual(["spawned", "call", "call"]);

    q("connection-back")?.click();
    flushSync();
    await settle();
    expect(q("connection-detail")).toBeNull();
    expect(all("connection-row")).toHaveLength(1);
    expect(document.activeElement?.id).toBe("connections-title");
  });

  it("goes back to the list with Escape, unless a dialog takes it", async () => {
    const { app } = await shown((b) => b.api.listConnections.mockResolvedValue([connection("c1")]));
    await app.openConnection("c1");
    flushSync();
    expect(q("connection-detail")).not.toBeNull();
    app.enqueuePrompts([prompt(4)]);
    flushSync();
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await settle();
    flushSync();
    // The dialog was cancelled; the detail stays.
    expect(q("consent-dialog")).toBeNull();
    expect(q("connection-detail")).not.toBeNull();
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    flushSync();
    await settle();
    expect(q("connection-detail")).toBeNull();
    expect(app.connection).toBeNull();
    expect(all("connection-row")).toHaveLength(1);
  });

  it("opens with Ctrl+4 from the sidebar's list of views", async () => {
    const { app } = await startApp();
    const nav = q("nav-connections");
    expect(nav?.getAttribute("title")).toBe("Connections (Ctrl+4)");
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "4", ctrlKey: true, bubbles: true }));
    flushSync();
    await settle();
    expect(app.view).toBe("connections");
    expect(nav?.getAttribute("aria-current")).toBe("page");
    expect(document.activeElement?.id).toBe("connections-title");
  });
});

describe("a folder an AI app works in", () => {
  it("is asked in plain words, with the app's server ticked and the others not", async () => {
    const { api } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("a", { name: "Files" }), server("b", { name: "Example server" })]);
      b.api.openPrompts.mockResolvedValue([
        prompt(11, {
          name: "the app works here",
          realPath: "/home/me/the app works here",
          warnings: [{ kind: "homeFolder", message: "This is your home folder." }],
          servers: [
            { id: "a", name: "Files", granted: false, suggested: false, enforced: false, restarts: false },
            { id: "b", name: "Example server", granted: false, suggested: true, enforced: false, restarts: false },
          ],
          suggestion: { app: "Claude Code", server: "b", serverName: "Example server", imported: false },
        }),
      ]);
      b.api.answerPrompt.mockResolvedValue(folder("r11"));
    });
    const dialog = q("consent-dialog");
    expect(dialog?.querySelector("h2")?.textContent).toBe(
      "Claude Code is working in “the app works here”. Share it with Example server?",
    );
    expect(dialog?.textContent).toContain("Suggested folder");
    expect(q("consent-suggestion")?.textContent).toContain("nothing is shared until you choose Share");
    expect(q("consent-real-path")?.textContent).toBe("/home/me/the app works here");
    // What stays as for any folder: the warnings, the note, Share and Cancel.
    expect(all("consent-warning").map((w) => w.textContent?.trim())).toEqual(["This is your home folder."]);
    expect(q("consent-note")?.textContent).toContain("tells a server where to work");
    expect(q("consent-cancel")).not.toBeNull();
    const boxes = all("consent-server") as HTMLInputElement[];
    expect(boxes.map((b) => [b.dataset.serverId, b.checked])).toEqual([
      ["a", false],
      ["b", true],
    ]);
    expect(q("consent-share")?.textContent?.trim()).toBe("Share");
    q("consent-share")?.click();
    await settle();
    expect(api.answerPrompt).toHaveBeenCalledWith(11, ["b"], null);
  });

  it("names “An AI app” when the app gave no name, and can be unticked", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([
        prompt(12, {
          servers: [{ id: "b", name: "Example server", granted: false, suggested: true, enforced: false, restarts: false }],
          suggestion: { app: "", server: "b", serverName: "Example server", imported: false },
        }),
      ]);
    });
    expect(q("consent-dialog")?.querySelector("h2")?.textContent).toBe(
      "An AI app is working in “folder12”. Share it with Example server?",
    );
    const box = q("consent-server") as HTMLInputElement;
    box.click();
    flushSync();
    expect(q("consent-share")?.textContent?.trim()).toBe("Keep without sharing");
    q("consent-cancel")?.click();
    await settle();
    expect(api.cancelPrompt).toHaveBeenCalledWith(12);
  });
});
