// The window's frame against the fake backend: views made once and kept,
// going back (Escape, Alt+Left, Ctrl+2, the sidebar), the shortcuts sheet,
// and the narrow window's icon sidebar and row menus.
import { flushSync } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";
import { folder, server, settle } from "../../lib/testing";
import { all, q, startApp, unmountAll } from "../testing/window";

afterEach(unmountAll);

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

describe("getting around the window", () => {
  const key = (k: string, over: KeyboardEventInit = {}) =>
    window.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true, ...over }));
  const text = (el: Element | null | undefined) => el?.textContent?.replace(/\s+/g, " ").trim();
  const failed = { state: "failed" as const, reason: "the command exited at once (exit code 1) without speaking MCP" };

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
});
