// The "Connect an app" view, its import and route dialogs, against the
// fake backend.
import { flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it } from "vitest";
import App from "../../App.svelte";
import { AppState } from "../../lib/state/app.svelte";
import { STALE_PLAN } from "../../lib/state/apps.svelte";
import type { EntryView } from "../../lib/bindings";
import { appEntry, appFile, claudeDesktop, fakeBackend, plan, prompt, server, settle } from "../../lib/testing";

let mounted: Record<string, unknown>[] = [];
afterEach(() => {
  for (const m of mounted) unmount(m);
  mounted = [];
  document.body.innerHTML = "";
});

function q(testid: string, within: ParentNode = document): HTMLElement | null {
  return within.querySelector(`[data-testid="${testid}"]`);
}
function all(testid: string, within: ParentNode = document): HTMLElement[] {
  return [...within.querySelectorAll<HTMLElement>(`[data-testid="${testid}"]`)];
}
const text = (el: Element | null | undefined) => el?.textContent?.replace(/\s+/g, " ").trim() ?? "";

async function startApp(setup: (b: ReturnType<typeof fakeBackend>) => void = () => {}) {
  const b = fakeBackend();
  setup(b);
  const app = new AppState(b.api, b.events);
  mounted.push(mount(App, { target: document.body, props: { app, autostart: false, prepareViewsAfterMs: 60_000 } }));
  await app.start();
  flushSync();
  return { app, ...b };
}

async function openApps() {
  window.dispatchEvent(new KeyboardEvent("keydown", { key: "5", ctrlKey: true, bubbles: true }));
  await settle();
  flushSync();
}

function type(el: HTMLElement | null, value: string) {
  const input = el as HTMLInputElement;
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
}

const TOKEN_NEEDS: EntryView["needs"] = [
  {
    token: "${input:token}",
    usedIn: ["environment variable GITHUB_TOKEN"],
    hint: "Your GitHub token",
    secret: true,
    required: true,
  },
  {
    token: "envFile",
    usedIn: ["environment read from ${workspaceFolder}/.env"],
    hint: "Rootgate does not read files an app names; add the variables the server needs in its settings",
    secret: false,
    required: false,
  },
];

describe("the Connect an app view", () => {
  it("opens with Ctrl+5, focuses its heading and lists each app's files and servers with their state", async () => {
    const { app, api } = await startApp((b) =>
      b.api.listApps.mockResolvedValue([
        claudeDesktop([
          appFile([
            appEntry("files"),
            appEntry("github", { importedAs: { id: "s2", name: "github" } }),
            appEntry("routed", { importedAs: { id: "s3", name: "routed" }, routedTo: "routed" }),
            appEntry("web", {
              remote: true,
              commandLine: "https://example.com/mcp",
              notImportable: "`web` is a remote server (https://example.com/mcp)",
            }),
          ]),
        ]),
        {
          app: "cursor",
          title: "Cursor",
          files: [appFile([], { path: "/home/me/.cursor/mcp.json", exists: false })],
        },
        {
          app: "zed",
          title: "Zed",
          files: [appFile([], { path: "/home/me/.config/zed/settings.json", problem: "line 3: expected a comma" })],
        },
      ]),
    );
    expect(q("nav-apps")?.getAttribute("title")).toBe("Connect an app (Ctrl+5)");
    // The first run lists them at start (it leads with the apps found);
    // the view lists them again when shown.
    const atStart = api.listApps.mock.calls.length;
    await openApps();
    expect(app.nav.view).toBe("apps");
    expect(api.listApps).toHaveBeenCalledTimes(atStart + 1);
    expect(document.activeElement?.id).toBe("apps-title");
    expect(document.activeElement?.textContent).toBe("Connect an app");

    const card = q("app-card-claude-desktop");
    expect(text(q("app-title", card!))).toBe("Claude Desktop");
    expect(q("app-file-path", card!)?.textContent).toBe("/home/me/.config/Claude/claude_desktop_config.json");
    const chips = all("app-server-chip", card!).map(text);
    expect(chips).toEqual([
      "Not imported",
      "Imported as github",
      "Routed through Rootgate (routed)",
      "Remote server — not imported",
    ]);
    const importOf = (key: string) => q("app-import", q(`app-server-${key}`)!) as HTMLButtonElement;
    expect(importOf("files").disabled).toBe(false);
    expect(importOf("github").disabled).toBe(true);
    expect(importOf("github").parentElement?.title).toBe("It is already in Rootgate as github.");
    expect(importOf("web").disabled).toBe(true);
    expect(text(q("app-server-reason", q("app-server-web")!))).toBe(
      "`web` is a remote server (https://example.com/mcp).",
    );
    const command = q("app-server-command", q("app-server-files")!);
    expect(command?.title).toBe("API_TOKEN=… node /srv/files.js /home/me/proj");
    // github is imported and not routed: the file can be routed.
    expect((q("route-button", card!) as HTMLButtonElement).disabled).toBe(false);
    expect(q("undo-button", card!)).toBeNull();

    const cursor = q("app-card-cursor")!;
    expect(text(q("app-file-empty", cursor))).toBe("No servers configured yet.");
    expect(q("route-button", cursor)).toBeNull();
    const zed = q("app-card-zed")!;
    expect(text(q("app-file-problem", zed))).toContain("line 3: expected a comma");
    expect(q("route-button", zed)).toBeNull();
    expect(q("app-import", zed)).toBeNull();
  });

  it("says which apps Rootgate knows when none is found", async () => {
    await startApp();
    await openApps();
    expect(text(q("empty-apps"))).toContain(
      "Rootgate knows Claude Desktop, Claude Code, Cursor, VS Code, Zed, Goose, Windsurf, LM Studio, Kiro, Amazon Q Developer, GitHub Copilot CLI, Gemini CLI, Cline, Codex CLI, Continue and opencode, and looks for their MCP settings",
    );
  });

  it("says why the apps could not be listed", async () => {
    await startApp((b) => b.api.listApps.mockRejectedValue({ code: "appConfig", message: "no home folder" }));
    await openApps();
    expect(text(q("apps-error"))).toBe("The apps could not be listed: No home folder.");
  });
});

