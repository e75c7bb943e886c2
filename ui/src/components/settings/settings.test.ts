// The Settings view and the window's paused banner against the fake
// backend: the sidebar and Ctrl+, lead to it, each checkbox saves its
// choice, a pause shows as a banner with Resume wherever the person is, an
// edited autostart entry is said, and the one offer of Start at login.
import { flushSync } from "svelte";
import { afterEach, describe, expect, it } from "vitest";
import { preferences, settle } from "../../lib/testing";
import { q, startApp, unmountAll } from "../testing/window";

afterEach(unmountAll);

const text = (el: Element | null | undefined) => el?.textContent?.replace(/\s+/g, " ").trim();

async function shown(setup: Parameters<typeof startApp>[0] = () => {}) {
  const started = await startApp(setup);
  q("nav-settings")?.click();
  flushSync();
  await settle();
  return started;
}

describe("the Settings view", () => {
  it("opens from the sidebar and with Ctrl+, and shows each choice as the backend holds it", async () => {
    const { app } = await startApp((b) =>
      b.api.preferences.mockResolvedValue(
        preferences({ notify: { serverFailed: true, withdrawalRestarted: false, approvalWaiting: true } }),
      ),
    );
    expect(q("nav-settings")?.getAttribute("title")).toBe("Settings (Ctrl+,)");
    window.dispatchEvent(new KeyboardEvent("keydown", { key: ",", ctrlKey: true }));
    flushSync();
    await settle();
    expect(app.nav.view).toBe("settings");
    expect(document.activeElement?.id).toBe("settings-title");
    const box = (id: string) => q(id) as HTMLInputElement;
    expect(box("pause-sharing").checked).toBe(false);
    expect(box("start-at-login").checked).toBe(false);
    expect(box("notify-serverFailed").checked).toBe(true);
    expect(box("notify-withdrawalRestarted").checked).toBe(false);
    expect(box("notify-approvalWaiting").checked).toBe(true);
    expect(q("settings-view")?.textContent).toContain("/home/me/.config/autostart/rootgate.desktop");
    expect(q("login-edited")).toBeNull();
  });

  it("saves each checkbox at once", async () => {
    const { api } = await shown();
    (q("start-at-login") as HTMLInputElement).click();
    await settle();
    expect(api.setStartAtLogin).toHaveBeenCalledWith(true);
    (q("notify-approvalWaiting") as HTMLInputElement).click();
    await settle();
    expect(api.setNotifyChoices).toHaveBeenCalledWith({
      serverFailed: true,
      withdrawalRestarted: true,
      approvalWaiting: false,
    });
  });

  it("keeps an unused shared server as long as chosen, showing the backend's choice even if not offered", async () => {
    const { api } = await shown((b) => b.api.preferences.mockResolvedValue(preferences({ unusedServerMinutes: 45 })));
    const select = q("unused-server-minutes") as HTMLSelectElement;
    expect(select.value).toBe("45");
    expect(text(select.selectedOptions[0])).toBe("45 minutes");
    select.value = "0";
    select.dispatchEvent(new Event("change", { bubbles: true }));
    await settle();
    expect(api.setUnusedServerMinutes).toHaveBeenCalledWith(0);
    expect(q("settings-view")?.textContent).toContain("share one process of a server");
  });

  it("pauses all sharing: a banner says so in every view, with Resume, and the sidebar marks it", async () => {
    const { api, app } = await shown();
    expect(q("paused-banner")).toBeNull();
    api.preferences.mockResolvedValue(preferences({ sharingPaused: true }));
    (q("pause-sharing") as HTMLInputElement).click();
    await settle();
    flushSync();
    expect(api.setSharingPaused).toHaveBeenCalledWith(true);
    expect(text(q("paused-banner"))).toContain("Sharing is paused");
    expect(q("paused-banner")?.getAttribute("role")).toBe("status");
    expect(text(q("nav-paused"))).toBe("paused");
    app.nav.show("folders");
    flushSync();
    expect(q("paused-banner")).not.toBeNull();
    api.preferences.mockResolvedValue(preferences());
    q("resume-sharing")?.click();
    await settle();
    flushSync();
    expect(api.setSharingPaused).toHaveBeenLastCalledWith(false);
    expect(q("paused-banner")).toBeNull();
  });

  it("says when the autostart entry was edited outside Rootgate", async () => {
    await shown((b) =>
      b.api.preferences.mockResolvedValue(
        preferences({ startAtLogin: { on: true, edited: true, path: "/home/me/.config/autostart/rootgate.desktop" } }),
      ),
    );
    expect((q("start-at-login") as HTMLInputElement).checked).toBe(true);
    expect(text(q("login-edited"))).toContain("your changes are kept");
  });

  it("offers Start at login once, and either answer puts the offer away", async () => {
    const { api } = await startApp((b) => b.api.preferences.mockResolvedValue(preferences({ offerStartAtLogin: true })));
    expect(text(q("login-offer"))).toContain("Keep Rootgate at hand?");
    api.preferences.mockResolvedValue(preferences({ startAtLogin: { on: true, edited: false, path: "/p" } }));
    q("login-offer-yes")?.click();
    await settle();
    flushSync();
    expect(api.setStartAtLogin).toHaveBeenCalledWith(true);
    expect(q("login-offer")).toBeNull();
  });
});
