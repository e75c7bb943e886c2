// The record of AI apps' calls (every call through a bridge, the last 30
// days, kept beside the settings by the bridges): what the Connections
// view's "Record of calls" shows, searched by words and by how calls ended,
// and exported to a file the person picks in the native save dialog.
//
// Not here: the live connections and their counts (ConnectionsState), and
// anything the record keeps (the core reads and writes it; arguments are
// never kept).

import type { CallQuery, CallRecord, ExportFormat } from "../bindings";
import { plainMessage, type Api } from "../api";
import type { NoticesState } from "./notices.svelte";

/** How many records the window shows at once; the count says how many more matched. */
export const SHOWN = 200;

/** The outcomes a search can keep to, as the record words them. */
export const KINDS = ["ok", "error", "refused", "cancelled"] as const;
export type Kind = (typeof KINDS)[number];

export class CallsRecordState {
  text = $state("");
  kind = $state<Kind | "">("");
  records = $state.raw<CallRecord[]>([]);
  /** How many matched in all (the window shows at most SHOWN). */
  matched = $state(0);
  /** Lines of the record that could not be read (a torn write, a hand edit). */
  unreadable = $state(0);
  searching = $state(false);
  exporting = $state(false);
  /** Searched at least once (before that, nothing is said about the record). */
  searched = $state(false);
  error = $state<string | null>(null);

  private api: Api;
  private notices: NoticesState;
  /** The newest search wins: an older answer that arrives late is dropped. */
  private asked = 0;

  constructor(api: Api, notices: NoticesState) {
    this.api = api;
    this.notices = notices;
  }

  private query(limit: number | null): CallQuery {
    return { text: this.text.trim(), kind: this.kind === "" ? null : this.kind, limit };
  }

  async search(): Promise<void> {
    const asked = ++this.asked;
    this.searching = true;
    try {
      const found = await this.api.searchCalls(this.query(SHOWN));
      if (asked !== this.asked) return;
      this.records = found.records;
      this.matched = found.matched;
      this.unreadable = found.unreadable;
      this.error = null;
      this.searched = true;
    } catch (e) {
      if (asked === this.asked) this.error = plainMessage(e);
    } finally {
      if (asked === this.asked) this.searching = false;
    }
  }

  /** Exports every call that matches (not only those shown); nothing happens when the dialog is cancelled. */
  async export(format: ExportFormat): Promise<void> {
    this.exporting = true;
    try {
      const done = await this.api.exportCalls(this.query(null), format);
      if (done) {
        this.notices.notify(`${done.count} ${done.count === 1 ? "call" : "calls"} exported to ${done.path}.`, "info");
      }
    } catch (e) {
      this.notices.notify(plainMessage(e));
    } finally {
      this.exporting = false;
    }
  }
}
