// The window's state and everything a person can do in it. Components read
// the fields and call the methods; this (with the offers state it holds,
// offers.svelte.ts) is the only caller of `api`. State
// changes arrive as events (no polling): a settings revision reloads the
// lists, a status change updates one badge, log lines and timeline entries
// are appended, an AI app's connection is put in place by its id.

import { getContext, setContext, tick } from "svelte";
import type {
  AppInfo,
  AppKind,
  AppView,
  Change,
  ConnectionId,
  ConnectionView,
  ConsentPrompt,
  DeliverySummary,
  Entry,
  EntryView,
  FolderChoice,
  FolderDelivery,
  FolderView,
  LogLine,
  PlanView,
  Retry,
  RootId,
  ServerDraft,
  ServerId,
  SecretPlace,
  ServerTemplate,
  ServerView,
  Status,
} from "./bindings";
import { isCode, plainMessage, type Api, type Events, type UnlistenFn } from "./api";
import { importValues, joinedMessage, sentence, writtenMessage } from "./apps";
import { draftToForm, emptyForm, uniqueName, withSecretValue, type ServerForm } from "./draft";
import { appName } from "./format";
import { layoutFor } from "./layout";
import { appendNewer, mergeBySeq, prependOlder } from "./merge";
import { afterPaint, markReady } from "./ready";
import { gaveUpAttempts } from "./retry";
import { OffersState } from "./offers.svelte";
import { keptWords } from "./secrets";

export type View = "folders" | "servers" | "activity" | "connections" | "apps";

/**
 * How long after start-up the views not shown yet are made, hidden
 * (App.svelte): after the window shows its content and the servers start.
 */
export const PREPARE_VIEWS_AFTER_MS = 1_500;

/** The heading of the view shown: the views not shown are kept, hidden (App.svelte). */
export const VIEW_HEADING = "main [data-view]:not([hidden]) h1";

export const MAX_LOG_LINES = 5_000;
export const MAX_ACTIVITY = 20_000;
/** As many as the core keeps per server (timeline::DEFAULT_CAPACITY). */
export const MAX_TIMELINE = 100_000;
/**
 * A server's timeline loads newest first, a page at a time: the first page
 * fills the view at once, the rest follows in pages small enough that none
 * holds the window up (scripts/bench-app.sh measures it).
 */
export const TIMELINE_FIRST_PAGE = 500;
export const TIMELINE_PAGE = 2_000;
/** As many entries as the core keeps per connection (connections::ENTRIES_KEPT). */
export const MAX_CONNECTION_TIMELINE = 2_000;
/**
 * As many ended connections as the core keeps (connections::ENDED_KEPT); it
 * forgets older ones without a change, so the window does the same.
 */
export const MAX_ENDED_CONNECTIONS = 50;

export interface ToastAction {
  label: string;
  run: () => void;
}

export interface Toast {
  id: number;
  message: string;
  tone: "error" | "info";
  /** A button on the toast (Undo); pressing it also dismisses the toast. */
  action?: ToastAction;
}

export interface ConfirmRequest {
  title: string;
  body: string;
  ok: string;
  danger: boolean;
  resolve: (ok: boolean) => void;
}

export interface FormRequest {
  /** The server being edited; null when adding one. */
  id: ServerId | null;
  initial: ServerForm;
}

/** One server entry of an AI app's config file, whose import dialog is open. */
export interface ImportRequest {
  app: AppKind;
  /** The app as people know it ("Claude Desktop"). */
  title: string;
  /** The file's position among the app's files (the backend names files so). */
  file: number;
  path: string;
  entry: EntryView;
}

/** A rewrite of an app's config file (a route or its undo), whose dialog is open. */
export interface RouteRequest {
  app: AppKind;
  file: number;
  /** The entries routed (empty: every imported one); unused for an undo. */
  only: string[];
  undo: boolean;
  /** What would be written; null when it could not be planned again. */
  plan: PlanView | null;
  /** What went wrong with the last attempt, in plain words. */
  error: string | null;
}

/** A server's checklist of the kept folders it may see, open in its dialog. */
export interface ChecklistRequest {
  server: ServerId;
  /** Opened at the end of adding the server (after its approval), not from its detail. */
  afterAdd: boolean;
}

/** Where the window is: a view, and the detail open in it (Alt+Left goes back through these). */
export interface Place {
  view: View;
  detail: ServerId | null;
  connection: ConnectionId | null;
}

export function samePlace(a: Place, b: Place): boolean {
  return a.view === b.view && a.detail === b.detail && a.connection === b.connection;
}

/** How many places back Alt+Left can go. */
export const MAX_HISTORY = 50;

/** How long a server just added stays marked in the list once it is shown. */
export const HIGHLIGHT_MS = 2_400;

/** What the dialog says when a file changed between reading its diff and writing it. */
export const STALE_PLAN = "The file changed since you looked at it. Look at the new change.";

const KEY = Symbol("rootgate-app");

function replaceAt<T>(items: readonly T[], at: number, item: T): T[] {
  const copy = [...items];
  copy[at] = item;
  return copy;
}

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

export function provideApp(app: AppState): void {
  setContext(KEY, app);
}

export function useApp(): AppState {
  return getContext<AppState>(KEY);
}

export class AppState {
  view = $state<View>("folders");
  /** The server whose detail is open in the Servers view. */
  detail = $state<ServerId | null>(null);
  /** The AI app's connection whose detail is open in the Connections view. */
  connection = $state<ConnectionId | null>(null);

