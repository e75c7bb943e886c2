// Installing published servers in the window: a bundle from the picker,
// one handed over by the file manager, the registry's search, against the
// fake backend.
import { flushSync } from "svelte";
import { afterEach, describe, expect, it } from "vitest";
import type { InstallView, RegistryFound } from "../../lib/bindings";
import { prompt, server, settle } from "../../lib/testing";
import { all, q, startApp, unmountAll } from "../testing/window";

afterEach(unmountAll);

const text = (el: Element | null | undefined) => el?.textContent?.replace(/\s+/g, " ").trim() ?? "";

function offer(over: Partial<InstallView> = {}): InstallView {
  return {
    id: 7,
    about: {
      name: "notes",
      title: "Notes",
      version: "1.2.0",
      description: "Reads and writes your notes.",
      author: "Ada",
      homepage: null,
      license: "MIT",
      runs: "node server/index.js, from the bundle",
      tools: [
        { name: "read_note", description: "Reads a note" },
        { name: "write_note", description: "Writes a note" },
      ],
      prompts: [],
      compatibility: ["Linux, macOS", "Node.js >=18"],
      unfit: null,
      signature: { kind: "unsigned" },
    },
    source: { kind: "bundle", name: "notes", version: "1.2.0", sha256: "ab" },
    settings: [
      {
        key: "api_key",
        token: "${user_config.api_key}",
        title: "API key",
        description: "Your key.",
        kind: { kind: "text" },
        required: true,
        default: null,
        secret: true,
        usedIn: ["environment variable NOTES_KEY"],
      },
      {
        key: "depth",
        token: "${user_config.depth}",
        title: "Depth",
        description: "",
        kind: { kind: "number", min: 1, max: 5 },
        required: false,
        default: "2",
        secret: false,
        usedIn: ["argument 3"],
      },
      {
        key: "dirs",
        token: "${user_config.dirs}",
        title: "Note folders",
        description: "Where your notes are.",
        kind: { kind: "folder", multiple: true },
        required: true,
        default: null,
        secret: false,
        usedIn: ["argument 2"],
      },
    ],
    folders: ["/home/me/notes"],
    notes: [],
    commandLine: "NOTES_KEY='${user_config.api_key}' node /d/server/index.js '${folders}' --depth=${user_config.depth}",
    updates: null,
    ...over,
  };
}

/** Starts the window on the fake backend and shows the Servers view, where the buttons are. */
async function startOnServers(setup: Parameters<typeof startApp>[0] = () => {}) {
  const started = await startApp(setup);
  window.dispatchEvent(new KeyboardEvent("keydown", { key: "2", ctrlKey: true, bubbles: true }));
  await settle();
  flushSync();
  return started;
}

function type(el: HTMLElement | null, value: string) {
  const input = el as HTMLInputElement;
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
}

