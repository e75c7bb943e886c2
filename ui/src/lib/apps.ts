// Words and decisions for the "Connect an app" view: each server entry's
// state as a chip, what Import and Route need before they can run, and a
// unified diff split into lines a person can read. Pure, so every case is
// unit tested.

import type { EntryView, FileView, Joined, Need, Scope } from "./bindings";

/** The apps Rootgate knows, in the order the empty view names them. */
export const KNOWN_APPS = [
  "Claude Desktop",
  "Claude Code",
  "Cursor",
  "VS Code",
  "Zed",
  "Goose",
  "Windsurf",
  "LM Studio",
  "Kiro",
  "Amazon Q Developer",
  "GitHub Copilot CLI",
  "Gemini CLI",
  "Cline",
  "Codex CLI",
  "Continue",
  "opencode",
] as const;

export type ChipTone = "good" | "info" | "neutral" | "warn";

export interface Chip {
  /** What the chip says. */
  text: string;
  tone: ChipTone;
  /** The chip's state, for tests and styles. */
  state: "routed" | "imported" | "doubtful" | "same" | "remote" | "notImported";
}

/**
 * Where an entry stands with Rootgate, as a chip. A link Rootgate does not
 * trust (made by an earlier Rootgate without comparing, or to an entry that
 * changed since) is never shown as "Imported": it says so, routed or not.
 */
export function entryChip(entry: EntryView): Chip {
  const doubt = entry.doubtfulLink;
  if (entry.routedTo !== null) {
    if (doubt !== null) {
      return { text: `Routed to ${entry.routedTo} — link not trusted`, tone: "warn", state: "doubtful" };
    }
    return { text: `Routed through Rootgate (${entry.routedTo})`, tone: "good", state: "routed" };
  }
  if (entry.importedAs !== null) {
    return { text: `Imported as ${entry.importedAs.name}`, tone: "info", state: "imported" };
  }
  if (doubt !== null) return { text: `Link to ${doubt.server.name} not trusted`, tone: "warn", state: "doubtful" };
  if (entry.sameAs !== null) {
    return { text: `Runs the same as ${entry.sameAs.name}`, tone: "neutral", state: "same" };
  }
  if (entry.remote) return { text: "Remote server — not imported", tone: "neutral", state: "remote" };
  return { text: "Not imported", tone: "neutral", state: "notImported" };
}

/** A sentence from a backend reason: capitalised, with a full stop. */
export function sentence(text: string): string {
  const t = text.trim();
  if (t === "") return t;
  const capital = t.charAt(0).toUpperCase() + t.slice(1);
  // A closing bracket ends a sentence only after a full stop: "(https://x)" does not.
  return /[.!?]["”’)]?$/.test(capital) ? capital : `${capital}.`;
}

/**
 * Why Import cannot be pressed for this entry (its tooltip), or null when it
 * can: an entry already imported or routed, or one the backend says cannot
 * be imported.
 */
export function importBlocked(entry: EntryView): string | null {
  if (entry.routedTo !== null) return `It already runs through Rootgate as ${entry.routedTo}.`;
  if (entry.importedAs !== null) return `It is already in Rootgate as ${entry.importedAs.name}.`;
  if (entry.notImportable !== null) return sentence(entry.notImportable);
  return null;
}

/**
 * What the row says under an entry, beyond its chip: why its link is not
 * trusted (and, when routed through it, how to undo), or that importing it
 * joins the server that runs exactly the same. Null when there is nothing.
 */
export function standingNote(entry: EntryView): string | null {
  const doubt = entry.doubtfulLink;
  if (doubt !== null) {
    const reason = sentence(doubt.reason);
    return entry.routedTo !== null
      ? `${reason} This app is routed to ${entry.routedTo}: undo the route to get its own entry back, then import it.`
      : reason;
  }
  if (entry.sameAs !== null && entry.routedTo === null && entry.importedAs === null) {
    return `It runs exactly what ${entry.sameAs.name} runs (command, arguments, folders, environment and working folder): importing it uses ${entry.sameAs.name}.`;
  }
  return null;
}

/** The needs the person must type a value for; the others are only shown. */
export function requiredNeeds(entry: EntryView): Need[] {
  return entry.needs.filter((n) => n.required);
}

/** The needs a required value is still missing for (empty: Import may go). */
export function missingNeeds(needs: readonly Need[], values: Readonly<Record<string, string>>): Need[] {
  return needs.filter((n) => n.required && (values[n.token] ?? "").trim() === "");
}

/**
 * What import_app_server is given: a value for each required need, as
 * typed. Needs that are only shown (an envFile) are left out: the backend
 * refuses a value for a token it does not ask for.
 */
export function importValues(needs: readonly Need[], values: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of needs) if (n.required && values[n.token] !== undefined) out[n.token] = values[n.token];
  return out;
}