  info = $state.raw<AppInfo | null>(null);
  recovery = $state<string | null>(null);
  loaded = $state(false);

  folders = $state.raw<FolderView[]>([]);
  servers = $state.raw<ServerView[]>([]);
  templates = $state.raw<ServerTemplate[]>([]);
  /** AI apps' connections through `rootgate connect`: live ones first, newest first. */
  connections = $state.raw<ConnectionView[]>([]);

  /** Consent prompts waiting to be answered, shown one after another. */
  prompts = $state.raw<ConsentPrompt[]>([]);
  toasts = $state.raw<Toast[]>([]);

  activity = $state.raw<Entry[]>([]);
  /** The open server's timeline and stderr. */
  timeline = $state.raw<Entry[]>([]);
  log = $state.raw<LogLine[]>([]);
  /** Where each of the open server's folders stands with it. */
  detailFolders = $state.raw<FolderDelivery[]>([]);
  detailLoading = $state(false);
  /** What happened on the open connection, oldest first. */
  connectionTimeline = $state.raw<Entry[]>([]);
  connectionLoading = $state(false);

  picking = $state(false);
  dragHover = $state(false);

  approval = $state.raw<ServerView | null>(null);
  /** AI apps found on this machine, with their files; null until first listed. */
  apps = $state.raw<AppView[] | null>(null);
  appsLoading = $state(false);
  /** Why the apps could not be listed, when they could not. */
  appsError = $state<string | null>(null);
  importRequest = $state.raw<ImportRequest | null>(null);
  routeRequest = $state.raw<RouteRequest | null>(null);
  form = $state.raw<FormRequest | null>(null);
  confirmRequest = $state.raw<ConfirmRequest | null>(null);
  /** Servers with a start, stop or restart under way. */
  busy = $state.raw<ReadonlySet<ServerId>>(new Set());
  /** The server whose folder checklist is open. */
  checklist = $state.raw<ChecklistRequest | null>(null);
  /** The keyboard shortcuts sheet (`?`) is open. */
  shortcutsOpen = $state(false);
  /** A server just added: its row is scrolled into view and marked briefly once no dialog is open. */
  highlight = $state<ServerId | null>(null);
  /** The window's inner width (App.svelte keeps it), which its layout follows. */
  width = $state(0);
  layout = $derived(layoutFor(this.width));
  /** Servers whose restarts the person stopped in this session. */
  stoppedRetrying = $state.raw<ReadonlySet<ServerId>>(new Set());

  serverNames = $derived(new Map(this.servers.map((s) => [s.id, s.name])));
  firstRun = $derived(this.loaded && this.servers.length === 0 && this.folders.length === 0);
  detailServer = $derived(this.servers.find((s) => s.id === this.detail) ?? null);
  detailConnection = $derived(this.connections.find((c) => c.id === this.connection) ?? null);
  liveConnections = $derived(this.connections.filter((c) => c.live).length);
  /** For each server Rootgate gave up on, the attempts its newest "gave up" entry counts. */
  gaveUpAfter = $derived(
    gaveUpAttempts(this.activity, new Set(this.servers.filter((s) => s.gaveUp).map((s) => s.id))),
  );
  dialogOpen = $derived(
    this.checklist !== null ||
      this.shortcutsOpen ||
      this.prompts.length > 0 ||
      this.approval !== null ||
      this.form !== null ||
      this.confirmRequest !== null ||
      this.importRequest !== null ||
      this.routeRequest !== null,
  );

  private nextToast = 1;
  private reloading = false;
  private reloadAgain = false;
  /** Counts status events, so a list fetched earlier does not undo a newer status. */
  private statusEvents = 0;
  private latestStatus = new Map<ServerId, { n: number; status: Status }>();
  /** The newest retry each server was said to have (counted with the status events). */
  private latestRetry = new Map<ServerId, { n: number; retry: Retry | null }>();
  /** Where the person was, oldest first, for Alt+Left. */
  private history: Place[] = [];
  /** A server just added through the form: approving it ends with its folder checklist. */
  private justAdded: ServerId | null = null;
  private unlisten: UnlistenFn[] = [];
  private detailToken = 0;
  private connectionToken = 0;
  /** A fetch of the open server's folders is under way; another is due after it. */
  private foldersLoading = false;
  private foldersAgain = false;
  /** Consent prompts an import opened, queued once its approval dialog closes. */
  private afterApproval: ConsentPrompt[] = [];
  private appsToken = 0;

  /** What the open server offers and what the person tries from it (issue #19); its detail follows it. */
  readonly offers: OffersState;

  constructor(
    private api: Api,
    private events: Events,
  ) {
    this.offers = new OffersState(api);
  }

  // ----- startup -------------------------------------------------------

  async start(): Promise<void> {
    try {
      await this.load();
    } finally {
      this.loaded = true;
    }
  }

