import { createRawSnippet, flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";
import App from "../App.svelte";
import { AppState } from "../lib/state/app.svelte";
import { connection, delivered, entry, fakeBackend, folder, folderChoice, prompt, server, settle } from "../lib/testing";
import VirtualList from "./common/VirtualList.svelte";

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
    await app.nav.openDetail("s1");
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
          warnings: [{ kind: "holdsSecrets", names: [".env"], message: "This folder holds secrets: .env." }],
          servers: [
            { id: "a", name: "A", granted: false, suggested: false, enforced: false, restarts: false, connected: [] },
            { id: "b", name: "B", granted: false, suggested: false, enforced: false, restarts: false, connected: [] },
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
    expect(all("consent-warning").map((w) => w.textContent?.trim())).toEqual(["This folder holds secrets: .env."]);
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
            { id: "a", name: "A", granted: true, suggested: false, enforced: false, restarts: false, connected: [] },
            { id: "b", name: "B", granted: false, suggested: false, enforced: false, restarts: false, connected: [] },
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

  it("shows a form error for an environment variable with a space in its name", async () => {
    const { app, api } = await startApp();
    app.nav.show("servers");
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
    q("env-add")?.click();
    flushSync();
    set("env-name-0", "MY TOKEN");
    flushSync();
    (q("server-form") as HTMLFormElement).requestSubmit();
    flushSync();
    expect(q("server-form-error")?.textContent).toContain("cannot contain spaces");
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
    app.nav.show("servers");
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
    app.nav.show("servers");
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
    app.nav.show("servers");
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
    app.nav.show("servers");
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
    app.nav.show("servers");
    flushSync();
    all("server-row")[0].querySelector<HTMLButtonElement>('[data-testid="server-start"]')?.click();
    flushSync();
    expect(q("approval-resolved")).toBeNull();
    expect(q("approval-filled")?.textContent).toContain("will not start yet: it takes one folder");
  });

  it("says nothing of arguments for a server told its folders only as roots", async () => {
    const { app } = await startApp((b) => b.api.listServers.mockResolvedValue([server("plain", { approved: false })]));
    app.nav.show("servers");
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
    app.nav.show("servers");
    flushSync();
    expect(all("delivery-note").map((n) => n.textContent)).toEqual([
      "does not follow changes",
      "1 folder not picked up yet",
    ]);
    await app.nav.openDetail("a");
    await vi.waitFor(() => expect(app.detail.folders).toHaveLength(3));
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

    app.nav.show("activity");
    flushSync();
    await settle();
    expect(slot("folders")?.hidden).toBe(true);
    expect(slot("activity")?.hidden).toBe(false);
    expect(slot("servers")).toBeNull();
    expect(document.activeElement?.id).toBe("activity-title");

    app.nav.show("folders");
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
    expect(app.nav.view).toBe("folders");
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
    started.app.nav.show("connections");
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
    expect(app.connections.list).toHaveLength(2);
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

  it("shows the app's request that waits for the server, in the row and the detail, until it is answered", async () => {
    const waiting = { method: "tools/call", target: "read_text_file", sinceMs: today(10, 15, 2) };
    const { app, handlers } = await shown((b) =>
      b.api.listConnections.mockResolvedValue([connection("c1", { serverName: "Files", waiting })]),
    );
    expect(text(q("connection-waiting"))).toBe("tools/call “read_text_file” waits for the server since 10:15:02");
    await app.nav.openConnection("c1");
    flushSync();
    const fact = q("connection-detail")?.querySelector('[data-testid="connection-waiting"]');
    expect(fact?.textContent).toContain("tools/call “read_text_file” waits for the server since 10:15:02.");
    expect(fact?.textContent).toContain("held until Files is ready");
    // Answered: nothing waits any more.
    handlers.changes?.([{ kind: "connection", connection: connection("c1", { serverName: "Files", waiting: null }) }]);
    flushSync();
    expect(q("connection-waiting")).toBeNull();
    // A bridge that is gone holds nothing, whatever it said last.
    app.nav.closeConnection();
    handlers.changes?.([
      { kind: "connection", connection: connection("c1", { live: false, endedAtMs: Date.now(), waiting }) },
    ]);
    flushSync();
    expect(q("connection-waiting")).toBeNull();
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
    await app.nav.openConnection("c1");
    flushSync();
    expect(q("connection-detail")).not.toBeNull();
    app.prompts.enqueue([prompt(4)]);
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
    expect(app.nav.connection).toBeNull();
    expect(all("connection-row")).toHaveLength(1);
  });

  it("opens with Ctrl+4 from the sidebar's list of views", async () => {
    const { app } = await startApp();
    const nav = q("nav-connections");
    expect(nav?.getAttribute("title")).toBe("Connections (Ctrl+4)");
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "4", ctrlKey: true, bubbles: true }));
    flushSync();
    await settle();
    expect(app.nav.view).toBe("connections");
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
          warnings: [{ kind: "holdsSecrets", names: [".env"], message: "This folder holds secrets: .env." }],
          servers: [
            { id: "a", name: "Files", granted: false, suggested: false, enforced: false, restarts: false, connected: [] },
            { id: "b", name: "Example server", granted: false, suggested: true, enforced: false, restarts: false, connected: [] },
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
    expect(all("consent-warning").map((w) => w.textContent?.trim())).toEqual(["This folder holds secrets: .env."]);
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
          servers: [{ id: "b", name: "Example server", granted: false, suggested: true, enforced: false, restarts: false, connected: [] }],
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

// ----- trust and consent (#20) ---------------------------------------------

const RUNNING = {
  state: "running" as const,
  era: "legacy" as const,
  pid: 3,
  protocolVersion: "2025-11-25",
  serverName: "srv",
  serverVersion: "1",
  capabilities: {},
};
const choice = (id: string, over: Partial<import("../lib/bindings").ServerChoice> = {}) => ({
  id,
  name: id.toUpperCase(),
  granted: false,
  suggested: false,
  enforced: false,
  restarts: false,
  connected: [] as string[],
  ...over,
});

describe("a name with a hidden character", () => {
  const sly = "invoice\u202Efdp.exe";

  it("is written out in the consent prompt's title, folder box and name field, never shown raw", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([
        prompt(30, {
          // The core writes the default name out; the real path holds the character.
          name: "invoice<U+202E>fdp.exe",
          realPath: `/home/me/${sly}`,
          warnings: [
            {
              kind: "hiddenCharacters",
              shown: "invoice<U+202E>fdp.exe",
              message: "A name on this path holds invisible characters. Written out, it is \"invoice<U+202E>fdp.exe\".",
            },
          ],
        }),
      ]);
      b.api.answerPrompt.mockResolvedValue(folder("r30"));
    });
    const dialog = q("consent-dialog")!;
    const h2 = dialog.querySelector("h2")!;
    expect(h2.textContent).toBe("Share “invoice<U+202E>fdp.exe”?");
    expect(h2.querySelector("bdi .hidden-char")?.textContent).toBe("<U+202E>");
    expect(q("consent-real-path")?.textContent).toBe("/home/me/invoice<U+202E>fdp.exe");
    expect(q("consent-real-path")?.querySelector(".hidden-char")?.getAttribute("title")).toMatch(/RIGHT-TO-LEFT OVERRIDE/);
    expect((q("consent-name") as HTMLInputElement).value).toBe("invoice<U+202E>fdp.exe");
    expect(q("consent-name-shown")?.textContent).toContain("invoice<U+202E>fdp.exe");
    expect(all("consent-warning")[0].querySelector(".hidden-char")).not.toBeNull();
    // Nothing in the dialog holds the raw character.
    expect(dialog.textContent).not.toContain("\u202E");
    q("consent-share")?.click();
    await settle();
    expect(api.answerPrompt).toHaveBeenCalledWith(30, [], null);
  });

  it("kept from before, is proposed written out, so the name sent is one that could be typed", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([prompt(31, { name: sly, realPath: `/home/me/${sly}` })]);
      b.api.answerPrompt.mockResolvedValue(folder("r31"));
    });
    expect((q("consent-name") as HTMLInputElement).value).toBe("invoice<U+202E>fdp.exe");
    q("consent-share")?.click();
    await settle();
    expect(api.answerPrompt).toHaveBeenCalledWith(31, [], "invoice<U+202E>fdp.exe");
  });

  it("typed into the name field, is written out under it and called refused", async () => {
    await startApp((b) => b.api.openPrompts.mockResolvedValue([prompt(32)]));
    const input = q("consent-name") as HTMLInputElement;
    input.value = "a\u202Eb";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    expect(q("consent-name-shown")?.textContent).toContain("a<U+202E>b");
    expect(q("consent-name-shown")?.textContent).toContain("refused");
  });

  it("is written out on the folder's row, with a marker, in its name, path and tooltips", async () => {
    await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { name: "Fi\u200Bles" })]);
      b.api.listFolders.mockResolvedValue([
        folder("r1", { name: "invoice<U+202E>fdp.exe", realPath: `/home/me/${sly}`, chosenPath: `/home/me/${sly}`, servers: ["s1"] }),
        folder("r2", { name: "plain" }),
      ]);
    });
    const [row, plain] = all("folder-row");
    expect(row.querySelector('[data-testid="folder-name"]')?.textContent).toBe("invoice<U+202E>fdp.exe");
    const path = row.querySelector<HTMLElement>('[data-testid="folder-path"]')!;
    expect(path.textContent).toBe("/home/me/invoice<U+202E>fdp.exe");
    expect(path.getAttribute("title")).toBe("/home/me/invoice<U+202E>fdp.exe");
    expect(path.getAttribute("dir")).toBe("ltr");
    expect(path.querySelector(".hidden-char")).not.toBeNull();
    const marker = row.querySelector('[data-testid="folder-hidden-marker"]');
    expect(marker?.getAttribute("title")).toBe("This name holds hidden characters");
    expect(marker?.getAttribute("aria-label")).toBe("This name holds hidden characters");
    expect(row.querySelector('[data-testid="folder-servers"]')?.textContent).toContain("Fi<U+200B>les");
    expect(row.querySelector('[data-testid="folder-rename"]')?.getAttribute("aria-label")).toBe("Rename invoice<U+202E>fdp.exe");
    expect(row.textContent).not.toMatch(/[\u202E\u200B]/);
    expect(plain.querySelector('[data-testid="folder-hidden-marker"]')).toBeNull();
    expect(plain.querySelector('[data-testid="folder-path"] bdi')).toBeNull();
  });
});

