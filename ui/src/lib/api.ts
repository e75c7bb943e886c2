// The only place that talks to the Rust side: one typed function per
// command and one per event. Components import these, never `invoke`.
// Argument names are camelCase; Tauri maps them to the commands' snake_case.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import { getCurrentWebview } from "@tauri-apps/api/webview";
import type {
  AppInfo,
  AppKind,
  AppView,
  Change,
  CommandError,
  ConnectionId,
  ConnectionView,
  ConsentPrompt,
  Entry,
  ErrorCode,
  FolderChoice,
  FolderDelivery,
  FolderView,
  ImportOutcome,
  InstallOutcome,
  InstallView,
  JsonValue,
  LogLine,
  LoginStart,
  Notice,
  NotifyChoices,
  Offers,
  Page,
  Answer,
  QuestionView,
  PlanView,
  RegistryFound,
  PreferencesView,
  RootId,
  Scope,
  SecretPlace,
  ServerDraft,
  ServerId,
  ServerTemplate,
  ServerView,
  TryOutcome,
  ToolSetting,
  ToolDefault,
  ToolQuestion,
  AskAnswer,
  CallQuery,
  CallsFound,
  ExportFormat,
  Exported,
} from "./bindings";

export type { UnlistenFn };

const CODES: readonly ErrorCode[] = [
  "folder",
  "notFound",
  "invalid",
  "needsApproval",
  "stale",
  "settings",
  "server",
  "picker",
  "appConfig",
  "keyring",
  "missingSecret",
  // A try from the window (call_tool, read_resource, get_prompt) the person cancelled.
  "cancelled",
];

/**
 * What the person can do about a failure of these kinds, after the
 * backend's words (which name the variable, never its value).
 */
const NEXT_STEP: Partial<Record<ErrorCode, string>> = {
  keyring:
    "Rootgate keeps secrets in your desktop's keyring (GNOME Keyring, KWallet): start or unlock it, then try again.",
  missingSecret: "Edit the server and type its value: nothing else changes, and it stays approved.",
};

/** Whatever a command rejected with, as a CommandError with plain words. */
export function toCommandError(e: unknown): CommandError {
  if (typeof e === "object" && e !== null && "message" in e) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    const text = typeof message === "string" && message.trim() !== "" ? message : "Something went wrong.";
    const known = CODES.find((c) => c === code);
    return { code: known ?? "server", message: text };
  }
  if (typeof e === "string" && e.trim() !== "") return { code: "server", message: e };
  return { code: "server", message: "Something went wrong." };
}

/** A message fit to show: the first letter capitalised, a full stop at the end. */
export function plainMessage(e: unknown): string {
  const { code, message } = toCommandError(e);
  const m = message.trim();
  const capital = m.charAt(0).toUpperCase() + m.slice(1);
  const sentence = /[.!?)]$/.test(capital) ? capital : `${capital}.`;
  const next = NEXT_STEP[code];
  return next ? `${sentence} ${next}` : sentence;
}

export function isCode(e: unknown, code: ErrorCode): boolean {
  return toCommandError(e).code === code;
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (e) {
    throw toCommandError(e);
  }
}

