// The Settings area against the fake backend: loaded at start, fetched
// again on a settings change (a pause from the tray), each change saved and
// then shown as the backend holds it, a refusal said in words, and a
// question chosen in the tray shown first.
import { describe, expect, it } from "vitest";
import { started } from "./testing";
import { preferences, prompt, settle } from "../testing";

describe("the Settings area", () => {
  it("is loaded at start: sharing on, every notification on, no Start at login", async () => {
    const { app, api } = await started();
    expect(api.preferences).toHaveBeenCalledTimes(1);
    expect(app.settings.paused).toBe(false);
    expect(app.settings.offerStartAtLogin).toBe(false);
    expect(app.settings.prefs?.notify).toEqual({ serverFailed: true, withdrawalRestarted: true, approvalWaiting: true });
  });

  it("shows a pause made in the tray: a settings change fetches the preferences again", async () => {
    const { app, api, handlers } = await started();
    api.preferences.mockResolvedValue(preferences({ sharingPaused: true }));
    handlers.changes?.([{ kind: "settings", revision: 2 }]);
    await settle();
    expect(app.settings.paused).toBe(true);
  });

  it("pauses and resumes, showing what the backend holds after each", async () => {
    const { app, api } = await started();
    api.preferences.mockResolvedValue(preferences({ sharingPaused: true }));
    await app.settings.setPaused(true);
    expect(api.setSharingPaused).toHaveBeenCalledWith(true);
    expect(app.settings.paused).toBe(true);
    api.preferences.mockResolvedValue(preferences());
    await app.settings.setPaused(false);
    expect(api.setSharingPaused).toHaveBeenLastCalledWith(false);
    expect(app.settings.paused).toBe(false);
    expect(app.settings.saving).toBe(false);
  });

  it("changes one notification and keeps the others", async () => {
    const { app, api } = await started();
    await app.settings.setNotify("withdrawalRestarted", false);
    expect(api.setNotifyChoices).toHaveBeenCalledWith({
      serverFailed: true,
      withdrawalRestarted: false,
      approvalWaiting: true,
    });
  });

  it("says in words why a change was refused, and shows what is kept", async () => {
    const { app, api } = await started();
    api.setStartAtLogin.mockRejectedValue({ code: "settings", message: "the autostart entry could not be written: read-only" });
    await app.settings.setStartAtLogin(true);
    expect(app.notices.toasts.map((t) => t.message)).toContain("The autostart entry could not be written: read-only.");
    expect(app.settings.prefs?.startAtLogin.on).toBe(false);
    expect(api.preferences).toHaveBeenCalledTimes(2);
  });

  it("is offered Start at login once a route was written, and puts the offer away", async () => {
    const { app, api } = await started();
    api.preferences.mockResolvedValue(preferences({ offerStartAtLogin: true }));
    // AppsState tells the root after a route is written.
    await app.apps.planRoute("claude-desktop", 0);
    await app.apps.applyRoute();
    await settle();
    expect(app.settings.offerStartAtLogin).toBe(true);
    api.preferences.mockResolvedValue(preferences());
    await app.settings.dismissOffer();
    expect(api.dismissStartAtLogin).toHaveBeenCalled();
    expect(app.settings.offerStartAtLogin).toBe(false);
  });

  it("shows first a question chosen in the tray", async () => {
    const { app, handlers } = await started();
    app.prompts.enqueue([prompt(1), prompt(2)]);
    handlers.showPrompt?.(prompt(2));
    expect(app.prompts.queue.map((p) => p.id)).toEqual([2, 1]);
    handlers.showPrompt?.(prompt(3));
    expect(app.prompts.queue.map((p) => p.id)).toEqual([3, 2, 1]);
  });
});
