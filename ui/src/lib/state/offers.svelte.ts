// What the open server offers and what the person tries from it (issue
// #19): its tools, resources, resource templates and prompts, fetched when
// its detail shows it running and again when it says a list changed; tool
// calls with their progress and cancellation, resource reads and
// subscriptions, prompts got, each kept per item (a few), so coming back
// to a tool shows what it answered last. AppState holds one, shares its
// `api`, and routes the backend's changes here (callProgress,
// offersChanged, resourceUpdated); components read the fields and call the
// methods. It builds no form and checks no arguments (schema-form.ts,
// schema-validate.ts), and renders nothing.
//
// What is sent (a tool's arguments, a URI, a prompt's arguments) is data
// for the server: Rootgate passes it on and opens no path because of it.

import type { Change, JsonValue, Offers, ServerId, TryOutcome } from "../bindings";
import { isCode, plainMessage, type Api } from "../api";
import { parsePrompts, parseResources, parseTemplates, parseTools } from "../mcp";

export type OfferTab = "tools" | "resources" | "prompts";

export interface Progress {
  progress: number;
  total: number | null;
  message: string | null;
}

/** One try of a tool, a resource or a prompt, and what it came to. */
export interface Run {
  /** Unique while the window lives; for a tool call, the call's number (progress, cancel). */
  id: number;
  /** The tool's or prompt's name, or the resource's URI. */
  target: string;
  /** What was sent (a tool's or prompt's arguments). */
  sent: JsonValue;
  state: "running" | "done" | "failed" | "cancelled";
  startedAt: number;
  endedAt: number | null;
  outcome: TryOutcome | null;
  /** Why it failed, in plain words. */
  error: string | null;
  progress: Progress | null;
  /** Cancel was pressed and the call has not ended yet. */
  cancelling: boolean;
}

/** How many runs are kept per tab: results can be megabytes. */
export const MAX_RUNS = 20;

type Runs = Record<OfferTab, ReadonlyMap<string, Run>>;

function noRuns(): Runs {
  return { tools: new Map(), resources: new Map(), prompts: new Map() };
}

export class OffersState {
  /** The server whose offers these are (the open detail's). */
  server = $state<ServerId | null>(null);
  /** Whether it is running: only a running server is asked. */
  running = $state(false);
  offers = $state.raw<Offers | null>(null);
  loading = $state(false);
  /** Why the offers could not be fetched, in plain words. */
  error = $state<string | null>(null);

  tools = $derived(parseTools(this.offers?.tools.items ?? []));
  resources = $derived(parseResources(this.offers?.resources.items ?? []));
  templates = $derived(parseTemplates(this.offers?.templates.items ?? []));
  prompts = $derived(parsePrompts(this.offers?.prompts.items ?? []));

  /** The item open in each tab: a tool's name, a resource's URI (or "template:" + its template), a prompt's name. */
  selected = $state<Record<OfferTab, string | null>>({ tools: null, resources: null, prompts: null });
  /** What each tab's list is filtered by. */
  filter = $state<Record<OfferTab, string>>({ tools: "", resources: "", prompts: "" });
  /** Each tab's runs by target, the newest last. */
  runs = $state.raw<Runs>(noRuns());
  /** Resources the server was asked to tell of changes to. */
  subscribed = $state.raw<ReadonlySet<string>>(new Set());
  /** Resources the server said changed, with when (ms). */
  updated = $state.raw<ReadonlyMap<string, number>>(new Map());

  /**
   * What the person typed for each item (a form's values, a template's
   * variables), kept while its server is open, so leaving a tab or an item
   * and coming back finds them as left. Not state: each draft is a
   * component's own $state object, which stays reactive wherever it is held.
   */
  private drafts = new Map<string, unknown>();
  private token = 0;
  private fetching = false;
  private again = false;
  /** The window's own numbers for its tool calls (the backend's `call`). */
  private nextCall = 1;
  private nextRun = 1;

  constructor(private api: Api) {}

  /**
   * Follows the open detail: which server, and whether it runs. A new
   * server starts afresh; a server that starts running is asked what it
   * offers; one that stops has offered nothing since (its subscriptions
   * ended with its process). Idempotent, so the detail can call it on
   * every change of its server.
   */
  follow(server: ServerId | null, running: boolean): void {
    if (server !== this.server) {
      this.token++;
      this.fetching = false;
      this.again = false;
      this.server = server;
      this.running = false;
      this.offers = null;
      this.error = null;
      this.loading = false;
      this.selected = { tools: null, resources: null, prompts: null };
      this.filter = { tools: "", resources: "", prompts: "" };
      this.runs = noRuns();
      this.subscribed = new Set();
      this.updated = new Map();
      this.drafts.clear();
    }
    const now = running && server !== null;
    if (now === this.running) return;
    this.running = now;
    this.token++;
    this.fetching = false;
    this.again = false;
    if (now) {
      void this.load();
    } else {
      this.offers = null;
      this.error = null;
      this.loading = false;
      this.subscribed = new Set();
    }
  }

