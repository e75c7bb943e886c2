// The servers' state against the fake backend: statuses over older lists,
// approval before starting, the form's errors, the example, a new server's
// checklist, setting a server's folders, retries.
import { describe, expect, it } from "vitest";
import { AppState } from "./app.svelte";
import { started } from "./testing";
import { fakeBackend, folder, server } from "../testing";

describe("statuses", () => {
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

describe("adding a server, its folders and its retries", () => {
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
});
