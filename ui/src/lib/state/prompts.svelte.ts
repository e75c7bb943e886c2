// The consent prompts waiting for the person, shown one after another
// (ConsentDialog.svelte shows the first). Prompts arrive from many places:
// the folder picker and drops, a folder's Change access, the backend's
// events, an AI app's suggestions, an import's folders; each is queued once
// however often it is heard of.
//
// Not here: answering or cancelling a prompt (FoldersState, since an answer
// is a folder's new grants) or its wording (consent.ts, prompt-batch.ts).
// This area calls no command and needs no other area.

import type { Change, ConsentPrompt, PromptId } from "../bindings";

export class PromptsState {
  /** The prompts still open, in the order they arrived. */
  queue = $state.raw<ConsentPrompt[]>([]);

  /** Adds the prompts not queued already. */
  enqueue(prompts: readonly ConsentPrompt[]): void {
    const have = new Set(this.queue.map((p) => p.id));
    const fresh = prompts.filter((p) => !have.has(p.id));
    if (fresh.length > 0) this.queue = [...this.queue, ...fresh];
  }

  /** Shows `prompt` first (a question chosen in the tray), queued if it was not. */
  bringToFront(prompt: ConsentPrompt): void {
    this.queue = [prompt, ...this.queue.filter((p) => p.id !== prompt.id)];
  }

  /** Takes an answered or cancelled prompt off the queue. */
  remove(id: PromptId): void {
    this.queue = this.queue.filter((p) => p.id !== id);
  }

  /**
   * The backend's changes that bring prompts, or close them (a question
   * answered on the desktop): the root hands every batch to each area.
   */
  onChanges(changes: readonly Change[]): void {
    for (const c of changes) {
      if (c.kind === "prompts") this.enqueue(c.prompts);
      if (c.kind === "promptsClosed") {
        const closed = new Set<PromptId>(c.prompts);
        this.queue = this.queue.filter((p) => !closed.has(p.id));
      }
    }
  }
}