  private async load(): Promise<void> {
    // Listen first, so nothing that happens while loading is missed.
    const subscribe = (f: () => Promise<UnlistenFn>) => Promise.resolve().then(f);
    const subscriptions = [
      subscribe(() => this.events.onChanges((c) => this.onChanges(c))),
      subscribe(() => this.events.onTimeline((e) => this.onTimeline(e))),
      subscribe(() => this.events.onPrompts((p) => this.enqueuePrompts(p))),
      subscribe(() => this.events.onNotice((n) => this.notify(n.message))),
      subscribe(() => this.events.onDragHover((h) => (this.dragHover = h))),
    ];
    const settled = await Promise.allSettled(subscriptions);
    for (const [i, s] of settled.entries()) {
      if (s.status === "fulfilled") this.unlisten.push(s.value);
      // The drop highlight is a nicety; the others are not.
      else if (i < 4) this.notify(`Rootgate cannot follow changes as they happen: ${plainMessage(s.reason)}`);
    }

    const [info, , templates, activity, prompts, connections] = await Promise.allSettled([
      this.api.appInfo(),
      // The lists are what the window shows first; the rest may follow.
      this.reload().then(async () => {
        this.loaded = true;
        await tick();
        await afterPaint();
        markReady();
        // The servers start now that the window shows its content, so that
        // their start-up never competes with the window's.
        await this.api.windowShown().catch((e) => this.notify(plainMessage(e)));
      }),
      this.api.templates(),
      this.api.activity(),
      this.api.openPrompts(),
      this.api.listConnections(),
    ]);
    if (info.status === "fulfilled") {
      this.info = info.value;
      this.recovery = info.value.recovery;
      // Folders given on the command line that could not be offered.
      for (const n of info.value.notices) this.notify(n);
    } else {
      this.notify(plainMessage(info.reason));
    }
    if (templates.status === "fulfilled") this.templates = templates.value;
    if (activity.status === "fulfilled") this.activity = mergeBySeq(activity.value, this.activity, MAX_ACTIVITY);
    if (prompts.status === "fulfilled") this.enqueuePrompts(prompts.value);
    if (connections.status === "fulfilled") {
      // A connection a change brought while the list was on its way is as
      // new as the list's, or newer.
      const heard = new Set(this.connections.map((c) => c.id));
      this.connections = orderConnections(
        [...this.connections, ...connections.value.filter((c) => !heard.has(c.id))],
        this.connection,
      );
    }
    for (const r of [templates, activity, prompts, connections]) {
      if (r.status === "rejected") this.notify(plainMessage(r.reason));
    }
  }

  stop(): void {
    for (const u of this.unlisten) u();
    this.unlisten = [];
  }

  /** Fetches folders and servers again; calls that overlap run once more, not twice. */
  async reload(): Promise<void> {
    if (this.reloading) {
      this.reloadAgain = true;
      return;
    }
    this.reloading = true;
    try {
      do {
        this.reloadAgain = false;
        const mark = this.statusEvents;
        const [folders, servers] = await Promise.all([this.api.listFolders(), this.api.listServers()]);
        this.folders = folders;
        this.servers = servers.map((s) => {
          const newer = this.latestStatus.get(s.id);
          const retry = this.latestRetry.get(s.id);
          const withStatus = newer && newer.n > mark ? { ...s, status: newer.status } : s;
          return retry && retry.n > mark ? { ...withStatus, retry: retry.retry } : withStatus;
        });
        if (this.detail !== null && !servers.some((s) => s.id === this.detail)) this.clearDetail();
        if (this.approval && !servers.some((s) => s.id === this.approval?.id)) this.closeApproval();
      } while (this.reloadAgain);
    } catch (e) {
      this.notify(plainMessage(e));
    } finally {
      this.reloading = false;
    }
  }

  // ----- events --------------------------------------------------------

  onChanges(changes: Change[]): void {
    let settings = false;
    const statuses = new Map<ServerId, Status>();
    const deliveries = new Map<ServerId, DeliverySummary>();
    const retries = new Map<ServerId, Retry | null>();
    const lines: LogLine[] = [];
    const connections = new Map<ConnectionId, ConnectionView>();
    const entries: Entry[] = [];
    for (const c of changes) {
      switch (c.kind) {
        case "settings":
          settings = true;
          break;
        case "status":
          this.statusEvents += 1;
          this.latestStatus.set(c.server, { n: this.statusEvents, status: c.status });
          statuses.set(c.server, c.status);
          break;
        case "log":
          if (c.server === this.detail) lines.push(c.line);
          break;
        case "delivery":
          deliveries.set(c.server, c.delivery);
          break;
        case "connection":
          connections.set(c.connection.id, c.connection);
          break;
        case "connectionEntry":
          if (c.connection === this.connection) entries.push(c.entry);
          break;
        case "prompts":
          this.enqueuePrompts(c.prompts);
          break;
        case "retry":
          this.statusEvents += 1;
          this.latestRetry.set(c.server, { n: this.statusEvents, retry: c.retry });
          retries.set(c.server, c.retry);
          break;
        case "callProgress":
        case "offersChanged":
        case "resourceUpdated":
          // For the open server's Tools, Resources and Prompts.
          this.offers.onChange(c);
          break;
      }
    }
    if (connections.size > 0) this.upsertConnections(connections);
    if (entries.length > 0) {
      this.connectionTimeline = appendNewer(this.connectionTimeline, entries, MAX_CONNECTION_TIMELINE);
    }
    if (statuses.size > 0 || deliveries.size > 0 || retries.size > 0) {
      this.servers = this.servers.map((s) => {
        const status = statuses.get(s.id);
        const delivery = deliveries.get(s.id);
        const retry = retries.has(s.id) ? (retries.get(s.id) ?? null) : s.retry;
        return status || delivery || retry !== s.retry
          ? { ...s, status: status ?? s.status, delivery: delivery ?? s.delivery, retry }
          : s;
      });
    }
    if (this.detail !== null && deliveries.has(this.detail)) void this.loadDetailFolders();
    if (lines.length > 0) this.log = appendNewer(this.log, lines, MAX_LOG_LINES);
    if (settings) {
      void this.reload();
      // A terminal's import reaches the window as a settings change: the
      // Apps view shows it without a Look again.
      if (this.view === "apps") void this.loadApps();
    }
  }

