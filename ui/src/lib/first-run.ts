// What the first-run card says about the AI apps found on this machine:
// which apps have servers Rootgate could take over, how many servers, and
// the sentence that leads the card. Pure, so every case is unit tested.
// Not here: listing the apps (the backend's `list_apps`, AppsState.load)
// or importing and routing them (the Apps view).

import type { AppView } from "./bindings";

/** The apps that have local servers not yet under Rootgate, and how many such servers there are. */
export interface FoundApps {
  titles: string[];
  servers: number;
}

/**
 * The apps with at least one local (stdio) server that is neither routed
 * through Rootgate nor imported yet, in the order listed, or null when
 * there is none: a remote server cannot be brought under Rootgate, and one
 * already under it is nothing to offer.
 */
export function foundApps(apps: readonly AppView[] | null): FoundApps | null {
  if (apps === null) return null;
  const titles: string[] = [];
  let servers = 0;
  for (const app of apps) {
    let mine = 0;
    for (const file of app.files) {
      for (const entry of file.servers) {
        if (!entry.remote && entry.routedTo === null && entry.importedAs === null) mine += 1;
      }
    }
    if (mine > 0) {
      titles.push(app.title);
      servers += mine;
    }
  }
  return titles.length === 0 ? null : { titles, servers };
}

/** "A", "A and B", "A, B and C". */
export function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** "Found Claude Code, Cursor, VS Code and Zed with 5 servers". */
export function foundSentence(found: FoundApps): string {
  const servers = found.servers === 1 ? "1 server" : `${found.servers} servers`;
  return `Found ${listWords(found.titles)} with ${servers}`;
}