describe("installing a bundle", () => {
  it("shows the bundle, asks for its required setting, installs with the answers, then asks for approval", async () => {
    const added = server("n1", { name: "notes", approved: false });
    const { api } = await startOnServers((b) => {
      b.api.pickBundle.mockResolvedValue(offer());
      b.api.installOffer.mockResolvedValue({ server: added, updated: false, prompts: [prompt(3)], notes: [] });
    });
    q("install-bundle")?.click();
    await settle();
    flushSync();
    const dialog = q("install-dialog");
    expect(text(q("install-title"))).toBe("Notes 1.2.0");
    expect(text(q("install-signature"))).toContain("Not signed");
    expect(text(q("install-command"))).toContain("node /d/server/index.js");
    expect(text(q("install-compatibility"))).toContain("Node.js >=18");
    expect(text(q("install-tools"))).toContain("2 tools");
    // The folder setting is not a field: its folders go through consent.
    expect(text(q("install-folders"))).toContain("Note folders");
    expect(all("install-folder").map(text)).toEqual(["/home/me/notes"]);
    expect(dialog?.querySelector('[data-key="dirs"]')).toBeNull();
    // The secret is typed masked, and the install waits for it.
    const key = dialog?.querySelector<HTMLInputElement>('[data-key="api_key"]');
    expect(key?.type).toBe("password");
    expect((q("install-confirm") as HTMLButtonElement).disabled).toBe(true);
    expect(text(q("install-missing"))).toBe("Fill in API key to install it.");
    type(key ?? null, "s3cret");
    expect((q("install-confirm") as HTMLButtonElement).disabled).toBe(false);
    q("install-confirm")?.click();
    await settle();
    flushSync();
    expect(api.installOffer).toHaveBeenCalledWith(7, { api_key: "s3cret", depth: "2" });
    expect(q("install-dialog")).toBeNull();
    // The new command is shown for approval before anything runs.
    expect(q("approval-dialog")).not.toBeNull();
  });

  it("says who made the bundle, its page and its licence, as text (#40)", async () => {
    const base = offer();
    await startOnServers((b) =>
      b.api.pickBundle.mockResolvedValue({
        ...base,
        about: { ...base.about, author: "Ada <ada@example.com>", homepage: "https://example.com/notes", license: "MIT" },
      }),
    );
    q("install-bundle")?.click();
    await settle();
    flushSync();
    expect(text(q("install-author"))).toBe("By Ada <ada@example.com>");
    expect(text(q("install-homepage"))).toBe("https://example.com/notes · licence MIT");
    // Shown, never a link the dialog would open.
    expect(q("install-dialog")?.querySelector("a")).toBeNull();
  });

  it("says when a bundle names nobody as its author", async () => {
    const base = offer();
    await startOnServers((b) => b.api.pickBundle.mockResolvedValue({ ...base, about: { ...base.about, author: "  ", license: null } }));
    q("install-bundle")?.click();
    await settle();
    flushSync();
    expect(text(q("install-author"))).toBe("Its author is not named");
    expect(q("install-homepage")).toBeNull();
  });

  it("shows why a bundle cannot run here and offers no install", async () => {
    await startOnServers((b) => {
      b.api.pickBundle.mockResolvedValue(
        offer({ about: { ...offer().about, unfit: "it runs only on macOS (darwin)" } }),
      );
    });
    q("install-bundle")?.click();
    await settle();
    flushSync();
    expect(text(q("install-unfit"))).toContain("it runs only on macOS (darwin)");
    expect((q("install-confirm") as HTMLButtonElement).disabled).toBe(true);
  });

  it("says the backend's refusal in the dialog and keeps the answers", async () => {
    await startOnServers((b) => {
      b.api.pickBundle.mockResolvedValue(offer());
      b.api.installOffer.mockRejectedValue({ code: "settings", message: "cannot keep the record of installed servers in /home/me/.config/rootgate/installed.json: No space left on device" });
    });
    q("install-bundle")?.click();
    await settle();
    flushSync();
    type(document.querySelector('[data-key="api_key"]'), "k");
    type(document.querySelector('[data-key="depth"]'), "4");
    q("install-confirm")?.click();
    await settle();
    flushSync();
    expect(text(q("install-error"))).toBe(
      "Cannot keep the record of installed servers in /home/me/.config/rootgate/installed.json: No space left on device.",
    );
    expect((document.querySelector('[data-key="depth"]') as HTMLInputElement).value).toBe("4");
  });

  it("a cancelled picker opens nothing; Cancel forgets the offer", async () => {
    const { api } = await startOnServers((b) => {
      b.api.pickBundle.mockResolvedValueOnce(null).mockResolvedValueOnce(offer());
    });
    q("install-bundle")?.click();
    await settle();
    flushSync();
    expect(q("install-dialog")).toBeNull();
    q("install-bundle")?.click();
    await settle();
    flushSync();
    q("install-cancel")?.click();
    await settle();
    flushSync();
    expect(q("install-dialog")).toBeNull();
    expect(api.dropInstall).toHaveBeenCalledWith(7);
  });

  it("opens a bundle the file manager handed over, as an update of the server it made", async () => {
    const { handlers } = await startOnServers();
    handlers.changes?.([{ kind: "install", install: offer({ id: 9, updates: "notes" }) }]);
    flushSync();
    expect(text(q("install-dialog")?.querySelector("h2"))).toBe("Update notes to 1.2.0?");
    expect(text(q("install-confirm"))).toBe("Update");
  });
});

