// The AI apps found on this machine and what the person does with their
// config files ("Connect an app"): listing them (again on request, on a
// settings change while the view shows, after each import or write),
// importing one entry as a server, and routing a file through Rootgate or
// undoing that, each shown as a diff in a dialog before anything is
// written.
//
// Not here: reading or writing the files (the backend does, from a plan it
// keeps by number), the words for entries and files (apps.ts), or the
// connections an app makes through `rootgate connect` (ConnectionsState).

import type { AppKind, AppView, EntryView, PlanView, ServerId } from "../bindings";
import { isCode, plainMessage, type Api } from "../api";
import { importValues, joinedMessage, sentence, writtenMessage } from "../apps";
import type { NoticesState } from "./notices.svelte";
import type { ServersState } from "./servers.svelte";

/** What the dialog says when a file changed between reading its diff and writing it. */
export const STALE_PLAN = "The file changed since you looked at it. Look at the new change.";

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

/**
 * How one of an app's files stands, as the list shows it: `key` compares
 * two readings (routed, and each entry's import and route), `words` says
 * it.
 */
function fileState(
  list: readonly AppView[] | null,
  app: AppKind,
  index: number,
): { key: string; title: string; words: string; routed: boolean; routable: boolean } | null {
  const found = list?.find((a) => a.app === app);
  const file = found?.files.find((f) => f.index === index);
  if (!found || !file) return null;
  const entries = file.servers.map((e) => [e.key, e.importedAs?.name ?? null, e.routedTo ?? null]);
  const key = JSON.stringify([file.exists, file.routedByRootgate, entries]);
  const routed = file.servers.filter((e) => e.routedTo).map((e) => e.key);
  const words = !file.exists
    ? "it is not there any more"
    : file.routedByRootgate
      ? `it is routed through Rootgate now${routed.length > 0 ? ` (${routed.join(", ")})` : ""}`
      : routed.length > 0
        ? `${routed.join(", ")} ${routed.length === 1 ? "goes" : "go"} through Rootgate now`
        : "nothing in it goes through Rootgate now";
  // Whether a Route would find something to write: an imported entry not
  // routed yet.
  const routable = file.servers.some((e) => e.importedAs && !e.routedTo);
  return { key, title: found.title, words, routed: file.routedByRootgate, routable };
}

export class AppsState {
  /** AI apps found on this machine, with their files; null until first listed. */
  list = $state.raw<AppView[] | null>(null);
  loading = $state(false);
  /** Why the apps could not be listed, when they could not. */
  error = $state<string | null>(null);
  importRequest = $state.raw<ImportRequest | null>(null);
  routeRequest = $state.raw<RouteRequest | null>(null);

  /** Counts listings, so an answer older than the last asked is dropped. */
  private token = 0;

  constructor(
    private api: Api,
    private notices: NoticesState,
    private servers: ServersState,
    /** Told after a route was written (the root offers Start at login after the first). */
    private routed: () => void = () => {},
  ) {}

  /** Lists the AI apps found on this machine again; an answer older than the last asked is dropped. */
  async load(): Promise<void> {
    const token = ++this.token;
    this.loading = true;
    try {
      const apps = await this.api.listApps();
      if (token !== this.token) return;
      this.list = apps;
      this.error = null;
    } catch (e) {
      if (token !== this.token) return;
      this.error = plainMessage(e);
    } finally {
      if (token === this.token) this.loading = false;
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
    if (said !== null) this.notices.notify(said, "info");
    if (this.importRequest === request) this.importRequest = null;
    const added = this.servers.upsert(outcome.server);
    // A path the dialog already listed as left as it is needs no toast.
    const kept = request.entry.keptPaths;
    for (const note of outcome.notes) {
      if (!kept.some((p) => note.startsWith(`${p} `))) this.notices.notify(sentence(note), "info");
    }
    this.servers.approveThenAsk(added, outcome.prompts);
    void this.load();
    return null;
  }

  /** Plans routing an app's file through Rootgate and opens the dialog showing the change. */
  async planRoute(app: AppKind, file: number, only: string[] = []): Promise<void> {
    try {
      const plan = await this.api.planRoute(app, file, only);
      this.routeRequest = { app, file, only, undo: false, plan, error: null };
    } catch (e) {
      await this.refused(app, file, false, plainMessage(e));
    }
  }

  /**
   * A route or undo could not be planned: the apps are listed again, and
   * when the click was stale (the file stands otherwise than the window
   * showed, or, for a toast's Undo, is no longer Rootgate's to undo, or
   * has nothing left to route: routed or undone in a terminal, or changed
   * by its app, since), that is said in plain words over the file as it
   * is now, not as an error. Otherwise the backend's words are the error.
   */
  private async refused(app: AppKind, file: number, undo: boolean, why: string): Promise<void> {
    const before = fileState(this.list, app, file);
    await this.load();
    const after = fileState(this.list, app, file);
    const stale =
      before !== null && after !== null && (before.key !== after.key || (undo ? !after.routed : !after.routable));
    if (!stale || after === null) {
      this.notices.notify(why);
      return;
    }
    // A toast still offering Undo for this file offers nothing now.
    if (undo) this.notices.withdrawOffer(writtenMessage(after.title, false));
    this.notices.notify(
      `${after.title}'s file changed outside this window (a route or undo in a terminal, or the app itself): ${after.words}. Here it is as it is now.`,
      "info",
    );
  }

  /** Plans undoing Rootgate's route of an app's file and opens the dialog showing the change. */
  async planUnroute(app: AppKind, file: number): Promise<void> {
    try {
      const plan = await this.api.planUnroute(app, file);
      this.routeRequest = { app, file, only: [], undo: true, plan, error: null };
      // The toast that offered this Undo has done its job.
      this.notices.withdrawOffer(writtenMessage(plan.title, false));
    } catch (e) {
      await this.refused(app, file, true, plainMessage(e));
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
      void this.load();
      return;
    }
    if (this.routeRequest === request) this.routeRequest = null;
    const { app, file } = request;
    this.notices.notify(
      writtenMessage(plan.title, request.undo),
      "info",
      request.undo ? undefined : { label: "Undo", run: () => void this.planUnroute(app, file) },
    );
    if (!request.undo) this.routed();
    await this.load();
  }

  /** Closes the route dialog without writing; the backend forgets the plan. */
  cancelRoute(): void {
    const plan = this.routeRequest?.plan;
    this.routeRequest = null;
    if (plan) void this.api.dropPlan(plan.id).catch(() => {});
  }
}