describe("importing a server", () => {
  it("waits for the required values, then approves the new server and asks about its folders", async () => {
    const entry = appEntry("github", { needs: TOKEN_NEEDS, envNames: ["GITHUB_TOKEN"], keptPaths: ["D:\\data"] });
    const added = server("s9", { name: "github", approved: false, approvedCommand: null, enabled: false });
    const folderPrompt = prompt(31, {
      name: "proj",
      realPath: "/home/me/proj",
      servers: [{ id: "s9", name: "github", granted: false, suggested: true, enforced: false, restarts: false, connected: [] }],
      suggestion: { app: "Claude Desktop's config", server: "s9", serverName: "github", imported: true },
    });
    const { api } = await startApp((b) => {
      b.api.listApps.mockResolvedValue([claudeDesktop([appFile([entry])])]);
      b.api.importAppServer.mockResolvedValue({
        server: added,
        joined: { kind: "new" },
        prompts: [folderPrompt],
        notes: [
          "D:\\data is not a folder on this machine, so it stays as it is",
          "/home/me/gone: the folder does not exist",
        ],
      });
      b.api.approveCommand.mockResolvedValue({ ...added, approved: true, approvedCommand: added.commandLine });
    });
    await openApps();
    const shown = api.listApps.mock.calls.length;
    q("app-import", q("app-server-github")!)?.click();
    flushSync();

    const dialog = q("import-dialog")!;
    expect(dialog.querySelector("h2")?.textContent).toBe("Import “github” into Rootgate?");
    expect(text(q("import-command", dialog))).toBe("API_TOKEN=… node /srv/github.js '${folders}'");
    expect(all("import-folder", dialog).map((p) => p.textContent)).toEqual(["/home/me/proj"]);
    expect(text(dialog)).toContain("You'll be asked about each folder next; nothing is shared until you say so.");
    expect(text(q("import-info", dialog))).toContain("Rootgate does not read files an app names");
    expect(all("import-kept-path", dialog).map((p) => p.textContent)).toEqual(["D:\\data"]);
    expect(text(q("import-env", dialog))).toBe(
      "Its environment variable GITHUB_TOKEN is copied with its value, which is not shown here.",
    );
    // One field, for the required value only; masked, with a Show toggle.
    const field = q("import-need-0", dialog) as HTMLInputElement;
    expect(q("import-need-1", dialog)).toBeNull();
    expect(field.type).toBe("password");
    expect(document.activeElement).toBe(field);
    expect(dialog.querySelector(`label[for="${field.id}"]`)?.textContent).toContain("${input:token}");
    q("import-need-show-0", dialog)?.click();
    flushSync();
    expect(field.type).toBe("text");
    expect(q("import-need-show-0", dialog)?.getAttribute("aria-pressed")).toBe("true");

    const confirm = q("import-confirm", dialog) as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    expect(text(q("import-missing"))).toBe("Fill in the value above to import it.");
    type(field, "   ");
    expect(confirm.disabled).toBe(true);
    type(field, "ghp_secret");
    expect(confirm.disabled).toBe(false);
    confirm.click();
    await settle();
    flushSync();

    expect(api.importAppServer).toHaveBeenCalledWith(
      "claude-desktop",
      0,
      { kind: "global" },
      "github",
      { "${input:token}": "ghp_secret" },
      null,
    );
    expect(q("import-dialog")).toBeNull();
    expect(api.listApps).toHaveBeenCalledTimes(shown + 1);
    // The kept path was in the dialog already; the folder that could not be offered is news.
    expect(all("notice").map(text)).toEqual(["/home/me/gone: the folder does not exist."]);
    // The approval comes first, as for a server added by hand; the folder after it.
    expect(q("approval-dialog")).not.toBeNull();
    expect(q("consent-dialog")).toBeNull();
    q("approval-approve")?.click();
    await settle();
    flushSync();
    expect(api.approveCommand).toHaveBeenCalledWith("s9", added.commandLine);
    const consent = q("consent-dialog")!;
    expect(consent.querySelector("h2")?.textContent).toBe(
      "github was imported from Claude Desktop, whose config gave it “proj”. Share it with github?",
    );
    expect(text(q("consent-suggestion"))).toContain("In Claude Desktop's config, github was given this folder");
    expect((q("consent-server") as HTMLInputElement).checked).toBe(true);
  });

  it("shows the backend's refusal in the dialog, and cancels with Escape", async () => {
    const { api, app } = await startApp((b) => {
      b.api.listApps.mockResolvedValue([claudeDesktop([appFile([appEntry("files")])])]);
      b.api.importAppServer.mockRejectedValue({ code: "appConfig", message: "`files` is already in Rootgate as `files`" });
    });
    await openApps();
    q("app-import", q("app-server-files")!)?.click();
    flushSync();
    expect(document.activeElement).toBe(q("import-confirm"));
    q("import-confirm")?.click();
    await settle();
    flushSync();
    expect(text(q("import-error"))).toBe("`files` is already in Rootgate as `files`.");
    expect(app.servers.approval).toBeNull();
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    flushSync();
    expect(q("import-dialog")).toBeNull();
    expect(api.importAppServer).toHaveBeenCalledTimes(1);
  });

  it("asks about the folders at once when the approval is cancelled too", async () => {
    const added = server("s9", { name: "files", approved: false });
    await startApp((b) => {
      b.api.listApps.mockResolvedValue([claudeDesktop([appFile([appEntry("files")])])]);
      b.api.importAppServer.mockResolvedValue({ server: added, joined: { kind: "new" }, prompts: [prompt(40)], notes: [] });
    });
    await openApps();
    q("app-import", q("app-server-files")!)?.click();
    flushSync();
    q("import-confirm")?.click();
    await settle();
    flushSync();
    q("approval-cancel")?.click();
    flushSync();
    expect(q("approval-dialog")).toBeNull();
    expect(q("consent-dialog")).not.toBeNull();
  });
});

