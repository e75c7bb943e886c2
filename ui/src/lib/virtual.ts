// The arithmetic of a virtual list with rows of one fixed height: which rows
// a viewport shows, plus a few either side so fast scrolling does not flash
// blank rows. Pure, so it is unit tested without a DOM.

/** Rows `start` (inclusive) to `end` (exclusive). */
export interface Range {
  start: number;
  end: number;
}

/**
 * The rows to render for a viewport scrolled to `scrollTop` that is
 * `viewportHeight` tall, over `count` rows of `rowHeight` pixels each, with
 * `overscan` extra rows above and below.
 */
export function visibleRange(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  count: number,
  overscan: number,
): Range {
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const height = Math.max(0, Number.isFinite(viewportHeight) ? viewportHeight : 0);
  // No viewport scrolls further than its last screenful, so a scrollTop past
  // it (a list opened at its end, or one that just shrank) shows that
  // screenful rather than its last row alone.
  const lastTop = Math.max(0, totalHeight(count, rowHeight) - height);
  const top = Math.min(lastTop, Math.max(0, Number.isFinite(scrollTop) ? scrollTop : 0));
  const extra = Math.max(0, Math.floor(overscan));
  const first = Math.min(count - 1, Math.floor(top / rowHeight));
  const lastVisible = Math.min(count, Math.ceil((top + height) / rowHeight));
  const start = Math.max(0, first - extra);
  const end = Math.min(count, Math.max(lastVisible, first + 1) + extra);
  return { start, end };
}

/** The height of all rows together. */
export function totalHeight(count: number, rowHeight: number): number {
  return Math.max(0, count) * Math.max(0, rowHeight);
}

/** Whether a viewport is scrolled (within `slack` pixels) to its bottom. */
export function isAtBottom(
  scrollTop: number,
  viewportHeight: number,
  scrollHeight: number,
  slack = 4,
): boolean {
  return scrollTop + viewportHeight >= scrollHeight - slack;
}

/**
 * The scrollTop that brings row `index` fully into view, or null if it
 * already is.
 */
export function scrollToReveal(
  index: number,
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
): number | null {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewportHeight) return Math.max(0, bottom - viewportHeight);
  return null;
}

/** Keeps the newest `max` items of `items` followed by `more`. */
export function appendBounded<T>(items: readonly T[], more: readonly T[], max: number): T[] {
  if (more.length === 0) return items as T[];
  const all = items.length + more.length;
  if (all <= max) return [...items, ...more];
  if (more.length >= max) return more.slice(more.length - max);
  return [...items.slice(all - max), ...more];
}
