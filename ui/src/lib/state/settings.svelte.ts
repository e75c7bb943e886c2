// The Settings view's state: whether all sharing is paused (the tray's
// "Pause all sharing" too), Start at login, which desktop notifications the
// person wants, and the one offer of Start at login after an AI app was
// first routed. The backend holds all of it (pause and notifications in
// the settings file, Start at login as the desktop's autostart entry);
// this area fetches it again on every settings change, so a pause from
// the tray shows here at once.
//
// Not here: the banner's and the view's words (SettingsView.svelte,
// App.svelte), the questions (PromptsState), or anything about a path:
// the autostart entry's path is shown, never sent back.

import type { Change, NotifyChoices, PreferencesView } from "../bindings";
import { plainMessage, type Api } from "../api";
import type { NoticesState } from "./notices.svelte";

export type NotifyChoice = keyof NotifyChoices;

export class SettingsState {
  /** What the backend says now; null until loaded. */
  prefs = $state.raw<PreferencesView | null>(null);
  /** A change is being saved: its control waits. */
  saving = $state(false);

  /** Every server is told no folders until the person resumes. */
  readonly paused: boolean;
  /** Offer Start at login now (once, after the first AI app was routed). */
  readonly offerStartAtLogin: boolean;

  private token = 0;

  constructor(
    private api: Api,
    private notices: NoticesState,
  ) {
    this.paused = $derived(this.prefs?.sharingPaused ?? false);
    this.offerStartAtLogin = $derived(this.prefs?.offerStartAtLogin ?? false);
  }

  /** Fetches the preferences again; an answer older than the last asked is dropped. */
  async load(): Promise<void> {
    const token = ++this.token;
    try {
      const prefs = await this.api.preferences();
      if (token === this.token) this.prefs = prefs;
    } catch (e) {
      this.notices.notify(plainMessage(e));
    }
  }

  /** Runs one change, then shows what the backend holds after it (whatever happened). */
  private async change(what: () => Promise<unknown>): Promise<void> {
    this.saving = true;
    try {
      await what();
    } catch (e) {
      this.notices.notify(plainMessage(e));
    } finally {
      this.saving = false;
      await this.load();
    }
  }

  /** Pauses all sharing, or resumes it. */
  setPaused(paused: boolean): Promise<void> {
    return this.change(() => this.api.setSharingPaused(paused));
  }

  /** Turns one kind of notification on or off, keeping the others. */
  setNotify(choice: NotifyChoice, on: boolean): Promise<void> {
    const now = this.prefs?.notify;
    if (!now) return Promise.resolve();
    return this.change(() => this.api.setNotifyChoices({ ...now, [choice]: on }));
  }

  /** The MCP Registry to search and install from; empty: the default. */
  setRegistry(address: string): Promise<void> {
    return this.change(() => this.api.setRegistry(address.trim()));
  }

  /** How long a server no AI app session uses keeps running for the next. */
  setUnusedServerMinutes(minutes: number): Promise<void> {
    return this.change(() => this.api.setUnusedServerMinutes(minutes));
  }

  /** Starts Rootgate at login (in the tray), or stops; either answers the offer. */
  setStartAtLogin(on: boolean): Promise<void> {
    return this.change(() => this.api.setStartAtLogin(on));
  }

  /** Puts the offer away; it is not made again. */
  dismissOffer(): Promise<void> {
    return this.change(() => this.api.dismissStartAtLogin());
  }

  /** A settings change (a pause from the tray, a route's offer) shows at once. */
  onChanges(changes: readonly Change[]): void {
    if (changes.some((c) => c.kind === "settings")) void this.load();
  }
}