describe("routes made outside the window (#40)", () => {
  const imported = appEntry("files", { importedAs: { id: "s1", name: "files" } });
  const notRouted = () => [claudeDesktop([appFile([imported])])];
  const routed = () => [claudeDesktop([appFile([{ ...imported, routedTo: "files" }], { routedByRootgate: true })])];

  it("are shown as soon as the core says an app's file changed", async () => {
    const { api, handlers } = await startApp((b) => b.api.listApps.mockResolvedValue(notRouted()));
    await openApps();
    expect(q("undo-button")).toBeNull();
    api.listApps.mockResolvedValue(routed());
    handlers.changes?.([{ kind: "appsChanged" }]);
    await settle();
    flushSync();
    expect(q("undo-button")).not.toBeNull();
  });

  it("make a stale Route click say in plain words what happened, over the file as it is now, not as an error", async () => {
    const { api } = await startApp((b) => {
      b.api.listApps.mockResolvedValue(notRouted());
      b.api.planRoute.mockRejectedValue({ code: "apps", message: "Claude Desktop has no imported server to route" });
    });
    await openApps();
    api.listApps.mockResolvedValue(routed());
    q("route-button")?.click();
    await settle();
    flushSync();
    expect(q("route-dialog")).toBeNull();
    const toasts = all("notice");
    expect(toasts.map((t) => t.getAttribute("role"))).toEqual(["status"]);
    expect(toasts[0].classList.contains("error")).toBe(false);
    expect(text(toasts[0].querySelector(".message"))).toBe(
      "Claude Desktop's file changed outside this window (a route or undo in a terminal, or the app itself): it is routed through Rootgate now (files). Here it is as it is now.",
    );
    expect(q("undo-button")).not.toBeNull();
  });

  it("make a toast's stale Undo, after an undo in a terminal the view already shows, say so in plain words", async () => {
    const { app, api } = await startApp((b) => {
      b.api.listApps.mockResolvedValue(notRouted());
      b.api.planUnroute.mockRejectedValue({ code: "apps", message: "Rootgate has not routed Claude Desktop; nothing to undo" });
    });
    await openApps();
    app.notices.notify("Claude Desktop now reaches its servers through Rootgate. Restart Claude Desktop to use it.", "info", {
      label: "Undo",
      run: () => void app.apps.planUnroute("claude-desktop", 0),
    });
    flushSync();
    q("notice-action")?.click();
    await settle();
    flushSync();
    expect(api.planUnroute).toHaveBeenCalledWith("claude-desktop", 0);
    const toasts = all("notice");
    expect(toasts.map((t) => t.getAttribute("role"))).toEqual(["status"]);
    expect(text(toasts[0].querySelector(".message"))).toBe(
      "Claude Desktop's file changed outside this window (a route or undo in a terminal, or the app itself): nothing in it goes through Rootgate now. Here it is as it is now.",
    );
  });

  it("leave a refusal with nothing changed an error, in the backend's words", async () => {
    await startApp((b) => {
      b.api.listApps.mockResolvedValue(notRouted());
      b.api.planRoute.mockRejectedValue({ code: "apps", message: "Claude Desktop's file cannot be read" });
    });
    await openApps();
    q("route-button")?.click();
    await settle();
    flushSync();
    const toasts = all("notice");
    expect(toasts.map((t) => t.getAttribute("role"))).toEqual(["alert"]);
    expect(text(toasts[0].querySelector(".message"))).toContain("cannot be read");
  });
});