describe("the consent prompt's servers", () => {
  it("marks the kernel-enforced ones, and does not say they are not locked in", async () => {
    await startApp((b) =>
      b.api.openPrompts.mockResolvedValue([prompt(40, { servers: [choice("a", { enforced: true, restarts: true, connected: [] })] })]),
    );
    expect(all("consent-enforced")).toHaveLength(1);
    expect(all("consent-enforced")[0].textContent).toContain("kernel-enforced");
    expect(q("consent-note")?.textContent).toMatch(/the kernel holds this server to the folders shared with it/);
    expect(q("consent-note")?.textContent).not.toMatch(/does not lock/);
  });

  it("says which are enforced when only some are", async () => {
    await startApp((b) =>
      b.api.openPrompts.mockResolvedValue([prompt(41, { servers: [choice("a", { enforced: true }), choice("b")] })]),
    );
    expect(all("consent-choice").map((c) => c.querySelector('[data-testid="consent-enforced"]') !== null)).toEqual([
      true,
      false,
    ]);
    expect(q("consent-note")?.textContent).toMatch(/The others are not locked in/);
  });

  it("says that sharing restarts a running server that takes a restart, once it is ticked", async () => {
    await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("a", { name: "A", status: RUNNING }), server("b", { name: "B" })]);
      b.api.openPrompts.mockResolvedValue([
        prompt(42, { servers: [choice("a", { restarts: true, enforced: true }), choice("b", { restarts: true, connected: [] })] }),
      ]);
    });
    // B is not running: nothing to restart.
    expect(all("consent-restarts").map((r) => r.textContent)).toEqual(["sharing restarts it"]);
    expect(q("consent-restart-hint")).toBeNull();
    (all("consent-server")[0] as HTMLInputElement).click();
    flushSync();
    expect(all("consent-restarts").map((r) => r.textContent)).toEqual(["restarts it"]);
    expect(q("consent-restart-hint")?.textContent).toBe("This restarts A, which is running.");
  });

  it("leaves Share disabled while nothing would change, and enables it for another choice or name", async () => {
    await startApp((b) =>
      b.api.openPrompts.mockResolvedValue([
        prompt(43, { root: "r1", servers: [choice("a", { granted: true }), choice("b")] }),
      ]),
    );
    const shareButton = q("consent-share") as HTMLButtonElement;
    expect(shareButton.disabled).toBe(true);
    expect(q("consent-hint")?.textContent?.trim()).toBe("No change to who sees it.");
    const b = all("consent-server")[1] as HTMLInputElement;
    b.click();
    flushSync();
    expect(shareButton.disabled).toBe(false);
    b.click();
    flushSync();
    expect(shareButton.disabled).toBe(true);
    const input = q("consent-name") as HTMLInputElement;
    input.value = "renamed";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    expect(shareButton.disabled).toBe(false);
    expect(shareButton.textContent?.trim()).toBe("Save name");
  });
});

