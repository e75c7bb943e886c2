// The server form's text fields to and from a ServerDraft: arguments one per
// line, environment as one row per variable (name, value, and whether it is
// secret). Mistakes are found here, before the backend is asked, and said
// in plain words next to the form.

import type { EraChoice, SecretPlace, ServerDraft, ServerSpec, Withdrawal } from "./bindings";
import { looksSecret } from "./secrets";

/** One environment variable as the form holds it. */
export interface EnvRow {
  /** Its identity in the list while the form is open (never sent). */
  key: number;
  name: string;
  /** As typed; empty for a saved secret whose value is kept (see `keepsValue`). */
  value: string;
  /** Shown masked, kept in the keyring, approved by name (sent as `secretEnv`). */
  secret: boolean;
  /** The person set `secret` (or it was saved so): the name no longer decides it. */
  chosen: boolean;
  /** A saved secret: its name then, where its value is kept, and whether Rootgate has it. */
  kept: { name: string; place: SecretPlace; missing: boolean } | null;
}

let nextRowKey = 1;

/** A row for a variable; secret by default when its name looks secret. */
export function envRow(name = "", value = "", over: Partial<Omit<EnvRow, "key">> = {}): EnvRow {
  return { key: nextRowKey++, name, value, secret: looksSecret(name), chosen: false, kept: null, ...over };
}

/** The row with its name changed: until the person sets Secret, the name decides it. */
export function renamed(row: EnvRow, name: string): EnvRow {
  return { ...row, name, secret: row.chosen ? row.secret : looksSecret(name) };
}

/**
 * Whether saving this row keeps the value its secret has: a saved secret,
 * still secret under the same name, with nothing typed (the backend keeps
 * a secret's value when the draft's value is empty).
 */
export function keepsValue(row: EnvRow): boolean {
  return row.kept !== null && row.secret && row.value === "" && row.kept.name === row.name.trim();
}

/** A saved secret made plain with nothing typed: its kept value goes back into the settings file. */
export function unmasksValue(row: EnvRow): boolean {
  return row.kept !== null && !row.secret && row.value === "" && row.kept.name === row.name.trim();
}

function empty(row: EnvRow): boolean {
  return row.name.trim() === "" && row.value === "";
}

/** What is wrong with one of the rows, the first one in order; null when nothing is. */
export function envProblem(
  rows: readonly EnvRow[],
): { index: number; part: "name" | "value"; message: string } | null {
  const seen = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (empty(row)) continue;
    const name = row.name.trim();
    const at = (message: string, part: "name" | "value" = "name") => ({ index: i, part, message });
    if (name === "") return at(`Environment variable ${i + 1} has a value but no name. Give it one, or remove it.`);
    if (name.includes("=")) return at(`${name}: a variable's name cannot contain “=”. Put the value in its own field.`);
    if (/\s/.test(name)) return at(`“${name}”: a variable's name cannot contain spaces.`);
    if (/^[0-9]/.test(name)) return at(`${name}: a variable's name cannot start with a digit.`);
    if (name.includes("\0") || row.value.includes("\0")) return at(`${name} holds a NUL character, which no environment can.`);
    const before = seen.get(name);
    if (before !== undefined) return at(`${name} is set twice in the environment (variables ${before + 1} and ${i + 1}). Keep one.`);
    seen.set(name, i);
  }
  return null;
}

/** The rows as a draft's `env` and `secretEnv` (empty rows left out). */
export function rowsToEnv(rows: readonly EnvRow[]): { env: Record<string, string>; secretEnv: string[] } {
  const env: Record<string, string> = {};
  const secretEnv: string[] = [];
  for (const row of rows) {
    if (empty(row)) continue;
    const name = row.name.trim();
    env[name] = row.value;
    if (row.secret) secretEnv.push(name);
  }
  return { env, secretEnv };
}

