// Merging what a command returned with what events delivered meanwhile,
// by sequence number, keeping the newest `max`.

import { appendBounded } from "./virtual";

export interface Sequenced {
  seq: number;
}

/** Items of `more` newer than the last of `items`, appended, newest `max` kept. */
export function appendNewer<T extends Sequenced>(items: readonly T[], more: readonly T[], max: number): T[] {
  const last = items.length > 0 ? items[items.length - 1].seq : -Infinity;
  let fresh = more.filter((m) => m.seq > last);
  if (fresh.length > 1) {
    for (let i = 1; i < fresh.length; i++) {
      if (fresh[i].seq <= fresh[i - 1].seq) {
        fresh = [...new Map(fresh.map((f) => [f.seq, f])).values()].sort((a, b) => a.seq - b.seq);
        break;
      }
    }
  }
  return appendBounded(items, fresh, max);
}

/** Two lists merged by seq, each seq once, oldest first, newest `max` kept. */
export function mergeBySeq<T extends Sequenced>(a: readonly T[], b: readonly T[], max: number): T[] {
  if (b.length === 0) return a.length > max ? a.slice(a.length - max) : [...a];
  if (a.length === 0) return b.length > max ? b.slice(b.length - max) : [...b];
  const bySeq = new Map<number, T>();
  for (const x of a) bySeq.set(x.seq, x);
  for (const x of b) bySeq.set(x.seq, x);
  const all = [...bySeq.values()].sort((x, y) => x.seq - y.seq);
  return all.length > max ? all.slice(all.length - max) : all;
}

/**
 * Items of `older` that are older than the first of `items`, put before
 * them, as long as there is room for them within `max` (the newest of them
 * kept when there is not).
 */
export function prependOlder<T extends Sequenced>(items: readonly T[], older: readonly T[], max: number): T[] {
  const first = items.length > 0 ? items[0].seq : Infinity;
  const fresh = older.filter((o) => o.seq < first);
  const room = max - items.length;
  if (fresh.length === 0 || room <= 0) return items as T[];
  return fresh.slice(Math.max(0, fresh.length - room)).concat(items);
}
