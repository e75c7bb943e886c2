// The Activity view's filters (a server, a kind of event, words to search
// for) and its export: the entries shown, as a JSON file the webview
// downloads (a Blob; nothing goes from here to Rust, no path is named).

import type { Entry, Event, ServerId } from "./bindings";
import { describeEvent, formatDateTime } from "./format";

export type KindFilter = "all" | "failures" | "folders" | "lifecycle" | "requests";

export const KIND_FILTERS: readonly { value: KindFilter; label: string }[] = [
  { value: "all", label: "Every kind" },
  { value: "failures", label: "Failures only" },
  { value: "folders", label: "Folders" },
  { value: "lifecycle", label: "Starts and stops" },
  { value: "requests", label: "Requests" },
];

/** Whether an event is of the kind the filter keeps. */
export function ofKind(event: Event, kind: KindFilter): boolean {
  switch (kind) {
    case "all":
      return true;
    case "failures":
      return (
        event.kind === "failed" ||
        event.kind === "gaveUp" ||
        event.kind === "restartScheduled" ||
        (event.kind === "exited" && !event.expected) ||
        (event.kind === "call" && event.outcome !== "ok") ||
        (event.kind === "tried" && (event.outcome === "failed" || event.outcome === "toolError"))
      );
    case "folders":
      return (
        event.kind === "rootsAnswered" ||
        event.kind === "rootsAskedInRound" ||
        event.kind === "listChangedSent" ||
        event.kind === "firstRequest" ||
        event.kind === "notPickedUp" ||
        event.kind === "restartedToWithdraw" ||
        event.kind === "enforced" ||
        event.kind === "restartedToEnforce" ||
        event.kind === "restartedForArguments" ||
        event.kind === "waitingForFolders"
      );
    case "lifecycle":
      return (
        event.kind === "starting" ||
        event.kind === "spawned" ||
        event.kind === "eraFound" ||
        event.kind === "initialized" ||
        event.kind === "stopping" ||
        event.kind === "exited" ||
        event.kind === "failed" ||
        event.kind === "restartScheduled" ||
        event.kind === "gaveUp"
      );
    case "requests":
      // What AI apps asked through Rootgate, and what the person tried from a server's detail.
      return (
        event.kind === "call" ||
        event.kind === "tried" ||
        event.kind === "requestRefused" ||
        event.kind === "inputNotOffered"
      );
  }
}

/** Everything a search looks through for an entry: its sentence, its server's name, the folders it names. */
export function searchText(entry: Entry, serverName: string): string {
  const e = entry.event;
  const parts = [describeEvent(e), serverName, e.kind];
  if (e.kind === "rootsAnswered" || e.kind === "rootsAskedInRound") {
    for (const r of e.roots) parts.push(r.name, r.uri);
  }
  if (e.kind === "failed" || e.kind === "restartedToWithdraw" || e.kind === "stopping") parts.push(e.reason);
  if (e.kind === "tried") {
    parts.push(e.method, e.target, e.detail ?? "");
    if (e.arguments !== null) parts.push(JSON.stringify(e.arguments));
  }
  return parts.join("\n").toLowerCase();
}

export interface ActivityFilter {
  /** One server's entries, or every server's (null). */
  server: ServerId | null;
  kind: KindFilter;
  /** Words that must all appear (any case), in any order. */
  search: string;
}

export function searchWords(search: string): string[] {
  return search.toLowerCase().split(/\s+/).filter((w) => w !== "");
}

export function isFiltered(f: ActivityFilter): boolean {
  return f.server !== null || f.kind !== "all" || searchWords(f.search).length > 0;
}

/**
 * The entries the filter keeps, in order. With no filter the entries
 * themselves (not a copy: the list of 20,000 is not copied at each event).
 */
export function filterEntries(
  entries: readonly Entry[],
  f: ActivityFilter,
  serverName: (id: ServerId) => string,
): readonly Entry[] {
  if (!isFiltered(f)) return entries;
  const words = searchWords(f.search);
  return entries.filter((entry) => {
    if (f.server !== null && entry.server !== f.server) return false;
    if (!ofKind(entry.event, f.kind)) return false;
    if (words.length === 0) return true;
    const text = searchText(entry, serverName(entry.server));
    return words.every((w) => text.includes(w));
  });
}

/** The export's contents: what was shown, with the filter that chose it. */
export function activityExport(
  entries: readonly Entry[],
  f: ActivityFilter,
  serverName: (id: ServerId) => string,
  now: number,
): string {
  const doc = {
    exportedAt: new Date(now).toISOString(),
    filter: {
      server: f.server === null ? null : serverName(f.server),
      kind: f.kind,
      search: f.search.trim(),
    },
    count: entries.length,
    entries: entries.map((e) => ({
      seq: e.seq,
      at: new Date(e.atMs).toISOString(),
      server: e.server,
      serverName: serverName(e.server),
      kind: e.event.kind,
      text: describeEvent(e.event),
      event: e.event,
    })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** "rootgate-activity-2025-03-01-140203.json" */
export function exportFileName(now: number): string {
  const stamp = formatDateTime(now).replace(" ", "-").replaceAll(":", "");
  return `rootgate-activity-${stamp}.json`;
}
