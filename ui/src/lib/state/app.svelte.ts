// The window's state: a small root that composes one state class per area
// and wires them together. Components reach an area through the root
// (`app.folders.add()`, `app.servers.list`), so each reads as the area it
// touches, and a component is given one object however many areas it uses.
// The areas:
//
//   notices      toasts, the confirmation dialog, the settings banner
//   prompts      the consent prompts waiting for an answer
//   nav          the view shown, the detail open, the way back (Alt+Left)
//   folders      the kept folders, the picker, answering prompts
//   servers      the servers, their form, approval, running and checklist
//   detail       the open server's timeline, log and folders' delivery
//   secrets      a server's secret values as the person handles them
//   offers       what the open server offers and its tries (issue #19)
//   activity     every server's timeline entries (the Activity view)
//   connections  AI apps' connections and the open one's timeline
//   apps         AI apps' config files: import, route, undo
//   questions    what was asked when an AI app needed a folder, and the answers
//   toolQuestions  AI apps' tool calls that wait for the person's answer (#29)
//   settings     pause all sharing, Start at login, notifications
//
// The root itself keeps only what belongs to the whole window (the app's
// facts, whether it has loaded, its width and layout, the shortcuts sheet),
// starts up, listens to the backend's events and hands every batch of
// changes to each area, which takes its own kinds. Areas never import the
// root, and an area that needs another is given it (or a narrow interface
// of it, as navigation is) when the root makes it; so the imports between
// area files only point one way.
//
// This root and its areas are the only callers of `api` (the one module
// that calls Tauri commands). Nothing here renders anything.

import { getContext, setContext, tick } from "svelte";
import type { AppInfo, Change, Entry } from "../bindings";
import { plainMessage, type Api, type Events, type UnlistenFn } from "../api";
import { layoutFor } from "../layout";
import { afterPaint, markReady } from "../ready";
import { ActivityState } from "./activity.svelte";
import { AppsState } from "./apps.svelte";
import { InstallState } from "./install.svelte";
import { ConnectionsState } from "./connections.svelte";
import { CallsRecordState } from "./calls-record.svelte";
import { FoldersState } from "./folders.svelte";
import { NavigationState } from "./navigation.svelte";
import { NoticesState } from "./notices.svelte";
import { OffersState } from "./offers.svelte";
import { PromptsState } from "./prompts.svelte";
import { QuestionsState } from "./questions.svelte";
import { SecretsState } from "./secrets.svelte";
import { ServerDetailState } from "./server-detail.svelte";
import { ServersState } from "./servers.svelte";
import { SettingsState } from "./settings.svelte";
import { ToolQuestionsState } from "./tool-questions.svelte";

/**
 * How long after start-up the views not shown yet are made, hidden
 * (App.svelte): after the window shows its content and the servers start.
 */
export const PREPARE_VIEWS_AFTER_MS = 1_500;

/** The heading of the view shown: the views not shown are kept, hidden (App.svelte). */
export const VIEW_HEADING = "main [data-view]:not([hidden]) h1";

const KEY = Symbol("rootgate-app");

export function provideApp(app: AppState): void {
  setContext(KEY, app);
}

export function useApp(): AppState {
  return getContext<AppState>(KEY);
}

export class AppState {
  readonly notices: NoticesState;
  readonly prompts: PromptsState;
  readonly nav: NavigationState;
  readonly folders: FoldersState;
  readonly servers: ServersState;
  readonly detail: ServerDetailState;
  readonly secrets: SecretsState;
  /** What the open server offers and what the person tries from it (issue #19); its detail follows it. */
  readonly offers: OffersState;
  readonly activity: ActivityState;
  readonly connections: ConnectionsState;
  /** The record of every AI app's calls: searched and exported from the Connections view. */
  readonly callsRecord: CallsRecordState;
  readonly apps: AppsState;
  /** Servers installed from MCP bundles and the MCP Registry: the install and search dialogs. */
  readonly install: InstallState;
  /** The questions asked when AI apps needed a folder, and their answers (the Questions view). */
  readonly questions: QuestionsState;
  /** AI apps' tool calls that wait for the person's answer, shown wherever the person is (issue #29). */
  readonly toolQuestions: ToolQuestionsState;
  /** Pause, Start at login, notifications: the Settings view, the paused banner, the login offer. */
  readonly settings: SettingsState;