  /** Asks the server again; calls that overlap run once more, not twice. */
  async load(): Promise<void> {
    if (this.fetching) {
      this.again = true;
      return;
    }
    const token = this.token;
    this.fetching = true;
    this.loading = true;
    try {
      do {
        this.again = false;
        const id = this.server;
        if (id === null || !this.running) break;
        let offers: Offers | null = null;
        let error: string | null = null;
        try {
          offers = await this.api.serverOffers(id);
        } catch (e) {
          error = plainMessage(e);
        }
        if (token !== this.token) return;
        if (offers) {
          this.offers = offers;
          this.error = null;
        } else {
          this.error = error;
        }
      } while (this.again);
    } finally {
      if (token === this.token) {
        this.fetching = false;
        this.loading = false;
      }
    }
  }

  /** The backend's changes that are about offers and tries (AppState routes them here). */
  onChange(c: Change): void {
    switch (c.kind) {
      case "callProgress":
        this.updateRun("tools", c.call, (r) =>
          r.state === "running" ? { ...r, progress: { progress: c.progress, total: c.total, message: c.message } } : r,
        );
        break;
      case "offersChanged":
        if (c.server === this.server && this.running) void this.load();
        break;
      case "resourceUpdated":
        if (c.server === this.server) this.updated = new Map([...this.updated, [c.uri, Date.now()]]);
        break;
      default:
        break;
    }
  }

  /** The draft kept for an item, if any (see `drafts`). */
  draft<T>(key: string): T | undefined {
    return this.drafts.get(key) as T | undefined;
  }

  /** Keeps an item's draft: the component's $state object itself. */
  keepDraft(key: string, draft: unknown): void {
    this.drafts.set(key, draft);
  }

  select(tab: OfferTab, key: string | null): void {
    this.selected = { ...this.selected, [tab]: key };
  }

  setFilter(tab: OfferTab, text: string): void {
    this.filter = { ...this.filter, [tab]: text };
  }

  /** The newest run of a tab's item. */
  runOf(tab: OfferTab, target: string): Run | null {
    return this.runs[tab].get(target) ?? null;
  }

  private putRun(tab: OfferTab, run: Run): void {
    const map = new Map(this.runs[tab]);
    map.delete(run.target);
    map.set(run.target, run);
    // The oldest runs go first; one still running is kept (its answer is awaited).
    for (const [key, r] of map) {
      if (map.size <= MAX_RUNS) break;
      if (r.state !== "running") map.delete(key);
    }
    this.runs = { ...this.runs, [tab]: map };
  }

  private updateRun(tab: OfferTab, id: number, f: (r: Run) => Run): void {
    for (const r of this.runs[tab].values()) {
      if (r.id !== id) continue;
      const next = f(r);
      if (next !== r) {
        const map = new Map(this.runs[tab]);
        map.set(r.target, next);
        this.runs = { ...this.runs, [tab]: map };
      }
      return;
    }
  }

  private async run(
    tab: OfferTab,
    target: string,
    sent: JsonValue,
    id: number,
    f: (server: ServerId) => Promise<TryOutcome>,
  ): Promise<void> {
    const server = this.server;
    if (server === null) return;
    this.putRun(tab, {
      id,
      target,
      sent,
      state: "running",
      startedAt: Date.now(),
      endedAt: null,
      outcome: null,
      error: null,
      progress: null,
      cancelling: false,
    });
    let patch: Partial<Run>;
    try {
      patch = { state: "done", outcome: await f(server) };
    } catch (e) {
      patch = isCode(e, "cancelled") ? { state: "cancelled" } : { state: "failed", error: plainMessage(e) };
    }
    // A run forgotten meanwhile (another server opened) is dropped.
    this.updateRun(tab, id, (r) => ({ ...r, ...patch, endedAt: Date.now(), cancelling: false }));
  }

  /** Calls a tool with these arguments (checked by the caller against its schema). */
  callTool(name: string, args: { [key: string]: JsonValue }): Promise<void> {
    const call = this.nextCall++;
    return this.run("tools", name, args, call, (server) => this.api.callTool(server, call, name, args));
  }

  /** Cancels a tool call under way; it ends as cancelled when the backend says so. */
  async cancel(run: Run): Promise<void> {
    if (run.state !== "running" || run.cancelling) return;
    this.updateRun("tools", run.id, (r) => ({ ...r, cancelling: true }));
    try {
      await this.api.cancelCall(run.id);
    } catch (e) {
      // The call may have ended just now; if not, say why it goes on.
      this.updateRun("tools", run.id, (r) =>
        r.state === "running" ? { ...r, cancelling: false, error: `Could not cancel: ${plainMessage(e)}` } : r,
      );
    }
  }

  readResource(uri: string): Promise<void> {
    if (this.updated.has(uri)) {
      const rest = new Map(this.updated);
      rest.delete(uri);
      this.updated = rest;
    }
    return this.run("resources", uri, null, -this.nextRun++, (server) => this.api.readResource(server, uri));
  }

  getPrompt(name: string, args: { [key: string]: string }): Promise<void> {
    return this.run("prompts", name, args, -this.nextRun++, (server) => this.api.getPrompt(server, name, args));
  }

  /** Subscribes to a resource's changes, or ends that; returns what went wrong, or null. */
  async setSubscribed(uri: string, on: boolean): Promise<string | null> {
    const server = this.server;
    if (server === null) return "The server is not open.";
    try {
      if (on) await this.api.subscribeResource(server, uri);
      else await this.api.unsubscribeResource(server, uri);
    } catch (e) {
      return plainMessage(e);
    }
    if (this.server !== server) return null;
    const next = new Set(this.subscribed);
    if (on) next.add(uri);
    else next.delete(uri);
    this.subscribed = next;
    return null;
  }
}
