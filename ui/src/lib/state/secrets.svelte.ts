// A server's secret variables as the person handles them in the window:
// showing a value they asked to see, choosing where values are kept when
// no keyring took them, giving a value Rootgate does not have. A value
// goes to the caller alone: never into state, a toast or the console.
//
// Not here: which variables are secret and how they are worded (secrets.ts),
// the banners and fields that show them (SecretBanners.svelte, EnvList.svelte),
// or the server's list (ServersState, which this area updates with the
// backend's answers).

import type { SecretPlace, ServerView } from "../bindings";
import { plainMessage, type Api } from "../api";
import { withSecretValue } from "../draft";
import { keptWords } from "../secrets";
import type { NoticesState } from "./notices.svelte";
import type { ServersState } from "./servers.svelte";

export class SecretsState {
  constructor(
    private api: Api,
    private notices: NoticesState,
    private servers: ServersState,
  ) {}

  /**
   * The value of a secret the person asked to see, or null (said in a
   * toast, which names the variable only).
   */
  async reveal(server: ServerView, name: string): Promise<string | null> {
    try {
      return await this.api.revealSecret(server.id, name);
    } catch (e) {
      this.notices.notify(plainMessage(e));
      return null;
    }
  }

  /**
   * Keeps the secrets `names` where the person chose, when no keyring took
   * them: the settings file, not stored (memory only), or the keyring again.
   * Says where they are in a toast; returns whether every one was kept.
   */
  async keep(server: ServerView, names: readonly string[], place: SecretPlace): Promise<boolean> {
    let kept: string[] = [];
    try {
      for (const name of names) {
        this.servers.upsert(await this.api.keepSecret(server.id, name, place));
        kept = [...kept, name];
      }
    } catch (e) {
      this.notices.notify(plainMessage(e));
      return false;
    } finally {
      if (kept.length > 0) this.notices.notify(keptWords(kept, place), "info");
    }
    return true;
  }

  /**
   * Gives a secret Rootgate does not have (not stored, and Rootgate started
   * again since) its value: saved as an edit of the server that changes
   * nothing else, so its approval holds. Returns what went wrong, or null.
   */
  async give(server: ServerView, name: string, value: string): Promise<string | null> {
    try {
      const saved = this.servers.upsert(await this.api.updateServer(server.id, withSecretValue(server, name, value)));
      const place = saved.secrets[name];
      if (place) this.notices.notify(keptWords([name], place), "info");
      return null;
    } catch (e) {
      return plainMessage(e);
    }
  }
}
