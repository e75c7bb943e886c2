// What changed between two texts, line by line, as a unified diff that
// DiffView.svelte shows: for a changed tool, its description and its
// input schema before and now (issue #29). The lines are matched by the
// same longest common subsequence as the approval dialog's word diff
// (worddiff.ts); a text too long to match whole is shown as its old lines
// removed and its new lines added, which is still true.
//
// Pure, so every case is unit tested. Not here: the texts themselves (the
// core keeps what it saw of each tool) or how the diff is drawn.

import { common } from "./worddiff";

/** The lines of `text`, without the empty one a final newline leaves. */
function lines(text: string): string[] {
  if (text === "") return [];
  const out = text.replace(/\r\n/g, "\n").split("\n");
  if (out[out.length - 1] === "") out.pop();
  return out;
}

/**
 * `before` and `after` as one hunk of a unified diff: a `@@` heading (so
 * that a removed line starting with `--` is not read as a file header),
 * then every line of both, each marked " " (in both), "-" (only before)
 * or "+" (only now), removals before additions where they meet. The whole
 * texts are shown, not only the lines near a change: a tool's description
 * and schema are short, and the person should see them in full.
 */
export function lineDiff(before: string, after: string): string {
  const a = lines(before);
  const b = lines(after);
  const { inA, inB } = common(a, b);
  const out = [`@@ -1,${a.length} +1,${b.length} @@`];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && (!inA[i] || j >= b.length)) out.push(`-${a[i++]}`);
    else if (j < b.length && (!inB[j] || i >= a.length)) out.push(`+${b[j++]}`);
    else {
      // Both are in the common subsequence, in the same order: the same line.
      out.push(` ${a[i]}`);
      i++;
      j++;
    }
  }
  return `${out.join("\n")}\n`;
}

/** Whether two texts differ in more than line endings. */
export function differs(before: string, after: string): boolean {
  return lines(before).join("\n") !== lines(after).join("\n");
}
