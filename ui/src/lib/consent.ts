// What the consent prompt says beyond the core's words: its warnings as
// banners (one per situation, the gravest first), the note on what sharing
// means for the servers listed (advice, or held to their folders), and the
// second confirmation sharing the whole home folder or disk takes. Pure, so
// every case is unit tested.

import type { ConsentPrompt, ServerChoice, Support, WarningView } from "./bindings";

/** One banner of the consent prompt: a warning, or several of one kind grouped. */
export interface Banner {
  kind: WarningView["kind"];
  /** The whole home folder or the whole disk: shown stronger, and Share asks again. */
  severe: boolean;
  message: string;
  /** For a grouped banner: the folders it is about, one a line. */
  paths: string[];
}

const SEVERE: ReadonlySet<WarningView["kind"]> = new Set(["homeFolder", "filesystemRoot"]);

/**
 * The prompt's warnings as banners, gravest first, otherwise in the core's
 * order. A `symlink` warning is left out when the prompt names the chosen
 * path (`chosenPath`): the "Folder that would be shared" box says the same
 * (the link chosen, the real folder), and saying it twice reads as two
 * problems. Several `nestedIn` or several `contains` warnings are one
 * banner each, listing the folders.
 */
export function consentBanners(prompt: Pick<ConsentPrompt, "warnings" | "chosenPath">): Banner[] {
  const out: Banner[] = [];
  const nested = prompt.warnings.filter((w) => w.kind === "nestedIn");
  const contains = prompt.warnings.filter((w) => w.kind === "contains");
  for (const w of prompt.warnings) {
    if (w.kind === "symlink" && prompt.chosenPath !== null) continue;
    if (w.kind === "nestedIn" && nested.length > 1) {
      if (w === nested[0]) {
        out.push({
          kind: "nestedIn",
          severe: false,
          message: `This folder is already inside ${nested.length} shared folders; a server that sees one of them sees this folder too:`,
          paths: nested.map((x) => (x.kind === "nestedIn" ? x.root : "")),
        });
      }
      continue;
    }
    if (w.kind === "contains" && contains.length > 1) {
      if (w === contains[0]) {
        out.push({
          kind: "contains",
          severe: false,
          message: `This folder contains ${contains.length} shared folders; a server it is shared with sees them too:`,
          paths: contains.map((x) => (x.kind === "contains" ? x.root : "")),
        });
      }
      continue;
    }
    out.push({ kind: w.kind, severe: SEVERE.has(w.kind), message: w.message, paths: [] });
  }
  // Stable: the gravest first, the rest in the core's order.
  return out.filter((b) => b.severe).concat(out.filter((b) => !b.severe));
}

/**
 * The note on what sharing means, for the servers the prompt lists: the
 * core's note (roots are advice; it does not lock a server in) when none
 * has its roots enforced; when all do, how they are kept to their folders
 * on this machine (`support`): held in a sandbox, or, where bubblewrap
 * cannot make its namespaces, kept by Landlock and a filter and not held,
 * with what that leaves open; when some do, both, each for its own.
 */
export function consentNote(
  servers: readonly Pick<ServerChoice, "enforced">[],
  note: string,
  support?: Support,
): string {
  const enforced = servers.filter((s) => s.enforced).length;
  if (enforced === 0) return note;
  const mark = enforcedMark(support);
  if (enforced === servers.length) {
    const who = servers.length === 1 ? "this server" : "each of these servers";
    if (support?.state === "available") {
      return `Sharing a folder tells a server where to work, and ${who} is held in a sandbox (bubblewrap, with Landlock inside): it sees only the folders shared with it and what it needs to run, not your home folder, your session's sockets or other processes.`;
    }
    if (support?.state === "partial") {
      return `Sharing a folder tells a server where to work. Landlock and a filter keep ${who} to the folders shared with it, but it is not held in a sandbox here (${support.reason}): ${support.notStopped}.`;
    }
    return `Sharing a folder tells a server where to work, and ${who} is kept to the folders shared with it: it cannot read or change anything outside them, apart from what it needs to run.`;
  }
  const marked =
    support?.state === "available"
      ? `A server marked “${mark.label}” runs in a sandbox and sees only the folders shared with it.`
      : support?.state === "partial"
        ? `A server marked “${mark.label}” is kept to them by Landlock and a filter, but is not held in a sandbox here: ${support.notStopped}.`
        : `A server marked “${mark.label}” cannot read or change anything outside the folders shared with it.`;
  return `Sharing a folder tells a server where to work. ${marked} The others are not locked in: they can still read anything your user account can.`;
}

/**
 * The mark on a server with enforced roots in the consent prompt, and its
 * tooltip: "held" only where bubblewrap holds it in a sandbox; where it
 * cannot (`partial`), or before the window knows, what is true either way.
 */
export function enforcedMark(support?: Support): { label: string; title: string } {
  switch (support?.state) {
    case "available":
      return {
        label: "held",
        title:
          "Held in a sandbox (bubblewrap, with Landlock inside): it sees only the folders shared with it and what it needs to run.",
      };
    case "partial":
      return {
        label: "kept to its folders",
        title: `Not held in a sandbox here (${support.reason}). Landlock and a filter keep it to its folders, but ${support.notStopped}.`,
      };
    default:
      return {
        label: "kept to its folders",
        title: "Its roots are enforced: it cannot read or change files outside the folders shared with it.",
      };
  }
}

/**
 * The second confirmation sharing takes when the folder is the whole home
 * folder or the whole disk and a server would newly see it; null when it
 * takes none.
 */
export function severeConfirmation(
  banners: readonly Banner[],
  newly: readonly string[],
  path: string,
): { title: string; body: string; ok: string } | null {
  const severe = banners.find((b) => b.severe);
  if (!severe || newly.length === 0) return null;
  const who = newly.length === 1 ? newly[0] : `${newly.slice(0, -1).join(", ")} and ${newly[newly.length - 1]}`;
  const disk = severe.kind === "filesystemRoot";
  return {
    title: disk ? "Share the whole disk?" : "Share your whole home folder?",
    body: disk
      ? `${who} would be told ${newly.length === 1 ? "it" : "they"} may work anywhere on this computer (${path}), with every user's files in reach. Share it only if you trust ${newly.length === 1 ? "this server" : "these servers"} with all of it.`
      : `${who} would be told ${newly.length === 1 ? "it" : "they"} may work in ${path}: every document, key, password store and setting in it. Share it only if you trust ${newly.length === 1 ? "this server" : "these servers"} with all of that; a smaller folder is usually enough.`,
    ok: disk ? "Share the whole disk" : "Share my home folder",
  };
}