describe("the consent prompt's warnings", () => {
  it("are one banner for several nested folders, listing them", async () => {
    await startApp((b) =>
      b.api.openPrompts.mockResolvedValue([
        prompt(50, {
          warnings: ["/home/me/p/a", "/home/me/p/b", "/home/me/p/c"].map((root) => ({
            kind: "contains" as const,
            root,
            message: `This folder contains the shared folder "${root}".`,
          })),
        }),
      ]),
    );
    const banners = all("consent-warning");
    expect(banners).toHaveLength(1);
    expect(banners[0].textContent).toContain("This folder contains 3 shared folders");
    expect([...banners[0].querySelectorAll("code")].map((c) => c.textContent)).toEqual([
      "/home/me/p/a",
      "/home/me/p/b",
      "/home/me/p/c",
    ]);
  });

  it("report a link once: the chosen path and the real one, each once, not again as a warning", async () => {
    await startApp((b) =>
      b.api.openPrompts.mockResolvedValue([
        prompt(51, {
          name: "work",
          realPath: "/srv/x/2026",
          chosenPath: "/home/me/work",
          warnings: [
            { kind: "symlink", chosen: "/home/me/work", real: "/srv/x/2026", message: '"/home/me/work" is a link; the folder shared is "/srv/x/2026".' },
          ],
        }),
      ]),
    );
    const dialog = q("consent-dialog")!;
    expect(all("consent-warning")).toHaveLength(0);
    expect(dialog.textContent?.split("/home/me/work")).toHaveLength(2);
    expect(dialog.textContent?.split("/srv/x/2026")).toHaveLength(2);
    expect((q("consent-name") as HTMLInputElement).value).toBe("work");
    expect(dialog.querySelector("h2")?.textContent).toBe("Share “work”?");
  });

  it("for the whole home folder, look stronger and take a second confirmation before sharing", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([
        prompt(52, {
          realPath: "/home/me",
          warnings: [
            { kind: "holdsSecrets", names: [".ssh"], message: "This folder holds secrets a server could read: .ssh." },
            { kind: "homeFolder", message: "This is your entire home folder, including documents, keys and settings." },
          ],
          servers: [choice("a")],
        }),
      ]);
      b.api.answerPrompt.mockResolvedValue(folder("r52"));
    });
    const banners = all("consent-warning");
    expect(banners.map((w) => [w.dataset.kind, w.classList.contains("severe")])).toEqual([
      ["homeFolder", true],
      ["holdsSecrets", false],
    ]);
    (q("consent-server") as HTMLInputElement).click();
    flushSync();
    expect(q("consent-share")?.textContent?.trim()).toBe("Share…");
    q("consent-share")?.click();
    await settle();
    flushSync();
    expect(q("confirm-dialog")?.textContent).toContain("Share your whole home folder?");
    expect(q("confirm-dialog")?.textContent).toContain("A would be told it may work in /home/me");
    q("confirm-cancel")?.click();
    await settle();
    flushSync();
    expect(api.answerPrompt).not.toHaveBeenCalled();
    expect(q("consent-dialog")).not.toBeNull();
    q("consent-share")?.click();
    await settle();
    flushSync();
    q("confirm-ok")?.click();
    await settle();
    expect(api.answerPrompt).toHaveBeenCalledWith(52, ["a"], null);
  });

  it("for the whole home folder, shared with no one, take no second confirmation", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([
        prompt(53, { warnings: [{ kind: "homeFolder", message: "home" }], servers: [choice("a")] }),
      ]);
      b.api.answerPrompt.mockResolvedValue(folder("r53"));
    });
    q("consent-share")?.click();
    await settle();
    expect(q("confirm-dialog")).toBeNull();
    expect(api.answerPrompt).toHaveBeenCalledWith(53, [], null);
  });
});