describe("an import from the terminal while the window is open (#40)", () => {
  it("shows the new server for approval, then asks about its folders, as the window's own import does", async () => {
    const { handlers } = await startApp();
    const added = server("s9", { name: "files", approved: false });
    handlers.changes?.([{ kind: "approvalWanted", server: added, prompts: [prompt(41)] }]);
    flushSync();
    expect(text(q("approval-command"))).toBe("/bin/srv");
    expect(q("consent-dialog")).toBeNull();
    q("approval-cancel")?.click();
    flushSync();
    expect(q("approval-dialog")).toBeNull();
    expect(q("consent-dialog")).not.toBeNull();
  });

  it("shows a second import's approval after the first, never in its place", async () => {
    const { handlers } = await startApp();
    handlers.changes?.([
      { kind: "approvalWanted", server: server("s1", { name: "one", approved: false, commandLine: "/bin/one" }), prompts: [] },
      { kind: "approvalWanted", server: server("s2", { name: "two", approved: false, commandLine: "/bin/two" }), prompts: [] },
    ]);
    flushSync();
    expect(text(q("approval-command"))).toBe("/bin/one");
    q("approval-cancel")?.click();
    flushSync();
    expect(text(q("approval-command"))).toBe("/bin/two");
  });
});

describe("routing a file through Rootgate", () => {
  const imported = appEntry("files", { importedAs: { id: "s1", name: "files" } });

  it("shows the change, writes it, and offers Undo", async () => {
    const routePlan = plan(5, {
      skipped: [
        { scope: { kind: "global" }, key: "web", reason: "it is a remote server; Rootgate runs local servers" },
      ],
    });
    const { api } = await startApp((b) => {
      b.api.listApps.mockResolvedValue([claudeDesktop([appFile([imported])])]);
      b.api.planRoute.mockResolvedValue(routePlan);
    });
    await openApps();
    const shown = api.listApps.mock.calls.length;
    q("route-button")?.click();
    await settle();
    flushSync();
    expect(api.planRoute).toHaveBeenCalledWith("claude-desktop", 0, []);
    const dialog = q("route-dialog")!;
    expect(dialog.querySelector("h2")?.textContent).toBe("Route Claude Desktop through Rootgate?");
    expect(q("route-path", dialog)?.textContent).toBe(routePlan.path);
    expect(all("route-entry", dialog).map(text)).toEqual(["files → rootgate connect files"]);
    expect(all("route-skipped", dialog).map(text)).toEqual(["web It is a remote server; Rootgate runs local servers."]);
    const lines = [...q("route-diff", dialog)!.querySelectorAll("span")].map((s) => [s.dataset.kind, s.textContent]);
    expect(lines).toEqual([
      ["file", "--- a\n"],
      ["file", "+++ b\n"],
      ["hunk", "@@ -1,3 +1,3 @@\n"],
      ["context", " {\n"],
      ["del", '-  "command": "node",\n'],
      ["add", '+  "command": "/usr/bin/rootgate",\n'],
      ["context", " }\n"],
    ]);
    expect(q("route-diff", dialog)?.textContent).toBe(routePlan.diff);
    expect(text(dialog)).toContain("A backup is kept beside the file; Undo restores it byte for byte.");
    expect(document.activeElement).toBe(q("route-cancel"));
    expect(text(q("route-confirm"))).toBe("Write the change");

    q("route-confirm")?.click();
    await settle();
    flushSync();
    expect(api.applyPlan).toHaveBeenCalledWith(5);
    expect(q("route-dialog")).toBeNull();
    expect(api.listApps).toHaveBeenCalledTimes(shown + 1);
    const toast = all("notice").find((n) => text(n).includes("through Rootgate"))!;
    expect(text(toast.querySelector(".message"))).toBe(
      "Claude Desktop now reaches its servers through Rootgate. Restart Claude Desktop to use it.",
    );
    q("notice-action", toast)?.click();
    await settle();
    flushSync();
    expect(api.planUnroute).toHaveBeenCalledWith("claude-desktop", 0);
    expect(all("notice")).toHaveLength(0);
    expect(q("route-dialog")?.querySelector("h2")?.textContent).toBe("Restore Claude Desktop's original file?");
    expect(text(q("route-confirm"))).toBe("Restore the original");
  });

  it("takes the Undo toast away when the card's Undo opens the same dialog, and keeps toasts off a dialog's buttons", async () => {
    const { app } = await startApp((b) => {
      b.api.listApps.mockResolvedValue([claudeDesktop([appFile([imported])])]);
    });
    await openApps();
    q("route-button")?.click();
    await settle();
    flushSync();
    expect(document.querySelector(".toasts")?.classList.contains("over-dialog")).toBe(true);
    q("route-confirm")?.click();
    await settle();
    flushSync();
    expect(document.querySelector(".toasts")?.classList.contains("over-dialog")).toBe(false);
    expect(all("notice-action")).toHaveLength(1);
    app.notices.notify("Something else happened.", "info");
    await app.apps.planUnroute("claude-desktop", 0);
    flushSync();
    expect(all("notice").map((n) => text(n.querySelector(".message")))).toEqual(["Something else happened."]);
  });

  it("forgets the plan on Cancel", async () => {
    const { api } = await startApp((b) => b.api.listApps.mockResolvedValue([claudeDesktop([appFile([imported])])]));
    await openApps();
    q("route-button")?.click();
    await settle();
    flushSync();
    q("route-cancel")?.click();
    await settle();
    flushSync();
    expect(q("route-dialog")).toBeNull();
    expect(api.dropPlan).toHaveBeenCalledWith(1);
    expect(api.applyPlan).not.toHaveBeenCalled();
  });

  it("plans again when the file changed since it was read, and says so", async () => {
    const { api } = await startApp((b) => {
      b.api.listApps.mockResolvedValue([claudeDesktop([appFile([imported])])]);
      b.api.planRoute.mockResolvedValueOnce(plan(7)).mockResolvedValueOnce(plan(8, { diff: "@@ -1 +1 @@\n-x\n+y\n" }));
      b.api.applyPlan.mockRejectedValueOnce({ code: "stale", message: "the file changed" });
    });
    await openApps();
    q("route-button")?.click();
    await settle();
    flushSync();
    q("route-confirm")?.click();
    await settle();
    flushSync();
    expect(api.applyPlan).toHaveBeenCalledWith(7);
    expect(api.planRoute).toHaveBeenCalledTimes(2);
    expect(text(q("route-error"))).toBe(STALE_PLAN);
    expect(q("route-diff")?.textContent).toBe("@@ -1 +1 @@\n-x\n+y\n");
    q("route-confirm")?.click();
    await settle();
    flushSync();
    expect(api.applyPlan).toHaveBeenLastCalledWith(8);
    expect(q("route-dialog")).toBeNull();
  });

  it("undoes a route, saying when the app changed the file since", async () => {
    const { api } = await startApp((b) => {
      b.api.listApps.mockResolvedValue([
        claudeDesktop([appFile([{ ...imported, routedTo: "files" }], { routedByRootgate: true })]),
      ]);
      b.api.planUnroute.mockResolvedValue(plan(9, { undo: true, partialUndo: true }));
    });
    await openApps();
    // Nothing more to route: the file offers Undo alone.
    expect(q("route-button")).toBeNull();
    q("undo-button")?.click();
    await settle();
    flushSync();
    expect(text(q("route-partial"))).toBe(
      "Claude Desktop changed this file since Rootgate routed it: only Rootgate's entries are put back; the app's other changes stay.",
    );
    expect(all("route-entry").map(text)).toEqual(["files goes back to its own command"]);
    expect(text(q("route-confirm"))).toBe("Put the servers back");
    q("route-confirm")?.click();
    await settle();
    flushSync();
    expect(api.applyPlan).toHaveBeenCalledWith(9);
    expect(all("notice").map((n) => text(n.querySelector(".message")))).toContain(
      "Claude Desktop's file is back as it was. Restart Claude Desktop to use it.",
    );
    expect(q("notice-action")).toBeNull();
  });
});

