// VirtualList with props that change after mounting (a .svelte.test.ts file,
// so the props can be $state): rows added above the row at the top of the
// view must not move it.
import { createRawSnippet, flushSync, mount, unmount } from "svelte";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import VirtualList from "./VirtualList.svelte";
import ListInView from "../testing/ListInView.svelte";

// The DOM here lays nothing out: lists are given a height by hand, and told
// of a new one through a ResizeObserver the test drives, as the window's
// would when the list's view is hidden or shown again.
let listHeight = 300;
const observers = new Set<FakeResizeObserver>();
class FakeResizeObserver {
  constructor(private readonly callback: ResizeObserverCallback) {
    observers.add(this);
  }
  observe() {}
  unobserve() {}
  disconnect() {}
  resized(target: Element) {
    this.callback([{ target } as unknown as ResizeObserverEntry], this as unknown as ResizeObserver);
  }
}
function resize(viewport: HTMLElement, height: number) {
  listHeight = height;
  for (const o of observers) o.resized(viewport);
  flushSync();
}
const realClientHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "clientHeight");
const realResizeObserver = globalThis.ResizeObserver;
beforeAll(() => {
  globalThis.ResizeObserver = FakeResizeObserver as unknown as typeof ResizeObserver;
  Object.defineProperty(HTMLElement.prototype, "clientHeight", {
    configurable: true,
    get(this: HTMLElement) {
      return this.getAttribute("role") === "list" ? listHeight : 0;
    },
  });
});
afterAll(() => {
  globalThis.ResizeObserver = realResizeObserver;
  if (realClientHeight) Object.defineProperty(HTMLElement.prototype, "clientHeight", realClientHeight);
});

let mounted: Record<string, unknown>[] = [];
afterEach(() => {
  for (const m of mounted) unmount(m);
  mounted = [];
  document.body.innerHTML = "";
  listHeight = 300;
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

describe("VirtualList hidden and shown again", () => {
  const shownRows = () => [...document.querySelectorAll('[data-testid="row"]')].map((r) => Number(r.textContent));

  it("keeps its rows while hidden, and its place when shown", () => {
    const { viewport } = list();
    viewport.scrollTop = 410; // 10 px into row 20 (the number 120)
    viewport.dispatchEvent(new Event("scroll"));
    flushSync();
    const rows = shownRows();
    expect(rows).toContain(120);
    resize(viewport, 0);
    // Hidden: the same rows, not those of a list 0 px (or 900 px) tall.
    expect(shownRows()).toEqual(rows);
    viewport.scrollTop = 0; // what hiding a box does to its scroll position
    resize(viewport, 300);
    expect(viewport.scrollTop).toBe(410);
    expect(shownRows()).toEqual(rows);
  });

  it("is where it was when shown, without a row to hold on to", () => {
    const props = $state({ items: range(0, 100), rowHeight: 20, label: "plain", row });
    mounted.push(mount(VirtualList<number>, { target: document.body, props }));
    flushSync();
    const viewport = document.querySelector<HTMLElement>('[role="list"]');
    if (!viewport) throw new Error("no list");
    viewport.scrollTop = 600;
    viewport.dispatchEvent(new Event("scroll"));
    flushSync();
    resize(viewport, 0);
    viewport.scrollTop = 0;
    resize(viewport, 300);
    expect(viewport.scrollTop).toBe(600);
  });

  it("in a kept view, is back in place in the first frame after the view is shown, before any resize is reported", async () => {
    const props = $state({ items: range(0, 100), shown: true });
    mounted.push(mount(ListInView, { target: document.body, props }));
    flushSync();
    const viewport = document.querySelector<HTMLElement>('[role="list"]');
    if (!viewport) throw new Error("no list");
    expect(viewport.closest("[data-view]")?.hasAttribute("hidden")).toBe(false);
    viewport.scrollTop = 410;
    viewport.dispatchEvent(new Event("scroll"));
    flushSync();
    props.shown = false;
    flushSync();
    expect(viewport.closest("[data-view]")?.hasAttribute("hidden")).toBe(true);
    resize(viewport, 0);
    viewport.scrollTop = 0;
    listHeight = 300;
    // Shown again; no resize observer has reported anything yet.
    props.shown = true;
    flushSync();
    await new Promise((r) => requestAnimationFrame(r));
    flushSync();
    expect(viewport.scrollTop).toBe(410);
  });
});
