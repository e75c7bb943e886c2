// What the open server's detail shows besides its offers: its timeline
// (loaded newest first, a page at a time, so a long one opens at once), its
// stderr log, and where each of its folders stands with it. Navigation
// loads and clears it as the detail opens and closes; the root hands it the
// backend's changes and timeline entries, of which it keeps the open
// server's.
//
// Not here: which server is open (NavigationState.detail, read through the
// narrow `OpenServer` below), the server's facts (ServersState) or its
// tools, resources and prompts (OffersState).

import type { Change, Entry, FolderDelivery, LogLine, ServerId } from "../bindings";
import { plainMessage, type Api } from "../api";
import { appendNewer, mergeBySeq, prependOlder } from "../merge";
import { afterPaint } from "../ready";
import type { NoticesState } from "./notices.svelte";

export const MAX_LOG_LINES = 5_000;
/** As many as the core keeps per server (timeline::DEFAULT_CAPACITY). */
export const MAX_TIMELINE = 100_000;
/**
 * A server's timeline loads newest first, a page at a time: the first page
 * fills the view at once, the rest follows in pages small enough that none
 * holds the window up (scripts/bench-app.sh measures it).
 */
export const TIMELINE_FIRST_PAGE = 500;
export const TIMELINE_PAGE = 2_000;

/** Which server's detail is open (NavigationState is one). */
export interface OpenServer {
  readonly detail: ServerId | null;
}

export class ServerDetailState {
  /** The open server's timeline, oldest first. */
  timeline = $state.raw<Entry[]>([]);
  /** The open server's stderr, oldest first. */
  log = $state.raw<LogLine[]>([]);
  /** Where each of the open server's folders stands with it. */
  folders = $state.raw<FolderDelivery[]>([]);
  loading = $state(false);

  /** Counts loads, so an answer for a detail closed since is dropped. */
  private token = 0;
  /** A fetch of the open server's folders is under way; another is due after it. */
  private foldersLoading = false;
  private foldersAgain = false;

  constructor(
    private api: Api,
    private notices: NoticesState,
    private open: OpenServer,
  ) {}

  /** Loads the detail just opened: the first page of its timeline, its log, its folders. */
  async load(id: ServerId): Promise<void> {
    this.timeline = [];
    this.log = [];
    this.folders = [];
    this.loading = true;
    const token = ++this.token;
    void this.loadFolders();
    const [page, log] = await Promise.allSettled([
      this.api.serverTimeline(id, null, TIMELINE_FIRST_PAGE),
      this.api.serverLog(id),
    ]);
    if (token !== this.token) return;
    if (page.status === "fulfilled") this.timeline = mergeBySeq(page.value.entries, this.timeline, MAX_TIMELINE);
    else this.notices.notify(plainMessage(page.reason));
    if (log.status === "fulfilled") this.log = mergeBySeq(log.value, this.log, MAX_LOG_LINES);
    else this.notices.notify(plainMessage(log.reason));
    this.loading = false;
    if (page.status === "fulfilled" && page.value.older > 0) await this.loadOlder(id, token);
  }

  /**
   * Loads the open server's older entries a page at a time, each put before
   * those shown, until all are in (or the detail closed, or the list is
   * full). Each page waits for the window to draw the one before.
   */
  private async loadOlder(id: ServerId, token: number): Promise<void> {
    for (;;) {
      await afterPaint();
      const oldest = this.timeline[0];
      if (token !== this.token || oldest === undefined || this.timeline.length >= MAX_TIMELINE) return;
      let page;
      try {
        page = await this.api.serverTimeline(id, oldest.seq, TIMELINE_PAGE);
      } catch (e) {
        if (token === this.token) this.notices.notify(plainMessage(e));
        return;
      }
      if (token !== this.token) return;
      this.timeline = prependOlder(this.timeline, page.entries, MAX_TIMELINE);
      if (page.older === 0 || page.entries.length === 0) return;
    }
  }

  /** Fetches where the open server's folders stand; overlapping calls run once more, not twice. */
  private async loadFolders(): Promise<void> {
    if (this.foldersLoading) {
      this.foldersAgain = true;
      return;
    }
    this.foldersLoading = true;
    try {
      do {
        this.foldersAgain = false;
        const id = this.open.detail;
        if (id === null) break;
        const folders = await this.api.serverFolders(id);
        if (this.open.detail === id) this.folders = folders;
      } while (this.foldersAgain);
    } catch {
      // The section then shows the folders without their state; the next
      // change fetches again.
    } finally {
      this.foldersLoading = false;
    }
  }

  /** Forgets what the closed detail showed; answers still on their way are dropped. */
  clear(): void {
    this.token++;
    this.timeline = [];
    this.log = [];
    this.folders = [];
    this.loading = false;
  }

  /** The open server's log lines, and a fetch of its folders when their delivery changed. */
  onChanges(changes: readonly Change[]): void {
    const id = this.open.detail;
    if (id === null) return;
    const lines: LogLine[] = [];
    let delivered = false;
    for (const c of changes) {
      if (c.kind === "log" && c.server === id) lines.push(c.line);
      else if (c.kind === "delivery" && c.server === id) delivered = true;
    }
    if (delivered) void this.loadFolders();
    if (lines.length > 0) this.log = appendNewer(this.log, lines, MAX_LOG_LINES);
  }

  /** The open server's new timeline entries. */
  onTimeline(entries: readonly Entry[]): void {
    const id = this.open.detail;
    if (id === null) return;
    const mine = entries.filter((e) => e.server === id);
    if (mine.length > 0) this.timeline = appendNewer(this.timeline, mine, MAX_TIMELINE);
  }
}