  info = $state.raw<AppInfo | null>(null);
  loaded = $state(false);
  /** The keyboard shortcuts sheet (`?`) is open. */
  shortcutsOpen = $state(false);
  /** The window's inner width (App.svelte keeps it), which its layout follows. */
  width = $state(0);
  layout = $derived(layoutFor(this.width));

  /** Loaded with no server and no folder: the welcome card shows. */
  readonly firstRun: boolean;
  /** A dialog is open: the window behind it is inert and its shortcuts wait. */
  readonly dialogOpen: boolean;

  private api: Api;
  private events: Events;
  private reloading = false;
  private reloadAgain = false;
  private unlisten: UnlistenFn[] = [];

  constructor(api: Api, events: Events) {
    this.api = api;
    this.events = events;
    // Made in the order they need each other: each is given the ones made
    // before it, so no area reaches one that reaches it back.
    const notices = (this.notices = new NoticesState());
    const prompts = (this.prompts = new PromptsState());
    const nav = (this.nav = new NavigationState({
      exists: (to) =>
        (to.detail === null || this.servers.list.some((s) => s.id === to.detail)) &&
        (to.connection === null || this.connections.list.some((c) => c.id === to.connection)),
      loadServer: (id) => this.detail.load(id),
      clearServer: () => this.detail.clear(),
      loadConnection: (id) => this.connections.load(id),
      clearConnection: () => this.connections.clear(),
      returnedTo: (view) => {
        if (view === "apps") void this.apps.load();
      },
    }));
    const folders = (this.folders = new FoldersState(api, notices, prompts));
    const servers = (this.servers = new ServersState(api, notices, prompts, folders, nav, {
      reload: () => this.reload(),
    }));
    this.detail = new ServerDetailState(api, notices, nav);
    this.secrets = new SecretsState(api, notices, servers);
    this.offers = new OffersState(api);
    this.activity = new ActivityState(servers);
    this.connections = new ConnectionsState(api, notices, prompts, nav);
    this.callsRecord = new CallsRecordState(api, notices);
    const settings = (this.settings = new SettingsState(api, notices));
    // A route written may be the first: Start at login is offered then.
    const apps = (this.apps = new AppsState(api, notices, servers, () => void settings.load()));
    this.questions = new QuestionsState(api, notices, prompts);
    this.toolQuestions = new ToolQuestionsState(api, notices);
    const install = (this.install = new InstallState(api, notices, servers));

    this.firstRun = $derived(this.loaded && servers.list.length === 0 && folders.list.length === 0);
    this.dialogOpen = $derived(
      servers.checklist !== null ||
        this.shortcutsOpen ||
        prompts.queue.length > 0 ||
        servers.approval !== null ||
        servers.form !== null ||
        notices.confirmRequest !== null ||
        apps.importRequest !== null ||
        apps.routeRequest !== null ||
        install.view !== null ||
        install.registry !== null,
    );
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
      subscribe(() => this.events.onPrompts((p) => this.prompts.enqueue(p))),
      subscribe(() => this.events.onNotice((n) => this.notices.notify(n.message))),
      subscribe(() => this.events.onShowPrompt((p) => this.prompts.bringToFront(p))),
      subscribe(() => this.events.onDragHover((h) => (this.folders.dragHover = h))),
    ];
    const settled = await Promise.allSettled(subscriptions);
    for (const [i, s] of settled.entries()) {
      if (s.status === "fulfilled") this.unlisten.push(s.value);
      // The drop highlight is a nicety; the others are not.
      else if (i < 5) this.notices.notify(`Rootgate cannot follow changes as they happen: ${plainMessage(s.reason)}`);
    }

