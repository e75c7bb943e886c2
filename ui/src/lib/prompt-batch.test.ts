import { describe, expect, it } from "vitest";
import { PromptBatch, promptBatch } from "./prompt-batch";

describe("PromptBatch", () => {
  it("counts on after a prompt is answered or cancelled, instead of renumbering", () => {
    const b = new PromptBatch();
    expect(b.place([1, 2, 3])).toEqual({ position: 1, total: 3 });
    expect(b.place([2, 3])).toEqual({ position: 2, total: 3 });
    expect(b.place([3])).toEqual({ position: 3, total: 3 });
  });
  it("adds a prompt that arrives meanwhile to the total", () => {
    const b = new PromptBatch();
    b.place([1, 2]);
    expect(b.place([2, 3])).toEqual({ position: 2, total: 3 });
  });
  it("starts again once the batch is all answered", () => {
    const b = new PromptBatch();
    b.place([1, 2]);
    b.place([2]);
    expect(b.place([5])).toEqual({ position: 1, total: 1 });
    expect(b.place([])).toEqual({ position: 0, total: 0 });
    expect(b.place([6, 7])).toEqual({ position: 1, total: 2 });
  });
  it("is one per window", () => {
    const a = {};
    expect(promptBatch(a)).toBe(promptBatch(a));
    expect(promptBatch(a)).not.toBe(promptBatch({}));
  });
});