describe("the consent prompts' counter", () => {
  it("counts on after a cancel and an answer, instead of renumbering", async () => {
    await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([prompt(61), prompt(62), prompt(63)]);
      b.api.answerPrompt.mockResolvedValue(folder("r62"));
    });
    const eyebrow = () => q("consent-dialog")?.querySelector(".eyebrow")?.textContent;
    expect(eyebrow()).toBe("Folder 1 of 3");
    q("consent-cancel")?.click();
    await settle();
    flushSync();
    expect(eyebrow()).toBe("Folder 2 of 3");
    q("consent-share")?.click();
    await settle();
    flushSync();
    expect(eyebrow()).toBe("Folder 3 of 3");
  });

  it("starts again for the next batch", async () => {
    const { app } = await startApp((b) => b.api.openPrompts.mockResolvedValue([prompt(64), prompt(65)]));
    q("consent-cancel")?.click();
    await settle();
    q("consent-cancel")?.click();
    await settle();
    flushSync();
    expect(q("consent-dialog")).toBeNull();
    app.prompts.enqueue([prompt(66)]);
    flushSync();
    expect(q("consent-dialog")?.querySelector(".eyebrow")?.textContent).toBe("New folder");
  });
});

describe("an unavailable folder", () => {
  it("does not count as shared, and its servers are struck with why", async () => {
    await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { name: "Files" })]);
      b.api.listFolders.mockResolvedValue([
        folder("r1", { name: "Here", servers: ["s1"] }),
        folder("r2", { name: "Gone", servers: ["s1"], available: false }),
      ]);
    });
    expect(document.querySelector("#folders-title + .sub")?.textContent?.replace(/\s+/g, " ").trim()).toMatch(
      /^2 folders, 1 shared with a server, 1 not available\./,
    );
    const [here, gone] = all("folder-row");
    expect(here.querySelector(".chip.struck")).toBeNull();
    expect(here.querySelector('[data-testid="folder-off-note"]')).toBeNull();
    expect(gone.querySelector(".chip.struck")?.textContent).toBe("Files");
    expect(gone.querySelector('[data-testid="folder-off-note"]')?.textContent).toBe("not available; no server sees it now");
    expect(gone.querySelector('[data-testid="folder-servers"]')?.getAttribute("title")).toMatch(/no server sees it now/);
  });
});

