// Characters that are shown as nothing, or that reorder the text around
// them, written out so that what a person reads is what is there: a folder
// named `invoice\u202Efdp.exe` is shown `invoice<U+202E>fdp.exe`, never
// `invoiceexe.pdf`. The same set as the core's `names::is_hidden` and
// `names::written_out` (crates/rootgate-core/src/names.rs): bidirectional
// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the
// direction marks (U+061C, U+200E, U+200F), the zero-width spaces (U+200B,
// U+2060, U+FEFF) and every control character; not the joiners (U+200C,
// U+200D), which Persian and the Indic scripts write with.
//
// Pure, so every case is unit tested. Show text through VisibleText.svelte
// (or PathText.svelte for a path), which isolates it and draws each written
// out character as a marker; use `writtenOut` where only a string can go (a
// tooltip, an aria-label, a dialog's eyebrow).

/** Whether the code point `c` reorders the text after it (the core's `names::reorders`). */
export function reorders(c: number): boolean {
  return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/** Whether the code point `c` is a control character (Unicode Cc, Rust's `char::is_control`). */
export function isControl(c: number): boolean {
  return c <= 0x1f || (c >= 0x7f && c <= 0x9f);
}

/** Whether the code point `c` is written out: hidden, reordering or a control character. */
export function isHidden(c: number): boolean {
  return (
    reorders(c) ||
    isControl(c) ||
    c === 0x061c ||
    c === 0x200b ||
    c === 0x200e ||
    c === 0x200f ||
    c === 0x2060 ||
    c === 0xfeff
  );
}

// One of them anywhere (all are in the BMP, so no `u` flag is needed).
const ANY_HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;
// A character written out as the core writes it, in text it sent.
const WRITTEN = /<U\+([0-9A-F]{4,6})>/g;

/** `U+202E`, as the core writes a code point (at least four upper-case hex digits). */
export function codeName(c: number): string {
  return `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Whether `text` holds a character that is written out. */
export function hasHidden(text: string): boolean {
  return ANY_HIDDEN.test(text);
}

/**
 * Whether `text` holds a hidden character, raw or already written out as
 * `<U+202E>` (as the core writes default names and warnings).
 */
export function holdsHidden(text: string): boolean {
  if (hasHidden(text)) return true;
  for (const m of text.matchAll(WRITTEN)) if (isHidden(parseInt(m[1], 16))) return true;
  return false;
}

/** `text` with every hidden character written out as `<U+XXXX>` (the core's `written_out`). */
export function writtenOut(text: string): string {
  if (!hasHidden(text)) return text;
  let out = "";
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    out += isHidden(c) ? `<${codeName(c)}>` : ch;
  }
  return out;
}

const NAMES: Record<number, string> = {
  0x0000: "NULL",
  0x0009: "CHARACTER TABULATION",
  0x000a: "LINE FEED",
  0x000d: "CARRIAGE RETURN",
  0x001b: "ESCAPE",
  0x007f: "DELETE",
  0x061c: "ARABIC LETTER MARK",
  0x200b: "ZERO WIDTH SPACE",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2060: "WORD JOINER",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE",
};

/** What a written-out character is, for its marker's tooltip. */
export function describeHidden(c: number): string {
  const code = codeName(c);
  const name = NAMES[c];
  const what = reorders(c)
    ? "an invisible character that changes the order in which the text after it is shown"
    : isControl(c)
      ? "a control character"
      : c === 0x061c || c === 0x200e || c === 0x200f
        ? "an invisible direction mark"
        : "an invisible character";
  return `${code}${name ? ` ${name}` : ""}: ${what}, written out so it cannot disguise what is shown`;
}

/** A run of plain text, or one hidden character written out (`text` is then `<U+202E>`). */
export type VisiblePart = { text: string; hidden: false } | { text: string; hidden: true; code: number; title: string };

function marker(c: number): VisiblePart {
  return { text: `<${codeName(c)}>`, hidden: true, code: c, title: describeHidden(c) };
}

/**
 * `text` in parts for showing: runs of plain text, and each hidden character
 * written out as a marker. A character the core already wrote out
 * (`<U+202E>` in the text itself) is a marker too, when it names one of
 * the hidden ones: what is shown is then the same whichever side wrote it
 * out. Joined, the parts' texts are `writtenOut(text)`.
 */
export function visibleParts(text: string): VisiblePart[] {
  const parts: VisiblePart[] = [];
  let plain = "";
  const flush = () => {
    if (plain !== "") parts.push({ text: plain, hidden: false });
    plain = "";
  };
  const literal = text.includes("<U+");
  if (!literal && !hasHidden(text)) return text === "" ? [] : [{ text, hidden: false }];
  let i = 0;
  while (i < text.length) {
    if (literal && text.startsWith("<U+", i)) {
      const m = /^<U\+([0-9A-F]{4,6})>/.exec(text.slice(i, i + 11));
      const c = m ? parseInt(m[1], 16) : -1;
      if (m && isHidden(c)) {
        flush();
        parts.push(marker(c));
        i += m[0].length;
        continue;
      }
    }
    const c = text.codePointAt(i) ?? 0;
    const ch = String.fromCodePoint(c);
    if (isHidden(c)) {
      flush();
      parts.push(marker(c));
    } else {
      plain += ch;
    }
    i += ch.length;
  }
  flush();
  return parts;
}
