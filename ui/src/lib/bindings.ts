// Generated from the Rust types by src-tauri/tests/shell/bindings.rs; do not edit.
// Regenerate with: UPDATE_BINDINGS=1 cargo test -p rootgate bindings

export type RootId = string;

export type ServerId = string;

export type PromptId = number;

export type Root = { id: RootId, 
/**
 * The name servers are shown (the folder's name unless renamed).
 */
name: string, 
/**
 * The path as the person chose it.
 */
chosenPath: string, 
/**
 * The canonical real path it resolved to when it was added.
 */
realPath: string, addedAtMs: number, };

export type SharedRoot = { root: RootId, 
/**
 * The RFC 8089 `file://` URI of the real path.
 */
uri: string, name: string, };

export type Warning = { "kind": "filesystemRoot" } | { "kind": "homeFolder" } | { "kind": "insideSecrets", secret: string, } | { "kind": "holdsSecrets", names: Array<string>, } | { "kind": "symlink", chosen: string, real: string, } | { "kind": "nestedIn", root: string, } | { "kind": "contains", root: string, } | { "kind": "edgeCharacters", name: string, } | { "kind": "hiddenCharacters", shown: string, };

export type WarningView = { message: string, } & ({ "kind": "filesystemRoot" } | { "kind": "homeFolder" } | { "kind": "insideSecrets", secret: string, } | { "kind": "holdsSecrets", names: Array<string>, } | { "kind": "symlink", chosen: string, real: string, } | { "kind": "nestedIn", root: string, } | { "kind": "contains", root: string, } | { "kind": "edgeCharacters", name: string, } | { "kind": "hiddenCharacters", shown: string, });

export type ServerChoice = { id: ServerId, name: string, 
/**
 * Whether this server sees the folder now (always false for a new one).
 */
granted: boolean, 
/**
 * Ticked to start with because an AI app connected to this server
 * works in the folder (a suggestion); the person still decides.
 */
suggested: boolean, 
/**
 * Whether the kernel holds this server to its folders (Landlock): for
 * it, sharing is more than advice.
 */
enforced: boolean, 
/**
 * Whether sharing with it restarts it, if it runs: it is enforced (a
 * new ruleset) or takes its folders as arguments.
 */
restarts: boolean, 
/**
 * The AI apps connected to it through Rootgate when the prompt opened
 * (their product names where Rootgate knows them), so that taking the
 * folder away says who is using the server now.
 */
connected: Array<string>, };

export type Suggestion = { 
/**
 * The app's name: its product's name for the apps Rootgate knows
 * ("Claude Code" for `claude-code`), else as its `initialize` gave it.
 */
app: string, server: ServerId, serverName: string, 
/**
 * Set when the folder was in the server's arguments in the app's own
 * config, and the server was just imported from there; unset when the
 * app reported working in it.
 */
imported: boolean, };

export type ConsentPrompt = { id: PromptId, 
/**
 * Set when the prompt changes access to a folder already kept.
 */
root: RootId | null, name: string, 
/**
 * The canonical real path: what would be shared.
 */
realPath: string, 
/**
 * The path as chosen, when a symlink or `..` led elsewhere.
 */
chosenPath: string | null, warnings: Array<WarningView>, servers: Array<ServerChoice>, note: string, 
/**
 * Set when an AI app's own folder is suggested: which app, working
 * through which server.
 */
suggestion: Suggestion | null, };

export type FolderView = { available: boolean, 
/**
 * The servers that have a grant for it.
 */
servers: Array<ServerId>, id: RootId, 
/**
 * The name servers are shown (the folder's name unless renamed).
 */
name: string, 
/**
 * The path as the person chose it.
 */
chosenPath: string, 
/**
 * The canonical real path it resolved to when it was added.
 */
realPath: string, addedAtMs: number, };

export type FolderChoice = { 
/**
 * Whether this server may see it now.
 */
granted: boolean, available: boolean, warnings: Array<WarningView>, id: RootId, 
/**
 * The name servers are shown (the folder's name unless renamed).
 */
name: string, 
/**
 * The path as the person chose it.
 */
chosenPath: string, 
/**
 * The canonical real path it resolved to when it was added.
 */
realPath: string, addedAtMs: number, };

export type Withdrawal = "notify" | "restart";

export type Era = "legacy" | "modern";

export type EraChoice = "auto" | "legacy" | "modern";

export type SecretPlace = "keyring" | "file" | "notStored" | "fileUntilKeyring";