  onTimeline(entries: Entry[]): void {
    if (entries.length === 0) return;
    this.activity = appendNewer(this.activity, entries, MAX_ACTIVITY);
    if (this.detail !== null) {
      const mine = entries.filter((e) => e.server === this.detail);
      if (mine.length > 0) this.timeline = appendNewer(this.timeline, mine, MAX_TIMELINE);
    }
  }

  enqueuePrompts(prompts: ConsentPrompt[]): void {
    const have = new Set(this.prompts.map((p) => p.id));
    const fresh = prompts.filter((p) => !have.has(p.id));
    if (fresh.length > 0) this.prompts = [...this.prompts, ...fresh];
  }

  // ----- toasts and confirmations ----------------------------------------

  notify(message: string, tone: Toast["tone"] = "error", action?: ToastAction): void {
    const text = message.trim();
    if (text === "" || this.toasts.some((t) => t.message === text)) return;
    const toast: Toast = { id: this.nextToast++, message: text, tone, ...(action ? { action } : {}) };
    this.toasts = [...this.toasts, toast].slice(-5);
  }

  dismiss(id: number): void {
    this.toasts = this.toasts.filter((t) => t.id !== id);
  }

  confirm(request: Omit<ConfirmRequest, "resolve">): Promise<boolean> {
    this.confirmRequest?.resolve(false);
    return new Promise((resolve) => {
      this.confirmRequest = {
        ...request,
        resolve: (ok) => {
          this.confirmRequest = null;
          resolve(ok);
        },
      };
    });
  }

  // ----- navigation ----------------------------------------------------

  /** Where the window is now. */
  get place(): Place {
    return { view: this.view, detail: this.detail, connection: this.connection };
  }

  /** Notes where the window is, before it goes elsewhere, for Alt+Left. */
  private remember(): void {
    const here = this.place;
    const last = this.history.at(-1);
    if (last && samePlace(last, here)) return;
    this.history.push(here);
    if (this.history.length > MAX_HISTORY) this.history.splice(0, this.history.length - MAX_HISTORY);
  }

  /**
   * Shows a view's list (the sidebar, Ctrl+1…5): a detail open in it
   * closes, so the Servers item (or Ctrl+2) in a server's detail goes back
   * to the list.
   */
  show(view: View): void {
    const to: Place = { view, detail: null, connection: null };
    if (samePlace(this.place, to)) return;
    this.remember();
    this.view = view;
    this.clearDetail();
    this.clearConnection();
  }

  /** Shows the "Connect an app" view and lists the apps again (their files may have changed). */
  showApps(): void {
    this.show("apps");
    void this.loadApps();
  }

  /**
   * Goes back to where the person was before (Alt+Left), skipping places
   * that are gone (a removed server). With nowhere to go back to, a
   * detail goes up to its list. Returns whether it went anywhere.
   */
  back(): boolean {
    while (this.history.length > 0) {
      const to = this.history.pop() as Place;
      if (samePlace(to, this.place)) continue;
      if (to.detail !== null && !this.servers.some((s) => s.id === to.detail)) continue;
      if (to.connection !== null && !this.connections.some((c) => c.id === to.connection)) continue;
      if (to.detail !== null) void this.loadDetail(to.detail);
      else if (to.connection !== null) void this.loadConnection(to.connection);
      else {
        this.view = to.view;
        this.clearDetail();
        this.clearConnection();
        if (to.view === "apps") void this.loadApps();
      }
      return true;
    }
    return this.up();
  }

  /** From a detail, up to its list (Escape, the detail's Back); returns whether there was one. */
  up(): boolean {
    if (this.detail !== null) {
      this.closeDetail();
      return true;
    }
    if (this.connection !== null) {
      this.closeConnection();
      return true;
    }
    return false;
  }

  async openDetail(id: ServerId): Promise<void> {
    if (!samePlace(this.place, { view: "servers", detail: id, connection: null })) this.remember();
    await this.loadDetail(id);
  }

