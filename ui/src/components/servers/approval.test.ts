// The approval dialog against the fake backend: the approved and new
// command lines compared word by word, and what a command downloads.
import { flushSync } from "svelte";
import { afterEach, describe, expect, it } from "vitest";
import { server } from "../../lib/testing";
import { q, RUNNING, startApp, unmountAll } from "../testing/window";

afterEach(unmountAll);

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

  it("asks a held server's network, off unless said, and saves it before approving", async () => {
    const { app, api } = await startApp((b) => {
      b.api.updateServer.mockImplementation(async () => server("s", { enforceRoots: true, allowNetwork: true, approved: false }));
      b.api.approveCommand.mockResolvedValue(server("s", { enforceRoots: true, allowNetwork: true, approved: true }));
    });
    app.servers.approval = server("s", { approvedCommand: null, approved: false, enforceRoots: true });
    flushSync();
    expect(q("approval-dialog")?.textContent).toContain("It runs held in a sandbox (bubblewrap, with Landlock inside)");
    const check = q("approval-network-check") as HTMLInputElement;
    expect(check.checked).toBe(false);
    // The question's meaning is read with it, and says what off means.
    const help = document.getElementById(check.getAttribute("aria-describedby") ?? "");
    expect(help?.textContent).toMatch(/^\s*Off: it reaches no other machine/);
    check.click();
    flushSync();
    expect(help?.textContent).toMatch(/^\s*On: it may reach other machines/);
    q("approval-approve")!.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(api.updateServer).toHaveBeenCalledWith("s", expect.objectContaining({ allowNetwork: true, enforceRoots: true }));
  });

  it("offers one process per app session at approval, off unless ticked, and saves it before approving", async () => {
    const { app, api } = await startApp((b) => {
      b.api.updateServer.mockImplementation(async () => server("s", { ownProcess: true, approved: false }));
      b.api.approveCommand.mockResolvedValue(server("s", { ownProcess: true, approved: true }));
    });
    app.servers.approval = server("s", { approvedCommand: null, approved: false });
    flushSync();
    const check = q("approval-own-process-check") as HTMLInputElement;
    expect(check.checked).toBe(false);
    const help = document.getElementById(check.getAttribute("aria-describedby") ?? "");
    expect(help?.textContent).toContain("share one process of it");
    // Approved as it is, nothing else is saved first.
    check.click();
    check.click();
    flushSync();
    q("approval-approve")!.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(api.updateServer).not.toHaveBeenCalled();
    expect(api.approveCommand).toHaveBeenCalled();

    app.servers.approval = server("s", { approvedCommand: null, approved: false });
    flushSync();
    (q("approval-own-process-check") as HTMLInputElement).click();
    flushSync();
    q("approval-approve")!.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(api.updateServer).toHaveBeenCalledWith("s", expect.objectContaining({ ownProcess: true }));

    // Not asked of a server that gets a process per session anyway.
    app.servers.approval = server("s", { approvedCommand: null, approved: false, foldersAsArguments: true });
    flushSync();
    expect(q("approval-own-process")).toBeNull();
    // A Workspace server's sessions share one process per project: asked.
    app.servers.approval = server("s", { approvedCommand: null, approved: false, workspaceOnly: true });
    flushSync();
    expect(q("approval-own-process")).not.toBeNull();
    expect(q("approval-own-process")?.textContent).toContain("one per project");
  });

  it("does not ask the network where bubblewrap cannot hold the server, and says what is not stopped", async () => {
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
    app.servers.approval = server("s", { approvedCommand: null, approved: false, enforceRoots: true });
    flushSync();
    expect(q("approval-network")).toBeNull();
    const explain = q("approval-dialog")?.textContent?.replace(/\s+/g, " ");
    expect(explain).toContain("It is not held in a sandbox here (bubblewrap is not installed)");
    expect(explain).toContain("it still reaches the network.");
    expect(explain).not.toContain("runs held");
  });

  it("asks nothing of the network for a server that is not held", async () => {
    const { app } = await startApp();
    app.servers.approval = server("s", { approvedCommand: null, approved: false });
    flushSync();
    expect(q("approval-network")).toBeNull();
    expect(q("approval-dialog")?.textContent).toContain("It runs with your user's permissions");
  });
});
