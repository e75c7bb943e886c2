// Fakes of the backend for unit tests: every command a vi.fn, and events
// that tests fire by hand.
import { vi } from "vitest";
import type { Api, Events } from "./api";
import type {
  AppInfo,
  AppView,
  Change,
  ConnectionView,
  ConsentPrompt,
  DeliverySummary,
  Entry,
  EntryView,
  FileView,
  FolderChoice,
  FolderDelivery,
  FolderView,
  ImportOutcome,
  InstallOutcome,
  InstallView,
  JsonValue,
  Offers,
  Page,
  PlanView,
  PreferencesView,
  QuestionView,
  RegistryFound,
  ServerView,
  TryOutcome,
  ToolSetting,
  ToolDefault,
  ToolRules,
  ToolQuestion,
  CallsFound,
  Exported,
} from "./bindings";

/** A server that holds what it is granted. */
export function delivered(over: Partial<DeliverySummary> = {}): DeliverySummary {
  return {
    state: { state: "upToDate" },
    following: "unknown",
    told: 0,
    waiting: 0,
    notPickedUp: 0,
    withdrawing: 0,
    restartedToApply: 0,
  onRequest: 0,
    restarted: null,
    ...over,
  };
}

export function fakeBackend() {
  const handlers: {
    changes?: (c: Change[]) => void;
    timeline?: (e: Entry[]) => void;
    prompts?: (p: ConsentPrompt[]) => void;
    notice?: (n: { message: string }) => void;
    showPrompt?: (p: ConsentPrompt) => void;
  } = {};
  const api = {
    appInfo: vi.fn(async (): Promise<AppInfo> => ({
      version: "0.1.0",
      settingsPath: "/tmp/settings.json",
      recovery: null,
      rootsNote: "note",
      enforcement: { state: "available" },
      notices: [],
      cliPath: null,
      installs: [],
    })),
    listFolders: vi.fn(async (): Promise<FolderView[]> => []),
    listServers: vi.fn(async (): Promise<ServerView[]> => []),
    pickFolders: vi.fn(async (): Promise<ConsentPrompt[]> => []),
    openPrompts: vi.fn(async (): Promise<ConsentPrompt[]> => []),
    answerPrompt: vi.fn(),
    cancelPrompt: vi.fn(async () => undefined),
    changeAccess: vi.fn(),
    renameFolder: vi.fn(),
    removeFolder: vi.fn(async () => undefined),
    revoke: vi.fn(async () => undefined),
    addServer: vi.fn(),
    updateServer: vi.fn(),
    removeServer: vi.fn(async () => undefined),
    approveCommand: vi.fn(),
    startServer: vi.fn(async () => undefined),
    stopServer: vi.fn(async () => undefined),
    restartServer: vi.fn(async () => undefined),
    serverTimeline: vi.fn(
      async (_id: string, _before: number | null, _limit: number): Promise<Page> => ({ entries: [], older: 0 }),
    ),
    serverLog: vi.fn(async () => []),
    serverFolders: vi.fn(async (): Promise<FolderDelivery[]> => []),
    forgetFollowing: vi.fn(),
    revealSecret: vi.fn(async (_id: string, _name: string): Promise<string> => "sk-revealed"),
    keepSecret: vi.fn(async (id: string, _name: string, _place: string): Promise<ServerView> => server(id)),
    folderChoices: vi.fn(async (_id: string): Promise<FolderChoice[]> => []),
    setServerFolders: vi.fn(async (id: string, _roots: string[]): Promise<ServerView> => server(id)),
    stopRetrying: vi.fn(async (_id: string) => undefined),
    listConnections: vi.fn(async (): Promise<ConnectionView[]> => []),
    connectionTimeline: vi.fn(async (_id: string): Promise<Entry[]> => []),
    suggestAgain: vi.fn(async (_id: string): Promise<ConsentPrompt[]> => []),
    listQuestions: vi.fn(async (): Promise<QuestionView[]> => []),
    answerQuestion: vi.fn(async (_id: number, _answer: string): Promise<ConsentPrompt | null> => null),
    serverOffers: vi.fn(async (_id: string): Promise<Offers> => offers()),
    callTool: vi.fn(
      async (_id: string, _call: number, _name: string, _args: { [key: string]: JsonValue }): Promise<TryOutcome> =>
        outcome({ content: [{ type: "text", text: "ok" }] }),
    ),
    cancelCall: vi.fn(async (_call: number) => undefined),
    readResource: vi.fn(
      async (_id: string, uri: string): Promise<TryOutcome> => outcome({ contents: [{ uri, mimeType: "text/plain", text: "hello" }] }),
    ),
    subscribeResource: vi.fn(async (_id: string, _uri: string) => undefined),
    unsubscribeResource: vi.fn(async (_id: string, _uri: string) => undefined),
    getPrompt: vi.fn(
      async (_id: string, _name: string, _args: { [key: string]: string }): Promise<TryOutcome> =>
        outcome({ messages: [{ role: "user", content: { type: "text", text: "Hi" } }] }),
    ),
    activity: vi.fn(async (): Promise<Entry[]> => []),
    templates: vi.fn(async () => []),
    windowShown: vi.fn(async () => undefined),
    listApps: vi.fn(async (): Promise<AppView[]> => []),
    importAppServer: vi.fn(
      async (): Promise<ImportOutcome> => ({ server: server("imported"), joined: { kind: "new" }, prompts: [], notes: [] }),
    ),
    planRoute: vi.fn(async (): Promise<PlanView> => plan(1)),
    planUnroute: vi.fn(async (): Promise<PlanView> => plan(2, { undo: true })),
    applyPlan: vi.fn(async () => undefined),
    dropPlan: vi.fn(async () => undefined),
    pickBundle: vi.fn(async (): Promise<InstallView | null> => null),
    installOffer: vi.fn(async (): Promise<InstallOutcome> => {
      throw { code: "notFound", message: "no offer" };
    }),
    dropInstall: vi.fn(async () => undefined),
    setToolSetting: vi.fn(
      async (id: string, _app: string | null, tool: string, setting: ToolSetting | null): Promise<ServerView> =>
        server(id, { toolRules: { default: "allAllowed", tools: setting ? { [tool]: setting } : {} } as ToolRules }),
    ),
    setToolDefault: vi.fn(
      async (id: string, d: ToolDefault): Promise<ServerView> =>
        server(id, { toolRules: { default: d } as ToolRules }),
    ),
    acknowledgeTool: vi.fn(async (id: string, _tool: string): Promise<ServerView> => server(id)),
    toolQuestions: vi.fn(async (): Promise<ToolQuestion[]> => []),
    answerToolQuestion: vi.fn(async () => null),
    searchCalls: vi.fn(async (): Promise<CallsFound> => ({ records: [], matched: 0, unreadable: 0 })),
    exportCalls: vi.fn(async (): Promise<Exported | null> => null),
    registrySearch: vi.fn(async (): Promise<RegistryFound> => ({ registry: "", servers: [], fromCache: null })),
    registryOffer: vi.fn(async (): Promise<InstallView> => {
      throw { code: "notFound", message: "no entry" };
    }),
    preferences: vi.fn(async (): Promise<PreferencesView> => preferences()),
    setSharingPaused: vi.fn(async (_paused: boolean) => undefined),
    setNotifyChoices: vi.fn(async () => undefined),
    setRegistry: vi.fn(async (_address: string) => undefined),
    setUnusedServerMinutes: vi.fn(async (_minutes: number) => undefined),
    setStartAtLogin: vi.fn(async (on: boolean) => ({ on, edited: false, path: "/home/me/.config/autostart/rootgate.desktop" })),
    dismissStartAtLogin: vi.fn(async () => undefined),
  } satisfies Record<keyof Api, unknown>;
  const events: Events = {
    onChanges: async (f) => {
      handlers.changes = f;
      return () => {};
    },
    onTimeline: async (f) => {
      handlers.timeline = f;
      return () => {};
    },
    onPrompts: async (f) => {
      handlers.prompts = f;
      return () => {};
    },
    onNotice: async (f) => {
      handlers.notice = f;
      return () => {};
    },
    onShowPrompt: async (f) => {
      handlers.showPrompt = f;
      return () => {};
    },
    onDragHover: async () => () => {},
  };
  return { api: api as unknown as Api & typeof api, events, handlers };
}

