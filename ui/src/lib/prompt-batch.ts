// The consent prompt's "Folder 2 of 3": where the prompt shown stands in
// the batch of prompts it came with. The queue (PromptsState.queue) only
// holds the prompts still open, so counting in it renumbers after each
// answer or cancel ("1 of 3", then "1 of 2"); a batch remembers every
// prompt seen since the queue was last empty, so the count goes on ("2 of
// 3"), and a prompt that arrives meanwhile adds to the total. Pure, so
// every case is unit tested.

import type { PromptId } from "./bindings";

export class PromptBatch {
  private seen = new Set<PromptId>();

  /**
   * The place of the first prompt of `queue` (the one shown) in its batch,
   * 1-based, and how many the batch holds. A queue that holds none of the
   * prompts seen so far starts a new batch: the last one was all answered.
   */
  place(queue: readonly PromptId[]): { position: number; total: number } {
    if (queue.length === 0) {
      this.seen.clear();
      return { position: 0, total: 0 };
    }
    if (!queue.some((id) => this.seen.has(id))) this.seen.clear();
    for (const id of queue) this.seen.add(id);
    return { position: this.seen.size - queue.length + 1, total: this.seen.size };
  }
}

const batches = new WeakMap<object, PromptBatch>();

/** The batch of the prompts of one window (keyed by its app state). */
export function promptBatch(owner: object): PromptBatch {
  let batch = batches.get(owner);
  if (!batch) {
    batch = new PromptBatch();
    batches.set(owner, batch);
  }
  return batch;
}
