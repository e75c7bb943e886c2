// VirtualList with props that change after mounting (a .svelte.test.ts file,
// so the props can be $state): rows added above the row at the top of the
// view must not move it.
import { createRawSnippet, flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it } from "vitest";
import VirtualList from "./VirtualList.svelte";

let mounted: Record<string, unknown>[] = [];
afterEach(() => {
  for (const m of mounted) unmount(m);
  mounted = [];
  document.body.innerHTML = "";
});

const row = createRawSnippet((item: () => number) => ({
  render: () => `<span data-testid="row">${item()}</span>`,
}));
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

function list(follow = false) {
  const props = $state({ items: range(100, 200), rowHeight: 20, label: "numbers", key: (n: number) => n, row, follow });
  mounted.push(mount(VirtualList<number>, { target: document.body, props }));
  flushSync();
  const viewport = document.querySelector<HTMLElement>('[role="list"]');
  if (!viewport) throw new Error("no list");
  return { props, viewport };
}

describe("VirtualList keeps its place", () => {
  it("when rows are added above the row at the top of the view", () => {
    const { props, viewport } = list();
    viewport.scrollTop = 400; // row 20, the number 120, at the top
    viewport.dispatchEvent(new Event("scroll"));
    flushSync();
    props.items = range(0, 200);
    flushSync();
    expect(viewport.scrollTop).toBe((20 + 100) * 20);
  });

  it("when rows are added below, and when the oldest fall out", () => {
    const { props, viewport } = list();
    viewport.scrollTop = 410; // 10 px into row 20 (the number 120)
    viewport.dispatchEvent(new Event("scroll"));
    flushSync();
    props.items = range(100, 300);
    flushSync();
    expect(viewport.scrollTop).toBe(410);
    props.items = range(110, 300);
    flushSync();
    expect(viewport.scrollTop).toBe((20 - 10) * 20 + 10);
  });
});
