// A long list drawn a few rows at a time (VirtualList.svelte): only the rows
// in view and a few around them are in the page.
import { createRawSnippet, flushSync, mount } from "svelte";
import { afterEach, describe, expect, it } from "vitest";
import { all, track, unmountAll } from "../testing/window";
import VirtualList from "../common/VirtualList.svelte";

afterEach(unmountAll);

describe("VirtualList", () => {
  it("renders only the rows in view plus overscan", () => {
    const items = Array.from({ length: 10_000 }, (_, i) => i);
    const row = createRawSnippet((item: () => number) => ({
      render: () => `<span data-testid="row">${item()}</span>`,
    }));
    track(
      mount(VirtualList<number>, {
        target: document.body,
        props: { items, rowHeight: 20, overscan: 5, label: "numbers", row },
      }),
    );
    flushSync();
    const rows = all("row");
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.length).toBeLessThan(60);
    expect(rows[0].textContent).toBe("0");
  });
});
