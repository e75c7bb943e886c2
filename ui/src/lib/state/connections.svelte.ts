// AI apps' connections through `rootgate connect`: the list (live ones
// first; of the ended ones as many as the core keeps), put in place by id
// as changes arrive, and the open connection's timeline. Asking again about
// the folders a connection's app works in lands in the consent prompts.
//
// Not here: which connection is open (NavigationState.connection, read
// through the narrow `OpenConnection` below), connecting an app's config
// files (AppsState), or the words for an app (format.ts).

import type { Change, ConnectionId, ConnectionView, Entry } from "../bindings";
import { plainMessage, type Api } from "../api";
import { appName } from "../format";
import { appendNewer, mergeBySeq } from "../merge";
import type { NoticesState } from "./notices.svelte";
import type { PromptsState } from "./prompts.svelte";

/** As many entries as the core keeps per connection (connections::ENTRIES_KEPT). */
export const MAX_CONNECTION_TIMELINE = 2_000;
/**
 * As many ended connections as the core keeps (connections::ENDED_KEPT); it
 * forgets older ones without a change, so the window does the same.
 */
export const MAX_ENDED_CONNECTIONS = 50;

/**
 * Connections as the core lists them: live ones first, newest first; of the
 * ended ones only the newest `MAX_ENDED_CONNECTIONS` (by when they ended),
 * and `keep` (the one open) whatever its age.
 */
export function orderConnections(items: readonly ConnectionView[], keep: ConnectionId | null = null): ConnectionView[] {
  const ended = items.filter((c) => !c.live);
  let out = [...items];
  if (ended.length > MAX_ENDED_CONNECTIONS) {
    const forgotten = new Set(
      ended
        .sort((a, b) => (b.endedAtMs ?? 0) - (a.endedAtMs ?? 0))
        .slice(MAX_ENDED_CONNECTIONS)
        .map((c) => c.id),
    );
    forgotten.delete(keep ?? "");
    out = out.filter((c) => !forgotten.has(c.id));
  }
  return out.sort((a, b) => Number(b.live) - Number(a.live) || b.startedAtMs - a.startedAtMs);
}

/** Which connection's detail is open (NavigationState is one). */
export interface OpenConnection {
  readonly connection: ConnectionId | null;
}

export class ConnectionsState {
  /** Live ones first, newest first. */
  list = $state.raw<ConnectionView[]>([]);
  /** What happened on the open connection, oldest first. */
  timeline = $state.raw<Entry[]>([]);
  loading = $state(false);

  /** The connection whose detail is open, as the list has it. */
  readonly inDetail: ConnectionView | null;
  live: number = $derived(this.list.filter((c) => c.live).length);

  /** Counts loads, so an answer for a detail closed since is dropped. */
  private token = 0;

  constructor(
    private api: Api,
    private notices: NoticesState,
    private prompts: PromptsState,
    private open: OpenConnection,
  ) {
    this.inDetail = $derived(this.list.find((c) => c.id === open.connection) ?? null);
  }

  /** The list as fetched at start; a connection a change brought meanwhile is as new as the list's, or newer. */
  loaded(connections: readonly ConnectionView[]): void {
    const heard = new Set(this.list.map((c) => c.id));
    this.list = orderConnections([...this.list, ...connections.filter((c) => !heard.has(c.id))], this.open.connection);
  }

  /** Connections put in place by id, and the open one's new entries. */
  onChanges(changes: readonly Change[]): void {
    const updated = new Map<ConnectionId, ConnectionView>();
    const entries: Entry[] = [];
    for (const c of changes) {
      if (c.kind === "connection") updated.set(c.connection.id, c.connection);
      else if (c.kind === "connectionEntry" && c.connection === this.open.connection) entries.push(c.entry);
    }
    if (updated.size > 0) this.upsert(updated);
    if (entries.length > 0) this.timeline = appendNewer(this.timeline, entries, MAX_CONNECTION_TIMELINE);
  }

  /** Puts each connection in place of the one with its id (or adds it). */
  private upsert(updated: ReadonlyMap<ConnectionId, ConnectionView>): void {
    const rest = new Map(updated);
    const merged = this.list.map((c) => {
      const now = rest.get(c.id);
      rest.delete(c.id);
      return now ?? c;
    });
    this.list = orderConnections([...merged, ...rest.values()], this.open.connection);
  }

  /** Loads the timeline of the connection whose detail just opened. */
  async load(id: ConnectionId): Promise<void> {
    this.timeline = [];
    this.loading = true;
    const token = ++this.token;
    try {
      const entries = await this.api.connectionTimeline(id);
      if (token !== this.token) return;
      // Entries that arrived while the timeline was on its way are kept.
      this.timeline = mergeBySeq(entries, this.timeline, MAX_CONNECTION_TIMELINE);
    } catch (e) {
      if (token === this.token) this.notices.notify(plainMessage(e));
    } finally {
      if (token === this.token) this.loading = false;
    }
  }

  /** Forgets what the closed detail showed; an answer still on its way is dropped. */
  clear(): void {
    this.token++;
    this.timeline = [];
    this.loading = false;
  }

  /**
   * Asks again about the folders a connection's app works in (its
   * suggestions, even those cancelled before); says so when there is none
   * left to ask about.
   */
  async suggestAgain(connection: ConnectionView): Promise<void> {
    try {
      const prompts = await this.api.suggestAgain(connection.id);
      if (prompts.length > 0) this.prompts.enqueue(prompts);
      else
        this.notices.notify(
          `Every folder ${appName(connection.app?.name)} works in is shared with ${connection.serverName} already, or waits for your answer.`,
          "info",
        );
    } catch (e) {
      this.notices.notify(plainMessage(e));
    }
  }
}