export type ServerDraft = { name: string, command: string, args: Array<string>, env: { [key in string]: string }, cwd: string | null, enabled: boolean, withdrawal: Withdrawal, 
/**
 * Run the server under a Landlock ruleset that holds it to its roots
 * (Linux only; see `enforcement`).
 */
enforceRoots: boolean, 
/**
 * Held (enforced) servers reach the network only when this is on.
 */
allowNetwork?: boolean, 
/**
 * Workspace: each connection through `rootgate connect` is given only
 * the shared folders its AI app works in (see `workspace_only` on
 * [`ServerSpec`]).
 */
workspaceOnly?: boolean, 
/**
 * One process per app session (see `own_process` on [`ServerSpec`]).
 */
ownProcess?: boolean, 
/**
 * The protocol era to speak, or `Auto` to find out.
 */
era: EraChoice, 
/**
 * The variables of `env` whose values are secrets: shown masked, kept
 * out of the settings file (in the keyring), and approved by name, not
 * value. Not given, it is every variable whose name looks secret (see
 * [`looks_secret`]) or, for an edit, that was secret. A secret given an
 * empty value keeps the value it has (the window never sees it).
 */
secretEnv?: Array<string>, };

export type ToolSetting = "allowed" | "ask" | "hidden";

export type ToolDefault = "allAllowed" | "readOnlyAllowed";

export type ToolSeen = { 
/**
 * SHA-256 of the tool's description, input schema and annotations, as
 * canonical JSON (keys sorted), hex.
 */
fingerprint: string, description: string, 
/**
 * The input schema, pretty-printed with sorted keys, for a diff.
 */
schema: string, 
/**
 * What its annotations said of it (`readOnlyHint` and the others).
 */
readOnly: boolean, };

export type ToolRules = { 
/**
 * What a tool without a setting of its own gets.
 */
default: ToolDefault, 
/**
 * Settings of single tools, by name, for every app.
 */
tools?: { [key in string]: ToolSetting }, 
/**
 * Settings for one app (by the name its `initialize` gives), which win
 * over the ones above; "allow always for this app" writes here.
 */
apps?: { [key in string]: { [key in string]: ToolSetting } }, 
/**
 * What Rootgate last saw of each tool (see [`ToolSeen`]).
 */
seen?: { [key in string]: ToolSeen }, 
/**
 * Tools whose description, schema or annotations changed since the
 * person last looked: each call is asked, whatever the settings say,
 * until the person has seen the difference (the previous version is
 * kept in `before`).
 */
changed?: Array<string>, 
/**
 * The version of each changed tool the person last saw.
 */
before?: { [key in string]: ToolSeen }, };

export type ServerSpec = { id: ServerId, name: string, command: string, args: Array<string>, 
/**
 * The environment; a secret variable's value is here only when it is
 * kept in the settings file, and is empty otherwise.
 */
env: { [key in string]: string }, 
/**
 * The secret variables of `env`, and where each value is kept.
 */
secrets: { [key in string]: SecretPlace }, cwd: string | null, enabled: boolean, withdrawal: Withdrawal, 
/**
 * Run the server under a Landlock ruleset that holds it to its roots.
 */
enforceRoots: boolean, 
/**
 * A held server (with `enforce_roots`) reaches the network only when
 * the person allowed it; off unless said, also for settings files
 * written before it existed. Servers that are not held always reach
 * it.
 */
allowNetwork?: boolean, 
/**
 * Workspace: "only the project the app is working in". Each AI app's
 * connection through `rootgate connect` is given only the folders
 * shared with this server that its app works in (its roots, or the
 * folder it started the bridge in); an app that says nothing of its
 * folders is given all of them. The window's own session, which has
 * no app, is given all of them too.
 */
workspaceOnly?: boolean, 
/**
 * One process per app session: each AI app session connected through
 * the resident gate gets a process of this server of its own, for a
 * server that keeps state per client (a browser, a REPL). Off, the
 * sessions that see the same folders share one process.
 */
ownProcess?: boolean, 
/**
 * The exact command line the person approved to run, if any. A server
 * whose command line differs from it (new, or edited) does not start
 * until the person approves the new one. Secret variables are in it by
 * name (`API_TOKEN=…`), so a new value needs no new approval.
 */
approvedCommand: string | null, 
/**
 * Seen by Rootgate, not set by the person: the server did not ask for
 * its folders after being told they changed, so withdrawals reach it by
 * restart. Forgotten when its command changes.
 */
ignoresListChanged: boolean, 
/**
 * The protocol era to speak, or `Auto` to find out.
 */
era: EraChoice, 
/**
 * Seen by Rootgate, not set by the person: the era a start found (a
 * server that refused `initialize` is modern), so that later starts
 * need not find out. Forgotten when its command changes, or when a
 * start in that era fails (it is found out again).
 */
seenEra: Era | null, 
/**
 * Seen by Rootgate: it kept failing and Rootgate gave up restarting it
 * (or the person said to stop retrying). It waits for the person, also
 * across launches of the app, until they start or edit it.
 */
gaveUp?: boolean, 
/**
 * What AI apps may do with each of the server's tools (allowed, asked
 * or hidden), and what Rootgate last saw of them: see `tools`. The
 * window's own tries see and run every tool (the person chose the
 * rules, and may try a tool before deciding). Kept across edits of
 * the command.
 */
toolRules?: ToolRules, };

