// The folders the person keeps in Rootgate and everything done to them:
// adding (the native picker, from Rust: no path ever comes from here),
// changing which servers see one, answering or cancelling the consent
// prompt that follows, renaming, removing, withdrawing one from a server.
// Also whether the picker is open and whether folders are dragged over the
// window.
//
// Not here: the queue of prompts (PromptsState, which this area fills and
// empties), a server's own checklist of folders (ServersState), or
// fetching the list (the root's reload, which fetches folders and servers
// together).

import type { ConsentPrompt, FolderView, RootId, ServerId } from "../bindings";
import { plainMessage, type Api } from "../api";
import type { NoticesState } from "./notices.svelte";
import type { PromptsState } from "./prompts.svelte";

export function replaceAt<T>(items: readonly T[], at: number, item: T): T[] {
  const copy = [...items];
  copy[at] = item;
  return copy;
}

export class FoldersState {
  list = $state.raw<FolderView[]>([]);
  /** The native folder picker is open. */
  picking = $state(false);
  /** Folders are dragged over the window (its drop highlight shows). */
  dragHover = $state(false);

  constructor(
    private api: Api,
    private notices: NoticesState,
    private prompts: PromptsState,
  ) {}

  /** Opens the native picker; each folder chosen becomes a consent prompt. */
  async add(): Promise<void> {
    if (this.picking) return;
    this.picking = true;
    try {
      // An empty answer is a cancelled picker: nothing changes.
      this.prompts.enqueue(await this.api.pickFolders());
    } catch (e) {
      this.notices.notify(plainMessage(e));
    } finally {
      this.picking = false;
    }
  }

  async changeAccess(root: RootId): Promise<void> {
    try {
      this.prompts.enqueue([await this.api.changeAccess(root)]);
    } catch (e) {
      this.notices.notify(plainMessage(e));
    }
  }

  /** Answers the first prompt; whatever happens, the prompt is then closed. */
  async answerPrompt(prompt: ConsentPrompt, servers: ServerId[], name: string | null): Promise<void> {
    try {
      const folder = await this.api.answerPrompt(prompt.id, servers, name);
      this.upsert(folder);
    } catch (e) {
      this.notices.notify(plainMessage(e));
    } finally {
      this.prompts.remove(prompt.id);
    }
  }

  async cancelPrompt(prompt: ConsentPrompt): Promise<void> {
    this.prompts.remove(prompt.id);
    try {
      await this.api.cancelPrompt(prompt.id);
    } catch {
      // The prompt is gone either way.
    }
  }

  /** Renames a folder; returns whether it worked. */
  async rename(root: RootId, name: string): Promise<boolean> {
    try {
      this.upsert(await this.api.renameFolder(root, name));
      return true;
    } catch (e) {
      this.notices.notify(plainMessage(e));
      return false;
    }
  }

  async remove(folder: FolderView): Promise<void> {
    const ok = await this.notices.confirm({
      title: `Remove “${folder.name}”?`,
      body:
        folder.servers.length > 0
          ? `It is withdrawn from every server at once (${folder.servers.length === 1 ? "1 server sees it" : `${folder.servers.length} servers see it`} now). The folder itself stays on your disk.`
          : "It is withdrawn from every server at once. No server sees it now. The folder itself stays on your disk.",
      ok: "Remove folder",
      danger: true,
    });
    if (!ok) return;
    try {
      await this.api.removeFolder(folder.id);
      this.list = this.list.filter((f) => f.id !== folder.id);
    } catch (e) {
      this.notices.notify(plainMessage(e));
    }
  }

  async revoke(server: ServerId, root: RootId): Promise<void> {
    try {
      await this.api.revoke(server, root);
      this.list = this.list.map((f) => (f.id === root ? { ...f, servers: f.servers.filter((s) => s !== server) } : f));
    } catch (e) {
      this.notices.notify(plainMessage(e));
    }
  }

  /** How many folders are shared with a server. */
  sharedWith(server: ServerId): number {
    return this.list.filter((f) => f.servers.includes(server)).length;
  }

  /**
   * A server now sees exactly `roots`: the folders' lists of servers say so
   * at once (the settings revision that follows reloads them anyway).
   */
  givenTo(server: ServerId, roots: readonly RootId[]): void {
    const given = new Set(roots);
    this.list = this.list.map((f) => {
      const has = f.servers.includes(server);
      if (has === given.has(f.id)) return f;
      return { ...f, servers: has ? f.servers.filter((s) => s !== server) : [...f.servers, server] };
    });
  }

  private upsert(folder: FolderView): void {
    const at = this.list.findIndex((f) => f.id === folder.id);
    this.list = at < 0 ? [...this.list, folder] : replaceAt(this.list, at, folder);
  }
}
