// What changed between two command lines, word by word, for the approval
// dialog's "what changed": the words of each line (as a POSIX shell splits
// it: a quoted word with spaces in it is one word), matched by a longest
// common subsequence, each side then in parts that are the same in both,
// or only in the old one (removed) or the new one (added). Pure, so every
// case is unit tested.
//
// Joined, one side's parts are exactly its line, spaces included: the
// dialog shows the line as it will run, with the changed words marked.

export type DiffKind = "same" | "removed" | "added";

export interface DiffPart {
  text: string;
  kind: DiffKind;
}

/** One piece of a command line: a word, or the white space between words. */
export interface ShellToken {
  text: string;
  space: boolean;
}

/**
 * `line` split as a POSIX shell splits words: white space outside quotes
 * separates them; single quotes hold anything up to the next one; a
 * backslash outside single quotes takes the next character; double quotes
 * hold anything up to the next unescaped one. The tokens keep their text as
 * written (quotes included), and the white space between words is kept as
 * tokens of its own, so joined they are `line`. An unclosed quote runs to
 * the end of the line.
 */
export function shellTokens(line: string): ShellToken[] {
  const out: ShellToken[] = [];
  let i = 0;
  const isSpace = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r";
  while (i < line.length) {
    const start = i;
    if (isSpace(line[i])) {
      while (i < line.length && isSpace(line[i])) i++;
      out.push({ text: line.slice(start, i), space: true });
      continue;
    }
    while (i < line.length && !isSpace(line[i])) {
      const c = line[i];
      if (c === "'") {
        const end = line.indexOf("'", i + 1);
        i = end < 0 ? line.length : end + 1;
      } else if (c === '"') {
        i++;
        while (i < line.length && line[i] !== '"') i += line[i] === "\\" ? 2 : 1;
        i = Math.min(line.length, i + 1);
      } else if (c === "\\") {
        i = Math.min(line.length, i + 2);
      } else {
        i++;
      }
    }
    out.push({ text: line.slice(start, i), space: false });
  }
  return out;
}

/** Beyond this many word pairs, the middle that differs is not matched word by word, but marked whole. */
const MAX_CELLS = 250_000;

/**
 * For each word of `a` and of `b`, whether it is in a longest common
 * subsequence of the two. Any strings will do: linediff.ts gives it lines.
 */
export function common(a: string[], b: string[]): { inA: boolean[]; inB: boolean[] } {
  const inA = a.map(() => false);
  const inB = b.map(() => false);
  // The same start and end are matched as they are; only the middle needs the table.
  let lo = 0;
  while (lo < a.length && lo < b.length && a[lo] === b[lo]) {
    inA[lo] = inB[lo] = true;
    lo++;
  }
  let endA = a.length;
  let endB = b.length;
  while (endA > lo && endB > lo && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
    inA[endA] = inB[endB] = true;
  }
  const n = endA - lo;
  const m = endB - lo;
  if (n === 0 || m === 0 || n * m > MAX_CELLS) return { inA, inB };
  // lengths[i][j]: the longest common subsequence of a[lo+i..endA] and b[lo+j..endB].
  const lengths: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i][j] =
        a[lo + i] === b[lo + j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[lo + i] === b[lo + j]) {
      inA[lo + i] = inB[lo + j] = true;
      i++;
      j++;
    } else if (lengths[i + 1][j] >= lengths[i][j + 1]) {
      i++;
    } else {
      j++;
    }
  }
  return { inA, inB };
}

/**
 * One side's parts: each word same or changed (`kind`), the space between
 * two changed words changed too (so that a run of changed words is marked
 * as one), and neighbours of the same kind merged.
 */
function sideParts(tokens: ShellToken[], kept: boolean[], kind: DiffKind): DiffPart[] {
  const kinds: DiffKind[] = [];
  let w = 0;
  for (const t of tokens) kinds.push(t.space ? "same" : kept[w++] ? "same" : kind);
  for (let i = 1; i + 1 < tokens.length; i++) {
    if (tokens[i].space && kinds[i - 1] === kind && kinds[i + 1] === kind) kinds[i] = kind;
  }
  const parts: DiffPart[] = [];
  tokens.forEach((t, i) => {
    const last = parts[parts.length - 1];
    if (last && last.kind === kinds[i]) last.text += t.text;
    else parts.push({ text: t.text, kind: kinds[i] });
  });
  return parts;
}

/**
 * The old and the new command line in parts: in `before`, the words not in
 * the new line are "removed"; in `after`, the words not in the old one are
 * "added"; the rest is "same". Joined, each side's texts are its line.
 */
export function diffWords(before: string, after: string): { before: DiffPart[]; after: DiffPart[] } {
  const a = shellTokens(before);
  const b = shellTokens(after);
  const wordsA = a.filter((t) => !t.space).map((t) => t.text);
  const wordsB = b.filter((t) => !t.space).map((t) => t.text);
  const { inA, inB } = common(wordsA, wordsB);
  return { before: sideParts(a, inA, "removed"), after: sideParts(b, inB, "added") };
}