export type RunningInfo = { pid: number, 
/**
 * The era the server is spoken to in, which says how it learns its
 * folders.
 */
era: Era, protocolVersion: string, serverName: string, serverVersion: string, capabilities: JsonValue, };

export type Status = { "state": "stopped", lastExit: string | null, } | { "state": "starting" } | { "state": "running" } & RunningInfo | { "state": "stopping" } | { "state": "failed", reason: string, } | { "state": "waiting", reason: string, };

export type DeliveryState = { "state": "notRunning" } | { "state": "upToDate" } | { "state": "waiting", sinceMs: number, } | { "state": "confirming" } | { "state": "notPickedUp", sinceMs: number, } | { "state": "perRequest" };

export type Following = "unknown" | "follows" | "ignores";

export type RestartNote = { atMs: number, reason: string, };

export type DeliverySummary = { state: DeliveryState | null, following: Following, told: number, waiting: number, notPickedUp: number, withdrawing: number, restartedToApply: number, onRequest: number, 
/**
 * When and why the server was last restarted to apply a change.
 */
restarted: RestartNote | null, };

export type FolderState = "told" | "waiting" | "notPickedUp" | "withdrawing" | "restartedToApply" | "onRequest";

export type FolderDelivery = { root: RootId, name: string, state: FolderState, };

export type ConnectionId = string;

export type AppIdentity = { name: string, version: string, protocolVersion: string, };

export type WaitingCall = { method: string, 
/**
 * The tool, prompt or resource it names, if any.
 */
target: string | null, 
/**
 * When it began to wait, in milliseconds since the epoch.
 */
sinceMs: number, };

export type ToolAsk = { 
/**
 * Which call of the connection: the app's request id, as JSON text.
 */
key: string, tool: string, 
/**
 * The arguments as indented JSON, each value under a secret-looking
 * name masked and each long string folded: never the values whole.
 */
arguments: string, 
/**
 * What the tool's annotations claim of it, as the server last listed
 * them (`None`: not listed, or not said).
 */
readOnly: boolean | null, destructive: boolean | null, 
/**
 * Why it is asked, in words ("it does not say it only reads").
 */
why: string, 
/**
 * When the call arrived, in milliseconds since the epoch.
 */
sinceMs: number, 
/**
 * When the bridge stops waiting and refuses it, the same way.
 */
untilMs: number, };

export type AskAnswer = "once" | "always" | "deny";

export type ToolQuestion = { connection: ConnectionId, server: ServerId, serverName: string, 
/**
 * The app's name as it gave it (what a rule for it is kept under).
 */
appName: string, 
/**
 * The app's name as people know it ("Claude Code").
 */
appTitle: string, ask: ToolAsk, };

export type CallRecord = { 
/**
 * When it ended, in milliseconds since the epoch.
 */
atMs: number, 
/**
 * The app's name as it gave it, and its version.
 */
app: string, appVersion: string, server: string, serverName: string, method: string, 
/**
 * The tool, prompt or resource it named.
 */
target: string | null, durationMs: number, 
/**
 * "ok", "error CODE" (the server's message is not kept), "refused:
 * why" (Rootgate's own words), "cancelled".
 */
outcome: string, 
/**
 * Who let a tool call through when the rules looked at it.
 */
consent: string | null, 
/**
 * The request's size and the answer's, in bytes.
 */
bytesIn: number, bytesOut: number, };

export type CallQuery = { 
/**
 * Words that must all appear in the app, server, method, target,
 * outcome or consent (any case).
 */
text: string, 
/**
 * Only calls that ended so: ok, error, refused, cancelled.
 */
kind: string | null, 
/**
 * The most records to return, newest first.
 */
limit: number | null, };

export type CallsFound = { records: Array<CallRecord>, matched: number, unreadable: number, };

export type ExportFormat = "jsonl" | "csv";

export type Exported = { path: string, count: number, };