export function server(id: string, over: Partial<ServerView> = {}): ServerView {
  return {
    id,
    name: `Server ${id}`,
    command: "/bin/srv",
    args: [],
    env: {},
    secrets: {},
    cwd: null,
    enabled: true,
    withdrawal: "notify",
    enforceRoots: false,
    era: "auto",
    approvedCommand: "/bin/srv",
    commandLine: "/bin/srv",
    approved: true,
    ignoresListChanged: false,
    seenEra: null,
    status: { state: "stopped", lastExit: null },
    delivery: delivered({ state: { state: "notRunning" } }),
    foldersAsArguments: false,
    resolvedCommandLine: null,
    waitsFor: null,
    downloads: null,
    retry: null,
    keyringProblem: null,
    missingSecrets: [],
    ...over,
  };
}

/** The Settings view as a first start has it: sharing on, every notification on, no Start at login. */
export function preferences(over: Partial<PreferencesView> = {}): PreferencesView {
  return {
    sharingPaused: false,
    notify: { serverFailed: true, withdrawalRestarted: true, approvalWaiting: true },
    startAtLogin: { on: false, edited: false, path: "/home/me/.config/autostart/rootgate.desktop" },
    offerStartAtLogin: false,
    registry: null,
    registryDefault: "https://registry.modelcontextprotocol.io",
    unusedServerMinutes: 10,
    ...over,
  };
}