export const api = {
  appInfo: () => call<AppInfo>("app_info"),
  listFolders: () => call<FolderView[]>("list_folders"),
  listServers: () => call<ServerView[]>("list_servers"),
  /** Opens the native picker; an empty list means it was cancelled. */
  pickFolders: () => call<ConsentPrompt[]>("pick_folders"),
  openPrompts: () => call<ConsentPrompt[]>("open_prompts"),
  answerPrompt: (prompt: number, servers: ServerId[], name: string | null) =>
    call<FolderView>("answer_prompt", { prompt, servers, name }),
  cancelPrompt: (prompt: number) => call<void>("cancel_prompt", { prompt }),
  changeAccess: (root: RootId) => call<ConsentPrompt>("change_access", { root }),
  renameFolder: (root: RootId, name: string) => call<FolderView>("rename_folder", { root, name }),
  removeFolder: (root: RootId) => call<void>("remove_folder", { root }),
  revoke: (server: ServerId, root: RootId) => call<void>("revoke", { server, root }),
  addServer: (draft: ServerDraft) => call<ServerView>("add_server", { draft }),
  updateServer: (id: ServerId, draft: ServerDraft) => call<ServerView>("update_server", { id, draft }),
  removeServer: (id: ServerId) => call<void>("remove_server", { id }),
  approveCommand: (id: ServerId, commandLine: string) =>
    call<ServerView>("approve_command", { id, commandLine }),
  startServer: (id: ServerId) => call<void>("start_server", { id }),
  stopServer: (id: ServerId) => call<void>("stop_server", { id }),
  restartServer: (id: ServerId) => call<void>("restart_server", { id }),
  /** A server's newest `limit` entries older than `before` (the newest of all when null). */
  serverTimeline: (id: ServerId, before: number | null, limit: number) =>
    call<Page>("server_timeline", { id, before, limit }),
  serverLog: (id: ServerId) => call<LogLine[]>("server_log", { id }),
  /** Each folder the server is granted or may still hold, and whether it picked it up. */
  serverFolders: (id: ServerId) => call<FolderDelivery[]>("server_folders", { id }),
  /** Every kept folder as the server's own checklist shows it: granted to it or not, available, warnings. */
  folderChoices: (id: ServerId) => call<FolderChoice[]>("folder_choices", { id }),
  /**
   * The server may see exactly these kept folders, in one save; "stale"
   * when a folder newly ticked now leads elsewhere.
   */
  setServerFolders: (id: ServerId, roots: RootId[]) => call<ServerView>("set_server_folders", { id, roots }),
  /** Cancels the restart scheduled after a failure: the server then waits for the person, also at the next launch. */
  stopRetrying: (id: ServerId) => call<void>("stop_retrying", { id }),
  /** Forgets that the server was seen not to follow changes. */
  forgetFollowing: (id: ServerId) => call<ServerView>("forget_following", { id }),
  /**
   * The value of the server's secret variable `name`, which the person
   * asked to see: shown for a while, never logged, toasted or kept.
   */
  revealSecret: (id: ServerId, name: string) => call<string>("reveal_secret", { id, name }),
  /**
   * Keeps the secret where the person chose when no keyring took it:
   * "file" (the settings file, 0600), "notStored" (memory only, asked for
   * again after a restart), or "keyring" (tried again).
   */
  keepSecret: (id: ServerId, name: string, place: SecretPlace) =>
    call<ServerView>("keep_secret", { id, name, place }),
  /** Every AI app's connection through `rootgate connect`, live ones first. */
  listConnections: () => call<ConnectionView[]>("list_connections"),
  /** What happened on one AI app's connection, oldest first. */
  connectionTimeline: (id: ConnectionId) => call<Entry[]>("connection_timeline", { id }),
  /** Asks again about the folders a connection's app works in, even cancelled ones: the prompts opened. */
  suggestAgain: (id: ConnectionId) => call<ConsentPrompt[]>("suggest_again", { id }),
  /** Every question asked when an AI app needed a folder, newest first. */
  listQuestions: () => call<QuestionView[]>("list_questions"),
  /**
   * Answers (or changes the answer to) the question numbered `id`: the
   * consent prompt to show when a Share needs the folder's warnings read
   * first, else null (done).
   */
  answerQuestion: (id: number, answer: Answer) =>
    call<ConsentPrompt | null>("answer_question", { id, answer }),
  /** Sets what AI apps may do with a tool (allowed, ask, hidden), for every app (app null) or one; null takes the setting away. Live connections follow at once. */
  setToolSetting: (id: ServerId, app: string | null, tool: string, setting: ToolSetting | null) =>
    call<ServerView>("set_tool_setting", { id, app, tool, setting }),
  /** What a server's tools without a setting of their own get. */
  setToolDefault: (id: ServerId, defaultSetting: ToolDefault) =>
    call<ServerView>("set_tool_default", { id, default: defaultSetting }),
  /** The person looked at how a tool changed: its settings apply again. */
  acknowledgeTool: (id: ServerId, tool: string) => call<ServerView>("acknowledge_tool", { id, tool }),
  /** The AI apps' tool calls that wait for the person's answer, oldest first. */
  toolQuestions: () => call<ToolQuestion[]>("tool_questions"),
  /** The record of AI apps' calls that match, newest first (at most query.limit). */
  searchCalls: (query: CallQuery) => call<CallsFound>("search_calls", { query }),
  /** Exports every call that matches to a file picked in the native save dialog; null when it was cancelled. */
  exportCalls: (query: CallQuery, format: ExportFormat) =>
    call<Exported | null>("export_calls", { query, format }),
  /** The person's answer to a waiting tool call. */
  answerToolQuestion: (connection: ConnectionId, key: string, answer: AskAnswer) =>
    call<null>("answer_tool_question", { connection, key, answer }),
  // ----- what a running server offers, and trying it (issue #19) ------
  // A tool's arguments, a resource's URI and a prompt's arguments are data
  // for the server, passed through as they are: never paths Rootgate opens.
  /** Its tools, resources, resource templates and prompts, each as the server sent it; "server" when it is not running. */
  serverOffers: (id: ServerId) => call<Offers>("server_offers", { id }),
  /**
   * Calls a tool. `callNo` is the window's own number for the call (unique
   * while the window lives): progress changes carry it, and cancelCall takes
   * it. A result with isError is still an outcome; a cancelled call rejects
   * with code "cancelled".
   */
  callTool: (id: ServerId, callNo: number, name: string, args: { [key: string]: JsonValue }) =>
    call<TryOutcome>("call_tool", { id, call: callNo, name, arguments: args }),
  /** Cancels a tool call under way: the server is told, and the call rejects with "cancelled". */
  cancelCall: (callNo: number) => call<void>("cancel_call", { call: callNo }),
  readResource: (id: ServerId, uri: string) => call<TryOutcome>("read_resource", { id, uri }),
  /** Asks the server to say when the resource changes (resourceUpdated changes). */
  subscribeResource: (id: ServerId, uri: string) => call<void>("subscribe_resource", { id, uri }),
  unsubscribeResource: (id: ServerId, uri: string) => call<void>("unsubscribe_resource", { id, uri }),
  getPrompt: (id: ServerId, name: string, args: { [key: string]: string }) =>
    call<TryOutcome>("get_prompt", { id, name, arguments: args }),
  activity: () => call<Entry[]>("activity"),
  templates: () => call<ServerTemplate[]>("templates"),
  /** Says the window shows its content: the enabled servers start now. */
  windowShown: () => call<void>("window_shown"),
  /** The AI apps found on this machine, their config files and the servers in them. */
  listApps: () => call<AppView[]>("list_apps"),
  /**
   * Adds entry `key` of the app's file number `file` as a server (not
   * approved, not enabled); `values` fill what the app would have filled.
   */
  importAppServer: (
    app: AppKind,
    file: number,
    scope: Scope,
    key: string,
    values: Record<string, string>,
    existing: ServerId | null = null,
  ) => call<ImportOutcome>("import_app_server", { app, file, scope, key, values, existing }),
  /** Plans routing the file's imported entries (`only` these, or all) through Rootgate. */
  planRoute: (app: AppKind, file: number, only: string[]) => call<PlanView>("plan_route", { app, file, only }),
  /** Plans undoing Rootgate's route of the file. */
  planUnroute: (app: AppKind, file: number) => call<PlanView>("plan_unroute", { app, file }),
  /** Writes a plan the person read; "stale" when the file changed since. */
  applyPlan: (id: number) => call<void>("apply_plan", { id }),
  /** Forgets a plan without writing it. */
  dropPlan: (id: number) => call<void>("drop_plan", { id }),
  // ----- servers from where they are published (MCP bundles, the MCP Registry)
  /** Opens the native file picker for an MCP bundle and reads it; null when the picker was cancelled. */
  pickBundle: () => call<InstallView | null>("pick_bundle"),
  /** Installs a shown offer with the person's answers (by setting key; secrets go to the keyring). */
  installOffer: (id: number, values: Record<string, string>) =>
    call<InstallOutcome>("install_offer", { id, values }),
  /** Forgets a shown offer without installing it. */
  dropInstall: (id: number) => call<void>("drop_install", { id }),
  /** Searches the MCP Registry (its answer from the cache, saying so, when it cannot be reached). */
  registrySearch: (words: string) => call<RegistryFound>("registry_search", { words }),
  /** One registry entry's package at `version`, as an offer to install. */
  registryOffer: (name: string, version: string, pkg: number) =>
    call<InstallView>("registry_offer", { name, version, package: pkg }),
  /** The Settings view: pause, notifications, Start at login (and whether to offer it). */
  preferences: () => call<PreferencesView>("preferences"),
  /** Pauses all sharing (every server and bridge is told no folders), or resumes it. */
  setSharingPaused: (paused: boolean) => call<void>("set_sharing_paused", { paused }),
  setNotifyChoices: (choices: NotifyChoices) => call<void>("set_notify_choices", { choices }),
  /** The MCP Registry to search and install from (HTTPS, or HTTP to this machine); empty: the default. */
  setRegistry: (address: string) => call<void>("set_registry", { address }),
  /** How many minutes the resident gate keeps a server no AI app session uses (0: stopped at once). */
  setUnusedServerMinutes: (minutes: number) => call<void>("set_unused_server_minutes", { minutes }),
  /** Starts Rootgate at login, hidden in the tray, or stops; the entry names the running program. */
  setStartAtLogin: (on: boolean) => call<LoginStart>("set_start_at_login", { on }),
  /** The offer of Start at login was put away. */
  dismissStartAtLogin: () => call<void>("dismiss_start_at_login"),
};

