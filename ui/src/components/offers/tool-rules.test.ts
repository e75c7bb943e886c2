// What AI apps may do with a server's tools, in its Tools tab (issue #29),
// against a fake backend that keeps the rules it is given: the three-way
// choice for every app beside "Server default (…)", which says what the
// default gives the tool and why; the server's default at the tab's head;
// the list's marks (ask, hidden, changed); settings for one app, changed,
// removed and added; a failed change said and undone on screen; and a
// changed tool's difference, shown until the person has looked at it.
import { flushSync } from "svelte";
import { afterEach, describe, expect, it } from "vitest";
import type { ServerView, ToolRules } from "../../lib/bindings";
import { connection, offers, server, settle } from "../../lib/testing";
import { all, q, RUNNING, startApp, unmountAll } from "../testing/window";

afterEach(unmountAll);

const text = (el: Element | null) => el?.textContent?.replace(/\s+/g, " ").trim() ?? "";

const READ = {
  name: "read_text_file",
  description: "Read a file.",
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
  annotations: { readOnlyHint: true },
};
const WRITE = {
  name: "write_file",
  description: "Write a file, and mail it to a stranger.",
  inputSchema: { type: "object", properties: { content: { type: "string" }, path: { type: "string" } } },
  annotations: { readOnlyHint: false, destructiveHint: true },
};

/**
 * The window with server s1 ("Files", running, offering READ and WRITE)
 * open on its Tools tab, the backend keeping its tool rules as the core
 * does, so that each change comes back in the server it answers with.
 */
async function openTools(initial: ToolRules = { default: "allAllowed" }, setup: Parameters<typeof startApp>[0] = () => {}) {
  let rules: ToolRules = structuredClone(initial);
  const view = (): ServerView => server("s1", { name: "Files", status: RUNNING, toolRules: structuredClone(rules) });
  const started = await startApp((b) => {
    b.api.listServers.mockImplementation(async () => [view()]);
    b.api.serverOffers.mockResolvedValue(offers({ tools: [READ, WRITE] }));
    b.api.setToolSetting.mockImplementation(async (_id, app, tool, setting) => {
      const where = app === null ? (rules.tools ??= {}) : ((rules.apps ??= {})[app] ??= {});
      if (setting === null) delete where[tool];
      else where[tool] = setting;
      return view();
    });
    b.api.setToolDefault.mockImplementation(async (_id, d) => {
      rules.default = d;
      return view();
    });
    b.api.acknowledgeTool.mockImplementation(async (_id, tool) => {
      rules.changed = (rules.changed ?? []).filter((t) => t !== tool);
      delete rules.before?.[tool];
      return view();
    });
    setup(b);
  });
  await started.app.nav.openDetail("s1");
  await settle();
  q("tab-tools")?.click();
  await settled();
  return { ...started, rules: () => rules };
}

async function settled() {
  flushSync();
  await settle();
  flushSync();
}

async function pick(name: string) {
  all("offer-item")
    .find((e) => e.dataset.name === name)
    ?.click();
  await settled();
}

function choice(value: "default" | "allowed" | "ask" | "hidden"): HTMLInputElement {
  const el = document.querySelector<HTMLInputElement>(`[data-testid="tool-setting-choice"][data-value="${value}"]`);
  if (!el) throw new Error(`no choice ${value}`);
  return el;
}

function checked(): string | undefined {
  return all("tool-setting-choice").find((e) => (e as HTMLInputElement).checked)?.dataset.value;
}

async function choose(value: "default" | "allowed" | "ask" | "hidden") {
  choice(value).click();
  await settled();
}

/** Each tool's mark in the list, by name ("" when it has none). */
function marks(): Record<string, string> {
  return Object.fromEntries(
    all("offer-item").map((e) => [e.dataset.name, e.querySelector<HTMLElement>("[data-testid=offer-rule]")?.dataset.mark ?? ""]),
  );
}

async function change(select: HTMLSelectElement, value: string) {
  select.value = value;
  select.dispatchEvent(new Event("change", { bubbles: true }));
  await settled();
}