describe("the approval dialog", () => {
  it("shows an edited running server's approved and new commands, the changed words marked", async () => {
    const { app } = await startApp((b) =>
      b.api.listServers.mockResolvedValue([
        server("s", {
          name: "Git",
          status: RUNNING,
          approvedCommand: "uvx mcp-server-git==1.0.0 --repository /home/me/a",
          commandLine: "uvx mcp-server-git==1.1.0 --repository /home/me/a --read-only",
          approved: false,
        }),
      ]),
    );
    app.servers.approval = app.servers.list[0];
    flushSync();
    const dialog = q("approval-dialog")!;
    expect(dialog.querySelector("h2")?.textContent).toBe("Run the changed command?");
    expect(q("approval-previous")?.textContent).toBe("uvx mcp-server-git==1.0.0 --repository /home/me/a");
    expect(q("approval-command")?.textContent).toBe("uvx mcp-server-git==1.1.0 --repository /home/me/a --read-only");
    expect([...q("approval-previous")!.querySelectorAll("del")].map((d) => d.textContent)).toEqual(["mcp-server-git==1.0.0"]);
    expect([...q("approval-command")!.querySelectorAll("ins")].map((d) => d.textContent)).toEqual([
      "mcp-server-git==1.1.0",
      "--read-only",
    ]);
    expect(q("approval-keeps")?.textContent).toBe("It keeps running its approved command until you approve this one.");
    expect(q("approval-approve")?.textContent?.trim()).toBe("Approve and restart");
    // A long path may wrap after each "/", not inside a name; the text stays the line.
    expect(q("approval-command")?.querySelectorAll("wbr").length).toBe(3);
  });

  it("for a stopped server, says it does not start until then", async () => {
    const { app } = await startApp();
    app.servers.approval = server("s", { approvedCommand: "/bin/srv --old", commandLine: "/bin/srv --new", approved: false });
    flushSync();
    expect(q("approval-keeps")?.textContent).toBe("It does not start until you approve this one.");
    expect(q("approval-approve")?.textContent?.trim()).toBe("Approve and run");
  });

  it("shows one command, no comparison, for a first approval", async () => {
    const { app } = await startApp();
    app.servers.approval = server("s", { approvedCommand: null, approved: false });
    flushSync();
    expect(q("approval-compare")).toBeNull();
    expect(q("approval-command")?.textContent).toBe("/bin/srv");
    expect(q("approval-download")).toBeNull();
  });

  it("says plainly that an unpinned command downloads whatever the registry serves next", async () => {
    const { app } = await startApp();
    app.servers.approval = server("s", {
      approvedCommand: null,
      approved: false,
      commandLine: "npx -y @scope/pkg",
      downloads: { tool: "npx", package: "@scope/pkg", pinned: false },
    });
    flushSync();
    const box = q("approval-download")!;
    expect(box.dataset.pinned).toBe("false");
    const text = (id: string) => q(id)?.textContent?.replace(/\s+/g, " ").trim();
    expect(text("approval-download-lead")).toBe(
      "This command downloads @scope/pkg from the npm registry each time it starts (npx).",
    );
    expect(text("approval-download-status")).toBe(
      "Not pinned: approving it approves whatever version the registry serves next time. Pin it as @scope/pkg@x.y.z to approve one version.",
    );
  });

  it("says a pinned download is covered for that version only", async () => {
    const { app } = await startApp();
    app.servers.approval = server("s", {
      approvedCommand: null,
      approved: false,
      commandLine: "npx -y @scope/pkg@2026.8.31",
      downloads: { tool: "npx", package: "@scope/pkg@2026.8.31", pinned: true },
    });
    flushSync();
    expect(q("approval-download")?.dataset.pinned).toBe("true");
    expect(q("approval-download-status")?.textContent?.replace(/\s+/g, " ").trim()).toBe(
      "Pinned to 2026.8.31: approving covers that version only.",
    );
  });
});

