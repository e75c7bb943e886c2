// Secrets in the window (#20 item 2): the form's Secret checkbox and masked
// value, the detail's masked environment and Reveal, the approval's
// name-not-value sentence, and the banners for a missing keyring and for
// values Rootgate does not have.
import { flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";
import App from "../../App.svelte";
import { AppState } from "../../lib/state/app.svelte";
import { REVEAL_MS } from "../../lib/secrets";
import { fakeBackend, server, settle } from "../../lib/testing";

let mounted: Record<string, unknown>[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const m of mounted) unmount(m);
  mounted = [];
  document.body.innerHTML = "";
});

const q = (testid: string) => document.querySelector<HTMLElement>(`[data-testid="${testid}"]`);
const all = (testid: string) => [...document.querySelectorAll<HTMLElement>(`[data-testid="${testid}"]`)];
const text = (el: Element | null | undefined) => el?.textContent?.replace(/\s+/g, " ").trim() ?? "";
const toasts = () => all("notice").map(text);

async function startApp(setup: (b: ReturnType<typeof fakeBackend>) => void = () => {}) {
  const b = fakeBackend();
  setup(b);
  const app = new AppState(b.api, b.events);
  mounted.push(mount(App, { target: document.body, props: { app, autostart: false, prepareViewsAfterMs: 60_000 } }));
  await app.start();
  flushSync();
  return { app, ...b };
}

function type(testid: string, value: string) {
  const el = q(testid) as HTMLInputElement;
  el.value = value;
  el.dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
}

const VALUE = "sk-live-0123456789";

/** A GitHub server whose API_TOKEN is in the keyring. */
const github = (over: Parameters<typeof server>[1] = {}) =>
  server("gh", {
    name: "GitHub",
    command: "gh-mcp",
    env: { API_TOKEN: "", DEBUG: "1" },
    secrets: { API_TOKEN: "keyring" },
    commandLine: "API_TOKEN=… DEBUG=1 gh-mcp",
    approvedCommand: "API_TOKEN=… DEBUG=1 gh-mcp",
    ...over,
  });