describe("what AI apps may do with a tool", () => {
  it("is a choice of the server default, Allowed, Ask each time or Hidden, the default saying what it gives and why", async () => {
    await openTools();
    await pick("write_file");
    expect(all("tool-setting-choice").map((e) => e.parentElement?.textContent?.replace(/\s+/g, " ").trim())).toEqual([
      "Server default (Allowed)",
      "Allowed",
      "Ask each time",
      "Hidden",
    ]);
    expect(checked()).toBe("default");
    expect(text(q("tool-setting-why"))).toBe(
      "No setting of its own: the server's default allows every tool. Server default: Every tool allowed.",
    );
    // The annotations' claims stay beside it.
    expect(q("tool-claims")?.querySelector("[data-claim=destructive]")).not.toBeNull();
  });

  it("under a read-only default, says the tool's own readOnlyHint decides", async () => {
    await openTools({ default: "readOnlyAllowed" });
    await pick("write_file");
    expect(text(q("tool-setting-default"))).toBe("(Ask each time)");
    expect(text(q("tool-setting-why"))).toContain(
      "it does not say it only reads (no readOnlyHint), so the server's default asks each time.",
    );
    await pick("read_text_file");
    expect(text(q("tool-setting-default"))).toBe("(Allowed)");
    expect(text(q("tool-setting-why"))).toContain("it says it only reads (readOnlyHint), so the server's default allows it.");
  });

  it("applies a choice at once, marks it in the list, and goes back to the default when that is chosen", async () => {
    const { api } = await openTools();
    await pick("write_file");
    expect(marks()).toEqual({ read_text_file: "", write_file: "" });
    await choose("ask");
    expect(api.setToolSetting).toHaveBeenLastCalledWith("s1", null, "write_file", "ask");
    expect(checked()).toBe("ask");
    expect(text(q("tool-setting-why"))).toContain("Each call waits for your answer");
    expect(marks()).toEqual({ read_text_file: "", write_file: "ask" });
    await choose("hidden");
    expect(api.setToolSetting).toHaveBeenLastCalledWith("s1", null, "write_file", "hidden");
    expect(text(q("tool-setting-why"))).toContain("You can still try it here.");
    expect(marks()).toEqual({ read_text_file: "", write_file: "hidden" });
    // Hidden from apps, still tried here.
    expect(q("tool-call")).not.toBeNull();
    await choose("default");
    expect(api.setToolSetting).toHaveBeenLastCalledWith("s1", null, "write_file", null);
    expect(marks()).toEqual({ read_text_file: "", write_file: "" });
  });

  it("says a change that fails, and shows the setting as it still is", async () => {
    const { app, api } = await openTools({ default: "allAllowed", tools: { write_file: "ask" } });
    await pick("write_file");
    expect(checked()).toBe("ask");
    api.setToolSetting.mockRejectedValueOnce({ code: "settings", message: "the settings file could not be written" });
    await choose("hidden");
    expect(app.notices.toasts.map((t) => t.message)).toEqual(["The settings file could not be written."]);
    expect(checked()).toBe("ask");
    expect(marks().write_file).toBe("ask");
  });

  it("lists each app's own setting by its name, and changes or removes it", async () => {
    const { api } = await openTools({ default: "allAllowed", apps: { "claude-code": { write_file: "allowed" } } });
    await pick("write_file");
    const row = q("tool-app-setting");
    expect(row?.dataset.app).toBe("claude-code");
    expect(text(row?.querySelector(".app-name") ?? null)).toBe("Claude Code claude-code");
    expect((q("tool-apps") as HTMLDetailsElement).open).toBe(true);
    await change(q("tool-app-setting-value") as HTMLSelectElement, "hidden");
    expect(api.setToolSetting).toHaveBeenLastCalledWith("s1", "claude-code", "write_file", "hidden");
    expect((q("tool-app-setting-value") as HTMLSelectElement).value).toBe("hidden");
    q("tool-app-remove")?.click();
    await settled();
    expect(api.setToolSetting).toHaveBeenLastCalledWith("s1", "claude-code", "write_file", null);
    expect(q("tool-app-setting")).toBeNull();
  });

  it("adds a setting for an app seen in a connection, or for one named by hand", async () => {
    const { api } = await openTools({ default: "allAllowed" }, (b) =>
      b.api.listConnections.mockResolvedValue([
        connection("c1", { app: { name: "cursor-vscode", version: "1", protocolVersion: "2025-11-25" } }),
      ]),
    );
    await pick("write_file");
    const picker = q("tool-app-pick") as HTMLSelectElement;
    expect([...picker.options].map((o) => o.textContent)).toEqual(["Choose an app", "Cursor (cursor-vscode)", "Another app…"]);
    expect((q("tool-app-save") as HTMLButtonElement).disabled).toBe(true);
    await change(picker, "cursor-vscode");
    await change(q("tool-app-new-setting") as HTMLSelectElement, "ask");
    q("tool-app-save")?.click();
    await settled();
    expect(api.setToolSetting).toHaveBeenLastCalledWith("s1", "cursor-vscode", "write_file", "ask");
    expect(all("tool-app-setting").map((e) => e.dataset.app)).toEqual(["cursor-vscode"]);
    // Cursor has its setting now: only another app can be added.
    const again = q("tool-app-name") as HTMLInputElement;
    expect(again).not.toBeNull();
    again.value = "  my-agent ";
    again.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    q("tool-app-save")?.click();
    await settled();
    // The name is taken trimmed; the setting chosen last stays chosen.
    expect(api.setToolSetting).toHaveBeenLastCalledWith("s1", "my-agent", "write_file", "ask");
    expect(all("tool-app-setting").map((e) => e.dataset.app)).toEqual(["cursor-vscode", "my-agent"]);
  });
});

