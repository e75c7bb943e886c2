// Every AI app's calls through Rootgate, added up per server for the
// Connections view (pure): how many, how many failed, how long they took
// on average and at most. Counted by the backend per connection, from the
// calls the bridges report; ended connections count too, while the window
// keeps them.
//
// Not here: the calls themselves (a connection's timeline holds them), or
// the window's own tries of a server (its timeline).

import type { ConnectionView } from "./bindings";

export interface ServerCalls {
  server: string;
  serverName: string;
  calls: number;
  errors: number;
  /** Mean duration in ms, rounded; null without calls. */
  meanMs: number | null;
  slowestMs: number;
}

/** The calls of `connections`, per server, the busiest first. */
export function callsByServer(connections: readonly ConnectionView[]): ServerCalls[] {
  const by = new Map<string, ServerCalls & { totalMs: number }>();
  for (const c of connections) {
    const s = by.get(c.server) ?? {
      server: c.server,
      serverName: c.serverName,
      calls: 0,
      errors: 0,
      meanMs: null,
      slowestMs: 0,
      totalMs: 0,
    };
    s.calls += c.calls;
    s.errors += c.errors;
    s.totalMs += c.callMsTotal;
    s.slowestMs = Math.max(s.slowestMs, c.callMsMax);
    by.set(c.server, s);
  }
  return [...by.values()]
    .filter((s) => s.calls > 0)
    .map(({ totalMs, ...s }) => ({ ...s, meanMs: Math.round(totalMs / s.calls) }))
    .sort((a, b) => b.calls - a.calls || a.serverName.localeCompare(b.serverName));
}

/** "2 (1.5 %)": errors with their share of the calls. */
export function errorRate(s: Pick<ServerCalls, "calls" | "errors">): string {
  if (s.errors === 0) return "none";
  const share = (100 * s.errors) / s.calls;
  return `${s.errors} (${share < 10 ? share.toFixed(1) : Math.round(share)} %)`;
}
