// What scripts/bench-app.sh runs inside the window over WebDriver: reading
// the `app-ready` mark, and timing one step (a click or a scroll) from the
// moment the page acts until the frame that shows its result has been drawn.
//
// Times are taken in the page (performance.now()), so WebDriver's own round
// trips are not counted. A step is over when a frame callback sees the
// expected rows in the DOM; the time is read in a task queued from that
// callback, which runs after that frame is painted. Nothing here changes the
// app beyond what a person's click or scroll would.

/** Reads the `app-ready` mark as wall-clock ms (null until it is there). */
export const READY_SCRIPT = `
  const mark = performance.getEntriesByName('app-ready')[0];
  if (!mark) return null;
  const text = (id) => document.querySelector('[data-testid="' + id + '"]')?.textContent.replace(/\\s+/g, ' ').trim() ?? null;
  return {
    origin: performance.timeOrigin,
    ready: mark.startTime,
    folderRows: document.querySelectorAll('[data-testid="folder-row"]').length,
    folderCount: text('nav-folders'),
    serverCount: text('nav-servers'),
  };
`;

/**
 * Runs one step in the page and calls `done` with `{ ms, frames, shown,
 * phases }` or `{ error }`. `phases` splits `ms`: `scriptMs` (a click's
 * handler and the rendering it did, null for scrolls), `frameAtMs` (when the
 * frame that showed the result began), `layoutMs` (WebKit styling and laying
 * out that frame) and `restMs` (the rest of the frame: resize observers,
 * the updates they cause, and painting, until a task after the frame). `spec`:
 *   action: 'click' (selector) or 'scroll' (viewport; to: 'top' | 'middle'
 *     | 'end', or by: pixels, or pages: viewport heights)
 *   viewport: the list to wait for; minItems: its aria-setsize at least
 *   untilItems: after the step, keep watching until the list holds this
 *     many rows (loaded in the background), and report how long that took
 *     and the longest gap between two frames meanwhile (`then`)
 */
function step(spec, done) {
  const t0 = performance.now();
  const deadline = t0 + (spec.timeoutMs ?? 30000);
  const find = () => document.querySelector(spec.viewport);
  try {
    if (spec.action === 'click') {
      const el = document.querySelector(spec.selector);
      if (!el) return done({ error: `nothing matches ${spec.selector}` });
      el.click();
    } else if (spec.action === 'scroll') {
      const vp = find();
      if (!vp) return done({ error: `nothing matches ${spec.viewport}` });
      const max = vp.scrollHeight - vp.clientHeight;
      let top;
      if (spec.to === 'top') top = 0;
      else if (spec.to === 'middle') top = Math.round(max / 2);
      else if (spec.to === 'end') top = max;
      else if (spec.pages !== undefined) top = vp.scrollTop + spec.pages * vp.clientHeight;
      else top = vp.scrollTop + spec.by;
      vp.scrollTop = Math.max(0, Math.min(max, top));
    }
  } catch (e) {
    return done({ error: String(e) });
  }
  // Where a click's time goes: the page's script (the click handler and the
  // view it renders, which Svelte does in a microtask queued before this
  // one), then WebKit's work in the frame that shows the result (below).
  let scriptMs = null;
  if (spec.action === 'click') queueMicrotask(() => (scriptMs = performance.now() - t0));
  // Whether the list is there, long enough, and its rows cover the viewport
  // as it is scrolled now: the first and the last row in view are rendered.
  const shown = () => {
    const vp = find();
    if (!vp) return null;
    const rows = vp.querySelectorAll('[role="listitem"]');
    if (rows.length === 0) return null;
    const size = Number(rows[0].getAttribute('aria-setsize'));
    if (size < (spec.minItems ?? 1)) return null;
    const rowH = parseFloat(getComputedStyle(vp).getPropertyValue('--row-h'));
    if (!(rowH > 0)) return null;
    const first = Math.floor(vp.scrollTop / rowH) + 1;
    const last = Math.min(size, Math.ceil((vp.scrollTop + vp.clientHeight) / rowH));
    const have = new Set([...rows].map((r) => Number(r.getAttribute('aria-posinset'))));
    if (!have.has(first) || !have.has(last)) return null;
    return { size, first, last, scrollTop: Math.round(vp.scrollTop) };
  };
  let frames = 0;
  const check = () => {
    frames += 1;
    // The frame callback runs before WebKit styles and lays out the frame;
    // reading the rows' geometry in shown() makes it do that here, which it
    // would do next anyway, so the two times below split the frame.
    const frameAt = performance.now();
    let seen = null;
    try {
      seen = shown();
    } catch {
      seen = null;
    }
    const laidOutAt = performance.now();
    if (seen) {
      return setTimeout(() => {
        const end = performance.now();
        const phases = {
          scriptMs,
          frameAtMs: frameAt - t0,
          layoutMs: laidOutAt - frameAt,
          restMs: end - laidOutAt,
        };
        const result = { ms: end - t0, frames, shown: seen, phases };
        if (spec.untilItems === undefined) return done(result);
        watch(result);
      });
    }
    if (performance.now() > deadline) return done({ error: 'timed out', ms: performance.now() - t0 });
    requestAnimationFrame(check);
  };
  // The rest loads in the background: every frame until it is all in, the
  // longest time between two frames is how long the window could not
  // answer the person.
  const watch = (result) => {
    let last = performance.now();
    let longest = 0;
    let count = 0;
    const frame = (now) => {
      longest = Math.max(longest, now - last);
      last = now;
      count += 1;
      const rows = find()?.querySelectorAll('[role="listitem"]') ?? [];
      const size = rows.length > 0 ? Number(rows[0].getAttribute('aria-setsize')) : 0;
      if (size >= spec.untilItems) {
        return done({ ...result, then: { ms: performance.now() - t0, longestFrameGapMs: longest, frames: count, size } });
      }
      if (performance.now() > deadline) return done({ error: `only ${size} rows after ${performance.now() - t0} ms` });
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(check);
}

export const STEP_SCRIPT = `(${step.toString()})(arguments[0], arguments[arguments.length - 1]);`;