export type Api = typeof api;

export const EVENTS = {
  changes: "rootgate://changes",
  timeline: "rootgate://timeline",
  prompts: "rootgate://prompts",
  notice: "rootgate://notice",
  showPrompt: "rootgate://show-prompt",
} as const;

export const events = {
  onChanges: (f: (changes: Change[]) => void) => listen<Change[]>(EVENTS.changes, (e) => f(e.payload)),
  onTimeline: (f: (entries: Entry[]) => void) => listen<Entry[]>(EVENTS.timeline, (e) => f(e.payload)),
  onPrompts: (f: (prompts: ConsentPrompt[]) => void) =>
    listen<ConsentPrompt[]>(EVENTS.prompts, (e) => f(e.payload)),
  onNotice: (f: (notice: Notice) => void) => listen<Notice>(EVENTS.notice, (e) => f(e.payload)),
  /** A question chosen in the tray's menu: its prompt shows first. */
  onShowPrompt: (f: (prompt: ConsentPrompt) => void) =>
    listen<ConsentPrompt>(EVENTS.showPrompt, (e) => f(e.payload)),
  /** Files dragged over the window (the drop itself is handled in Rust). */
  onDragHover: (f: (hovering: boolean) => void) =>
    getCurrentWebview().onDragDropEvent((e) => f(e.payload.type === "enter" || e.payload.type === "over")),
};

export type Events = typeof events;