export type Sees = { 
/**
 * The folders given, as `file://` URIs of their real paths.
 */
folders: Array<string>, 
/**
 * Whether the server gives each connection only its app's project.
 */
workspace: boolean, 
/**
 * What the app works in, as far as the bridge knows (its roots, or
 * the folder it started the bridge in), as URIs.
 */
appFolders: Array<string>, 
/**
 * Why these, in words.
 */
why: string, };

export type ConnectionView = { id: ConnectionId, 
/**
 * The bridge's process.
 */
pid: number, server: ServerId, serverName: string, app: AppIdentity | null, startedAtMs: number, status: Status, 
/**
 * False once the bridge has gone.
 */
live: boolean, endedAtMs: number | null, 
/**
 * How many app requests were answered.
 */
calls: number, 
/**
 * How many of those ended in an error (a refusal included; a
 * cancellation by the app is not one).
 */
errors: number, 
/**
 * Their durations added up, for the mean the window shows.
 */
callMsTotal: number, 
/**
 * The longest of them.
 */
callMsMax: number, 
/**
 * The app's own folders, as it listed them.
 */
appRoots: Array<string>, 
/**
 * The app's request that waits for the server now, if one does.
 */
waiting: WaitingCall | null, 
/**
 * Which folders its server is given, and why, once the bridge said
 * (boxed: most changes of a connection are not this one).
 */
sees: Sees | null, 
/**
 * Its tool calls that wait for the person's answer.
 */
asks: Array<ToolAsk>, };

export type Answer = "share" | "notNow";

export type Asked = { 
/**
 * The question's number in this record, so the window can name it
 * without naming its folder (a path never comes from the window).
 * Records written before numbers existed are numbered when read.
 */
id: number, 
/**
 * The app as the person knows it ("Claude Code").
 */
app: string, 
/**
 * The folder's real path.
 */
folder: string, server: ServerId, serverName: string, askedAtMs: number, answer: Answer | null, answeredAtMs: number | null, 
/**
 * Whether it was asked on the desktop (a notification); false when
 * it could only wait in the window (no notification server, or a
 * folder with a consent warning, which is never one click).
 */
desktop: boolean, };

export type QuestionView = { 
/**
 * On the desktop now, the app's first request perhaps waiting for it.
 */
open: boolean, 
/**
 * Whether the folder is shared with the server now (it may have been
 * shared or withdrawn elsewhere since the answer).
 */
shared: boolean, 
/**
 * The question's number in this record, so the window can name it
 * without naming its folder (a path never comes from the window).
 * Records written before numbers existed are numbered when read.
 */
id: number, 
/**
 * The app as the person knows it ("Claude Code").
 */
app: string, 
/**
 * The folder's real path.
 */
folder: string, server: ServerId, serverName: string, askedAtMs: number, answer: Answer | null, answeredAtMs: number | null, 
/**
 * Whether it was asked on the desktop (a notification); false when
 * it could only wait in the window (no notification server, or a
 * folder with a consent warning, which is never one click).
 */
desktop: boolean, };

export type Download = { 
/**
 * The runner, as a person would name it (`npx`, `uvx`, `pipx run`).
 */
tool: string, 
/**
 * The package it fetches, as written (`@scope/name@1.2.3`, `pkg==2.0`).
 */
package: string, 
/**
 * Whether the version is one exact version (`@1.2.3`, `==1.2.3`);
 * false for no version, a range or a tag such as `latest`.
 */
pinned: boolean, };

export type Retry = { 
/**
 * When it starts again, in milliseconds since the Unix epoch.
 */
atMs: number, attempt: number, of: number, };