/**
 * A draft's or a saved server's environment as rows. A saved server says
 * which variables are secret and where each value is kept; `missing` are
 * those whose values Rootgate does not have. A draft that names its
 * secrets (`secretEnv`) has them chosen; one that does not leaves it to
 * the names.
 */
export function envRowsOf(draft: ServerDraft | ServerSpec, missing: readonly string[] = []): EnvRow[] {
  const saved = "secrets" in draft ? draft.secrets : null;
  const named = "secretEnv" in draft && draft.secretEnv != null ? new Set(draft.secretEnv) : null;
  return Object.entries(draft.env).map(([name, value]) => {
    if (saved) {
      const place = saved[name];
      return envRow(name, place ? "" : value, {
        secret: place !== undefined,
        chosen: true,
        kept: place ? { name, place, missing: missing.includes(name) } : null,
      });
    }
    return named ? envRow(name, value, { secret: named.has(name), chosen: true }) : envRow(name, value);
  });
}

/**
 * A saved server as a draft that changes nothing but the value of its
 * secret `name`: every other secret is sent empty, which keeps it.
 */
export function withSecretValue(server: ServerSpec, name: string, value: string): ServerDraft {
  return {
    name: server.name,
    command: server.command,
    args: server.args,
    env: { ...server.env, [name]: value },
    cwd: server.cwd,
    enabled: server.enabled,
    withdrawal: server.withdrawal,
    enforceRoots: server.enforceRoots,
    ...(server.allowNetwork ? { allowNetwork: true } : {}),
    ...(server.workspaceOnly ? { workspaceOnly: true } : {}),
    ...(server.ownProcess ? { ownProcess: true } : {}),
    era: server.era,
    secretEnv: Object.keys(server.secrets),
  };
}

/**
 * Rows for text pasted into a name field when it holds KEY=VALUE lines
 * (copied from a README or a shell); null when it is not such text, which
 * is then pasted as it is.
 */
export function pastedRows(text: string): EnvRow[] | null {
  if (!text.includes("=")) return null;
  const parsed = parseEnv(text);
  if (!parsed.ok) return null;
  return Object.entries(parsed.value).map(([name, value]) => envRow(name, value));
}

/** `rows` with the row at `index` replaced by `pasted` (which fill it and follow it). */
export function pasteInto(rows: readonly EnvRow[], index: number, pasted: readonly EnvRow[]): EnvRow[] {
  return [...rows.slice(0, index), ...pasted, ...rows.slice(index + 1)];
}

/** What the form holds, as typed. */
/**
 * A saved server as a draft with its network setting changed; its secrets
 * are named with empty values, which keep the values Rootgate has.
 */
export function withNetwork(server: ServerSpec, allowNetwork: boolean): ServerDraft {
  return {
    name: server.name,
    command: server.command,
    args: server.args,
    env: server.env,
    cwd: server.cwd,
    enabled: server.enabled,
    withdrawal: server.withdrawal,
    enforceRoots: server.enforceRoots,
    ...(allowNetwork ? { allowNetwork: true } : {}),
    ...(server.workspaceOnly ? { workspaceOnly: true } : {}),
    ...(server.ownProcess ? { ownProcess: true } : {}),
    era: server.era,
    secretEnv: Object.keys(server.secrets),
  };
}

