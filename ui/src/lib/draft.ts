// The server form's text fields to and from a ServerDraft: arguments one per
// line, environment as KEY=VALUE lines. Mistakes are found here, before the
// backend is asked, and said in plain words next to the form.

import type { EraChoice, ServerDraft, ServerSpec, Withdrawal } from "./bindings";

/** What the form holds, as typed. */
export interface ServerForm {
  name: string;
  command: string;
  args: string;
  env: string;
  cwd: string;
  enabled: boolean;
  withdrawal: Withdrawal;
  enforceRoots: boolean;
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
  const env = parseEnv(form.env);
  if (!env.ok) return env;
  const cwd = form.cwd.trim();
  return {
    ok: true,
    value: {
      name,
      command,
      args: parseArgs(form.args),
      env: env.value,
      cwd: cwd === "" ? null : cwd,
      enabled: form.enabled,
      withdrawal: form.withdrawal,
      enforceRoots: form.enforceRoots,
      era: form.era,
    },
  };
}

/** A draft or a saved server as form text. */
export function draftToForm(draft: ServerDraft | ServerSpec): ServerForm {
  return {
    name: draft.name,
    command: draft.command,
    args: draft.args.join("\n"),
    env: Object.entries(draft.env)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
    cwd: draft.cwd ?? "",
    enabled: draft.enabled,
    withdrawal: draft.withdrawal,
    enforceRoots: draft.enforceRoots,
    era: draft.era,
  };
}

export function emptyForm(): ServerForm {
  return { name: "", command: "", args: "", env: "", cwd: "", enabled: true, withdrawal: "notify", enforceRoots: false, era: "auto" };
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
