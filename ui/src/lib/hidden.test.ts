import { describe, expect, it } from "vitest";
import { codeName, hasHidden, holdsHidden, isHidden, visibleParts, writtenOut } from "./hidden";

describe("writtenOut", () => {
  it("writes a reordering character out, so the name cannot read as another", () => {
    expect(writtenOut("invoice\u202Efdp.exe")).toBe("invoice<U+202E>fdp.exe");
  });
  it("writes out the same set as the core: overrides, isolates, marks, zero-width spaces and controls", () => {
    const set = [
      0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x061c, 0x200b, 0x200e, 0x200f, 0x2060,
      0xfeff, 0x00, 0x09, 0x0a, 0x1b, 0x7f, 0x85, 0x9f,
    ];
    for (const c of set) {
      expect(isHidden(c), codeName(c)).toBe(true);
      expect(writtenOut(`a${String.fromCharCode(c)}b`)).toBe(`a<${codeName(c)}>b`);
    }
    expect(writtenOut("two\nlines")).toBe("two<U+000A>lines");
  });
  it("leaves the joiners, other scripts and ordinary text alone", () => {
    for (const text of ["می\u200Cخواهم", "क्\u200Dष", "공유 폴더", "שלום", "emoji 👍🏽", "<U+0041> typed", ""]) {
      expect(writtenOut(text)).toBe(text);
      expect(hasHidden(text)).toBe(false);
    }
    expect(isHidden(0x200c)).toBe(false);
    expect(isHidden(0x200d)).toBe(false);
    expect(isHidden(0xa0)).toBe(false);
  });
  it("writes code points with at least four upper-case hex digits, as the core does", () => {
    expect(codeName(0x9)).toBe("U+0009");
    expect(codeName(0xfeff)).toBe("U+FEFF");
  });
});

describe("holdsHidden", () => {
  it("sees a hidden character raw or already written out by the core", () => {
    expect(holdsHidden("invoice\u202Efdp.exe")).toBe(true);
    expect(holdsHidden("invoice<U+202E>fdp.exe")).toBe(true);
    expect(holdsHidden("a<U+0041>b")).toBe(false);
    expect(holdsHidden("plain")).toBe(false);
  });
});

describe("visibleParts", () => {
  it("is one plain part for plain text, and none for nothing", () => {
    expect(visibleParts("notes")).toEqual([{ text: "notes", hidden: false }]);
    expect(visibleParts("")).toEqual([]);
  });
  it("makes each hidden character a marker, written out, with what it is", () => {
    const parts = visibleParts("invoice\u202Efdp.exe");
    expect(parts.map((p) => [p.text, p.hidden])).toEqual([
      ["invoice", false],
      ["<U+202E>", true],
      ["fdp.exe", false],
    ]);
    const marker = parts[1];
    expect(marker.hidden && marker.code).toBe(0x202e);
    expect(marker.hidden && marker.title).toMatch(/^U\+202E RIGHT-TO-LEFT OVERRIDE: an invisible character that changes the order/);
  });
  it("makes a marker of a character the core wrote out, so both look alike", () => {
    expect(visibleParts("invoice<U+202E>fdp.exe").map((p) => [p.text, p.hidden])).toEqual([
      ["invoice", false],
      ["<U+202E>", true],
      ["fdp.exe", false],
    ]);
  });
  it("leaves text that only looks written out, for a character that is not hidden, as text", () => {
    expect(visibleParts("a<U+0041>b<U+20")).toEqual([{ text: "a<U+0041>b<U+20", hidden: false }]);
  });
  it("joins to the written-out text, markers next to each other included", () => {
    for (const text of ["\u202E\u2066x\u200B", "a\u0000b\u00851", "ok<U+FEFF>\uFEFF", "👍\u200F👍"]) {
      expect(visibleParts(text).map((p) => p.text).join("")).toBe(writtenOut(text).replaceAll("\uFEFF", "<U+FEFF>"));
    }
    expect(visibleParts("\u202E\u2066").filter((p) => p.hidden)).toHaveLength(2);
  });
});
