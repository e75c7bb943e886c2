// Where the window is, against the fake backend: going back through the
// places the person was, skipping those gone.
import { describe, expect, it } from "vitest";
import { started } from "./testing";
import { server, settle } from "../testing";

describe("going back", () => {
  it("goes back: the Servers item closes a detail, Escape goes up, Alt+Left goes where the person was", async () => {
    const { app, api } = await started();
    api.listServers.mockResolvedValue([server("s"), server("t")]);
    api.listConnections.mockResolvedValue([]);
    await app.reload();
    app.nav.show("activity");
    await app.nav.openDetail("s");
    expect(app.nav.place).toEqual({ view: "servers", detail: "s", connection: null });
    // The sidebar's Servers item (or Ctrl+2) in a detail: the list.
    app.nav.show("servers");
    expect(app.nav.detail).toBeNull();
    expect(app.nav.back()).toBe(true);
    await settle();
    expect(app.nav.detail).toBe("s");
    expect(app.nav.back()).toBe(true);
    expect(app.nav.view).toBe("activity");
    await app.nav.openDetail("t");
    expect(app.nav.up()).toBe(true);
    expect(app.nav.place).toEqual({ view: "servers", detail: null, connection: null });
    expect(app.nav.back()).toBe(true);
    await settle();
    expect(app.nav.detail).toBe("t");
  });

  it("skips a removed server's detail when going back, and goes up when there is nowhere else", async () => {
    const { app, api } = await started();
    api.listServers.mockResolvedValue([server("s"), server("t")]);
    await app.reload();
    await app.nav.openDetail("s");
    await app.nav.openDetail("t");
    api.listServers.mockResolvedValue([server("t")]);
    await app.reload();
    expect(app.nav.back()).toBe(true);
    // "s" is gone: back to where the person was before it (the folders).
    expect(app.nav.place).toEqual({ view: "folders", detail: null, connection: null });
    expect(app.nav.back()).toBe(false);
  });
});
