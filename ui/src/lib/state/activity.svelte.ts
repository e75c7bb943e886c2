// The Activity view's record: every server's timeline entries, newest
// last, as many as the window keeps, and for each server Rootgate gave up
// on the attempts its newest "gave up" entry counts (its row says so).
//
// Not here: filtering and wording the entries (activity.ts, format.ts), or
// the open server's own timeline (ServerDetailState).

import type { Entry, ServerId, ServerView } from "../bindings";
import { appendNewer, mergeBySeq } from "../merge";
import { gaveUpAttempts } from "../retry";

export const MAX_ACTIVITY = 20_000;

/** The servers' list (ServersState is one). */
export interface ServerList {
  readonly list: readonly ServerView[];
}

export class ActivityState {
  entries = $state.raw<Entry[]>([]);

  /** For each server Rootgate gave up on, the attempts its newest "gave up" entry counts. */
  readonly gaveUpAfter: ReadonlyMap<ServerId, number>;

  constructor(servers: ServerList) {
    this.gaveUpAfter = $derived(
      gaveUpAttempts(this.entries, new Set(servers.list.filter((s) => s.gaveUp).map((s) => s.id))),
    );
  }

  /** The record as fetched at start, with the entries heard meanwhile. */
  loaded(entries: readonly Entry[]): void {
    this.entries = mergeBySeq(entries, this.entries, MAX_ACTIVITY);
  }

  onTimeline(entries: readonly Entry[]): void {
    if (entries.length > 0) this.entries = appendNewer(this.entries, entries, MAX_ACTIVITY);
  }
}