export type ServerView = { commandLine: string, approved: boolean, status: Status, 
/**
 * Where the server stands with its folders.
 */
delivery: DeliverySummary, 
/**
 * Whether it takes folders as arguments (`${folders}` and the like),
 * besides being told them as roots.
 */
foldersAsArguments: boolean, 
/**
 * Its command line with the folders shared now filled in (environment
 * values hidden), when it takes folders as arguments and they are there.
 */
resolvedCommandLine: string | null, 
/**
 * What it waits for, when it takes folders as arguments that are not
 * there.
 */
waitsFor: string | null, 
/**
 * The package its command fetches at start (npx, uvx, …), and whether
 * that version is pinned, for the approval dialog to say.
 */
downloads: Download | null, 
/**
 * The restart scheduled after a failure, if one is: the server is
 * not failed for good, and the window says when it starts again.
 */
retry: Retry | null, 
/**
 * Why some of its secrets are not in the keyring, in the keyring's
 * words, while they wait for the person to choose where they go (see
 * `SecretPlace`): in the settings file, or not stored.
 */
keyringProblem: string | null, 
/**
 * Its secrets whose values Rootgate does not have (not stored, and
 * Rootgate has started again since): it cannot start until they are
 * given again.
 */
missingSecrets: Array<string>, id: ServerId, name: string, command: string, args: Array<string>, 
/**
 * The environment; a secret variable's value is here only when it is
 * kept in the settings file, and is empty otherwise.
 */
env: { [key in string]: string }, 
/**
 * The secret variables of `env`, and where each value is kept.
 */
secrets: { [key in string]: SecretPlace }, cwd: string | null, enabled: boolean, withdrawal: Withdrawal, 
/**
 * Run the server under a Landlock ruleset that holds it to its roots.
 */
enforceRoots: boolean, 
/**
 * A held server (with `enforce_roots`) reaches the network only when
 * the person allowed it; off unless said, also for settings files
 * written before it existed. Servers that are not held always reach
 * it.
 */
allowNetwork?: boolean, 
/**
 * Workspace: "only the project the app is working in". Each AI app's
 * connection through `rootgate connect` is given only the folders
 * shared with this server that its app works in (its roots, or the
 * folder it started the bridge in); an app that says nothing of its
 * folders is given all of them. The window's own session, which has
 * no app, is given all of them too.
 */
workspaceOnly?: boolean, 
/**
 * One process per app session: each AI app session connected through
 * the resident gate gets a process of this server of its own, for a
 * server that keeps state per client (a browser, a REPL). Off, the
 * sessions that see the same folders share one process.
 */
ownProcess?: boolean, 
/**
 * The exact command line the person approved to run, if any. A server
 * whose command line differs from it (new, or edited) does not start
 * until the person approves the new one. Secret variables are in it by
 * name (`API_TOKEN=…`), so a new value needs no new approval.
 */
approvedCommand: string | null, 
/**
 * Seen by Rootgate, not set by the person: the server did not ask for
 * its folders after being told they changed, so withdrawals reach it by
 * restart. Forgotten when its command changes.
 */
ignoresListChanged: boolean, 
/**
 * The protocol era to speak, or `Auto` to find out.
 */
era: EraChoice, 
/**
 * Seen by Rootgate, not set by the person: the era a start found (a
 * server that refused `initialize` is modern), so that later starts
 * need not find out. Forgotten when its command changes, or when a
 * start in that era fails (it is found out again).
 */
seenEra: Era | null, 
/**
 * Seen by Rootgate: it kept failing and Rootgate gave up restarting it
 * (or the person said to stop retrying). It waits for the person, also
 * across launches of the app, until they start or edit it.
 */
gaveUp?: boolean, 
/**
 * What AI apps may do with each of the server's tools (allowed, asked
 * or hidden), and what Rootgate last saw of them: see `tools`. The
 * window's own tries see and run every tool (the person chose the
 * rules, and may try a tool before deciding). Kept across edits of
 * the command.
 */
toolRules?: ToolRules, };

export type LogLine = { seq: number, atMs: number, text: string, };

export type Event = { "kind": "starting", commandLine: string, } | { "kind": "spawned", pid: number, } | { "kind": "eraFound", era: Era, how: string, } | { "kind": "initialized", protocolVersion: string, serverName: string, serverVersion: string, } | { "kind": "rootsAnswered", requestId: string, generation: number, roots: Array<SharedRoot>, } | { "kind": "rootsAskedInRound", method: string, target: string | null, key: string, generation: number, roots: Array<SharedRoot>, } | { "kind": "tried", method: string, target: string, arguments: JsonValue | null, durationMs: number, outcome: TryResult, detail: string | null, rootsAsked: number, } | { "kind": "inputNotOffered", method: string, target: string | null, key: string, asked: string, } | { "kind": "listChangedSent", generation: number, } | { "kind": "notPickedUp", generation: number, waitedMs: number, } | { "kind": "restartedToWithdraw", reason: string, } | { "kind": "enforced", readWrite: Array<string>, readOnly: Array<string>, held: boolean, network: boolean, } | { "kind": "restartedToEnforce", reason: string, } | { "kind": "restartedForArguments", reason: string, } | { "kind": "waitingForFolders", reason: string, } | { "kind": "requestRefused", method: string, } | { "kind": "call", method: string, target: string | null, durationMs: number, outcome: string, 
/**
 * Who let a tool call through when the person's tool rules looked
 * at it ("allowed once by you, in the window, after 2140 ms");
 * none while every tool is allowed.
 */
consent?: string, } | { "kind": "firstRequest", heldMs: number, said: string, } | { "kind": "stopping", reason: string, } | { "kind": "exited", status: string, expected: boolean, } | { "kind": "failed", reason: string, } | { "kind": "restartScheduled", attempt: number, of: number, delayMs: number, } | { "kind": "gaveUp", attempts: number, };

