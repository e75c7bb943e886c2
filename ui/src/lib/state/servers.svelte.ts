// The servers Rootgate runs and everything done to them: their list (with
// each status as the newest event said, whatever order answers arrive in),
// the built-in templates, adding and editing through the form, approving a
// command line, starting, stopping, restarting, removing, stopping the
// retries after a failure, and a server's checklist of the folders it may
// see. Also the dialogs these open (form, approval, checklist) and the
// row marked after adding a server.
//
// Not here: fetching the list (the root's reload, which fetches folders and
// servers together and hands the answer to `replace`), the open server's
// timeline and log (ServerDetailState), its secrets (SecretsState) or what
// it offers (OffersState).

import type {
  Change,
  ConsentPrompt,
  DeliverySummary,
  FolderChoice,
  Retry,
  RootId,
  ServerDraft,
  ServerId,
  ServerTemplate,
  ServerView,
  Status,
  ToolDefault,
  ToolSetting,
} from "../bindings";
import { isCode, plainMessage, type Api } from "../api";
import { draftToForm, emptyForm, uniqueName, type ServerForm } from "../draft";
import { replaceAt, type FoldersState } from "./folders.svelte";
import type { NavigationState } from "./navigation.svelte";
import type { NoticesState } from "./notices.svelte";
import type { PromptsState } from "./prompts.svelte";

/** How long a server just added stays marked in the list once it is shown. */
export const HIGHLIGHT_MS = 2_400;

export interface FormRequest {
  /** The server being edited; null when adding one. */
  id: ServerId | null;
  initial: ServerForm;
}

/** A server's checklist of the kept folders it may see, open in its dialog. */
export interface ChecklistRequest {
  server: ServerId;
  /** Opened at the end of adding the server (after its approval), not from its detail. */
  afterAdd: boolean;
}

/** What this area needs from the others, besides the areas it is given. */
export interface ServersNeeds {
  /** Fetches folders and servers again (the root's reload). */
  reload(): Promise<void>;
}

export class ServersState {
  list = $state.raw<ServerView[]>([]);
  templates = $state.raw<ServerTemplate[]>([]);
  /** Servers with a start, stop or restart under way. */
  busy = $state.raw<ReadonlySet<ServerId>>(new Set());
  /** Servers whose restarts the person stopped in this session. */
  stoppedRetrying = $state.raw<ReadonlySet<ServerId>>(new Set());
  /** A server just added: its row is scrolled into view and marked briefly once no dialog is open. */
  highlight = $state<ServerId | null>(null);
  /** The server whose command line the approval dialog shows. */
  approval = $state.raw<ServerView | null>(null);
  /** The server form, while it is open. */
  form = $state.raw<FormRequest | null>(null);
  /** The server whose folder checklist is open. */
  checklist = $state.raw<ChecklistRequest | null>(null);

  names: ReadonlyMap<ServerId, string> = $derived(new Map(this.list.map((s) => [s.id, s.name])));
  /** The server whose detail is open, as the list has it. */
  readonly inDetail: ServerView | null;

  /** Counts status events, so a list fetched earlier does not undo a newer status. */
  private statusEvents = 0;
  private latestStatus = new Map<ServerId, { n: number; status: Status }>();
  /** The newest retry each server was said to have (counted with the status events). */
  private latestRetry = new Map<ServerId, { n: number; retry: Retry | null }>();
  /** A server just added through the form: approving it ends with its folder checklist. */
  private justAdded: ServerId | null = null;
  /** Consent prompts an import opened, queued once its approval dialog closes. */
  private afterApproval: ConsentPrompt[] = [];
  /** Approvals asked for while another was open, each with its prompts: shown in turn. */
  private laterApprovals: { server: ServerView; prompts: readonly ConsentPrompt[] }[] = [];

  constructor(
    private api: Api,
    private notices: NoticesState,
    private prompts: PromptsState,
    private folders: FoldersState,
    private nav: NavigationState,
    private needs: ServersNeeds,
  ) {
    this.inDetail = $derived(this.list.find((s) => s.id === nav.detail) ?? null);
  }

  // ----- the list --------------------------------------------------------

  /** Marks the status events heard so far, before the list is fetched (see `replace`). */
  mark(): number {
    return this.statusEvents;
  }

