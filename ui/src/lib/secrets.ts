// Secret environment variables, as the window shows them: which names look
// secret (the same rule as the core's `secrets::looks_secret`), where each
// value is kept in words, and which of a server's secrets wait for the
// person (no keyring to keep them in, or a value Rootgate does not have).
// The window is never sent a secret's value; one revealed on request lives
// only in the component showing it, never in a toast, a log or the timeline.

import type { SecretPlace, ServerView } from "./bindings";

/** The words in a name that make it secret by default (crates/rootgate-core/src/secrets.rs). */
const SECRET_WORDS = ["TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"] as const;

/**
 * Whether a variable's name says its value is a secret: `*TOKEN*`, `*KEY*`,
 * `*SECRET*`, `*PASSWORD*`, `*PASSWD*`, `*CREDENTIAL*`, `*AUTH*`, any case.
 * Mirrors the core's `looks_secret` exactly, which upper-cases ASCII
 * letters only (so `ſecret`, with a long s, is not one there either).
 */
export function looksSecret(name: string): boolean {
  const upper = name.replace(/[a-z]+/g, (s) => s.toUpperCase());
  return SECRET_WORDS.some((word) => upper.includes(word));
}

/** How long a revealed value stays shown, in ms. */
export const REVEAL_MS = 20_000;

/** A variable as the detail shows it: `NAME=value`, or `NAME=…` for a secret. */
export function shownAssignment(name: string, value: string, secret: boolean): string {
  return secret ? `${name}=…` : `${name}=${value}`;
}

/** Where a secret's value is kept, in a few words. */
export function placeWords(place: SecretPlace, missing = false): string {
  if (missing) return "not stored: give it again";
  switch (place) {
    case "keyring":
      return "in the keyring";
    case "file":
      return "in the settings file";
    case "notStored":
      return "not stored, held until Rootgate quits";
    case "fileUntilKeyring":
      return "in the settings file for now";
  }
}

/**
 * What the form's value field says for a saved secret whose value it does
 * not have: where the value is, and that leaving it empty keeps it.
 */
export function keptPlaceholder(place: SecretPlace, missing: boolean): string {
  if (missing) return "Not stored: type its value";
  switch (place) {
    case "keyring":
      return "Kept in the keyring: leave empty to keep it";
    case "file":
    case "fileUntilKeyring":
      return "Kept in the settings file: leave empty to keep it";
    case "notStored":
      return "Held until Rootgate quits: leave empty to keep it";
  }
}

/** Its secrets in name order, with where each is kept and whether Rootgate has the value. */
export function secretsOf(server: ServerView): { name: string; place: SecretPlace; missing: boolean }[] {
  const missing = new Set(server.missingSecrets);
  return Object.entries(server.secrets)
    .map(([name, place]) => ({ name, place, missing: missing.has(name) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The secrets that wait for the person to choose where they go, because no
 * keyring could take them: not stored (and not missing: one Rootgate does
 * not have cannot be moved, it must be given again first) or still in the
 * settings file where an earlier Rootgate wrote it. Empty when the server
 * reports no keyring problem (the person chose already, or nothing failed).
 */
export function waitingForChoice(server: ServerView): string[] {
  if (server.keyringProblem === null) return [];
  return secretsOf(server)
    .filter((s) => !s.missing && (s.place === "notStored" || s.place === "fileUntilKeyring"))
    .map((s) => s.name);
}

/** Where the values of `names` are now, said once they are kept there. */
export function keptWords(names: readonly string[], place: SecretPlace): string {
  const one = names.length === 1;
  const list = nameList(names);
  switch (place) {
    case "keyring":
      return `${list} ${one ? "is" : "are"} in the keyring now.`;
    case "file":
    case "fileUntilKeyring":
      return `${list} ${one ? "is" : "are"} kept in the settings file, which only you can read.`;
    case "notStored":
      return `${list} ${one ? "is" : "are"} not stored: Rootgate holds ${one ? "it" : "them"} until it quits, and asks for ${one ? "it" : "them"} again after a restart.`;
  }
}

/** `A`, `A and B`, `A, B and C`. */
export function nameList(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}
