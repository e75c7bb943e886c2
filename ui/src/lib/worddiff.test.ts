import { describe, expect, it } from "vitest";
import { diffWords, shellTokens } from "./worddiff";

const words = (line: string) => shellTokens(line).filter((t) => !t.space).map((t) => t.text);
const marked = (parts: { text: string; kind: string }[]) => parts.filter((p) => p.kind !== "same").map((p) => p.text);

describe("shellTokens", () => {
  it("splits at white space outside quotes, keeping each word as written", () => {
    expect(words("npx -y '@scope/pkg' 'a folder' \"b c\" d\\ e")).toEqual([
      "npx",
      "-y",
      "'@scope/pkg'",
      "'a folder'",
      '"b c"',
      "d\\ e",
    ]);
  });
  it("keeps the core's quoting of a quote as one word", () => {
    expect(words("echo 'it'\\''s' next")).toEqual(["echo", "'it'\\''s'", "next"]);
  });
  it("joins back to the line, spaces and an unclosed quote included", () => {
    for (const line of ["a  b\tc", " lead", "x 'open quote", 'y "open', "z \\"]) {
      expect(shellTokens(line).map((t) => t.text).join("")).toBe(line);
    }
  });
});

describe("diffWords", () => {
  it("marks a changed version as removed on the old side and added on the new", () => {
    const d = diffWords("npx -y @scope/pkg@1.0.0 /srv", "npx -y @scope/pkg@1.1.0 /srv");
    expect(marked(d.before)).toEqual(["@scope/pkg@1.0.0"]);
    expect(marked(d.after)).toEqual(["@scope/pkg@1.1.0"]);
    expect(d.before.map((p) => p.kind)).toEqual(["same", "removed", "same"]);
  });
  it("marks an added argument, and nothing on the old side", () => {
    const d = diffWords("node server.js", "node server.js --verbose");
    expect(marked(d.before)).toEqual([]);
    expect(marked(d.after)).toEqual(["--verbose"]);
  });
  it("marks a run of changed words as one part, the spaces between them included", () => {
    const d = diffWords("srv --a 1 --b 2", "srv --x 9 --b 2");
    expect(marked(d.before)).toEqual(["--a 1"]);
    expect(marked(d.after)).toEqual(["--x 9"]);
  });
  it("matches words that moved apart by what stays in common", () => {
    const d = diffWords("a b c d e", "a x c d y e");
    expect(marked(d.before)).toEqual(["b"]);
    expect(marked(d.after)).toEqual(["x", "y"]);
  });
  it("treats a quoted word with spaces as one word", () => {
    const d = diffWords("srv 'my folder'", "srv 'my other folder'");
    expect(marked(d.after)).toEqual(["'my other folder'"]);
  });
  it("gives back each line whole, joined", () => {
    const before = "API_TOKEN=… uvx mcp-server-git==1 --repository '/home/me/a b'";
    const after = "uvx mcp-server-git==2 --repository '/home/me/a b' --read-only";
    const d = diffWords(before, after);
    expect(d.before.map((p) => p.text).join("")).toBe(before);
    expect(d.after.map((p) => p.text).join("")).toBe(after);
  });
  it("marks everything when nothing is in common, and nothing when all is", () => {
    expect(diffWords("a b", "c d").after).toEqual([{ text: "c d", kind: "added" }]);
    expect(diffWords("a b", "a b").after).toEqual([{ text: "a b", kind: "same" }]);
    expect(diffWords("", "a").after).toEqual([{ text: "a", kind: "added" }]);
  });
  it("stays quick for a very long line", () => {
    const long = Array.from({ length: 3000 }, (_, i) => `w${i}`);
    const changed = long.map((w, i) => (i % 2 === 0 ? `${w}x` : w));
    const d = diffWords(long.join(" "), changed.join(" "));
    expect(d.after.map((p) => p.text).join("")).toBe(changed.join(" "));
  });
});