    const [info, , templates, activity, prompts, connections, questions, toolQuestions] = await Promise.allSettled([
      this.api.appInfo(),
      // The lists are what the window shows first; the rest may follow.
      this.reload().then(async () => {
        this.loaded = true;
        await tick();
        await afterPaint();
        markReady();
        // The servers start now that the window shows its content, so that
        // their start-up never competes with the window's.
        await this.api.windowShown().catch((e) => this.notices.notify(plainMessage(e)));
      }),
      this.api.templates(),
      this.api.activity(),
      this.api.openPrompts(),
      this.api.listConnections(),
      this.api.listQuestions(),
      this.api.toolQuestions(),
      this.settings.load(),
    ]);
    if (info.status === "fulfilled") {
      this.info = info.value;
      this.notices.recovery = info.value.recovery;
      // Folders given on the command line that could not be offered.
      for (const n of info.value.notices) this.notices.notify(n);
      // A bundle opened with Rootgate from the file manager: shown for
      // installing (the first; another is opened again from its file).
      const [bundle] = info.value.installs;
      if (bundle) this.install.show(bundle);
    } else {
      this.notices.notify(plainMessage(info.reason));
    }
    if (templates.status === "fulfilled") this.servers.templates = templates.value;
    if (activity.status === "fulfilled") this.activity.loaded(activity.value);
    if (prompts.status === "fulfilled") this.prompts.enqueue(prompts.value);
    if (connections.status === "fulfilled") this.connections.loaded(connections.value);
    if (questions.status === "fulfilled") this.questions.loaded(questions.value);
    if (toolQuestions.status === "fulfilled") this.toolQuestions.loaded(toolQuestions.value);
    for (const r of [templates, activity, prompts, connections, questions, toolQuestions]) {
      if (r.status === "rejected") this.notices.notify(plainMessage(r.reason));
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
        const mark = this.servers.mark();
        const [folders, servers] = await Promise.all([this.api.listFolders(), this.api.listServers()]);
        this.folders.list = folders;
        if (this.nav.detail !== null && !servers.some((s) => s.id === this.nav.detail)) this.nav.clearDetail();
        this.servers.replace(servers, mark);
      } while (this.reloadAgain);
    } catch (e) {
      this.notices.notify(plainMessage(e));
    } finally {
      this.reloading = false;
    }
  }

  /** Shows the "Connect an app" view and lists the apps again (their files may have changed). */
  showApps(): void {
    this.nav.show("apps");
    void this.apps.load();
  }

  // ----- events --------------------------------------------------------

  /** Hands a batch of the backend's changes to every area; each takes its own kinds. */
  onChanges(changes: Change[]): void {
    this.prompts.onChanges(changes);
    // The servers' statuses first: a reload below marks the events heard.
    this.servers.onChanges(changes);
    this.connections.onChanges(changes);
    this.questions.onChanges(changes);
    this.toolQuestions.onChanges(changes);
    this.install.onChanges(changes);
    this.detail.onChanges(changes);
    this.settings.onChanges(changes);
    // For the open server's Tools, Resources and Prompts.
    for (const c of changes) this.offers.onChange(c);
    const settingsChanged = changes.some((c) => c.kind === "settings");
    if (settingsChanged) void this.reload();
    // A terminal's import reaches the window as a settings change, and a
    // route or undo made in a terminal (or an app rewriting its own file)
    // as `appsChanged`, from the core's watch on the apps' files: the Apps
    // view shows either without a Look again.
    if ((settingsChanged || changes.some((c) => c.kind === "appsChanged")) && this.nav.view === "apps") {
      void this.apps.load();
    }
  }

  onTimeline(entries: Entry[]): void {
    this.activity.onTimeline(entries);
    this.detail.onTimeline(entries);
  }
}