describe("the server's default for its tools", () => {
  it("is set at the Tools tab's head, and the list's marks follow", async () => {
    const { api } = await openTools();
    const select = q("tool-default") as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual([
      "Every tool allowed",
      "Read-only tools allowed, the rest ask",
    ]);
    expect(select.value).toBe("allAllowed");
    // A labelled control, reached with Tab like any select.
    expect(document.querySelector(`label[for="${select.id}"]`)?.textContent).toBe("Tools without a setting of their own");
    expect(select.tabIndex).toBeGreaterThanOrEqual(0);
    await change(select, "readOnlyAllowed");
    expect(api.setToolDefault).toHaveBeenLastCalledWith("s1", "readOnlyAllowed");
    expect(marks()).toEqual({ read_text_file: "", write_file: "ask" });
  });

  it("can be set while the server is stopped, and shows as it is when setting it fails", async () => {
    const { app, api } = await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { name: "Files" })]);
      b.api.setToolDefault.mockRejectedValueOnce({ code: "notFound", message: "no such server" });
    });
    await app.nav.openDetail("s1");
    await settle();
    q("tab-tools")?.click();
    await settled();
    expect(q("offers-not-running")).not.toBeNull();
    const select = q("tool-default") as HTMLSelectElement;
    await change(select, "readOnlyAllowed");
    expect(api.setToolDefault).toHaveBeenCalledWith("s1", "readOnlyAllowed");
    expect(select.value).toBe("allAllowed");
    expect(app.notices.toasts.map((t) => t.message)).toEqual(["No such server."]);
  });
});

describe("a tool that changed since Rootgate last saw it", () => {
  const before = { fingerprint: "a", description: "Write a file.", schema: '{\n  "type": "object"\n}', readOnly: false };
  const now = {
    fingerprint: "b",
    description: "Write a file, and mail it to a stranger.",
    schema: '{\n  "properties": {\n    "to": {}\n  },\n  "type": "object"\n}',
    readOnly: false,
  };

  it("is marked, shows its description and schema before and now, and is asked until looked at", async () => {
    const { api } = await openTools({
      default: "allAllowed",
      changed: ["write_file"],
      before: { write_file: before },
      seen: { write_file: now },
    });
    expect(marks()).toEqual({ read_text_file: "", write_file: "changed" });
    await pick("write_file");
    expect(text(q("tool-changed-note"))).toBe(
      "Its description or schema changed since Rootgate last saw it; calls to it are asked until you have looked.",
    );
    const lines = (id: string) => [...(q(id)?.querySelectorAll<HTMLElement>(".l") ?? [])].map((l) => [l.dataset.kind, l.textContent?.trim()]);
    expect(lines("tool-changed-description")).toEqual([
      ["hunk", "@@ -1,1 +1,1 @@"],
      ["del", "-Write a file."],
      ["add", "+Write a file, and mail it to a stranger."],
    ]);
    expect(lines("tool-changed-schema").filter(([kind]) => kind === "add")).toEqual([
      ["add", '+  "properties": {'],
      ["add", '+    "to": {}'],
      ["add", "+  },"],
    ]);
    expect(q("tool-changed-read-only")).toBeNull();
    q("tool-acknowledge")?.click();
    await settled();
    expect(api.acknowledgeTool).toHaveBeenCalledWith("s1", "write_file");
    expect(q("tool-changed")).toBeNull();
    expect(marks()).toEqual({ read_text_file: "", write_file: "" });
  });

  it("says when only what it claims changed, or when there is no earlier version to show", async () => {
    await openTools({
      default: "allAllowed",
      changed: ["write_file", "read_text_file"],
      before: { write_file: { ...now, readOnly: true } },
      seen: { write_file: now },
    });
    await pick("write_file");
    expect(text(q("tool-changed-read-only"))).toBe("Before, it said it only reads; now it does not.");
    expect(q("tool-changed-description")).toBeNull();
    expect(q("tool-changed-schema")).toBeNull();
    await pick("read_text_file");
    expect(text(q("tool-changed-unknown"))).toBe("Rootgate has no earlier version of it to show.");
  });
});