  /**
   * The list as fetched, with the status and retry of each server as the
   * events heard since `mark` said; the approval dialog closes when its
   * server is gone.
   */
  replace(servers: readonly ServerView[], mark: number): void {
    this.list = servers.map((s) => {
      const newer = this.latestStatus.get(s.id);
      const retry = this.latestRetry.get(s.id);
      const withStatus = newer && newer.n > mark ? { ...s, status: newer.status } : s;
      return retry && retry.n > mark ? { ...withStatus, retry: retry.retry } : withStatus;
    });
    if (this.approval && !servers.some((s) => s.id === this.approval?.id)) this.closeApproval();
  }

  /** Puts a server the backend answered with in place; a status event newer than the answer wins. */
  upsert(server: ServerView): ServerView {
    const newer = this.latestStatus.get(server.id);
    const view = newer ? { ...server, status: newer.status } : server;
    const at = this.list.findIndex((s) => s.id === server.id);
    this.list = at < 0 ? [...this.list, view] : replaceAt(this.list, at, view);
    return view;
  }

  /** The servers' statuses, deliveries and retries, as the backend's changes say. */
  onChanges(changes: readonly Change[]): void {
    const statuses = new Map<ServerId, Status>();
    const deliveries = new Map<ServerId, DeliverySummary>();
    const retries = new Map<ServerId, Retry | null>();
    for (const c of changes) {
      if (c.kind === "approvalWanted") {
        // `rootgate import` with the window open, or "Open Rootgate" on its
        // notification: shown for approval as the window's own import is.
        this.approveThenAsk(this.upsert(c.server), c.prompts);
      } else if (c.kind === "status") {
        this.statusEvents += 1;
        this.latestStatus.set(c.server, { n: this.statusEvents, status: c.status });
        statuses.set(c.server, c.status);
      } else if (c.kind === "retry") {
        this.statusEvents += 1;
        this.latestRetry.set(c.server, { n: this.statusEvents, retry: c.retry });
        retries.set(c.server, c.retry);
      } else if (c.kind === "delivery") {
        deliveries.set(c.server, c.delivery);
      }
    }
    if (statuses.size === 0 && deliveries.size === 0 && retries.size === 0) return;
    this.list = this.list.map((s) => {
      const status = statuses.get(s.id);
      const delivery = deliveries.get(s.id);
      const retry = retries.has(s.id) ? (retries.get(s.id) ?? null) : s.retry;
      return status || delivery || retry !== s.retry
        ? { ...s, status: status ?? s.status, delivery: delivery ?? s.delivery, retry }
        : s;
    });
  }

  // ----- the form and adding ---------------------------------------------

  openAddForm(): void {
    this.form = { id: null, initial: emptyForm() };
  }

