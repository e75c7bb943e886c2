// The moment the window shows what a person opened it for (the saved folders
// and servers). It is marked as `app-ready` in the page's performance
// timeline, which scripts/bench-app.sh reads over WebDriver to compare
// Rootgate's start-up with a bare Tauri window's (whose page marks the same
// name by the same rule, crates/bare-window/page/ready.js), and it is when
// the app starts its servers, so that they never compete with the window
// while it draws.

export const READY_MARK = "app-ready";

/**
 * Resolves once what the DOM holds now has been drawn: a frame callback runs
 * just before the next paint, and a task queued from it runs after that
 * paint. A hidden window draws no frames, so it resolves after `limit` ms
 * at the latest.
 */
export function afterPaint(limit = 1_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, limit);
    if (typeof requestAnimationFrame !== "function") return;
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer);
        resolve();
      }),
    );
  });
}

/** Marks `app-ready` now. */
export function markReady(): void {
  if (typeof performance?.mark === "function") performance.mark(READY_MARK);
}