describe("the server form's secrets", () => {
  it("ticks Secret for a name that looks secret, masks its value with Show, and sends secretEnv", async () => {
    const { app, api } = await startApp((b) => b.api.addServer.mockResolvedValue(github()));
    app.nav.show("servers");
    flushSync();
    q("add-server")?.click();
    flushSync();
    type("server-name", "GitHub");
    type("server-command", "gh-mcp");
    q("env-add")?.click();
    flushSync();
    type("env-name-0", "API_TOK");
    expect((q("env-secret-0") as HTMLInputElement).checked).toBe(false);
    type("env-name-0", "API_TOKEN");
    expect((q("env-secret-0") as HTMLInputElement).checked).toBe(true);
    type("env-value-0", VALUE);
    const value = q("env-value-0") as HTMLInputElement;
    expect(value.type).toBe("password");
    q("env-show-0")?.click();
    flushSync();
    expect(value.type).toBe("text");
    expect(q("env-show-0")?.getAttribute("aria-pressed")).toBe("true");
    q("env-show-0")?.click();
    flushSync();
    expect(value.type).toBe("password");

    // A plain variable: no Show, in plain text; one the person unticks stays plain.
    q("env-add")?.click();
    flushSync();
    type("env-name-1", "DEBUG");
    type("env-value-1", "1");
    expect((q("env-value-1") as HTMLInputElement).type).toBe("text");
    expect(q("env-show-1")).toBeNull();
    q("env-add")?.click();
    flushSync();
    type("env-name-2", "PUBLIC_KEY_PATH");
    expect((q("env-secret-2") as HTMLInputElement).checked).toBe(true);
    (q("env-secret-2") as HTMLInputElement).click();
    flushSync();
    type("env-name-2", "PUBLIC_KEY_FILE");
    expect((q("env-secret-2") as HTMLInputElement).checked).toBe(false);
    type("env-value-2", "/home/me/.ssh/id.pub");

    (q("server-form") as HTMLFormElement).requestSubmit();
    await settle();
    expect(api.addServer).toHaveBeenCalledWith(
      expect.objectContaining({
        env: { API_TOKEN: VALUE, DEBUG: "1", PUBLIC_KEY_FILE: "/home/me/.ssh/id.pub" },
        secretEnv: ["API_TOKEN"],
      }),
    );
  });

  it("turns KEY=VALUE lines pasted into a name into rows", async () => {
    const { app } = await startApp();
    app.nav.show("servers");
    flushSync();
    q("add-server")?.click();
    flushSync();
    q("env-add")?.click();
    flushSync();
    const paste = new Event("paste", { bubbles: true, cancelable: true }) as ClipboardEvent;
    Object.defineProperty(paste, "clipboardData", { value: { getData: () => "GITHUB_TOKEN=ghp_1\nLOG_LEVEL=debug\n" } });
    q("env-name-0")?.dispatchEvent(paste);
    flushSync();
    expect(paste.defaultPrevented).toBe(true);
    expect(all("env-row").map((r) => [r.dataset.name, r.dataset.secret])).toEqual([
      ["GITHUB_TOKEN", "true"],
      ["LOG_LEVEL", "false"],
    ]);
    expect((q("env-value-0") as HTMLInputElement).value).toBe("ghp_1");
  });

  it("editing, a kept secret's field is empty and says so; left empty it is kept, typed it replaces", async () => {
    const { app, api } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([github()]);
      b.api.updateServer.mockResolvedValue(github());
    });
    app.servers.openEditForm(app.servers.list[0]);
    flushSync();
    const value = q("env-value-0") as HTMLInputElement;
    expect(all("env-row").map((r) => r.dataset.name)).toEqual(["API_TOKEN", "DEBUG"]);
    expect(value.value).toBe("");
    expect(value.type).toBe("password");
    expect(value.placeholder).toBe("Kept in the keyring: leave empty to keep it");
    expect((q("env-secret-0") as HTMLInputElement).checked).toBe(true);
    expect(q("env-note-0")).toBeNull();
    expect(q("env-show-0")).toBeNull(); // nothing to show

    (q("server-form") as HTMLFormElement).requestSubmit();
    await settle();
    expect(api.updateServer).toHaveBeenLastCalledWith(
      "gh",
      expect.objectContaining({ env: { API_TOKEN: "", DEBUG: "1" }, secretEnv: ["API_TOKEN"] }),
    );

    app.servers.openEditForm(app.servers.list[0]);
    flushSync();
    type("env-value-0", "sk-rotated");
    expect(text(q("env-note-0"))).toBe(
      "Replaces the value in the keyring. The approval covers its name, so a new value needs no new approval.",
    );
    (q("server-form") as HTMLFormElement).requestSubmit();
    await settle();
    expect(api.updateServer).toHaveBeenLastCalledWith(
      "gh",
      expect.objectContaining({ env: { API_TOKEN: "sk-rotated", DEBUG: "1" }, secretEnv: ["API_TOKEN"] }),
    );

    // Made plain with nothing typed: the form says where its value goes.
    app.servers.openEditForm(app.servers.list[0]);
    flushSync();
    (q("env-secret-0") as HTMLInputElement).click();
    flushSync();
    expect(text(q("env-note-0"))).toMatch(/^No longer secret: its value goes into the settings file/);
  });

  it("says that a missing secret's value must be typed", async () => {
    const { app } = await startApp((b) =>
      b.api.listServers.mockResolvedValue([github({ secrets: { API_TOKEN: "notStored" }, missingSecrets: ["API_TOKEN"] })]),
    );
    app.servers.openEditForm(app.servers.list[0]);
    flushSync();
    expect((q("env-value-0") as HTMLInputElement).placeholder).toBe("Not stored: type its value");
    expect(text(q("env-note-0"))).toBe("Rootgate does not have its value: the server cannot start until you give it.");
  });
});