describe("one server per entry unless the person chooses (#30)", () => {
  // VS Code's `notes` runs the filesystem server as Claude Code's `files`
  // does, on another folder and with a token VS Code asks for.
  const notes = appEntry("notes", {
    needs: [TOKEN_NEEDS[0]],
    folders: ["/home/me/notes"],
    candidates: [
      {
        server: { id: "s1", name: "files" },
        differences: [
          "it is given /home/me/notes, which `files` does not share; using `files` offers it there, and every app routed to `files` would see it once you agree",
          "`files` shares /home/me/work, which this entry is not given; this app would see it",
          "GITHUB_TOKEN is ${input:token} here, a value the app fills, so it cannot be compared",
        ],
      },
    ],
  });

  it("shows a similar server as a choice with its differences, and imports a new one by default", async () => {
    const { api } = await startApp((b) => {
      b.api.listApps.mockResolvedValue([claudeDesktop([appFile([notes])])]);
    });
    await openApps();
    const row = q("app-server-notes")!;
    expect(text(q("app-server-chip", row))).toBe("Not imported");
    expect((q("app-import", row) as HTMLButtonElement).disabled).toBe(false);
    q("app-import", row)?.click();
    await settle();
    flushSync();
    const dialog = q("import-dialog")!;
    expect((q("import-new", dialog) as HTMLInputElement).checked).toBe(true);
    const differences = dialog.querySelector('[data-testid="import-differences"][data-server="files"]')!;
    expect(text(differences)).toContain("It is given /home/me/notes, which `files` does not share");
    expect(text(differences)).toContain("`files` shares /home/me/work");
    // The token is asked for the new server.
    type(q("import-need-0", dialog), "notes-token");
    q("import-confirm", dialog)?.click();
    await settle();
    flushSync();
    expect(api.importAppServer).toHaveBeenCalledWith(
      "claude-desktop",
      0,
      { kind: "global" },
      "notes",
      { "${input:token}": "notes-token" },
      null,
    );
  });

  it("uses an existing server only when the person picks it, asking nothing for it", async () => {
    const { api } = await startApp((b) => {
      b.api.listApps.mockResolvedValue([claudeDesktop([appFile([notes])])]);
      b.api.importAppServer.mockResolvedValue({
        server: { ...server("s1"), name: "files", approved: true },
        joined: { kind: "chosen", differences: notes.candidates[0].differences },
        prompts: [],
        notes: [],
      });
    });
    await openApps();
    q("app-import", q("app-server-notes")!)?.click();
    await settle();
    flushSync();
    const dialog = q("import-dialog")!;
    const use = dialog.querySelector<HTMLInputElement>('[data-testid="import-existing"][data-server="files"]')!;
    use.click();
    flushSync();
    expect(q("import-need-0", dialog)).toBeNull();
    expect(text(q("import-existing-note", dialog))).toContain("Every app routed to files sees every folder it shares");
    expect(text(q("import-confirm", dialog))).toBe("Use files");
    q("import-confirm", dialog)?.click();
    await settle();
    flushSync();
    expect(api.importAppServer).toHaveBeenCalledWith("claude-desktop", 0, { kind: "global" }, "notes", {}, "s1");
    expect(all("notice").map((n) => text(n.querySelector(".message")))).toEqual([
      "notes now uses files, as you chose.",
    ]);
  });

  it("never calls an untrusted link imported, and says why", async () => {
    await startApp((b) => {
      b.api.listApps.mockResolvedValue([
        claudeDesktop([
          appFile([
            appEntry("zed-files", {
              doubtfulLink: {
                server: { id: "s1", name: "files" },
                reason: "an earlier Rootgate linked it to `files` without comparing the two",
              },
            }),
            appEntry("routed", {
              routedTo: "files",
              doubtfulLink: {
                server: { id: "s1", name: "files" },
                reason: "an earlier Rootgate linked it to `files` without comparing the two",
              },
            }),
            appEntry("twin", { sameAs: { id: "s1", name: "files" } }),
          ]),
        ]),
      ]);
    });
    await openApps();
    const zed = q("app-server-zed-files")!;
    expect(text(q("app-server-chip", zed))).toBe("Link to files not trusted");
    expect(text(q("app-server-note", zed))).toBe(
      "An earlier Rootgate linked it to `files` without comparing the two.",
    );
    expect((q("app-import", zed) as HTMLButtonElement).disabled).toBe(false);
    const routed = q("app-server-routed")!;
    expect(text(q("app-server-chip", routed))).toBe("Routed to files — link not trusted");
    expect(text(q("app-server-note", routed))).toContain("undo the route");
    expect(text(q("app-server-chip", q("app-server-twin")!))).toBe("Runs the same as files");
  });

  it("reads the apps again when the window comes back into focus", async () => {
    const { api } = await startApp();
    await openApps();
    const before = api.listApps.mock.calls.length;
    window.dispatchEvent(new FocusEvent("focus"));
    await settle();
    expect(api.listApps.mock.calls.length).toBe(before + 1);
  });

  it("says when the program a route writes is in a build folder", async () => {
    const imported = appEntry("files", { importedAs: { id: "s1", name: "files" } });
    await startApp((b) => {
      b.api.listApps.mockResolvedValue([claudeDesktop([appFile([imported])])]);
      b.api.planRoute.mockResolvedValue(
        plan(3, {
          warning:
            "warning: this writes /src/target/debug/rootgate, in the build folder /src/target, which a rebuild replaces and a clean removes; install Rootgate from its package",
        }),
      );
    });
    await openApps();
    q("route-button")?.click();
    await settle();
    flushSync();
    expect(text(q("route-warning"))).toContain("This writes /src/target/debug/rootgate, in the build folder");
  });
});
