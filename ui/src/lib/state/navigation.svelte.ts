// Where the window is: the view shown, the server's or connection's detail
// open in it, and the places the person came from (Alt+Left goes back
// through them). Showing a view, opening or closing a detail and going back
// all pass through here, so the history is kept in one place.
//
// Not here: what a detail shows (ServerDetailState, ConnectionsState) or
// which servers and connections exist. Those areas are reached through
// `Places`, a narrow interface the root gives this one, so that this file
// imports no other area (the areas that need to know where the window is
// import this one instead).

import type { ConnectionId, ServerId } from "../bindings";

export type View = "folders" | "servers" | "activity" | "connections" | "apps" | "questions" | "settings";

/** Where the window is: a view, and the detail open in it (Alt+Left goes back through these). */
export interface Place {
  view: View;
  detail: ServerId | null;
  connection: ConnectionId | null;
}

export function samePlace(a: Place, b: Place): boolean {
  return a.view === b.view && a.detail === b.detail && a.connection === b.connection;
}

/** How many places back Alt+Left can go. */
export const MAX_HISTORY = 50;

/** What going somewhere needs from the other areas (the root wires it). */
export interface Places {
  /** Whether the server or connection a place shows still exists (a removed server's does not). */
  exists(place: Place): boolean;
  /** Loads what the server's detail just opened shows. */
  loadServer(id: ServerId): Promise<void>;
  /** Forgets what the server's detail just closed showed. */
  clearServer(): void;
  /** Loads what the connection's detail just opened shows. */
  loadConnection(id: ConnectionId): Promise<void>;
  /** Forgets what the connection's detail just closed showed. */
  clearConnection(): void;
  /** A view gone back to, which fetches what may have changed meanwhile (the Apps view its apps). */
  returnedTo(view: View): void;
}

export class NavigationState {
  view = $state<View>("folders");
  /** The server whose detail is open in the Servers view. */
  detail = $state<ServerId | null>(null);
  /** The AI app's connection whose detail is open in the Connections view. */
  connection = $state<ConnectionId | null>(null);

  /** Where the person was, oldest first, for Alt+Left. */
  private history: Place[] = [];

  constructor(private places: Places) {}

  /** Where the window is now. */
  get place(): Place {
    return { view: this.view, detail: this.detail, connection: this.connection };
  }

  /** Notes where the window is, before it goes elsewhere, for Alt+Left. */
  private remember(): void {
    const here = this.place;
    const last = this.history.at(-1);
    if (last && samePlace(last, here)) return;
    this.history.push(here);
    if (this.history.length > MAX_HISTORY) this.history.splice(0, this.history.length - MAX_HISTORY);
  }

  /**
   * Shows a view's list (the sidebar, Ctrl+1…5): a detail open in it
   * closes, so the Servers item (or Ctrl+2) in a server's detail goes back
   * to the list.
   */
  show(view: View): void {
    const to: Place = { view, detail: null, connection: null };
    if (samePlace(this.place, to)) return;
    this.remember();
    this.view = view;
    this.clearDetail();
    this.clearConnection();
  }

  /**
   * Goes back to where the person was before (Alt+Left), skipping places
   * that are gone (a removed server). With nowhere to go back to, a
   * detail goes up to its list. Returns whether it went anywhere.
   */
  back(): boolean {
    while (this.history.length > 0) {
      const to = this.history.pop() as Place;
      if (samePlace(to, this.place)) continue;
      if (!this.places.exists(to)) continue;
      if (to.detail !== null) void this.enterDetail(to.detail);
      else if (to.connection !== null) void this.enterConnection(to.connection);
      else {
        this.view = to.view;
        this.clearDetail();
        this.clearConnection();
        this.places.returnedTo(to.view);
      }
      return true;
    }
    return this.up();
  }

  /** From a detail, up to its list (Escape, the detail's Back); returns whether there was one. */
  up(): boolean {
    if (this.detail !== null) {
      this.closeDetail();
      return true;
    }
    if (this.connection !== null) {
      this.closeConnection();
      return true;
    }
    return false;
  }

  /** Opens a server's detail: its timeline, log and folders. */
  async openDetail(id: ServerId): Promise<void> {
    if (!samePlace(this.place, { view: "servers", detail: id, connection: null })) this.remember();
    await this.enterDetail(id);
  }

  private async enterDetail(id: ServerId): Promise<void> {
    this.clearConnection();
    this.view = "servers";
    this.detail = id;
    await this.places.loadServer(id);
  }

  /** Closes the server's detail, back to the list. */
  closeDetail(): void {
    if (this.detail === null) return;
    this.remember();
    this.clearDetail();
  }

  /** Closes the server's detail without a step back to it (the server is gone). */
  clearDetail(): void {
    this.detail = null;
    this.places.clearServer();
  }

  /** Opens a connection's detail: its facts and what happened on it. */
  async openConnection(id: ConnectionId): Promise<void> {
    if (!samePlace(this.place, { view: "connections", detail: null, connection: id })) this.remember();
    await this.enterConnection(id);
  }

  private async enterConnection(id: ConnectionId): Promise<void> {
    this.clearDetail();
    this.view = "connections";
    this.connection = id;
    await this.places.loadConnection(id);
  }

  /** Closes the connection's detail, back to the list. */
  closeConnection(): void {
    if (this.connection === null) return;
    this.remember();
    this.clearConnection();
  }

  private clearConnection(): void {
    this.connection = null;
    this.places.clearConnection();
  }
}