export type Entry = { 
/**
 * Grows across all servers: the merge key of the global view.
 */
seq: number, atMs: number, server: ServerId, event: Event, };

export type Page = { 
/**
 * Oldest first.
 */
entries: Array<Entry>, 
/**
 * How many of the server's kept entries are older than these.
 */
older: number, };

export type Change = { "kind": "settings", revision: number, } | { "kind": "status", server: ServerId, status: Status, } | { "kind": "log", server: ServerId, line: LogLine, } | { "kind": "delivery", server: ServerId, delivery: DeliverySummary, } | { "kind": "connection", connection: ConnectionView, } | { "kind": "connectionEntry", connection: ConnectionId, entry: Entry, } | { "kind": "prompts", prompts: Array<ConsentPrompt>, } | { "kind": "approvalWanted", server: ServerView, prompts: Array<ConsentPrompt>, } | { "kind": "appsChanged" } | { "kind": "install", install: InstallView, } | { "kind": "retry", server: ServerId, retry: Retry | null, } | { "kind": "callProgress", call: number, progress: number, total: number | null, message: string | null, } | { "kind": "offersChanged", server: ServerId, offer: OfferKind, } | { "kind": "resourceUpdated", server: ServerId, uri: string, } | { "kind": "questions", questions: Array<QuestionView>, } | { "kind": "promptsClosed", prompts: Array<PromptId>, } | { "kind": "toolQuestions", questions: Array<ToolQuestion>, };

export type ServerTemplate = { id: string, title: string, description: string, draft: ServerDraft, };

export type AppKind = "claude-desktop" | "claude-code" | "cursor" | "vscode" | "zed" | "goose" | "windsurf" | "lm-studio" | "kiro" | "amazon-q" | "copilot-cli" | "gemini-cli" | "cline" | "codex" | "continue" | "opencode";

export type Format = "json" | "jsonc" | "yaml" | "toml";

export type Scope = { "kind": "global" } | { "kind": "project", "path": string };

export type Need = { 
/**
 * The name the person gives the value under, in words they know it
 * by: the variable's own name (`GEMINI_DATA_TOKEN`, whether the file
 * writes `$GEMINI_DATA_TOKEN`, `${GEMINI_DATA_TOKEN}`, `${env:…}` or
 * `{env:…}`), a Continue secret's name, a VS Code input's id
 * (`token`), an app's own variable (`workspaceFolder`), or the name
 * of a value kept elsewhere (Goose's keyring). Never the text with its
 * `$` and braces, which is [`Need::forms`].
 */
token: string, 
/**
 * Where it is used, in words ("environment variable GITHUB_TOKEN",
 * "argument 3").
 */
usedIn: Array<string>, 
/**
 * What the app says about it (a VS Code input's description), or what
 * Rootgate knows of it.
 */
hint: string, 
/**
 * Whether it should be typed masked: a VS Code password input, a
 * keyring value, or a value of a variable whose name looks secret.
 */
secret: boolean, 
/**
 * Whether the server can be imported without it. An `envFile` is only
 * shown: Rootgate does not read files an app names, and the person adds
 * the variables the server needs in its settings.
 */
required: boolean, };

export type ImportedAs = { id: ServerId, name: string, };

export type DoubtfulLink = { server: ImportedAs, reason: string, };

export type Candidate = { server: ImportedAs, differences: Array<string>, };

export type Joined = { "kind": "new" } | { "kind": "same" } | { "kind": "chosen", differences: Array<string>, };

export type EntryView = { scope: Scope, key: string, 
/**
 * The command line with environment values hidden, or the URL of a
 * remote server.
 */
commandLine: string, envNames: Array<string>, remote: boolean, enabled: boolean, 
/**
 * `NAME` when the entry runs `rootgate connect NAME`.
 */
routedTo: string | null, 
/**
 * The Rootgate server it was imported as, when that link holds.
 */
importedAs: ImportedAs | null, 
/**
 * A link in Rootgate's record that is not trusted, and why: the entry
 * changed since it was imported, or an earlier Rootgate made the link
 * without comparing the entries. Routing leaves such an entry alone.
 */
doubtfulLink: DoubtfulLink | null, 
/**
 * A server that runs exactly what this entry runs (command, arguments,
 * folders, environment, working folder): importing it links it there.
 */
sameAs: ImportedAs | null, 
/**
 * Servers the person may choose to use instead of adding a new one:
 * those running the same program with the same arguments, and the one
 * a doubtful link names, each with how it differs.
 */
candidates: Array<Candidate>, 
/**
 * What importing it would offer and ask.
 */
folders: Array<string>, needs: Array<Need>, keptPaths: Array<string>, 
/**
 * The command Rootgate would add, with folder placeholders.
 */
importCommandLine: string | null, 
/**
 * Why it cannot be imported, when it cannot.
 */
notImportable: string | null, };

