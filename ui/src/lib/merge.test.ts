import { describe, expect, it } from "vitest";
import { appendNewer, mergeBySeq, prependOlder } from "./merge";

const s = (...seqs: number[]) => seqs.map((seq) => ({ seq }));

describe("appendNewer", () => {
  it("skips items already present", () => {
    expect(appendNewer(s(1, 2, 3), s(2, 3, 4, 5), 10)).toEqual(s(1, 2, 3, 4, 5));
  });
  it("bounds the result", () => {
    expect(appendNewer(s(1, 2, 3), s(4, 5), 3)).toEqual(s(3, 4, 5));
  });
  it("orders and deduplicates an unordered batch", () => {
    expect(appendNewer(s(1), s(3, 2, 3), 10)).toEqual(s(1, 2, 3));
  });
});

describe("mergeBySeq", () => {
  it("merges a fetched list with items that arrived meanwhile", () => {
    expect(mergeBySeq(s(1, 2, 3), s(3, 4), 10)).toEqual(s(1, 2, 3, 4));
  });
  it("keeps the newest max", () => {
    expect(mergeBySeq(s(1, 2, 3), s(4, 5), 2)).toEqual(s(4, 5));
  });
  it("handles empty sides", () => {
    expect(mergeBySeq([], s(1), 5)).toEqual(s(1));
    expect(mergeBySeq(s(1), [], 5)).toEqual(s(1));
  });
});

describe("prependOlder", () => {
  it("puts older items first, skipping any not older than the first shown", () => {
    expect(prependOlder(s(5, 6), s(2, 3, 4, 5), 10)).toEqual(s(2, 3, 4, 5, 6));
  });
  it("keeps the newest of them when there is not room for all", () => {
    expect(prependOlder(s(5, 6), s(1, 2, 3, 4), 4)).toEqual(s(3, 4, 5, 6));
  });
  it("changes nothing when the list is full or nothing is older", () => {
    const full = s(5, 6);
    expect(prependOlder(full, s(1), 2)).toBe(full);
    expect(prependOlder(full, s(7), 5)).toBe(full);
  });
  it("fills an empty list", () => {
    expect(prependOlder([], s(1, 2), 5)).toEqual(s(1, 2));
  });
});
