// The questions Rootgate asked when an AI app needed a folder ("Claude Code
// is working in ~/code/app. Share it with files?"), asked on the desktop or
// waiting in the window, with the answers given: the Questions view lists
// them newest first and changes any answer. A Share goes through the
// consent prompt's warnings as any share does (the backend hands back the
// prompt to show when the folder has one); a Not now on a folder that is
// shared withdraws it from that server, after the person confirms.
//
// Not here: the consent prompt itself (PromptsState, FoldersState), the
// words for times and paths (format.ts), or where the view is (nav).

import type { Answer, Change, QuestionView } from "../bindings";
import { plainMessage, type Api } from "../api";
import type { NoticesState } from "./notices.svelte";
import type { PromptsState } from "./prompts.svelte";

/** Newest first, as the core lists them. */
export function newestFirst(list: readonly QuestionView[]): QuestionView[] {
  return [...list].sort((a, b) => b.askedAtMs - a.askedAtMs);
}

/** The answer in words: "Share", "Not now", or "No answer yet". */
export function answerText(q: QuestionView): string {
  if (q.answer === "share") return "Share";
  if (q.answer === "notNow") return "Not now";
  return "No answer yet";
}

export class QuestionsState {
  /** Every question, newest first. */
  list = $state.raw<QuestionView[]>([]);
  /** The question whose answer is on its way (its buttons wait). */
  busy = $state<number | null>(null);
  /** Questions not answered yet. */
  pending: number = $derived(this.list.filter((q) => q.answer === null).length);

  constructor(
    private api: Api,
    private notices: NoticesState,
    private prompts: PromptsState,
  ) {}

  /** Whether a change brought the list since start (the list fetched then is older). */
  private heard = false;

  /** The list as fetched at start, unless a change brought a newer one meanwhile. */
  loaded(list: readonly QuestionView[]): void {
    if (!this.heard) this.list = newestFirst(list);
  }

  /** The backend's changes: the whole list, whenever a question is asked or answered. */
  onChanges(changes: readonly Change[]): void {
    for (const c of changes) {
      if (c.kind === "questions") {
        this.heard = true;
        this.list = newestFirst(c.questions);
      }
    }
  }

  /**
   * The person's answer to `q`. Share: shared at once, or its consent
   * prompt (with the folder's warnings) to answer first. Not now on a
   * folder shared with the server: withdrawn from it, once confirmed.
   */
  async answer(q: QuestionView, answer: Answer): Promise<void> {
    if (this.busy !== null) return;
    if (answer === "notNow" && q.shared) {
      const ok = await this.notices.confirm({
        title: `Withdraw this folder from ${q.serverName}?`,
        body: `${q.folder} is shared with ${q.serverName} now. Not now withdraws it from ${q.serverName} at once; other servers keep it.`,
        ok: "Withdraw",
        danger: true,
      });
      if (!ok) return;
    }
    this.busy = q.id;
    try {
      const prompt = await this.api.answerQuestion(q.id, answer);
      if (prompt) this.prompts.enqueue([prompt]);
      this.list = newestFirst(await this.api.listQuestions());
    } catch (e) {
      this.notices.notify(plainMessage(e));
    } finally {
      this.busy = null;
    }
  }
}