  openTemplate(template: ServerTemplate): void {
    const name = uniqueName(
      template.draft.name,
      this.list.map((s) => s.name),
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
  async save(id: ServerId | null, draft: ServerDraft): Promise<string | null> {
    try {
      const saved = this.upsert(id === null ? await this.api.addServer(draft) : await this.api.updateServer(id, draft));
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
      this.notices.notify("The example server is not available in this build.");
      return;
    }
    try {
      const name = uniqueName(
        example.draft.name,
        this.list.map((s) => s.name),
      );
      const added = this.upsert(await this.api.addServer({ ...example.draft, name }));
      this.nav.show("servers");
      this.added(added);
      this.approval = added;
    } catch (e) {
      this.notices.notify(plainMessage(e));
    }
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

  // ----- approval --------------------------------------------------------

  /** Approves exactly the command line shown, then starts the server. */
  async approveAndStart(server: ServerView): Promise<boolean> {
    try {
      this.upsert(await this.api.approveCommand(server.id, server.commandLine));
    } catch (e) {
      this.notices.notify(plainMessage(e));
      if (isCode(e, "stale") || isCode(e, "notFound")) {
        this.closeApproval();
        void this.needs.reload();
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

  /**
   * An imported server: approved already, its folders' prompts are asked
   * now; otherwise its approval dialog opens and they follow once it closes.
   */
  approveThenAsk(server: ServerView, prompts: readonly ConsentPrompt[]): void {
    if (server.approved) {
      this.prompts.enqueue(prompts);
    } else if (this.approval !== null && this.approval.id !== server.id) {
      // Another approval is open: this one follows it, never replaces it.
      this.laterApprovals = [...this.laterApprovals.filter((l) => l.server.id !== server.id), { server, prompts }];
    } else {
      this.afterApproval = [...this.afterApproval, ...prompts];
      this.approval = server;
    }
  }

  /** Closes the approval dialog; the consent prompts an import opened come next. */
  private closeApproval(): void {
    this.approval = null;
    this.justAdded = null;
    const next = this.afterApproval;
    this.afterApproval = [];
    if (next.length > 0) this.prompts.enqueue(next);
    const [later, ...rest] = this.laterApprovals;
    this.laterApprovals = rest;
    if (later) {
      // As the list has it now: it may have been approved or removed since.
      const now = this.list.find((s) => s.id === later.server.id);
      if (now) this.approveThenAsk(now, later.prompts);
      else this.prompts.enqueue(later.prompts);
    }
  }

  // ----- running ---------------------------------------------------------

  async start(server: ServerView): Promise<void> {
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
      this.list = this.list.map((s) => (s.id === server.id ? { ...s, retry: null, gaveUp: true } : s));
    });
  }

  async stop(server: ServerView): Promise<void> {
    await this.withBusy(server.id, () => this.api.stopServer(server.id));
  }

  async restart(server: ServerView): Promise<void> {
    if (!server.approved) {
      this.approval = server;
      return;
    }
    await this.withBusy(server.id, () => this.api.restartServer(server.id));
  }

  /** Forgets that a server was seen not to follow changes. */
  async forgetFollowing(server: ServerView): Promise<void> {
    try {
      this.upsert(await this.api.forgetFollowing(server.id));
    } catch (e) {
      this.notices.notify(plainMessage(e));
    }
  }

  // The tool rules (issue #29). Each answers with the server as it is now,
  // put in place at once; live connections follow in the backend. Each
  // says whether it went through, so that a control can show the setting
  // as it is again when it did not; the failure itself is a notice.

  /**
   * Sets what AI apps may do with one of the server's tools: for every app
   * (`app` null) or one (by the name it gives); a null setting takes the
   * setting away, so the server's default (or, for an app, the tool's own
   * setting) applies.
   */
  async setToolSetting(server: ServerView, app: string | null, tool: string, setting: ToolSetting | null): Promise<boolean> {
    return this.rules(() => this.api.setToolSetting(server.id, app, tool, setting));
  }

  /** Sets what the server's tools without a setting of their own get. */
  async setToolDefault(server: ServerView, defaultSetting: ToolDefault): Promise<boolean> {
    return this.rules(() => this.api.setToolDefault(server.id, defaultSetting));
  }

  /** The person looked at how a tool changed: its settings apply again. */
  async acknowledgeTool(server: ServerView, tool: string): Promise<boolean> {
    return this.rules(() => this.api.acknowledgeTool(server.id, tool));
  }

  private async rules(change: () => Promise<ServerView>): Promise<boolean> {
    try {
      this.upsert(await change());
      return true;
    } catch (e) {
      this.notices.notify(plainMessage(e));
      return false;
    }
  }

  async remove(server: ServerView): Promise<void> {
    const shared = this.folders.sharedWith(server.id);
    const ok = await this.notices.confirm({
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
      this.list = this.list.filter((s) => s.id !== server.id);
      if (this.nav.detail === server.id) this.nav.clearDetail();
    });
  }

  private async withBusy(id: ServerId, f: () => Promise<unknown>): Promise<void> {
    this.busy = new Set([...this.busy, id]);
    try {
      await f();
    } catch (e) {
      if (isCode(e, "needsApproval")) {
        // The command changed since the list was fetched: show the current one.
        await this.needs.reload();
        this.approval = this.list.find((s) => s.id === id) ?? null;
        if (this.approval === null) this.notices.notify(plainMessage(e));
      } else {
        this.notices.notify(plainMessage(e));
      }
    } finally {
      const rest = new Set(this.busy);
      rest.delete(id);
      this.busy = rest;
    }
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
      this.notices.notify(plainMessage(e));
      return null;
    }
  }

  /**
   * The checklist's Save: the server may see exactly `roots`. Closes the
   * checklist and returns null, or returns what went wrong (and whether a
   * folder now leads elsewhere: the checklist is then fetched again).
   */
  async setFolders(server: ServerId, roots: RootId[]): Promise<{ message: string; stale: boolean } | null> {
    try {
      this.upsert(await this.api.setServerFolders(server, roots));
    } catch (e) {
      return { message: plainMessage(e), stale: isCode(e, "stale") };
    }
    this.folders.givenTo(server, roots);
    if (this.checklist?.server === server) this.checklist = null;
    return null;
  }
}
