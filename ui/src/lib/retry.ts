// Words for a server Rootgate restarts after a failure: the restart
// scheduled ("retrying in 6 s · 4 of 5", counting down), and a server it
// gave up on, which waits for the person. Pure, so every case is tested.

import type { Entry, Retry, ServerId, ServerView } from "./bindings";

/** Whole seconds until the retry, rounded up; 0 once it is due. */
export function secondsLeft(retry: Retry, now: number): number {
  return Math.max(0, Math.ceil((retry.atMs - now) / 1000));
}

/** "6 s", "1 min 5 s", "2 min". */
export function formatSeconds(s: number): string {
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  const rest = s % 60;
  return rest === 0 ? `${m} min` : `${m} min ${rest} s`;
}

/** What the badge says while a restart is scheduled: "retrying in 6 s · 4 of 5". */
export function retryLabel(retry: Retry, now: number): string {
  const left = secondsLeft(retry, now);
  const when = left === 0 ? "retrying now" : `retrying in ${formatSeconds(left)}`;
  return `${when} · ${retry.attempt} of ${retry.of}`;
}

/**
 * How long until the countdown's text changes (the next whole second
 * before the retry), so that it ticks exactly when the number does; null
 * once it is due (nothing left to count).
 */
export function nextTickIn(retry: Retry, now: number): number | null {
  const left = retry.atMs - now;
  if (left <= 0) return null;
  const into = left % 1000;
  // A few ms past the boundary, so the number has changed when it runs.
  return (into === 0 ? 1000 : into) + 5;
}

/** Whether a server's row shows a pending retry rather than a failure. */
export function isRetrying(server: Pick<ServerView, "retry" | "status">): boolean {
  return server.retry !== null && server.status.state === "failed";
}

/** Whether the server waits for the person after Rootgate gave up on it. */
export function waitsForYou(server: Pick<ServerView, "gaveUp" | "retry" | "status">): boolean {
  return (
    server.gaveUp === true &&
    server.retry === null &&
    (server.status.state === "failed" || server.status.state === "stopped")
  );
}

/**
 * The note for a server Rootgate stopped restarting: because the person
 * said so, after how many attempts when the timeline still says so, else
 * only that it waits.
 */
export function gaveUpText(attempts: number | null, byYou = false): string {
  if (byYou) return "Not restarted again, as you asked; start it when ready.";
  if (attempts === null) return "Rootgate stopped restarting it after repeated failures; start it when ready.";
  return `Gave up after ${attempts === 1 ? "1 attempt" : `${attempts} attempts`}; start it when ready.`;
}

/** Each server's attempts in its newest "gave up" entry, from the newest entries back. */
export function gaveUpAttempts(entries: readonly Entry[], servers: ReadonlySet<ServerId>): Map<ServerId, number> {
  const out = new Map<ServerId, number>();
  if (servers.size === 0) return out;
  // What came after a gave-up entry (a start) makes it old news.
  const settled = new Set<ServerId>();
  for (let i = entries.length - 1; i >= 0 && settled.size < servers.size; i--) {
    const e = entries[i];
    if (!servers.has(e.server) || settled.has(e.server)) continue;
    if (e.event.kind === "gaveUp") {
      out.set(e.server, e.event.attempts);
      settled.add(e.server);
    } else if (e.event.kind === "starting") {
      settled.add(e.server);
    }
  }
  return out;
}
