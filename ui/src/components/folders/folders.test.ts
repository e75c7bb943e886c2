// The Folders view against the fake backend: the first run's empty list,
// folders with the servers that see them, an unavailable folder.
import { afterEach, describe, expect, it } from "vitest";
import { folder, server } from "../../lib/testing";
import { all, q, startApp, unmountAll } from "../testing/window";

afterEach(unmountAll);

describe("the Folders view", () => {
  it("shows the first run and the empty folder list", async () => {
    await startApp();
    expect(q("first-run")).not.toBeNull();
    expect(q("first-run-example")).not.toBeNull();
    expect(q("empty-folders")).not.toBeNull();
  });

  it("lists folders with the servers that see them", async () => {
    await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { name: "Files" })]);
      b.api.listFolders.mockResolvedValue([
        folder("r1", { name: "Photos", servers: ["s1"] }),
        folder("r2", { name: "Notes", available: false }),
      ]);
    });
    const rows = all("folder-row");
    expect(rows.map((r) => r.dataset.rootId)).toEqual(["r1", "r2"]);
    expect(rows[0].querySelector('[data-testid="folder-servers"]')?.textContent).toContain("Files");
    expect(rows[1].querySelector('[data-testid="folder-servers"]')?.textContent).toContain("shared with no one");
    expect(rows[1].textContent).toContain("unavailable");
    expect(rows[0].querySelector('[data-testid="folder-path"]')?.textContent).toBe("/home/me/r1");
    expect(q("first-run")).toBeNull();
  });
});

describe("an unavailable folder", () => {
  it("does not count as shared, and its servers are struck with why", async () => {
    await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { name: "Files" })]);
      b.api.listFolders.mockResolvedValue([
        folder("r1", { name: "Here", servers: ["s1"] }),
        folder("r2", { name: "Gone", servers: ["s1"], available: false }),
      ]);
    });
    expect(document.querySelector("#folders-title + .sub")?.textContent?.replace(/\s+/g, " ").trim()).toMatch(
      /^2 folders, 1 shared with a server, 1 not available\./,
    );
    const [here, gone] = all("folder-row");
    expect(here.querySelector(".chip.struck")).toBeNull();
    expect(here.querySelector('[data-testid="folder-off-note"]')).toBeNull();
    expect(gone.querySelector(".chip.struck")?.textContent).toBe("Files");
    expect(gone.querySelector('[data-testid="folder-off-note"]')?.textContent).toBe("not available; no server sees it now");
    expect(gone.querySelector('[data-testid="folder-servers"]')?.getAttribute("title")).toMatch(/no server sees it now/);
  });
});