export interface ServerForm {
  name: string;
  command: string;
  args: string;
  env: EnvRow[];
  cwd: string;
  enabled: boolean;
  withdrawal: Withdrawal;
  enforceRoots: boolean;
  /** A held server reaches the network only when this is on. */
  allowNetwork?: boolean;
  /** Workspace: each AI app's connection sees only the project it works in. */
  workspaceOnly?: boolean;
  /** One process per app session, for a server that keeps state per client. */
  ownProcess?: boolean;
  era: EraChoice;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function lines(text: string): string[] {
  return text.split(/\r\n|\n|\r/);
}

/** One argument per line; blank lines are ignored, spaces around a line dropped. */
export function parseArgs(text: string): string[] {
  return lines(text)
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

/**
 * KEY=VALUE per line. The value is everything after the first '=' (so it may
 * contain '='); blank lines are ignored; a line without '=' or with an empty
 * key, or a key given twice, is an error naming the line.
 */
export function parseEnv(text: string): Parsed<Record<string, string>> {
  const env: Record<string, string> = {};
  const seenAt: Record<string, number> = {};
  const all = lines(text);
  for (let i = 0; i < all.length; i++) {
    const line = all[i];
    if (line.trim() === "") continue;
    const n = i + 1;
    const eq = line.indexOf("=");
    if (eq < 0) {
      return {
        ok: false,
        error: `Environment line ${n} (“${line.trim()}”) has no “=”. Write each variable as KEY=VALUE.`,
      };
    }
    const key = line.slice(0, eq).trim();
    if (key === "") {
      return { ok: false, error: `Environment line ${n} has no name before “=”. Write it as KEY=VALUE.` };
    }
    if (Object.hasOwn(seenAt, key)) {
      return {
        ok: false,
        error: `${key} is set twice in the environment (lines ${seenAt[key]} and ${n}). Keep one.`,
      };
    }
    seenAt[key] = n;
    env[key] = line.slice(eq + 1);
  }
  return { ok: true, value: env };
}

/** The form as a draft for add_server / update_server, or what is wrong. */
export function formToDraft(form: ServerForm): Parsed<ServerDraft> {
  const name = form.name.trim();
  if (name === "") return { ok: false, error: "Give the server a name." };
  const command = form.command.trim();
  if (command === "") return { ok: false, error: "Enter the command that starts the server." };
  const problem = envProblem(form.env);
  if (problem) return { ok: false, error: problem.message };
  const { env, secretEnv } = rowsToEnv(form.env);
  const cwd = form.cwd.trim();
  return {
    ok: true,
    value: {
      name,
      command,
      args: parseArgs(form.args),
      env,
      cwd: cwd === "" ? null : cwd,
      enabled: form.enabled,
      withdrawal: form.withdrawal,
      enforceRoots: form.enforceRoots,
      ...(form.enforceRoots && form.allowNetwork ? { allowNetwork: true } : {}),
      ...(form.workspaceOnly ? { workspaceOnly: true } : {}),
      ...(form.ownProcess ? { ownProcess: true } : {}),
      era: form.era,
      secretEnv,
    },
  };
}

/**
 * A draft or a saved server as the form holds it; `missing` are a saved
 * server's secrets whose values Rootgate does not have.
 */
export function draftToForm(draft: ServerDraft | ServerSpec, missing: readonly string[] = []): ServerForm {
  return {
    name: draft.name,
    command: draft.command,
    args: draft.args.join("\n"),
    env: envRowsOf(draft, missing),
    cwd: draft.cwd ?? "",
    enabled: draft.enabled,
    withdrawal: draft.withdrawal,
    enforceRoots: draft.enforceRoots,
    ...(draft.allowNetwork ? { allowNetwork: true } : {}),
    ...(draft.workspaceOnly ? { workspaceOnly: true } : {}),
    ...(draft.ownProcess ? { ownProcess: true } : {}),
    era: draft.era,
  };
}

export function emptyForm(): ServerForm {
  return { name: "", command: "", args: "", env: [], cwd: "", enabled: true, withdrawal: "notify", enforceRoots: false, era: "auto" };
}

/** `name`, or `name 2`, `name 3`... whichever no server has yet. */
export function uniqueName(name: string, taken: readonly string[]): string {
  const lower = new Set(taken.map((t) => t.trim().toLowerCase()));
  if (!lower.has(name.trim().toLowerCase())) return name;
  for (let i = 2; ; i++) {
    const candidate = `${name} ${i}`;
    if (!lower.has(candidate.toLowerCase())) return candidate;
  }
}