export function folder(id: string, over: Partial<FolderView> = {}): FolderView {
  return {
    id,
    name: `Folder ${id}`,
    chosenPath: `/home/me/${id}`,
    realPath: `/home/me/${id}`,
    addedAtMs: 0,
    available: true,
    servers: [],
    ...over,
  };
}

export function prompt(id: number, over: Partial<ConsentPrompt> = {}): ConsentPrompt {
  return {
    id,
    root: null,
    name: `folder${id}`,
    realPath: `/home/me/folder${id}`,
    chosenPath: null,
    warnings: [],
    servers: [],
    note: "Sharing a folder tells a server where to work.",
    suggestion: null,
    ...over,
  };
}

/** A live connection of "Claude Code" to server s1, with no calls yet. */
export function connection(id: string, over: Partial<ConnectionView> = {}): ConnectionView {
  return {
    id,
    pid: 4242,
    server: "s1",
    serverName: "Server s1",
    app: { name: "Claude Code", version: "2.0.1", protocolVersion: "2025-11-25" },
    startedAtMs: 1_700_000_000_000,
    status: { state: "starting" },
    live: true,
    endedAtMs: null,
    calls: 0,
    errors: 0,
    callMsTotal: 0,
    callMsMax: 0,
    appRoots: [],
    sees: null,
    waiting: null,
    asks: [],
    ...over,
  };
}

export function entry(seq: number, server = "s1"): Entry {
  return { seq, atMs: 1_700_000_000_000 + seq, server, event: { kind: "spawned", pid: seq } };
}

/** What a server offers: each kind offered with these items (none given: offered, empty). */
export function offers(
  over: { tools?: JsonValue[] | null; resources?: JsonValue[] | null; templates?: JsonValue[] | null; prompts?: JsonValue[] | null } = {},
): Offers {
  // null: the server does not offer that kind.
  const list = (items: JsonValue[] | null | undefined) =>
    items === null ? { offered: false, items: [], error: null } : { offered: true, items: items ?? [], error: null };
  return {
    tools: list(over.tools),
    resources: list(over.resources),
    templates: list(over.templates === undefined && over.resources === null ? null : over.templates),
    prompts: list(over.prompts),
  };
}

