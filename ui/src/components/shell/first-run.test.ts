// The window as issue #30's new user meets it: the first run leads with
// the AI apps found and the sidebar lists Apps beside Servers; a prompt
// that takes a folder away is titled as a withdrawal and says which app is
// connected now; a connection's page asks again about the folders its app
// works in.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it } from "vitest";

import App from "../../App.svelte";
import type { AppView, EntryView, ServerChoice } from "../../lib/bindings";
import { AppState } from "../../lib/state/app.svelte";
import { appEntry, connection, fakeBackend, prompt, server, settle } from "../../lib/testing";

let mounted: Record<string, unknown>[] = [];
afterEach(() => {
  for (const m of mounted) unmount(m);
  mounted = [];
  document.body.innerHTML = "";
});

const q = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);
const all = (id: string) => [...document.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
const text = (el: Element | null) => el?.textContent?.replace(/\s+/g, " ").trim() ?? "";

async function startApp(setup: (b: ReturnType<typeof fakeBackend>) => void = () => {}) {
  const b = fakeBackend();
  setup(b);
  const app = new AppState(b.api, b.events);
  mounted.push(mount(App, { target: document.body, props: { app, autostart: false, prepareViewsAfterMs: 60_000 } }));
  await app.start();
  await settle();
  flushSync();
  return { app, ...b };
}

function entry(key: string, over: Partial<EntryView> = {}): EntryView {
  return appEntry(key, {
    commandLine: `uvx ${key}`,
    envNames: [],
    folders: [],
    importCommandLine: `uvx ${key}`,
    ...over,
  });
}

function appWith(kind: AppView["app"], title: string, keys: string[]): AppView {
  return {
    app: kind,
    title,
    files: [
      {
        index: 0,
        path: `/home/me/.config/${kind}.json`,
        format: "json",
        exists: true,
        problem: null,
        routedByRootgate: false,
        servers: keys.map((k) => entry(k)),
      },
    ],
  };
}

const choice = (id: string, over: Partial<ServerChoice> = {}): ServerChoice => ({
  id,
  name: id,
  granted: false,
  suggested: false,
  enforced: false,
  restarts: false,
  connected: [],
  ...over,
});

describe("the first run", () => {
  it("leads with the AI apps found and their servers, and its button opens Apps", async () => {
    const { app, api } = await startApp((b) =>
      b.api.listApps.mockResolvedValue([
        appWith("claude-code", "Claude Code", ["files", "git"]),
        appWith("cursor", "Cursor", ["memory"]),
        appWith("vscode", "VS Code", ["fetch"]),
        appWith("zed", "Zed", ["time"]),
        appWith("goose", "Goose", []),
      ]),
    );
    expect(api.listApps).toHaveBeenCalled();
    expect(text(q("first-run-found-text"))).toBe(
      "Found Claude Code, Cursor, VS Code and Zed with 5 servers: bring them under Rootgate.",
    );
    expect(q("first-run-apps")?.classList.contains("primary")).toBe(true);
    expect(q("first-run-example")?.classList.contains("primary")).toBe(false);
    q("first-run-apps")?.click();
    await settle();
    flushSync();
    expect(app.nav.view).toBe("apps");
  });

  it("offers the example server first when no app has a server to bring", async () => {
    await startApp((b) => b.api.listApps.mockResolvedValue([appWith("zed", "Zed", [])]));
    expect(q("first-run-found")).toBeNull();
    expect(q("first-run-example")?.classList.contains("primary")).toBe(true);
  });

  it("lists Apps beside Servers in the sidebar, its shortcut kept", async () => {
    await startApp();
    const order = [...document.querySelectorAll<HTMLElement>('nav [data-testid^="nav-"]')].map((e) => e.dataset.testid);
    expect(order).toEqual(["nav-folders", "nav-servers", "nav-apps", "nav-connections", "nav-activity", "nav-questions", "nav-settings"]);
    expect(q("nav-apps")?.getAttribute("title")).toBe("Connect an app (Ctrl+5)");
  });
});

describe("a prompt that takes a folder away", () => {
  it("is titled as a withdrawal and says which app is connected to the server now", async () => {
    await startApp((b) =>
      b.api.openPrompts.mockResolvedValue([
        prompt(5, {
          root: "r1",
          name: "notes",
          servers: [choice("files", { granted: true, connected: ["Claude Code"] }), choice("git")],
        }),
      ]),
    );
    const dialog = q("consent-dialog");
    expect(text(dialog?.querySelector("h2") ?? null)).toBe("Share “notes”?");
    expect(text(q("consent-connected"))).toBe("Claude Code connected");
    expect(q("consent-in-use")).toBeNull();

    (all("consent-server")[0] as HTMLInputElement).click();
    flushSync();
    expect(text(dialog?.querySelector("h2") ?? null)).toBe("Withdraw “notes” from files?");
    expect(text(q("consent-share"))).toBe("Withdraw");
    expect(text(q("consent-in-use"))).toBe(
      "Claude Code is connected to files now. Withdrawing takes “notes” from files at once, while it may be working in it.",
    );
    // One sentence, not one line per name and piece (#40): the warning's
    // text column holds a single inline span with all of it.
    const column = q("consent-in-use")?.querySelector(".warning-text");
    expect(column?.children).toHaveLength(1);
    expect(column?.children[0]).toBe(q("consent-in-use-text"));
    expect(text(q("consent-in-use-text"))).toBe(text(q("consent-in-use")));
    expect(text(q("consent-folder-label"))).toBe("Folder that would be withdrawn");

    // Withdrawing from one and sharing with another is a change of who sees it.
    (all("consent-server")[1] as HTMLInputElement).click();
    flushSync();
    expect(text(dialog?.querySelector("h2") ?? null)).toBe("Change who sees “notes”?");
    expect(text(q("consent-share"))).toBe("Share");
  });
});

describe("a connection's page", () => {
  it("asks again about the folders its app works in, and says when there is nothing left to ask", async () => {
    const c = connection("c1", {
      app: { name: "claude-code", version: "2.0.1", protocolVersion: "2025-11-25" },
      appRoots: ["file:///home/me/project"],
    });
    const { app, api } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1")]);
      b.api.listConnections.mockResolvedValue([c]);
      b.api.suggestAgain.mockResolvedValueOnce([
        prompt(11, {
          suggestion: { app: "Claude Code", server: "s1", serverName: "Server s1", imported: false },
          servers: [choice("s1", { suggested: true })],
        }),
      ]);
    });
    await app.nav.openConnection("c1");
    flushSync();
    q("connection-suggest-again")?.click();
    await settle();
    flushSync();
    expect(api.suggestAgain).toHaveBeenCalledWith("c1");
    expect(q("consent-dialog")).not.toBeNull();
    expect(text(q("consent-suggestion"))).toContain("Claude Code reaches Server s1");

    q("consent-cancel")?.click();
    await settle();
    flushSync();
    q("connection-suggest-again")?.click();
    await settle();
    flushSync();
    expect(all("notice").map(text)).toContain(
      "Every folder Claude Code works in is shared with Server s1 already, or waits for your answer.",
    );
  });
});