describe("everyday use", () => {
  const key = (k: string, over: KeyboardEventInit = {}) =>
    window.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true, ...over }));
  const text = (el: Element | null | undefined) => el?.textContent?.replace(/\s+/g, " ").trim();
  const failed = { state: "failed" as const, reason: "the command exited at once (exit code 1) without speaking MCP" };

  it("gives a server several folders from its detail's checklist in one save, warnings and unavailable ones shown", async () => {
    const { app, api } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { name: "Files" })]);
      b.api.listFolders.mockResolvedValue([folder("r1"), folder("r2"), folder("r3", { available: false })]);
      b.api.folderChoices.mockResolvedValue([
        folderChoice("r1", { warnings: [{ kind: "homeFolder", message: "This is your whole home folder." }] }),
        folderChoice("r2"),
        folderChoice("r3", { available: false }),
      ]);
      b.api.setServerFolders.mockResolvedValue(server("s1", { name: "Files" }));
    });
    await app.nav.openDetail("s1");
    flushSync();
    expect(text(q("sees-none"))).toContain("Choose from the 3 folders in Rootgate");
    q("choose-folders")?.click();
    flushSync();
    await settle();
    flushSync();
    expect(api.folderChoices).toHaveBeenCalledWith("s1");
    const dialog = q("folder-checklist")!;
    expect(text(dialog.querySelector("h2"))).toBe("Folders “Files” may see");
    const boxes = all("checklist-folder") as HTMLInputElement[];
    expect(boxes.map((b) => b.dataset.rootId)).toEqual(["r1", "r2", "r3"]);
    expect(boxes.map((b) => b.checked)).toEqual([false, false, false]);
    // Focus is on the first folder once the list is there.
    expect(document.activeElement).toBe(boxes[0]);
    expect(text(q("checklist-warning"))).toBe("This is your whole home folder.");
    expect(q("checklist-warning")?.dataset.kind).toBe("homeFolder");
    // An unavailable folder not given yet cannot be ticked.
    expect(boxes[2].disabled).toBe(true);
    expect(all("checklist-unavailable")).toHaveLength(1);
    const saveButton = q("checklist-save") as HTMLButtonElement;
    expect(saveButton.disabled).toBe(true);
    boxes[0].click();
    boxes[1].click();
    flushSync();
    expect(text(q("checklist-summary"))).toBe("2 to share.");
    expect(saveButton.disabled).toBe(false);
    (dialog.querySelector("form") as HTMLFormElement).requestSubmit();
    await settle();
    flushSync();
    expect(api.setServerFolders).toHaveBeenCalledTimes(1);
    expect(api.setServerFolders).toHaveBeenCalledWith("s1", ["r1", "r2"]);
    expect(q("folder-checklist")).toBeNull();
    expect(all("sees-item").map((i) => i.querySelector(".sees-name")?.textContent)).toEqual(["Folder r1", "Folder r2"]);
  });

  it("says so when a server has no folder to choose from, and offers Add folder…", async () => {
    const { app, api } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { name: "Files" })]);
    });
    await app.nav.openDetail("s1");
    flushSync();
    expect(q("choose-folders")).toBeNull();
    expect(text(q("sees-none"))).toContain("there is no folder in Rootgate yet");
    app.servers.openChecklist("s1", true);
    flushSync();
    await settle();
    flushSync();
    expect(text(q("folder-checklist")?.querySelector("h2"))).toBe("Which folders may “Files” see?");
    expect(q("checklist-empty")).not.toBeNull();
    expect(q("checklist-save")).toBeNull();
    q("checklist-add-folder")?.click();
    flushSync();
    await settle();
    expect(q("folder-checklist")).toBeNull();
    expect(api.pickFolders).toHaveBeenCalled();
  });

  it("shows a pending retry counting down on the row and the detail, with Stop retrying instead of Start", async () => {
    const { app, api, handlers } = await startApp((b) =>
      b.api.listServers.mockResolvedValue([server("s1", { name: "Crashy", status: failed })]),
    );
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      vi.setSystemTime(1_700_000_000_000);
      const retry = { atMs: 1_700_000_006_000, attempt: 4, of: 5 };
      const b = { api };
      handlers.changes?.([{ kind: "retry", server: "s1", retry }]);
      app.nav.show("servers");
      flushSync();
      const row = all("server-row")[0];
      const status = () => row.querySelector<HTMLElement>('[data-testid="server-status"]')!;
      expect(status().dataset.state).toBe("retrying");
      expect(text(q("server-retry"))).toBe("retrying in 6 s · 4 of 5");
      expect(text(status())).toContain("It failed: the command exited at once");
      expect(row.classList.contains("failed")).toBe(false);
      expect((row.querySelector('[data-testid="server-start"]') as HTMLButtonElement).disabled).toBe(true);
      await vi.advanceTimersByTimeAsync(1_010);
      flushSync();
      expect(text(q("server-retry"))).toBe("retrying in 5 s · 4 of 5");
      await vi.advanceTimersByTimeAsync(2_000);
      flushSync();
      expect(text(q("server-retry"))).toBe("retrying in 3 s · 4 of 5");

      // Hidden (another view shown), it does not tick.
      app.nav.show("folders");
      flushSync();
      const pending = vi.getTimerCount();
      await vi.advanceTimersByTimeAsync(2_000);
      expect(vi.getTimerCount()).toBeLessThanOrEqual(pending);
      app.nav.show("servers");
      flushSync();
      await vi.advanceTimersByTimeAsync(0);
      flushSync();
      expect(text(q("server-retry"))).toBe("retrying in 1 s · 4 of 5");

      (row.querySelector('[data-testid="server-stop-retrying"]') as HTMLButtonElement).click();
      await vi.advanceTimersByTimeAsync(0);
      flushSync();
      expect(b.api.stopRetrying).toHaveBeenCalledWith("s1");
      expect(q("server-retry")).toBeNull();
      expect(status().dataset.state).toBe("failed");
      expect(text(q("server-gave-up"))).toBe("Not restarted again, as you asked; start it when ready.");
      expect((row.querySelector('[data-testid="server-start"]') as HTMLButtonElement).disabled).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it("says a server Rootgate gave up on waits for you, with its attempts", async () => {
    const { app, handlers } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { name: "Crashy", status: failed, gaveUp: true })]);
    });
    handlers.timeline?.([{ ...entry(1), event: { kind: "gaveUp", attempts: 5 } }]);
    app.nav.show("servers");
    flushSync();
    expect(text(q("server-gave-up"))).toBe("Gave up after 5 attempts; start it when ready.");
    await app.nav.openDetail("s1");
    flushSync();
    expect(text(q("server-detail")?.querySelector('[data-testid="server-gave-up"]'))).toBe(
      "Gave up after 5 attempts; start it when ready.",
    );
  });

  it("goes back to the list from a detail with Escape, Alt+Left, Ctrl+2 and the sidebar's Servers item", async () => {
    const { app } = await startApp((b) => b.api.listServers.mockResolvedValue([server("s1"), server("s2")]));
    app.nav.show("servers");
    flushSync();
    const open = async () => {
      (all("server-row")[0].querySelector('[data-testid="server-open"]') as HTMLButtonElement).click();
      flushSync();
      await settle();
      expect(q("server-detail")).not.toBeNull();
    };
    await open();
    key("Escape");
    flushSync();
    await settle();
    expect(q("server-detail")).toBeNull();
    expect(document.activeElement?.id).toBe("servers-title");
    await open();
    key("ArrowLeft", { altKey: true });
    flushSync();
    await settle();
    expect(q("server-detail")).toBeNull();
    await open();
    key("2", { ctrlKey: true });
    flushSync();
    await settle();
    expect(q("server-detail")).toBeNull();
    await open();
    q("nav-servers")?.click();
    flushSync();
    await settle();
    expect(q("server-detail")).toBeNull();
    expect(all("server-row")).toHaveLength(2);
    // Alt+Left goes back generally: from Activity to the list, then the detail before it.
    app.nav.show("activity");
    flushSync();
    key("ArrowLeft", { altKey: true });
    flushSync();
    await settle();
    expect(app.nav.view).toBe("servers");
    expect(q("server-detail")).toBeNull();
    key("ArrowLeft", { altKey: true });
    flushSync();
    await settle();
    expect(q("server-detail")).not.toBeNull();
  });

  it("leaves Escape to a search box with text, and to a dialog", async () => {
    const { app } = await startApp((b) => b.api.listServers.mockResolvedValue([server("s1")]));
    await app.nav.openDetail("s1");
    flushSync();
    const input = document.createElement("input");
    input.type = "search";
    input.value = "abc";
    q("server-detail")?.appendChild(input);
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    flushSync();
    expect(q("server-detail")).not.toBeNull();
    app.shortcutsOpen = true;
    flushSync();
    key("Escape");
    flushSync();
    await settle();
    expect(q("shortcuts-dialog")).toBeNull();
    expect(q("server-detail")).not.toBeNull();
  });

  it("opens the shortcuts sheet with ? and from the help button, listing the window's shortcuts", async () => {
    await startApp();
    key("?", { shiftKey: true });
    flushSync();
    const sheet = q("shortcuts-dialog");
    expect(sheet).not.toBeNull();
    const keys = all("shortcut").map((s) => s.dataset.keys);
    expect(keys).toEqual(expect.arrayContaining(["Ctrl+1", "Ctrl+2", "Ctrl+5", "Ctrl+O", "Alt+← or Mouse back button", "? or F1"]));
    expect(text(sheet)).toContain("Switch between Timeline and Log");
    key("Escape");
    flushSync();
    await settle();
    expect(q("shortcuts-dialog")).toBeNull();
    q("shortcuts-button")?.click();
    flushSync();
    expect(q("shortcuts-dialog")).not.toBeNull();
    q("shortcuts-close")?.click();
    flushSync();
    expect(q("shortcuts-dialog")).toBeNull();
  });

  it("in a narrow window, shows the sidebar as icons with labels and row actions in a keyboard menu", async () => {
    const { app, api } = await startApp((b) =>
      b.api.listServers.mockResolvedValue([server("s1", { name: "Files" }), server("s2", { name: "Crashy", status: failed })]),
    );
    app.width = 760;
    app.nav.show("servers");
    flushSync();
    const nav = q("nav-servers")!;
    expect(nav.querySelector(".label")).toBeNull();
    expect(nav.getAttribute("aria-label")).toBe("Servers, 1 failed");
    expect(nav.getAttribute("title")).toBe("Servers (Ctrl+2)");
    const row = all("server-row")[0];
    // One action beside the menu; Stop, Restart, Edit, Remove are in it.
    expect(row.querySelector('[data-testid="server-start"]')).not.toBeNull();
    expect(row.querySelector('[data-testid="server-restart"]')).toBeNull();
    expect(row.querySelector('[data-testid="server-edit"]')).toBeNull();
    const more = row.querySelector<HTMLButtonElement>('[data-testid="server-menu"]')!;
    expect(more.getAttribute("aria-haspopup")).toBe("menu");
    more.focus();
    more.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    await settle();
    flushSync();
    expect(more.getAttribute("aria-expanded")).toBe("true");
    const menu = q("server-menu-list")!;
    expect(menu.getAttribute("role")).toBe("menu");
    const items = [...menu.querySelectorAll<HTMLButtonElement>("[role=menuitem]")];
    expect(items.map((i) => text(i))).toEqual(["Open", "Start", "Stop", "Restart", "Folders it may see…", "Edit…", "Remove…"]);
    expect(document.activeElement).toBe(items[0]);
    // Disabled ones are skipped: Start, then Folders it may see….
    menu.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    expect(document.activeElement).toBe(items[1]);
    menu.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    expect(document.activeElement).toBe(items[4]);
    menu.dispatchEvent(new KeyboardEvent("keydown", { key: "End", bubbles: true }));
    expect(document.activeElement).toBe(items[6]);
    menu.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    flushSync();
    expect(q("server-menu-list")).toBeNull();
    expect(document.activeElement).toBe(more);
    more.click();
    await settle();
    flushSync();
    (q("menu-edit") as HTMLButtonElement).click();
    flushSync();
    expect(q("server-form-dialog")).not.toBeNull();
    expect(api.listServers).toHaveBeenCalled();
    app.servers.closeForm();
    flushSync();
    app.width = 1200;
    flushSync();
    expect(q("nav-servers")?.querySelector(".label")).not.toBeNull();
    expect(all("server-row")[0].querySelector('[data-testid="server-restart"]')).not.toBeNull();
  });

  it("shows each form mistake at its field and focuses the first", async () => {
    const { app, api } = await startApp();
    app.nav.show("servers");
    flushSync();
    q("add-server")?.click();
    flushSync();
    q("env-add")?.click();
    flushSync();
    const value = q("env-value-0") as HTMLInputElement;
    value.value = "a value, no name";
    value.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    (q("server-form") as HTMLFormElement).requestSubmit();
    await settle();
    flushSync();
    const errors = all("server-form-error");
    expect(errors.map((e) => e.dataset.field)).toEqual(["name", "command", "env"]);
    expect(document.activeElement).toBe(q("server-name"));
    expect(q("server-name")?.getAttribute("aria-invalid")).toBe("true");
    expect(q("server-name")?.getAttribute("aria-describedby")).toBe(errors[0].id);
    // Typing in a field clears its mistake only.
    const name = q("server-name") as HTMLInputElement;
    name.value = "Mine";
    name.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    expect(all("server-form-error").map((e) => e.dataset.field)).toEqual(["command", "env"]);
    // The backend's refusal goes to its field too.
    const command = q("server-command") as HTMLInputElement;
    command.value = "nope";
    command.dispatchEvent(new Event("input", { bubbles: true }));
    (q("env-remove-0") as HTMLButtonElement).click();
    api.addServer.mockRejectedValue({ code: "invalid", message: "the command cannot be found: nope" });
    flushSync();
    (q("server-form") as HTMLFormElement).requestSubmit();
    await settle();
    flushSync();
    expect(all("server-form-error").map((e) => [e.dataset.field, text(e)])).toEqual([
      ["command", "The command cannot be found: nope."],
    ]);
    expect(document.activeElement).toBe(command);
  });

  it("scrolls a new server into view and marks it, once the dialogs of adding it are closed", async () => {
    const scrolled = vi.fn();
    const original = Element.prototype.scrollIntoView;
    Element.prototype.scrollIntoView = scrolled;
    try {
      const { app, api } = await startApp((b) => b.api.listServers.mockResolvedValue([server("a")]));
      app.nav.show("servers");
      flushSync();
      api.addServer.mockResolvedValue(server("n", { name: "New one", approved: false }));
      await app.servers.save(null, {
        name: "New one",
        command: "x",
        args: [],
        env: {},
        cwd: null,
        enabled: true,
        withdrawal: "notify",
        enforceRoots: false,
        era: "auto",
      });
      flushSync();
      await settle();
      // The approval dialog is open: not yet.
      expect(all("server-row")[1].classList.contains("flash")).toBe(false);
      app.servers.cancelApproval();
      flushSync();
      await settle();
      flushSync();
      const row = all("server-row")[1];
      expect(row.classList.contains("flash")).toBe(true);
      expect(scrolled).toHaveBeenCalled();
      expect(document.activeElement).toBe(row.querySelector('[data-testid="server-name-label"]'));
    } finally {
      Element.prototype.scrollIntoView = original;
    }
  });

  it("searches and filters the activity by kind, and exports what is shown", async () => {
    const created: Blob[] = [];
    const createObjectURL = vi.fn((b: Blob) => {
      created.push(b);
      return "blob:x";
    });
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const clicks = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    try {
      const { app } = await startApp((b) => {
        b.api.listServers.mockResolvedValue([server("s1", { name: "Files" }), server("s2", { name: "Crashy" })]);
        b.api.activity.mockResolvedValue([
          entry(1, "s1"),
          { ...entry(2, "s2"), event: { kind: "failed", reason: "exited at once" } },
          { ...entry(3, "s2"), event: { kind: "exited", status: "exit code 1", expected: false } },
          entry(4, "s2"),
        ]);
      });
      app.nav.show("activity");
      flushSync();
      await settle();
      flushSync();
      expect(all("activity-entry")).toHaveLength(4);
      const kind = q("activity-kind") as HTMLSelectElement;
      kind.selectedIndex = [...kind.options].findIndex((o) => o.value === "failures");
      kind.dispatchEvent(new Event("change", { bubbles: true }));
      flushSync();
      await settle();
      expect(all("activity-entry").map((e) => e.dataset.kind)).toEqual(["failed", "exited"]);
      expect(text(q("activity-shown"))).toContain("2 of 4 shown");
      const search = q("activity-search") as HTMLInputElement;
      search.value = "at once";
      search.dispatchEvent(new Event("input", { bubbles: true }));
      flushSync();
      await settle();
      expect(all("activity-entry").map((e) => e.dataset.kind)).toEqual(["failed"]);
      (q("activity-export") as HTMLButtonElement).click();
      expect(clicks).toHaveBeenCalledTimes(1);
      const doc = JSON.parse(await created[0].text());
      expect(doc.count).toBe(1);
      expect(doc.filter).toEqual({ server: null, kind: "failures", search: "at once" });
      expect(doc.entries[0]).toMatchObject({ seq: 2, serverName: "Crashy", kind: "failed" });
      expect(app.notices.toasts.at(-1)?.message).toMatch(/^Exported 1 event as rootgate-activity-.*\.json/);
      // Escape in the search box clears it, and goes no further.
      search.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
      flushSync();
      await settle();
      expect(search.value).toBe("");
      expect(all("activity-entry")).toHaveLength(2);
    } finally {
      clicks.mockRestore();
    }
  });
});
