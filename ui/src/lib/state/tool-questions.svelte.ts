// The AI apps' tool calls that wait for the person's answer (issue #29,
// "Consent for actions"): a call the person's tool rules say to ask about
// waits in its bridge, and the window shows it wherever the person is
// (ToolAsks.svelte), with Allow once, Always for the app, and Deny. The
// same question goes to a desktop notification; the first answer wins, and
// an answered, timed out or cancelled call leaves the list through the
// backend's `toolQuestions` change, which always carries the whole list.
//
// Also here: which waiting call is shown when several wait, and the answer
// on its way. Not here: the rules themselves (ServersState sets them), the
// countdown's clock or where focus goes (the component's), or the calls'
// record (each connection's timeline).

import type { AskAnswer, Change, ToolQuestion } from "../bindings";
import { isCode, plainMessage, type Api } from "../api";
import type { NoticesState } from "./notices.svelte";

/** A waiting call's identity: its connection and the app's request id, unique together. */
export function questionId(q: ToolQuestion): string {
  return `${q.connection}\u0000${q.ask.key}`;
}

/** Oldest first, as the core lists them: the one nearest its time running out leads. */
export function oldestFirst(list: readonly ToolQuestion[]): ToolQuestion[] {
  return [...list].sort((a, b) => a.ask.sinceMs - b.ask.sinceMs || a.ask.key.localeCompare(b.ask.key));
}

export class ToolQuestionsState {
  /** Every waiting call, oldest first. */
  list = $state.raw<ToolQuestion[]>([]);
  /** The call whose answer is on its way (its buttons wait), by questionId. */
  busy = $state<string | null>(null);
  /** The call the person moved to with Next or Previous, by questionId; none: the oldest. */
  private chosen = $state<string | null>(null);

  /** The call shown: the one chosen while it waits, else the oldest. */
  readonly current: ToolQuestion | null = $derived(
    this.list.find((q) => questionId(q) === this.chosen) ?? this.list[0] ?? null,
  );
  /** Its place in the list, from 0. */
  readonly at: number = $derived(this.current ? this.list.indexOf(this.current) : -1);

  /** Whether a change brought the list since start (the list fetched then is older). */
  private heard = false;

  constructor(
    private api: Api,
    private notices: NoticesState,
  ) {}

  /** The list as fetched at start, unless a change brought a newer one meanwhile. */
  loaded(list: readonly ToolQuestion[]): void {
    if (!this.heard) this.list = oldestFirst(list);
  }

  /** The backend's changes: the whole list, whenever a call starts or stops waiting. */
  onChanges(changes: readonly Change[]): void {
    for (const c of changes) {
      if (c.kind === "toolQuestions") {
        this.heard = true;
        this.list = oldestFirst(c.questions);
      }
    }
  }

  /** Shows the call `by` places after (or before, when negative) the one shown, within the list. */
  move(by: number): void {
    if (this.list.length === 0) return;
    const to = Math.min(this.list.length - 1, Math.max(0, this.at + by));
    this.chosen = questionId(this.list[to]);
  }

  /**
   * The person's answer to `q`. It leaves the list at once: the backend's
   * change follows, and would only say the same. When it cannot be given
   * (most often the call stopped waiting meanwhile: its time ran out, it
   * was answered on the desktop, or the app cancelled it) that is said in
   * words, and the call leaves the list too, since nothing can answer it.
   */
  async answer(q: ToolQuestion, answer: AskAnswer): Promise<void> {
    if (this.busy !== null) return;
    const id = questionId(q);
    this.busy = id;
    try {
      await this.api.answerToolQuestion(q.connection, q.ask.key, answer);
    } catch (e) {
      this.notices.notify(
        isCode(e, "notFound")
          ? `${q.appTitle}'s call to “${q.ask.tool}” no longer waits: it was answered on the desktop, its time ran out, or ${q.appTitle} cancelled it.`
          : `Your answer to ${q.appTitle}'s call to “${q.ask.tool}” could not be given: ${plainMessage(e)}`,
      );
    } finally {
      this.list = this.list.filter((other) => questionId(other) !== id);
      this.busy = null;
    }
  }
}