/** Entries of a file that are imported but do not go through Rootgate yet: what Route would change. */
export function routable(file: FileView): EntryView[] {
  return file.servers.filter((e) => e.importedAs !== null && e.routedTo === null);
}

/** Why a file's "Route through Rootgate" cannot be pressed, or null when it can. */
export function routeBlocked(file: FileView): string | null {
  if (file.problem !== null) return sentence(file.problem);
  if (routable(file).length > 0) return null;
  if (file.servers.length === 0) return "It has no servers to route.";
  if (file.servers.some((e) => e.importedAs !== null)) return "Every imported server already goes through Rootgate.";
  return "Import a server first: only servers in Rootgate can be routed through it.";
}

export type DiffKind = "file" | "hunk" | "add" | "del" | "context" | "note";

export interface DiffLine {
  kind: DiffKind;
  text: string;
}

/** One line of a unified diff, by its first characters. */
export function diffKind(line: string): DiffKind {
  if (line.startsWith("+++ ") || line.startsWith("--- ") || line === "+++" || line === "---") return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  if (line.startsWith("\\")) return "note";
  return "context";
}

/**
 * A unified diff split into lines, each with its kind. The header lines
 * (`---`/`+++`) come before the first hunk only: after it, a removed line
 * whose text starts with `--` is a removal, not a header.
 */
export function diffLines(diff: string): DiffLine[] {
  const lines = diff.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  let inHunk = false;
  return lines.map((text) => {
    let kind = diffKind(text);
    if (kind === "hunk") inHunk = true;
    else if (kind === "file" && inHunk) kind = text.startsWith("+") ? "add" : "del";
    return { kind, text: text.replace(/\r$/, "") };
  });
}

/** How many lines a diff adds and removes. */
export function diffStats(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.kind === "add") added++;
    else if (l.kind === "del") removed++;
  }
  return { added, removed };
}

/** An entry's key with its project, when it is a project's (Claude Code). */
export function scopeLabel(scope: Scope): string | null {
  return scope.kind === "project" ? scope.path : null;
}

/** What the toast says once an entry joined a server that was there already; null for a new one. */
export function joinedMessage(key: string, server: string, joined: Joined): string | null {
  switch (joined.kind) {
    case "new":
      return null;
    case "same":
      return `${key} runs exactly what ${server} runs, so it uses ${server}.`;
    case "chosen":
      return `${key} now uses ${server}, as you chose.`;
  }
}

/** What the toast says once a route or its undo is written. */
export function writtenMessage(title: string, undo: boolean): string {
  return undo
    ? `${title}'s file is back as it was. Restart ${title} to use it.`
    : `${title} now reaches its servers through Rootgate. Restart ${title} to use it.`;
}

/** "a", "a and b", "a, b and c". */
export function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/**
 * The app a consent prompt's suggestion names, when it is an import's:
 * the backend says "Claude Desktop's config"; the window says "Claude
 * Desktop" and that its config gave the folder.
 */
export function importSource(app: string): { app: string; fromConfig: boolean } {
  const t = app.trim();
  const m = /^(.*)['’]s config$/.exec(t);
  return m ? { app: m[1], fromConfig: true } : { app: t === "" ? "An AI app" : t, fromConfig: false };
}
