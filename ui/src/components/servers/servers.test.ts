// The Servers view and a server's detail against the fake backend: rows and
// their status, the form's checks and enforcement choice, folders as
// arguments, folders not picked up, the folder checklist, retries and giving
// up, and a new server scrolled into view.
import { draftToForm } from "../../lib/draft";
import { flushSync } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connection, delivered, entry, folder, folderChoice, server, settle } from "../../lib/testing";
import { all, q, RUNNING, startApp, unmountAll } from "../testing/window";

afterEach(unmountAll);

describe("the Servers view and a server's detail", () => {
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
        installs: [],
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

  it("says which AI apps a server runs for, and 'manual start' only on a stopped server (#40)", async () => {
    const live = (id: string, name: string, over = {}) =>
      connection(id, { server: "a", app: { name, version: "2.0.14", protocolVersion: "2025-11-25" }, status: RUNNING, ...over });
    const { app } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([
        server("a", { name: "Files", enabled: false, status: RUNNING }),
        server("b", { name: "Idle", enabled: false }),
        server("c", { name: "One", enabled: false, status: RUNNING }),
      ]);
      b.api.listConnections.mockResolvedValue([
        live("k1", "claude-code"),
        live("k2", "claude-code"),
        live("k3", "claude-code"),
        live("k4", "cursor-vscode"),
        live("k5", "Zed"),
        // Ended, or another server's: not counted.
        live("k6", "claude-code", { live: false, endedAtMs: 1_700_000_000_500 }),
        live("k7", "goose", { server: "c" }),
      ]);
    });
    app.nav.show("servers");
    flushSync();
    const rows = all("server-row");
    const apps = (r: HTMLElement) => r.querySelector<HTMLElement>('[data-testid="server-apps"]')?.textContent?.trim() ?? null;
    expect(apps(rows[0])).toBe("running for 3 AI apps · 5 connections");
    expect(rows[0].querySelector('[data-testid="server-apps"]')?.getAttribute("title")).toBe(
      "Claude Code (3 connections), Cursor and Zed reach it through Rootgate, each in a process of its own",
    );
    expect(apps(rows[1])).toBe(null);
    expect(apps(rows[2])).toBe("running for Goose");
    // "manual start" says a server does not start with Rootgate: news only
    // where it is stopped and no app runs it.
    expect(rows.map((r) => r.textContent?.includes("manual start"))).toEqual([false, true, false]);
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

describe("everyday use of servers", () => {
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

  it("offers a held server the network, off unless ticked, and sends it", async () => {
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
    set("server-name", "Online");
    set("server-command", "online-server");
    expect(q("server-network")).toBeNull();
    (q("server-enforce") as HTMLInputElement).click();
    flushSync();
    const network = q("server-network") as HTMLInputElement;
    expect(network.checked).toBe(false);
    network.click();
    flushSync();
    (q("server-form") as HTMLFormElement).requestSubmit();
    flushSync();
    await vi.waitFor(() => expect(api.addServer).toHaveBeenCalled());
    expect(api.addServer.mock.calls[0][0]).toMatchObject({ enforceRoots: true, allowNetwork: true });
  });

  it("offers one process per app session, off unless ticked, and keeps it when the server is edited", async () => {
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
    set("server-name", "Browser");
    set("server-command", "browser-server");
    const own = q("server-own-process") as HTMLInputElement;
    expect(own.checked).toBe(false);
    expect(text(q("server-own-process-help"))).toContain("share one process of this server");
    own.click();
    flushSync();
    (q("server-form") as HTMLFormElement).requestSubmit();
    flushSync();
    await vi.waitFor(() => expect(api.addServer).toHaveBeenCalled());
    expect(api.addServer.mock.calls[0][0]).toMatchObject({ ownProcess: true });
    // A saved server's setting shows in its form as it is.
    expect(draftToForm(server("s1", { ownProcess: true })).ownProcess).toBe(true);
  });

  it("does not say the network is off in the form where the server cannot be held", async () => {
    const { app } = await startApp((b) =>
      b.api.appInfo.mockResolvedValue({
        version: "0.1.0",
        settingsPath: "/tmp/settings.json",
        recovery: null,
        rootsNote: "note",
        notices: [],
        enforcement: { state: "partial", reason: "bubblewrap is not installed", notStopped: "it still reaches the network" },
        cliPath: null,
        installs: [],
      }),
    );
    app.nav.show("servers");
    flushSync();
    q("add-server")?.click();
    flushSync();
    (q("server-enforce") as HTMLInputElement).click();
    flushSync();
    expect(text(q("server-network-help"))).toBe("Not stopped here while it cannot be held: the setting is kept for when it can.");
    expect(text(q("server-enforce-help"))).toContain("Not held here: bubblewrap is not installed");
  });

  it("says in the detail whether a server is held and has the network, and where it cannot be held", async () => {
    const { app } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { enforceRoots: true })]);
      b.api.appInfo.mockResolvedValue({
        version: "0.1.0",
        settingsPath: "/tmp/settings.json",
        recovery: null,
        rootsNote: "note",
        notices: [],
        enforcement: { state: "partial", reason: "bubblewrap is not installed", notStopped: "it still sees every process" },
        cliPath: null,
        installs: [],
      });
    });
    app.nav.show("servers");
    flushSync();
    await app.nav.openDetail("s1");
    flushSync();
    expect(text(q("server-enforcement"))).toContain("Not held in a sandbox here: bubblewrap is not installed");
    expect(text(q("server-enforcement"))).toContain("it still sees every process");
    // Not held, nothing stops its network: the detail must not say Off.
    expect(text(q("server-detail-network"))).toBe("Set to off, but not stopped here: it is not held in a sandbox");
  });

  it("says in the detail that a held server is in a sandbox, and whether it has the network", async () => {
    const { app } = await startApp((b) =>
      b.api.listServers.mockResolvedValue([server("s1", { enforceRoots: true }), server("s2", { enforceRoots: true, allowNetwork: true })]),
    );
    app.nav.show("servers");
    flushSync();
    await app.nav.openDetail("s1");
    flushSync();
    expect(text(q("server-enforcement"))).toMatch(/^Held in a sandbox \(bubblewrap, with Landlock inside\)/);
    expect(text(q("server-detail-network"))).toBe("Off: it reaches no other machine, nor anything listening on this one");
    await app.nav.openDetail("s2");
    flushSync();
    expect(text(q("server-detail-network"))).toMatch(/^Allowed: it may reach other machines/);
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
});
