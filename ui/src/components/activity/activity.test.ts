// The Activity view against the fake backend: searching, filtering by
// kind, exporting what is shown.
import { flushSync } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";
import { entry, server, settle } from "../../lib/testing";
import { all, q, startApp, unmountAll } from "../testing/window";

afterEach(unmountAll);

describe("the Activity view", () => {
  const text = (el: Element | null | undefined) => el?.textContent?.replace(/\s+/g, " ").trim();

  it("searches and filters the activity by kind, and exports what is shown", async () => {
    const created: Blob[] = [];
    const createObjectURL = vi.fn((b: Blob) => {
      created.push(b);
      return "blob:x";
    });
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const clicks = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    try {
      const { app } = await startApp((b) => {
        b.api.listServers.mockResolvedValue([server("s1", { name: "Files" }), server("s2", { name: "Crashy" })]);
        b.api.activity.mockResolvedValue([
          entry(1, "s1"),
          { ...entry(2, "s2"), event: { kind: "failed", reason: "exited at once" } },
          { ...entry(3, "s2"), event: { kind: "exited", status: "exit code 1", expected: false } },
          entry(4, "s2"),
        ]);
      });
      app.nav.show("activity");
      flushSync();
      await settle();
      flushSync();
      expect(all("activity-entry")).toHaveLength(4);
      const kind = q("activity-kind") as HTMLSelectElement;
      kind.selectedIndex = [...kind.options].findIndex((o) => o.value === "failures");
      kind.dispatchEvent(new Event("change", { bubbles: true }));
      flushSync();
      await settle();
      expect(all("activity-entry").map((e) => e.dataset.kind)).toEqual(["failed", "exited"]);
      expect(text(q("activity-shown"))).toContain("2 of 4 shown");
      const search = q("activity-search") as HTMLInputElement;
      search.value = "at once";
      search.dispatchEvent(new Event("input", { bubbles: true }));
      flushSync();
      await settle();
      expect(all("activity-entry").map((e) => e.dataset.kind)).toEqual(["failed"]);
      (q("activity-export") as HTMLButtonElement).click();
      expect(clicks).toHaveBeenCalledTimes(1);
      const doc = JSON.parse(await created[0].text());
      expect(doc.count).toBe(1);
      expect(doc.filter).toEqual({ server: null, kind: "failures", search: "at once" });
      expect(doc.entries[0]).toMatchObject({ seq: 2, serverName: "Crashy", kind: "failed" });
      expect(app.notices.toasts.at(-1)?.message).toMatch(/^Exported 1 event as rootgate-activity-.*\.json/);
      // Escape in the search box clears it, and goes no further.
      search.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
      flushSync();
      await settle();
      expect(search.value).toBe("");
      expect(all("activity-entry")).toHaveLength(2);
    } finally {
      clicks.mockRestore();
    }
  });
});
