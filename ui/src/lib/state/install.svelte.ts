// Servers installed from where they are published: an MCP bundle chosen
// with the file picker (or opened from the file manager, which reaches the
// window as a change), and entries of the MCP Registry found by a search.
// Each is shown in the install dialog before anything is installed; the
// server it adds waits for approval, then its folders' consent prompts
// follow, as for an import.
//
// Not here: reading a bundle or asking the registry (the backend does, and
// keeps the offer by number), the dialog's words (install.ts), or a path:
// a bundle's path comes from the native picker on the Rust side.

import type { Change, InstallView, RegistryFound } from "../bindings";
import { plainMessage, type Api } from "../api";
import { installedMessage } from "../install";
import type { NoticesState } from "./notices.svelte";
import type { ServersState } from "./servers.svelte";

/** What the registry dialog shows: the last search and its answer. */
export interface RegistrySearch {
  words: string;
  found: RegistryFound | null;
  loading: boolean;
  error: string | null;
}

export class InstallState {
  /** The offer whose install dialog is open. */
  view = $state.raw<InstallView | null>(null);
  /** The registry's search dialog, when open. */
  registry = $state<RegistrySearch | null>(null);
  /** A bundle being read or an entry being fetched: the buttons wait. */
  opening = $state(false);

  /** Counts searches, so an answer older than the last asked is dropped. */
  private token = 0;

  constructor(
    private api: Api,
    private notices: NoticesState,
    private servers: ServersState,
  ) {}

  /** Opens the file picker for a bundle and shows it; a cancelled picker does nothing. */
  async pickBundle(): Promise<void> {
    if (this.opening) return;
    this.opening = true;
    try {
      const view = await this.api.pickBundle();
      if (view) this.show(view);
    } catch (e) {
      this.notices.notify(plainMessage(e));
    } finally {
      this.opening = false;
    }
  }

  /** Shows `view` in the install dialog, dropping one shown before. */
  show(view: InstallView): void {
    const before = this.view;
    if (before && before.id !== view.id) void this.api.dropInstall(before.id).catch(() => {});
    this.registry = null;
    this.view = view;
  }

  /** Closes the install dialog without installing; the backend forgets the offer. */
  close(): void {
    const view = this.view;
    this.view = null;
    if (view) void this.api.dropInstall(view.id).catch(() => {});
  }

  /**
   * Installs the open offer with the person's `values` (by setting key).
   * The server is then offered for approval; its folders' prompts follow.
   * Returns the error to show in the dialog, or null.
   */
  async install(values: Record<string, string>): Promise<string | null> {
    const view = this.view;
    if (!view) return null;
    let outcome;
    try {
      outcome = await this.api.installOffer(view.id, values);
    } catch (e) {
      return plainMessage(e);
    }
    if (this.view === view) this.view = null;
    this.notices.notify(installedMessage(view.about.title, outcome.server.name, outcome.updated), "info");
    for (const note of outcome.notes) this.notices.notify(note, "info");
    const added = this.servers.upsert(outcome.server);
    this.servers.approveThenAsk(added, outcome.prompts);
    return null;
  }

  // ----- the registry ---------------------------------------------------

  openRegistry(): void {
    this.registry ??= { words: "", found: null, loading: false, error: null };
  }

  closeRegistry(): void {
    this.token++;
    this.registry = null;
  }

  /** Searches the registry; an answer older than the last asked is dropped. */
  async search(words: string): Promise<void> {
    const search = this.registry;
    if (!search) return;
    const token = ++this.token;
    search.words = words;
    search.loading = true;
    search.error = null;
    try {
      const found = await this.api.registrySearch(words.trim());
      if (token !== this.token || !this.registry) return;
      this.registry.found = found;
    } catch (e) {
      if (token !== this.token || !this.registry) return;
      this.registry.error = plainMessage(e);
    } finally {
      if (token === this.token && this.registry) this.registry.loading = false;
    }
  }

  /** Fetches one registry entry's package as an offer and shows it. */
  async choose(name: string, version: string, pkg: number): Promise<void> {
    if (this.opening) return;
    this.opening = true;
    try {
      this.show(await this.api.registryOffer(name, version, pkg));
    } catch (e) {
      if (this.registry) this.registry.error = plainMessage(e);
      else this.notices.notify(plainMessage(e));
    } finally {
      this.opening = false;
    }
  }

  /** A bundle opened from the file manager or another start's command line. */
  onChanges(changes: readonly Change[]): void {
    for (const c of changes) if (c.kind === "install") this.show(c.install);
  }
}
