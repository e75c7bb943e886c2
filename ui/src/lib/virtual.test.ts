import { describe, expect, it } from "vitest";
import { appendBounded, isAtBottom, scrollToReveal, totalHeight, visibleRange } from "./virtual";

describe("visibleRange", () => {
  it("renders nothing for an empty list", () => {
    expect(visibleRange(0, 500, 20, 0, 5)).toEqual({ start: 0, end: 0 });
  });

  it("covers the viewport at the top, plus overscan below only", () => {
    // 500px / 20px = 25 rows visible, 5 more below.
    expect(visibleRange(0, 500, 20, 1000, 5)).toEqual({ start: 0, end: 30 });
  });

  it("adds overscan on both sides in the middle", () => {
    // scrollTop 1000 -> first row 50; bottom at 1500 -> row 75.
    expect(visibleRange(1000, 500, 20, 1000, 5)).toEqual({ start: 45, end: 80 });
  });

  it("counts a partly visible row at either edge", () => {
    // Rows 2 (from 40) to 7 (ends at 160 > 150) are at least partly visible.
    expect(visibleRange(50, 100, 20, 100, 0)).toEqual({ start: 2, end: 8 });
  });

  it("clamps at the end of the list", () => {
    // The viewport cannot scroll past 19,500: rows 975 to 999 show.
    expect(visibleRange(19_500, 500, 20, 1000, 5)).toEqual({ start: 970, end: 1000 });
  });

  it("shows the last screenful for a scrollTop past it (a list opened at its end)", () => {
    expect(visibleRange(19_900, 500, 20, 1000, 5)).toEqual({ start: 970, end: 1000 });
    expect(visibleRange(Number.MAX_SAFE_INTEGER, 500, 20, 1000, 5)).toEqual({ start: 970, end: 1000 });
  });

  it("clamps a scrollTop beyond the end (list just shrank)", () => {
    const r = visibleRange(1_000_000, 500, 20, 10, 3);
    expect(r.end).toBe(10);
    expect(r.start).toBeGreaterThanOrEqual(0);
    expect(r.start).toBeLessThan(r.end);
  });

  it("returns all rows when they fit", () => {
    expect(visibleRange(0, 800, 40, 5, 8)).toEqual({ start: 0, end: 5 });
  });

  it("treats a negative scrollTop (elastic scrolling) as zero", () => {
    expect(visibleRange(-40, 100, 20, 100, 0)).toEqual({ start: 0, end: 5 });
  });

  it("still shows one row in a viewport of zero height", () => {
    expect(visibleRange(200, 0, 20, 100, 0)).toEqual({ start: 10, end: 11 });
  });

  it("renders a bounded number of rows however long the list", () => {
    const r = visibleRange(123_456, 600, 22, 20_000, 8);
    expect(r.end - r.start).toBeLessThanOrEqual(Math.ceil(600 / 22) + 1 + 16);
  });

  it("handles a zero row height", () => {
    expect(visibleRange(0, 500, 0, 10, 2)).toEqual({ start: 0, end: 0 });
  });
});

describe("totalHeight", () => {
  it("is count × row height", () => {
    expect(totalHeight(20_000, 22)).toBe(440_000);
    expect(totalHeight(0, 22)).toBe(0);
  });
});

describe("isAtBottom", () => {
  it("is true at the very bottom and within the slack", () => {
    expect(isAtBottom(500, 500, 1000)).toBe(true);
    expect(isAtBottom(497, 500, 1000, 4)).toBe(true);
  });
  it("is false when scrolled up", () => {
    expect(isAtBottom(400, 500, 1000, 4)).toBe(false);
  });
  it("is true when the content is shorter than the viewport", () => {
    expect(isAtBottom(0, 500, 200)).toBe(true);
  });
});

describe("scrollToReveal", () => {
  it("scrolls up to a row above the viewport", () => {
    expect(scrollToReveal(2, 100, 200, 20)).toBe(40);
  });
  it("scrolls down to a row below the viewport", () => {
    expect(scrollToReveal(20, 0, 200, 20)).toBe(220);
  });
  it("leaves a visible row alone", () => {
    expect(scrollToReveal(5, 0, 200, 20)).toBeNull();
  });
});

describe("appendBounded", () => {
  it("appends when under the bound", () => {
    expect(appendBounded([1, 2], [3], 5)).toEqual([1, 2, 3]);
  });
  it("keeps the newest items", () => {
    expect(appendBounded([1, 2, 3, 4], [5, 6], 4)).toEqual([3, 4, 5, 6]);
  });
  it("keeps only the newest of a batch bigger than the bound", () => {
    expect(appendBounded([1], [2, 3, 4, 5, 6], 3)).toEqual([4, 5, 6]);
  });
  it("returns the same array when nothing is added", () => {
    const a = [1, 2];
    expect(appendBounded(a, [], 5)).toBe(a);
  });
});