describe("a server's secrets where they are shown", () => {
  it("masks a secret on the row, and marks one Rootgate does not have", async () => {
    const { app } = await startApp((b) =>
      b.api.listServers.mockResolvedValue([
        github(),
        server("b", { name: "Other", secrets: { X_KEY: "notStored" }, env: { X_KEY: "" }, missingSecrets: ["X_KEY"] }),
      ]),
    );
    app.nav.show("servers");
    flushSync();
    const [row, other] = all("server-row");
    expect(text(row.querySelector('[data-testid="server-command-line"]'))).toBe("API_TOKEN=… DEBUG=1 gh-mcp");
    expect(row.querySelector('[data-testid="needs-secret"]')).toBeNull();
    expect(text(other.querySelector('[data-testid="needs-secret"]'))).toBe("needs X_KEY");
  });

  it("shows a secret masked in the detail; Reveal shows it, a second press or a while hides it", async () => {
    const { app, api } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([github()]);
      b.api.revealSecret.mockResolvedValue(VALUE);
    });
    await app.nav.openDetail("gh");
    flushSync();
    const assignments = () => all("env-assignment").map(text);
    expect(assignments()).toEqual(["API_TOKEN=…", "DEBUG=1"]);
    expect(text(q("env-place"))).toBe("in the keyring");
    expect(all("env-reveal")).toHaveLength(1);

    q("env-reveal")?.click();
    await settle();
    flushSync();
    expect(api.revealSecret).toHaveBeenCalledWith("gh", "API_TOKEN");
    expect(assignments()).toEqual([`API_TOKEN=${VALUE}`, "DEBUG=1"]);
    expect(text(q("env-reveal"))).toBe("Hide");
    expect(q("env-reveal")?.getAttribute("aria-pressed")).toBe("true");
    q("env-reveal")?.click();
    flushSync();
    expect(assignments()).toEqual(["API_TOKEN=…", "DEBUG=1"]);

    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    q("env-reveal")?.click();
    await vi.advanceTimersByTimeAsync(0);
    flushSync();
    expect(assignments()[0]).toBe(`API_TOKEN=${VALUE}`);
    await vi.advanceTimersByTimeAsync(REVEAL_MS - 100);
    flushSync();
    expect(assignments()[0]).toBe(`API_TOKEN=${VALUE}`);
    await vi.advanceTimersByTimeAsync(200);
    flushSync();
    expect(assignments()[0]).toBe("API_TOKEN=…");
    // The value went nowhere but the detail.
    expect(toasts().some((t) => t.includes(VALUE))).toBe(false);
    expect(JSON.stringify(app.servers.list)).not.toContain(VALUE);
  });

  it("a reveal the keyring refuses says so in plain words, naming only the variable", async () => {
    const { app } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([github()]);
      b.api.revealSecret.mockRejectedValue({
        code: "keyring",
        message: "API_TOKEN is kept in the keyring, which is not available: no Secret Service on the session bus",
      });
    });
    await app.nav.openDetail("gh");
    flushSync();
    q("env-reveal")?.click();
    await settle();
    flushSync();
    expect(toasts()).toEqual([
      "API_TOKEN is kept in the keyring, which is not available: no Secret Service on the session bus. Rootgate keeps secrets in your desktop's keyring (GNOME Keyring, KWallet): start or unlock it, then try again.",
    ]);
    expect(all("env-assignment").map(text)[0]).toBe("API_TOKEN=…");
  });

  it("the approval says it covers the secret's name, not its value", async () => {
    const { app } = await startApp((b) => b.api.listServers.mockResolvedValue([github({ approved: false, approvedCommand: null })]));
    app.servers.approval = app.servers.list[0];
    flushSync();
    expect(text(q("approval-command"))).toBe("API_TOKEN=… DEBUG=1 gh-mcp");
    expect(text(q("approval-secrets"))).toBe(
      "Its secret API_TOKEN=… is shown by name. Approving covers the variable's name, not its value, so a new value (a rotated key) needs no new approval.",
    );
  });

  it("the approval of a command with no secret says nothing of them", async () => {
    const { app } = await startApp((b) => b.api.listServers.mockResolvedValue([server("s", { approved: false })]));
    app.servers.approval = app.servers.list[0];
    flushSync();
    expect(q("approval-secrets")).toBeNull();
  });
});

