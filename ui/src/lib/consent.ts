// What the consent prompt says beyond the core's words: its warnings as
// banners (one per situation, the gravest first), the note on what sharing
// means for the servers listed (advice, or enforced by the kernel), and the
// second confirmation sharing the whole home folder or disk takes. Pure, so
// every case is unit tested.

import type { ConsentPrompt, ServerChoice, WarningView } from "./bindings";

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
 * is held to its folders by the kernel; when all are, that they are; when
 * some are, both, each for its own.
 */
export function consentNote(servers: readonly Pick<ServerChoice, "enforced">[], note: string): string {
  const enforced = servers.filter((s) => s.enforced).length;
  if (enforced === 0) return note;
  if (enforced === servers.length) {
    return `Sharing a folder tells a server where to work, and the kernel holds ${
      servers.length === 1 ? "this server" : "each of these servers"
    } to the folders shared with it (Landlock): it cannot read or change anything outside them, apart from what it needs to run.`;
  }
  return (
    "Sharing a folder tells a server where to work. A server marked kernel-enforced is held to the folders " +
    "shared with it by the kernel (Landlock). The others are not locked in: they can still read anything " +
    "your user account can."
  );
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