export type FileView = { 
/**
 * Which of the app's files this is, for the window's commands (the
 * webview never names a file by its path).
 */
index: number, path: string, format: Format, exists: boolean, 
/**
 * Why it cannot be read, in words; its servers are then unknown.
 */
problem: string | null, 
/**
 * Whether Rootgate routed it and can undo that.
 */
routedByRootgate: boolean, servers: Array<EntryView>, };

export type AppView = { app: AppKind, title: string, files: Array<FileView>, };

export type RoutedEntry = { scope: Scope, key: string, 
/**
 * The server's name in Rootgate (`rootgate connect NAME`).
 */
server: string, };

export type Skipped = { scope: Scope, key: string, reason: string, };

export type PlanView = { id: number, app: AppKind, title: string, path: string, 
/**
 * A unified diff, environment values masked.
 */
diff: string, entries: Array<RoutedEntry>, skipped: Array<Skipped>, undo: boolean, 
/**
 * An undo that puts only Rootgate's entries back, because the app
 * changed the file since it was routed.
 */
partialUndo: boolean, 
/**
 * Why the program written into the file is a poor choice, when it is
 * (a build folder a rebuild replaces: `catalog::build_folder_warning`).
 */
warning: string | null, };

export type ImportOutcome = { server: ServerView, 
/**
 * Whether it became a new server, the same one another entry runs,
 * or the one the person chose.
 */
joined: Joined, prompts: Array<ConsentPrompt>, 
/**
 * Folders in its arguments that cannot be offered, and why.
 */
notes: Array<string>, };

export type Named = { name: string, description: string, };

export type Signature = { "kind": "notApplicable" } | { "kind": "unsigned" } | { "kind": "signed", by: string | null, checked: boolean, } | { "kind": "invalid", reason: string, };

export type Source = { "kind": "bundle", name: string, version: string, sha256: string, } | { "kind": "registry", registry: string, name: string, version: string, package: string, };

export type About = { 
/**
 * The publisher's identifier (`filesystem`, `io.github.owner/name`).
 */
name: string, 
/**
 * The name to show (`display_name`, `title`), else `name`.
 */
title: string, version: string, description: string, author: string | null, 
/**
 * The project's page or repository, as text (never opened by itself).
 */
homepage: string | null, license: string | null, 
/**
 * What it runs, in words ("node server/index.js, from the bundle").
 */
runs: string, tools: Array<Named>, prompts: Array<Named>, 
/**
 * What it says it needs, in words ("Linux, macOS", "Node.js >=18").
 */
compatibility: Array<string>, 
/**
 * Why it cannot run here, when it cannot (another platform only, a
 * remote server, a container image): shown, and never installed.
 */
unfit: string | null, signature: Signature, };

export type SettingKind = { "kind": "text" } | { "kind": "number", min: number | null, max: number | null, } | { "kind": "boolean" } | { "kind": "choice", choices: Array<string>, } | { "kind": "file" } | { "kind": "folder", multiple: boolean, };

export type Setting = { 
/**
 * The publisher's key (`api_key`, `BRAVE_API_KEY`).
 */
key: string, 
/**
 * What stands in the draft until it is filled (`${user_config.api_key}`).
 * A folder setting has none left in the draft.
 */
token: string, title: string, description: string, kind: SettingKind, required: boolean, 
/**
 * The publisher's default, as text.
 */
default: string | null, 
/**
 * Kept in the keyring, typed masked, approved by name and not value.
 */
secret: boolean, 
/**
 * Where it is used, in words ("environment variable API_KEY",
 * "argument 2").
 */
usedIn: Array<string>, };

export type InstallView = { 
/**
 * The number the window installs or drops it by.
 */
id: number, about: About, source: Source, settings: Array<Setting>, 
/**
 * Folders its defaults name that exist here: each gets a consent
 * prompt once it is installed.
 */
folders: Array<string>, notes: Array<string>, 
/**
 * The command line it will run, settings not yet filled in
 * (`${user_config.KEY}`), folders as placeholders.
 */
commandLine: string, 
/**
 * The server an earlier install of the same bundle or registry entry
 * made, which installing this one updates.
 */
updates: string | null, };

export type InstallOutcome = { server: ServerView, 
/**
 * Whether it updated the server an earlier install made.
 */
updated: boolean, prompts: Array<ConsentPrompt>, 
/**
 * Folders that cannot be offered, and why.
 */
notes: Array<string>, };