describe("the banners of a server's secrets", () => {
  const noKeyring = "no Secret Service on the session bus (is a keyring such as GNOME Keyring running?)";

  it("without a keyring, tells the person and keeps the secret where they choose", async () => {
    const waiting = github({ secrets: { API_TOKEN: "notStored" }, keyringProblem: noKeyring });
    const { app, api } = await startApp((b) => b.api.listServers.mockResolvedValue([waiting]));
    api.keepSecret.mockImplementation(async (_id, _name, place) =>
      github({ secrets: { API_TOKEN: place as "file" }, keyringProblem: null }),
    );
    await app.nav.openDetail("gh");
    flushSync();
    const banner = q("keyring-banner")!;
    expect(text(banner.querySelector("h2"))).toBe("No keyring to keep API_TOKEN in");
    expect(text(q("keyring-problem"))).toBe(noKeyring);
    expect(text(banner)).toContain("For now Rootgate holds the value only while it runs. Where should it go?");
    expect(text(q("env-place"))).toBe("not stored, held until Rootgate quits");

    q("keyring-keep-file")?.click();
    await settle();
    flushSync();
    expect(api.keepSecret).toHaveBeenLastCalledWith("gh", "API_TOKEN", "file");
    expect(q("keyring-banner")).toBeNull();
    expect(text(q("env-place"))).toBe("in the settings file");
    expect(toasts()).toContain("API_TOKEN is kept in the settings file, which only you can read.");
  });

  it("the other choices: not stored, and the keyring tried again", async () => {
    const waiting = github({ secrets: { API_TOKEN: "notStored", B_KEY: "fileUntilKeyring" }, env: { API_TOKEN: "", B_KEY: "" }, keyringProblem: noKeyring });
    const { app, api } = await startApp((b) => b.api.listServers.mockResolvedValue([waiting]));
    api.keepSecret.mockResolvedValue(waiting);
    await app.nav.openDetail("gh");
    flushSync();
    expect(text(q("keyring-banner")?.querySelector("h2"))).toBe("No keyring to keep API_TOKEN and B_KEY in");
    q("keyring-not-stored")?.click();
    await settle();
    expect(api.keepSecret.mock.calls).toEqual([
      ["gh", "API_TOKEN", "notStored"],
      ["gh", "B_KEY", "notStored"],
    ]);
    api.keepSecret.mockClear();
    api.keepSecret.mockRejectedValue({ code: "keyring", message: `no keyring is available to keep API_TOKEN in: ${noKeyring}` });
    q("keyring-retry")?.click();
    await settle();
    flushSync();
    expect(api.keepSecret.mock.calls).toEqual([["gh", "API_TOKEN", "keyring"]]);
    expect(toasts().at(-1)).toMatch(/^No keyring is available to keep API_TOKEN in: .*start or unlock it, then try again\.$/);
    expect(q("keyring-banner")).not.toBeNull();
  });

  it("asks for a value Rootgate does not have, and saves it as an edit that changes nothing else", async () => {
    const missing = github({ secrets: { API_TOKEN: "notStored", OTHER_KEY: "keyring" }, env: { API_TOKEN: "", DEBUG: "1", OTHER_KEY: "" }, missingSecrets: ["API_TOKEN"] });
    const { app, api } = await startApp((b) => b.api.listServers.mockResolvedValue([missing]));
    api.updateServer.mockResolvedValue(github({ secrets: { API_TOKEN: "keyring", OTHER_KEY: "keyring" } }));
    app.nav.show("servers");
    flushSync();
    expect(text(q("needs-secret"))).toBe("needs API_TOKEN");
    await app.nav.openDetail("gh");
    flushSync();
    const banner = q("missing-secrets")!;
    expect(text(banner.querySelector("h2"))).toBe("Give the value of API_TOKEN again");
    expect(text(q("env-place"))).toBe("not stored: give it again");
    expect(all("env-reveal")).toHaveLength(1); // OTHER_KEY's; none for the missing one
    const input = q("missing-value-0") as HTMLInputElement;
    expect(input.type).toBe("password");
    expect((q("missing-save-0") as HTMLButtonElement).disabled).toBe(true);
    expect(q("missing-show-0")).toBeNull();
    type("missing-value-0", VALUE);
    q("missing-show-0")?.click();
    flushSync();
    expect(input.type).toBe("text");
    (q("missing-save-0")?.closest("form") as HTMLFormElement).requestSubmit();
    await settle();
    flushSync();
    expect(api.updateServer).toHaveBeenCalledWith("gh", {
      name: "GitHub",
      command: "gh-mcp",
      args: [],
      env: { API_TOKEN: VALUE, DEBUG: "1", OTHER_KEY: "" },
      cwd: null,
      enabled: true,
      withdrawal: "notify",
      enforceRoots: false,
      era: "auto",
      secretEnv: ["API_TOKEN", "OTHER_KEY"],
    });
    expect(q("missing-secrets")).toBeNull();
    expect(toasts()).toEqual(["API_TOKEN is in the keyring now."]);
  });

  it("a missing secret's error has words that say what to do", async () => {
    const { app } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([github()]);
      b.api.revealSecret.mockRejectedValue({
        code: "missingSecret",
        message: "API_TOKEN is not in the keyring any more (was it removed there?); give its value again in the server's settings",
      });
    });
    await app.nav.openDetail("gh");
    flushSync();
    q("env-reveal")?.click();
    await settle();
    flushSync();
    expect(toasts().at(-1)).toBe(
      "API_TOKEN is not in the keyring any more (was it removed there?); give its value again in the server's settings. Edit the server and type its value: nothing else changes, and it stays approved.",
    );
  });
});