describe("a bundle opened with Rootgate from the file manager", () => {
  it("shows it for installing as the window opens", async () => {
    await startApp((b) => {
      b.api.appInfo.mockResolvedValue({
        version: "0.1.0",
        settingsPath: "/tmp/settings.json",
        recovery: null,
        rootsNote: "note",
        enforcement: { state: "available" },
        notices: [],
        cliPath: null,
        installs: [offer({ id: 3 })],
      });
    });
    expect(text(q("install-title"))).toBe("Notes 1.2.0");
  });
});

describe("the registry's address in Settings", () => {
  it("saves the address typed, and an empty field as the default", async () => {
    const { api } = await startApp();
    window.dispatchEvent(new KeyboardEvent("keydown", { key: ",", ctrlKey: true, bubbles: true }));
    await settle();
    flushSync();
    expect((q("registry-address") as HTMLInputElement).placeholder).toBe("https://registry.modelcontextprotocol.io");
    type(q("registry-address"), "  https://mirror.example.com  ");
    q("registry-save")?.click();
    await settle();
    expect(api.setRegistry).toHaveBeenLastCalledWith("https://mirror.example.com");
    type(q("registry-address"), "");
    q("registry-save")?.click();
    await settle();
    expect(api.setRegistry).toHaveBeenLastCalledWith("");
  });
});

describe("adding from the registry", () => {
  const found: RegistryFound = {
    registry: "https://registry.modelcontextprotocol.io",
    fromCache: null,
    servers: [
      {
        name: "io.github.example/files",
        title: "Files",
        description: "Reads files",
        version: "0.6.2",
        remote: false,
        packages: [
          { index: 0, kind: "npm", identifier: "@example/files", version: "0.6.2", runnable: true, whyNot: null },
          {
            index: 1,
            kind: "oci",
            identifier: "docker.io/example/files",
            version: "0.6.2",
            runnable: false,
            whyNot: "a container image, which Rootgate does not run",
          },
        ],
      },
    ],
  };

  it("searches, lists what can run and what cannot, and opens the chosen package", async () => {
    const { api } = await startOnServers((b) => {
      b.api.registrySearch.mockResolvedValue(found);
      b.api.registryOffer.mockResolvedValue(offer({ source: { kind: "registry", registry: "r", name: "io.github.example/files", version: "0.6.2", package: "npm:@example/files" } }));
    });
    q("add-from-registry")?.click();
    flushSync();
    type(q("registry-words"), "files");
    q("registry-search")?.click();
    await settle();
    flushSync();
    expect(api.registrySearch).toHaveBeenCalledWith("files");
    expect(all("registry-result").map((r) => r.dataset.name)).toEqual(["io.github.example/files"]);
    expect(text(q("registry-unfit"))).toContain("container image");
    q("registry-choose")?.click();
    await settle();
    flushSync();
    expect(api.registryOffer).toHaveBeenCalledWith("io.github.example/files", "0.6.2", 0);
    expect(q("registry-dialog")).toBeNull();
    expect(q("install-dialog")?.textContent).toContain("From the MCP Registry");
    expect(text(q("install-package"))).toBe("io.github.example/files, its npm package @example/files");
  });

  it("says when the answer comes from the cache, and when the registry cannot be reached", async () => {
    await startOnServers((b) => {
      b.api.registrySearch
        .mockResolvedValueOnce({ ...found, fromCache: Date.UTC(2026, 11, 1, 9, 30) })
        .mockRejectedValueOnce({ code: "server", message: "the registry cannot be reached and nothing is cached" });
    });
    q("add-from-registry")?.click();
    flushSync();
    type(q("registry-words"), "files");
    q("registry-search")?.click();
    await settle();
    flushSync();
    expect(text(q("registry-cached"))).toContain("could not be reached");
    q("registry-search")?.click();
    await settle();
    flushSync();
    expect(text(q("registry-error"))).toBe("The registry cannot be reached and nothing is cached.");
  });
});