export type RegistryPackage = { 
/**
 * Its place among the entry's packages: what the window chooses by.
 */
index: number, 
/**
 * `npm`, `pypi`, `mcpb`, `oci`…
 */
kind: string, identifier: string, version: string | null, runnable: boolean, 
/**
 * Why Rootgate does not run it, when it does not.
 */
whyNot: string | null, };

export type RegistryListing = { name: string, title: string, description: string, version: string, packages: Array<RegistryPackage>, 
/**
 * It is only reached over the network: listed, not installed.
 */
remote: boolean, };

export type RegistryFound = { 
/**
 * The registry asked.
 */
registry: string, servers: Array<RegistryListing>, 
/**
 * When the answer was kept, if it came from the cache because the
 * registry could not be reached (ms since the epoch).
 */
fromCache: number | null, };

export type Support = { "state": "available" } | { "state": "partial", reason: string, notStopped: string, } | { "state": "unavailable", reason: string, };

export type AppInfo = { version: string, settingsPath: string, 
/**
 * Set when the settings file could not be trusted: where it went and
 * what was kept.
 */
recovery: string | null, rootsNote: string, 
/**
 * Problems with folders given on the command line.
 */
notices: Array<string>, 
/**
 * Whether servers' roots can be enforced here (Landlock), and if not,
 * why: the server form says so rather than offering a switch that
 * would do nothing.
 */
enforcement: Support, 
/**
 * Where the `rootgate` command is, when it sits beside the app: what an
 * AI app's settings should name to connect through Rootgate.
 */
cliPath: string | null, 
/**
 * MCP bundles named on the command line (the file manager's Open),
 * read and checked: the window shows each for installing.
 */
installs: Array<InstallView>, };

export type Notice = { message: string, };

export type ErrorCode = "folder" | "notFound" | "invalid" | "needsApproval" | "stale" | "settings" | "server" | "picker" | "appConfig" | "keyring" | "missingSecret" | "cancelled";

export type CommandError = { code: ErrorCode, message: string, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

export type OfferKind = "tools" | "resources" | "templates" | "prompts";

export type OfferList = { 
/**
 * Whether the server declared the capability (`tools`, `resources`,
 * `prompts`).
 */
offered: boolean, 
/**
 * Every page of the list, each item exactly as the server sent it.
 */
items: Array<JsonValue>, 
/**
 * Why listing failed, in plain words.
 */
error: string | null, };

export type Offers = { tools: OfferList, resources: OfferList, templates: OfferList, prompts: OfferList, };

export type TryOutcome = { 
/**
 * The result exactly as the server sent it: a `CallToolResult`,
 * `ReadResourceResult` or `GetPromptResult`.
 */
result: JsonValue, durationMs: number, 
/**
 * How many times the server asked for its roots while handling it: a
 * modern server's input rounds, and the `roots/list` a legacy server
 * was answered meanwhile.
 */
rootsAsked: number, };

export type TryResult = "ok" | "toolError" | "failed" | "cancelled";

export type NotifyChoices = { 
/**
 * A server failed to start for an AI app routed through Rootgate (its
 * reason in the notification).
 */
serverFailed: boolean, 
/**
 * A server had to be restarted so that a withdrawal took effect (an AI
 * app's call in flight may have been cut short).
 */
withdrawalRestarted: boolean, 
/**
 * A command imported from an AI app's file (`rootgate import`) waits
 * for the person's approval before it runs.
 */
approvalWaiting: boolean, };

export type LoginStart = { 
/**
 * Rootgate starts when the person logs in.
 */
on: boolean, 
/**
 * The file is not the one Rootgate writes: the person (or another
 * tool) changed it, and Rootgate keeps their changes.
 */
edited: boolean, 
/**
 * The entry's path, to show (never taken back from the window).
 */
path: string, };

export type PreferencesView = { 
/**
 * Every server is told no folders until the person resumes.
 */
sharingPaused: boolean, notify: NotifyChoices, startAtLogin: LoginStart, 
/**
 * Offer Start at login now: an AI app was routed through Rootgate,
 * the offer was never made, and Rootgate does not start at login yet.
 */
offerStartAtLogin: boolean, 
/**
 * The MCP Registry the person chose, if any.
 */
registry: string | null, 
/**
 * The registry asked when they chose none (`$ROOTGATE_REGISTRY`, else
 * the official one).
 */
registryDefault: string, 
/**
 * How many minutes the resident gate keeps a server no AI app session
 * uses before it stops it (0: at once).
 */
unusedServerMinutes: number, };