/** A try's outcome: the server's result, 12 ms, no roots asked. */
export function outcome(result: JsonValue, over: Partial<TryOutcome> = {}): TryOutcome {
  return { result, durationMs: 12, rootsAsked: 0, ...over };
}

/** Lets pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
}

/** A kept folder as a server's checklist shows it: not granted, available, no warnings. */
export function folderChoice(id: string, over: Partial<FolderChoice> = {}): FolderChoice {
  return {
    id,
    name: `Folder ${id}`,
    chosenPath: `/home/me/${id}`,
    realPath: `/home/me/${id}`,
    addedAtMs: 0,
    granted: false,
    available: true,
    warnings: [],
    ...over,
  };
}

/** A server entry of an app's config, not imported, with nothing to ask. */
export function appEntry(key: string, over: Partial<EntryView> = {}): EntryView {
  return {
    scope: { kind: "global" },
    key,
    commandLine: `API_TOKEN=… node /srv/${key}.js /home/me/proj`,
    envNames: ["API_TOKEN"],
    remote: false,
    enabled: true,
    routedTo: null,
    importedAs: null,
    doubtfulLink: null,
    sameAs: null,
    candidates: [],
    folders: ["/home/me/proj"],
    needs: [],
    keptPaths: [],
    importCommandLine: `API_TOKEN=… node /srv/${key}.js '\${folders}'`,
    notImportable: null,
    ...over,
  };
}

/** Claude Desktop's config file, holding `servers`. */
export function appFile(servers: EntryView[], over: Partial<FileView> = {}): FileView {
  return {
    index: 0,
    path: "/home/me/.config/Claude/claude_desktop_config.json",
    format: "json",
    exists: true,
    problem: null,
    routedByRootgate: false,
    servers,
    ...over,
  };
}

export function claudeDesktop(files: FileView[]): AppView {
  return { app: "claude-desktop", title: "Claude Desktop", files };
}

/** A plan routing Claude Desktop's `files` through Rootgate. */
export function plan(id: number, over: Partial<PlanView> = {}): PlanView {
  return {
    id,
    app: "claude-desktop",
    title: "Claude Desktop",
    path: "/home/me/.config/Claude/claude_desktop_config.json",
    diff: [
      "--- a",
      "+++ b",
      "@@ -1,3 +1,3 @@",
      " {",
      '-  "command": "node",',
      '+  "command": "/usr/bin/rootgate",',
      " }",
      "",
    ].join("\n"),
    entries: [{ scope: { kind: "global" }, key: "files", server: "files" }],
    skipped: [],
    undo: false,
    partialUndo: false,
    warning: null,
    ...over,
  };
}

/** A question asked when an AI app needed a folder, not answered yet. */
export function question(id: number, over: Partial<QuestionView> = {}): QuestionView {
  return {
    id,
    app: "Claude Code",
    folder: `/home/me/code/p${id}`,
    server: "s1",
    serverName: "files",
    askedAtMs: 1_700_000_000_000 + id * 60_000,
    answer: null,
    answeredAtMs: null,
    desktop: true,
    open: false,
    shared: false,
    ...over,
  };
}

/**
 * A tool call of Claude Code to the server "files" that waits for the
 * person: `write_file` on connection c1, asked since `n` seconds into the
 * test's epoch, refused by the bridge 45 s later.
 */
export function toolQuestion(n: number, over: Partial<ToolQuestion> = {}, ask: Partial<ToolQuestion["ask"]> = {}): ToolQuestion {
  const sinceMs = 1_700_000_000_000 + n * 1000;
  return {
    connection: "c1",
    server: "s1",
    serverName: "files",
    appName: "claude-code",
    appTitle: "Claude Code",
    ...over,
    ask: {
      key: String(n),
      tool: "write_file",
      arguments: '{\n  "path": "/home/me/notes.txt",\n  "content": "…"\n}',
      readOnly: false,
      destructive: true,
      why: "it does not say it only reads",
      sinceMs,
      untilMs: sinceMs + 45_000,
      ...ask,
    },
  };
}
