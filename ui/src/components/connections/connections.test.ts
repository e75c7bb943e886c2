// The Connections view against the fake backend: how to connect an app,
// the list and its changes, a connection's detail, and the folders an AI
// app works in asked as suggestions.
import type { ConnectionView } from "../../lib/bindings";
import { flushSync } from "svelte";
import { afterEach, describe, expect, it } from "vitest";
import { connection, entry, fakeBackend, folder, prompt, server, settle } from "../../lib/testing";
import { all, q, startApp, unmountAll } from "../testing/window";

afterEach(unmountAll);

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
        installs: [],
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
    expect(text(inRow(rows[0], "connection-app"))).toBe("Claude Code");
    expect(text(inRow(rows[0], "connection-app-version"))).toBe("2.0.1");
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

  it("names an app by its product, its version apart and quieter, and keeps what it sent in the title (#40)", async () => {
    const { app } = await shown((b) =>
      b.api.listConnections.mockResolvedValue([
        connection("k", { app: { name: "claude-code", version: "2.0.14", protocolVersion: "2025-06-18" }, status: running }),
      ]),
    );
    const row = all("connection-row")[0];
    const inRow = (id: string) => row.querySelector<HTMLElement>(`[data-testid="${id}"]`);
    expect(text(inRow("connection-app"))).toBe("Claude Code");
    expect(text(inRow("connection-app-version"))).toBe("2.0.14");
    expect(inRow("connection-app-version")?.classList.contains("version")).toBe(true);
    expect(inRow("connection-app")?.getAttribute("title")).toBe("It calls itself “claude-code” 2.0.14");
    expect(text(row)).not.toContain("claude-code");
    app.nav.openConnection("k");
    flushSync();
    const detail = q("connection-detail");
    expect(text(detail?.querySelector('[data-testid="connection-app"]'))).toBe("Claude Code");
    expect(text(detail?.querySelector('[data-testid="connection-app-version"]'))).toBe("2.0.14");
    expect(text(detail?.querySelector("h1"))).not.toContain("claude-code");
  });

  it("says which sessions share the server's process, and not for one that ended", async () => {
    const pid = (n: number) => ({ ...running, pid: n }) as ConnectionView["status"];
    const { app } = await shown((b) =>
      b.api.listConnections.mockResolvedValue([
        connection("a", { status: pid(77) }),
        connection("b", { status: pid(77) }),
        connection("c", { status: pid(77), live: false, endedAtMs: 1_700_000_000_500 }),
        connection("d", { status: pid(88) }),
      ]),
    );
    app.nav.openConnection("a");
    flushSync();
    expect(text(q("connection-server-process"))).toBe("77, shared with 1 other session");
    app.nav.openConnection("d");
    flushSync();
    expect(text(q("connection-server-process"))).toBe("88");
    app.nav.openConnection("c");
    flushSync();
    expect(q("connection-server-process")).toBeNull();
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
    expect(text(q("connection-app"))).toBe("Claude Code");
    expect(text(q("connection-app-version"))).toBe("2.0.1");
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