  private async loadDetail(id: ServerId): Promise<void> {
    this.clearConnection();
    this.view = "servers";
    this.detail = id;
    this.timeline = [];
    this.log = [];
    this.detailFolders = [];
    this.detailLoading = true;
    const token = ++this.detailToken;
    void this.loadDetailFolders();
    const [page, log] = await Promise.allSettled([
      this.api.serverTimeline(id, null, TIMELINE_FIRST_PAGE),
      this.api.serverLog(id),
    ]);
    if (token !== this.detailToken) return;
    if (page.status === "fulfilled") this.timeline = mergeBySeq(page.value.entries, this.timeline, MAX_TIMELINE);
    else this.notify(plainMessage(page.reason));
    if (log.status === "fulfilled") this.log = mergeBySeq(log.value, this.log, MAX_LOG_LINES);
    else this.notify(plainMessage(log.reason));
    this.detailLoading = false;
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
      if (token !== this.detailToken || oldest === undefined || this.timeline.length >= MAX_TIMELINE) return;
      let page;
      try {
        page = await this.api.serverTimeline(id, oldest.seq, TIMELINE_PAGE);
      } catch (e) {
        if (token === this.detailToken) this.notify(plainMessage(e));
        return;
      }
      if (token !== this.detailToken) return;
      this.timeline = prependOlder(this.timeline, page.entries, MAX_TIMELINE);
      if (page.older === 0 || page.entries.length === 0) return;
    }
  }

  /** Fetches where the open server's folders stand; overlapping calls run once more, not twice. */
  private async loadDetailFolders(): Promise<void> {
    if (this.foldersLoading) {
      this.foldersAgain = true;
      return;
    }
    this.foldersLoading = true;
    try {
      do {
        this.foldersAgain = false;
        const id = this.detail;
        if (id === null) break;
        const folders = await this.api.serverFolders(id);
        if (this.detail === id) this.detailFolders = folders;
      } while (this.foldersAgain);
    } catch {
      // The section then shows the folders without their state; the next
      // change fetches again.
    } finally {
      this.foldersLoading = false;
    }
  }

  /** Closes the server's detail, back to the list. */
  closeDetail(): void {
    if (this.detail === null) return;
    this.remember();
    this.clearDetail();
  }

  private clearDetail(): void {
    this.detailToken++;
    this.detail = null;
    this.timeline = [];
    this.log = [];
    this.detailFolders = [];
    this.detailLoading = false;
  }

  // ----- AI apps' connections --------------------------------------------

  /** Puts each connection in place of the one with its id (or adds it). */
  private upsertConnections(updated: ReadonlyMap<ConnectionId, ConnectionView>): void {
    const rest = new Map(updated);
    const merged = this.connections.map((c) => {
      const now = rest.get(c.id);
      rest.delete(c.id);
      return now ?? c;
    });
    this.connections = orderConnections([...merged, ...rest.values()], this.connection);
  }

  /** Opens a connection's detail: its facts and what happened on it. */
  async openConnection(id: ConnectionId): Promise<void> {
    if (!samePlace(this.place, { view: "connections", detail: null, connection: id })) this.remember();
    await this.loadConnection(id);
  }

  private async loadConnection(id: ConnectionId): Promise<void> {
    this.clearDetail();
    this.view = "connections";
    this.connection = id;
    this.connectionTimeline = [];
    this.connectionLoading = true;
    const token = ++this.connectionToken;
    try {
      const entries = await this.api.connectionTimeline(id);
      if (token !== this.connectionToken) return;
      // Entries that arrived while the timeline was on its way are kept.
      this.connectionTimeline = mergeBySeq(entries, this.connectionTimeline, MAX_CONNECTION_TIMELINE);
    } catch (e) {
      if (token === this.connectionToken) this.notify(plainMessage(e));
    } finally {
      if (token === this.connectionToken) this.connectionLoading = false;
    }
  }

  /**
   * Asks again about the folders a connection's app works in (its
   * suggestions, even those cancelled before); says so when there is none
   * left to ask about.
   */
  async suggestAgain(connection: ConnectionView): Promise<void> {
    try {
      const prompts = await this.api.suggestAgain(connection.id);
      if (prompts.length > 0) this.enqueuePrompts(prompts);
      else
        this.notify(
          `Every folder ${appName(connection.app?.name)} works in is shared with ${connection.serverName} already, or waits for your answer.`,
          "info",
        );
    } catch (e) {
      this.notify(plainMessage(e));
    }
  }

  /** Closes the connection's detail, back to the list. */
  closeConnection(): void {
    if (this.connection === null) return;
    this.remember();
    this.clearConnection();
  }

  private clearConnection(): void {
    this.connectionToken++;
    this.connection = null;
    this.connectionTimeline = [];
    this.connectionLoading = false;
  }

  // ----- folders -------------------------------------------------------

  async addFolder(): Promise<void> {
    if (this.picking) return;
    this.picking = true;
    try {
      // An empty answer is a cancelled picker: nothing changes.
      this.enqueuePrompts(await this.api.pickFolders());
    } catch (e) {
      this.notify(plainMessage(e));
    } finally {
      this.picking = false;
    }
  }

  async changeAccess(root: RootId): Promise<void> {
    try {
      this.enqueuePrompts([await this.api.changeAccess(root)]);
    } catch (e) {
      this.notify(plainMessage(e));
    }
  }

  /** Answers the first prompt; whatever happens, the prompt is then closed. */
  async answerPrompt(prompt: ConsentPrompt, servers: ServerId[], name: string | null): Promise<void> {
    try {
      const folder = await this.api.answerPrompt(prompt.id, servers, name);
      this.upsertFolder(folder);
    } catch (e) {
      this.notify(plainMessage(e));
    } finally {
      this.prompts = this.prompts.filter((p) => p.id !== prompt.id);
    }
  }

  async cancelPrompt(prompt: ConsentPrompt): Promise<void> {
    this.prompts = this.prompts.filter((p) => p.id !== prompt.id);
    try {
      await this.api.cancelPrompt(prompt.id);
    } catch {
      // The prompt is gone either way.
    }
  }

  /** Renames a folder; returns whether it worked. */
  async renameFolder(root: RootId, name: string): Promise<boolean> {
    try {
      this.upsertFolder(await this.api.renameFolder(root, name));
      return true;
    } catch (e) {
      this.notify(plainMessage(e));
      return false;
    }
  }

  async removeFolder(folder: FolderView): Promise<void> {
    const ok = await this.confirm({
      title: `Remove “${folder.name}”?`,
      body:
        folder.servers.length > 0
          ? `It is withdrawn from every server at once (${folder.servers.length === 1 ? "1 server sees it" : `${folder.servers.length} servers see it`} now). The folder itself stays on your disk.`
          : "It is withdrawn from every server at once. No server sees it now. The folder itself stays on your disk.",
      ok: "Remove folder",
      danger: true,
    });
    if (!ok) return;
    try {
      await this.api.removeFolder(folder.id);
      this.folders = this.folders.filter((f) => f.id !== folder.id);
    } catch (e) {
      this.notify(plainMessage(e));
    }
  }

  async revoke(server: ServerId, root: RootId): Promise<void> {
    try {
      await this.api.revoke(server, root);
      this.folders = this.folders.map((f) =>
        f.id === root ? { ...f, servers: f.servers.filter((s) => s !== server) } : f,
      );
    } catch (e) {
      this.notify(plainMessage(e));
    }
  }

  private upsertFolder(folder: FolderView): void {
    const at = this.folders.findIndex((f) => f.id === folder.id);
    this.folders = at < 0 ? [...this.folders, folder] : replaceAt(this.folders, at, folder);
  }

  // ----- servers -------------------------------------------------------

  private upsertServer(server: ServerView): ServerView {
    // A status event newer than this answer wins.
    const newer = this.latestStatus.get(server.id);
    const view = newer ? { ...server, status: newer.status } : server;
    const at = this.servers.findIndex((s) => s.id === server.id);
    this.servers = at < 0 ? [...this.servers, view] : replaceAt(this.servers, at, view);
    return view;
  }

  openAddForm(): void {
    this.form = { id: null, initial: emptyForm() };
  }

  openTemplate(template: ServerTemplate): void {
    const name = uniqueName(
      template.draft.name,
      this.servers.map((s) => s.name),
    );
    this.form = { id: null, initial: draftToForm({ ...template.draft, name }) };
  }

  openEditForm(server: ServerView): void {
    this.form = { id: server.id, initial: draftToForm(server, server.missingSecrets) };
  }

  closeForm(): void {
    this.form = null;
  }

  /** Saves the form's draft; returns the error to show next to the form, or null. */
  async saveServer(id: ServerId | null, draft: ServerDraft): Promise<string | null> {
    try {
      const saved = this.upsertServer(
        id === null ? await this.api.addServer(draft) : await this.api.updateServer(id, draft),
      );
      this.form = null;
      if (id === null) this.added(saved);
      if (!saved.approved) this.approval = saved;
      return null;
    } catch (e) {
      return plainMessage(e);
    }
  }

  /** First run: adds the built-in example server and asks to approve it. */
  async tryExample(): Promise<void> {
    const example = this.templates.find((t) => t.id === "example");
    if (!example) {
      this.notify("The example server is not available in this build.");
      return;
    }
    try {
      const name = uniqueName(
        example.draft.name,
        this.servers.map((s) => s.name),
      );
      const added = this.upsertServer(await this.api.addServer({ ...example.draft, name }));
      this.show("servers");
      this.added(added);
      this.approval = added;
    } catch (e) {
      this.notify(plainMessage(e));
    }
  }

  async removeServer(server: ServerView): Promise<void> {
    const shared = this.folders.filter((f) => f.servers.includes(server.id)).length;
    const ok = await this.confirm({
      title: `Remove “${server.name}”?`,
      body:
        (server.status.state === "stopped" || server.status.state === "failed" ? "" : "It is stopped first. ") +
        (shared === 0
          ? "No folders are shared with it."
          : shared === 1
            ? "The folder shared with it is withdrawn from it; the folder stays in Rootgate for other servers."
            : `The ${shared} folders shared with it are withdrawn from it; they stay in Rootgate for other servers.`),
      ok: "Remove server",
      danger: true,
    });
    if (!ok) return;
    await this.withBusy(server.id, async () => {
      await this.api.removeServer(server.id);
      this.servers = this.servers.filter((s) => s.id !== server.id);
      if (this.detail === server.id) this.clearDetail();
    });
  }

  /**
   * A server was just added: its row is shown and marked once the dialogs
   * close, and approving it now ends with its folder checklist.
   */
  private added(server: ServerView): void {
    this.justAdded = server.id;
    this.highlight = server.id;
  }

  /** The row marked after adding was shown long enough. */
  clearHighlight(id: ServerId): void {
    if (this.highlight === id) this.highlight = null;
  }

  async startServer(server: ServerView): Promise<void> {
    if (!server.approved) {
      this.approval = server;
      return;
    }
    if (this.stoppedRetrying.has(server.id)) {
      const rest = new Set(this.stoppedRetrying);
      rest.delete(server.id);
      this.stoppedRetrying = rest;
    }
    await this.withBusy(server.id, () => this.api.startServer(server.id));
  }

  /**
   * Cancels the restart scheduled after a failure: the server waits for
   * the person (also at the next launch) until they start it.
   */
  async stopRetrying(server: ServerView): Promise<void> {
    await this.withBusy(server.id, async () => {
      await this.api.stopRetrying(server.id);
      this.stoppedRetrying = new Set([...this.stoppedRetrying, server.id]);
      // The change and the settings revision say so too; the row says it now.
      this.statusEvents += 1;
      this.latestRetry.set(server.id, { n: this.statusEvents, retry: null });
      this.servers = this.servers.map((s) => (s.id === server.id ? { ...s, retry: null, gaveUp: true } : s));
    });
  }

  // ----- a server's folder checklist --------------------------------------

  openChecklist(server: ServerId, afterAdd = false): void {
    this.checklist = { server, afterAdd };
  }

  closeChecklist(): void {
    this.checklist = null;
  }

  /** Every kept folder as the server's checklist shows it; null (said in a toast) when it cannot be had. */
  async folderChoices(server: ServerId): Promise<FolderChoice[] | null> {
    try {
      return await this.api.folderChoices(server);
    } catch (e) {
      this.notify(plainMessage(e));
      return null;
    }
  }

  /**
   * The checklist's Save: the server may see exactly `roots`. Closes the
   * checklist and returns null, or returns what went wrong (and whether a
   * folder now leads elsewhere: the checklist is then fetched again).
   */
  async setServerFolders(server: ServerId, roots: RootId[]): Promise<{ message: string; stale: boolean } | null> {
    try {
      this.upsertServer(await this.api.setServerFolders(server, roots));
    } catch (e) {
      return { message: plainMessage(e), stale: isCode(e, "stale") };
    }
    // The folders' lists of servers say so at once; the settings revision
    // that follows reloads them anyway.
    const given = new Set(roots);
    this.folders = this.folders.map((f) => {
      const has = f.servers.includes(server);
      if (has === given.has(f.id)) return f;
      return { ...f, servers: has ? f.servers.filter((s) => s !== server) : [...f.servers, server] };
    });
    if (this.checklist?.server === server) this.checklist = null;
    return null;
  }

  async stopServer(server: ServerView): Promise<void> {
    await this.withBusy(server.id, () => this.api.stopServer(server.id));
  }

  async restartServer(server: ServerView): Promise<void> {
    if (!server.approved) {
      this.approval = server;
      return;
    }
    await this.withBusy(server.id, () => this.api.restartServer(server.id));
  }

  /** Forgets that a server was seen not to follow changes. */
  async forgetFollowing(server: ServerView): Promise<void> {
    try {
      this.upsertServer(await this.api.forgetFollowing(server.id));
    } catch (e) {
      this.notify(plainMessage(e));
    }
  }

  // ----- a server's secrets ------------------------------------------------

  /**
   * The value of a secret the person asked to see, or null (said in a
   * toast, which names the variable only). The value goes to the caller
   * alone: never into state, a toast or the console.
   */
  async revealSecret(server: ServerView, name: string): Promise<string | null> {
    try {
      return await this.api.revealSecret(server.id, name);
    } catch (e) {
      this.notify(plainMessage(e));
      return null;
    }
  }

  /**
   * Keeps the secrets `names` where the person chose, when no keyring took
   * them: the settings file, not stored (memory only), or the keyring again.
   * Says where they are in a toast; returns whether every one was kept.
   */
  async keepSecrets(server: ServerView, names: readonly string[], place: SecretPlace): Promise<boolean> {
    let kept: string[] = [];
    try {
      for (const name of names) {
        this.upsertServer(await this.api.keepSecret(server.id, name, place));
        kept = [...kept, name];
      }
    } catch (e) {
      this.notify(plainMessage(e));
      return false;
    } finally {
      if (kept.length > 0) this.notify(keptWords(kept, place), "info");
    }
    return true;
  }

  /**
   * Gives a secret Rootgate does not have (not stored, and Rootgate started
   * again since) its value: saved as an edit of the server that changes
   * nothing else, so its approval holds. Returns what went wrong, or null.
   */
  async giveSecret(server: ServerView, name: string, value: string): Promise<string | null> {
    try {
      const saved = this.upsertServer(await this.api.updateServer(server.id, withSecretValue(server, name, value)));
      const place = saved.secrets[name];
      if (place) this.notify(keptWords([name], place), "info");
      return null;
    } catch (e) {
      return plainMessage(e);
    }
  }

  /** Approves exactly the command line shown, then starts the server. */
  async approveAndStart(server: ServerView): Promise<boolean> {
    try {
      this.upsertServer(await this.api.approveCommand(server.id, server.commandLine));
    } catch (e) {
      this.notify(plainMessage(e));
      if (isCode(e, "stale") || isCode(e, "notFound")) {
        this.closeApproval();
        void this.reload();
      }
      return false;
    }
    const added = this.justAdded === server.id;
    this.closeApproval();
    // Adding a server ends with choosing the folders it may see.
    if (added) this.openChecklist(server.id, true);
    await this.withBusy(server.id, () => this.api.startServer(server.id));
    return true;
  }

  cancelApproval(): void {
    this.closeApproval();
  }

  /** Closes the approval dialog; the consent prompts an import opened come next. */
  private closeApproval(): void {
    this.approval = null;
    this.justAdded = null;
    const next = this.afterApproval;
    this.afterApproval = [];
    if (next.length > 0) this.enqueuePrompts(next);
  }

  // ----- AI apps' config files ("Connect an app") ------------------------

  /** Lists the AI apps found on this machine again; an answer older than the last asked is dropped. */
  async loadApps(): Promise<void> {
    const token = ++this.appsToken;
    this.appsLoading = true;
    try {
      const apps = await this.api.listApps();
      if (token !== this.appsToken) return;
      this.apps = apps;
      this.appsError = null;
    } catch (e) {
      if (token !== this.appsToken) return;
      this.appsError = plainMessage(e);
    } finally {
      if (token === this.appsToken) this.appsLoading = false;
    }
  }

  openImport(request: ImportRequest): void {
    this.importRequest = request;
  }

  closeImport(): void {
    this.importRequest = null;
  }

  /**
   * Imports the open request's entry with the person's `values` for its
   * needs. The new server (not approved, not enabled) is then offered for
   * approval as one added by hand is; the consent prompts for the folders
   * in its arguments follow once that dialog closes. `existing` is the
   * server the person chose to use instead of a new one. Returns the error
   * to show in the import dialog, or null.
   */
  async importServer(
    request: ImportRequest,
    values: Record<string, string>,
    existing: ServerId | null = null,
  ): Promise<string | null> {
    let outcome;
    try {
      outcome = await this.api.importAppServer(
        request.app,
        request.file,
        request.entry.scope,
        request.entry.key,
        // A server the person chose keeps its own values.
        existing === null ? importValues(request.entry.needs, values) : {},
        existing,
      );
    } catch (e) {
      return plainMessage(e);
    }
    const said = joinedMessage(request.entry.key, outcome.server.name, outcome.joined);
    if (said !== null) this.notify(said, "info");
    if (this.importRequest === request) this.importRequest = null;
    const added = this.upsertServer(outcome.server);
    // A path the dialog already listed as left as it is needs no toast.
    const kept = request.entry.keptPaths;
    for (const note of outcome.notes) {
      if (!kept.some((p) => note.startsWith(`${p} `))) this.notify(sentence(note), "info");
    }
    if (added.approved) {
      this.enqueuePrompts(outcome.prompts);
    } else {
      this.afterApproval = [...this.afterApproval, ...outcome.prompts];
      this.approval = added;
    }
    void this.loadApps();
    return null;
  }

  /** Plans routing an app's file through Rootgate and opens the dialog showing the change. */
  async planRoute(app: AppKind, file: number, only: string[] = []): Promise<void> {
    try {
      const plan = await this.api.planRoute(app, file, only);
      this.routeRequest = { app, file, only, undo: false, plan, error: null };
    } catch (e) {
      this.notify(plainMessage(e));
      void this.loadApps();
    }
  }

  /** Plans undoing Rootgate's route of an app's file and opens the dialog showing the change. */
  async planUnroute(app: AppKind, file: number): Promise<void> {
    try {
      const plan = await this.api.planUnroute(app, file);
      this.routeRequest = { app, file, only: [], undo: true, plan, error: null };
      // The toast that offered this Undo has done its job.
      const offered = writtenMessage(plan.title, false);
      this.toasts = this.toasts.filter((t) => !(t.action && t.message === offered));
    } catch (e) {
      this.notify(plainMessage(e));
      void this.loadApps();
    }
  }

  /**
   * Writes the open plan. A plan is used once, written or not: when writing
   * fails, the change is planned again, so that what the dialog shows is
   * what the next attempt writes (for a file changed since it was read,
   * with the words saying so).
   */
  async applyRoute(): Promise<void> {
    const request = this.routeRequest;
    const plan = request?.plan;
    if (!request || !plan) return;
    try {
      await this.api.applyPlan(plan.id);
    } catch (e) {
      const error = isCode(e, "stale") ? STALE_PLAN : plainMessage(e);
      let again: PlanView | null = null;
      let why: string | null = null;
      try {
        again = request.undo
          ? await this.api.planUnroute(request.app, request.file)
          : await this.api.planRoute(request.app, request.file, request.only);
      } catch (e2) {
        why = plainMessage(e2);
      }
      if (this.routeRequest === request) {
        this.routeRequest = { ...request, plan: again, error: why ? `${error} ${why}` : error };
      } else if (again) {
        void this.api.dropPlan(again.id).catch(() => {});
      }
      void this.loadApps();
      return;
    }
    if (this.routeRequest === request) this.routeRequest = null;
    const { app, file } = request;
    this.notify(
      writtenMessage(plan.title, request.undo),
      "info",
      request.undo ? undefined : { label: "Undo", run: () => void this.planUnroute(app, file) },
    );
    await this.loadApps();
  }

  /** Closes the route dialog without writing; the backend forgets the plan. */
  cancelRoute(): void {
    const plan = this.routeRequest?.plan;
    this.routeRequest = null;
    if (plan) void this.api.dropPlan(plan.id).catch(() => {});
  }

  private async withBusy(id: ServerId, f: () => Promise<unknown>): Promise<void> {
    this.busy = new Set([...this.busy, id]);
    try {
      await f();
    } catch (e) {
      if (isCode(e, "needsApproval")) {
        // The command changed since the list was fetched: show the current one.
        await this.reload();
        this.approval = this.servers.find((s) => s.id === id) ?? null;
        if (this.approval === null) this.notify(plainMessage(e));
      } else {
        this.notify(plainMessage(e));
      }
    } finally {
      const rest = new Set(this.busy);
      rest.delete(id);
      this.busy = rest;
    }
  }
}
