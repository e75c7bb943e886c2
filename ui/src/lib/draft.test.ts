import { describe, expect, it } from "vitest";
import { draftToForm, emptyForm, formToDraft, parseArgs, parseEnv, uniqueName } from "./draft";

describe("parseArgs", () => {
  it("takes one argument per line and ignores blank lines", () => {
    expect(parseArgs("-y\n\n@modelcontextprotocol/server-filesystem\n   \n")).toEqual([
      "-y",
      "@modelcontextprotocol/server-filesystem",
    ]);
  });
  it("keeps spaces inside an argument and handles CRLF", () => {
    expect(parseArgs("--title\r\nMy Files\r\n")).toEqual(["--title", "My Files"]);
  });
  it("is empty for an empty box", () => {
    expect(parseArgs("")).toEqual([]);
  });
});

describe("parseEnv", () => {
  it("reads KEY=VALUE lines", () => {
    expect(parseEnv("A=1\nB=two")).toEqual({ ok: true, value: { A: "1", B: "two" } });
  });
  it("keeps '=' inside values", () => {
    expect(parseEnv("TOKEN=abc=def==\nURL=http://x/?a=b")).toEqual({
      ok: true,
      value: { TOKEN: "abc=def==", URL: "http://x/?a=b" },
    });
  });
  it("allows an empty value", () => {
    expect(parseEnv("EMPTY=")).toEqual({ ok: true, value: { EMPTY: "" } });
  });
  it("ignores blank lines", () => {
    expect(parseEnv("\n\nA=1\n   \n\nB=2\n")).toEqual({ ok: true, value: { A: "1", B: "2" } });
  });
  it("refuses a line without '=', naming the line", () => {
    const r = parseEnv("A=1\nNOT_AN_ASSIGNMENT");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toContain("line 2");
      expect(r.error).toContain("NOT_AN_ASSIGNMENT");
      expect(r.error).toContain("KEY=VALUE");
    }
  });
  it("refuses an empty name", () => {
    const r = parseEnv("=value");
    expect(r.ok).toBe(false);
  });
  it("refuses a name given twice", () => {
    const r = parseEnv("A=1\nB=2\nA=3");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("lines 1 and 3");
  });
  it("trims the name but keeps the value exactly", () => {
    expect(parseEnv(" KEY = spaced ")).toEqual({ ok: true, value: { KEY: " spaced " } });
  });
});

describe("formToDraft", () => {
  const base = { ...emptyForm(), name: " Files ", command: " npx ", args: "-y\npkg", env: "A=1" };

  it("builds a draft", () => {
    expect(formToDraft(base)).toEqual({
      ok: true,
      value: {
        name: "Files",
        command: "npx",
        args: ["-y", "pkg"],
        env: { A: "1" },
        cwd: null,
        enabled: true,
        withdrawal: "notify",
        enforceRoots: false,
        era: "auto",
      },
    });
  });
  it("sends a typed working directory, and none when blank", () => {
    const r = formToDraft({ ...base, cwd: " /srv/work " });
    expect(r.ok && r.value.cwd).toBe("/srv/work");
    const blank = formToDraft({ ...base, cwd: "   " });
    expect(blank.ok && blank.value.cwd).toBeNull();
  });
  it("carries enabled and withdrawal", () => {
    const r = formToDraft({ ...base, enabled: false, withdrawal: "restart" });
    expect(r.ok && r.value.enabled).toBe(false);
    expect(r.ok && r.value.withdrawal).toBe("restart");
  });
  it("says what is missing", () => {
    expect(formToDraft({ ...base, name: "  " })).toEqual({ ok: false, error: "Give the server a name." });
    expect(formToDraft({ ...base, command: "" })).toEqual({
      ok: false,
      error: "Enter the command that starts the server.",
    });
  });
  it("passes on an environment error", () => {
    const r = formToDraft({ ...base, env: "oops" });
    expect(r.ok).toBe(false);
  });
  it("round-trips through draftToForm", () => {
    const draft = {
      name: "X",
      command: "/usr/bin/x",
      args: ["a b", "--c=d"],
      env: { K: "v=w" },
      cwd: "/tmp",
      enabled: false,
      withdrawal: "restart" as const,
      enforceRoots: true,
      era: "modern" as const,
    };
    expect(formToDraft(draftToForm(draft))).toEqual({ ok: true, value: draft });
  });
});

describe("uniqueName", () => {
  it("keeps a free name and numbers a taken one", () => {
    expect(uniqueName("Example server", [])).toBe("Example server");
    expect(uniqueName("Example server", ["example SERVER"])).toBe("Example server 2");
    expect(uniqueName("A", ["A", "A 2"])).toBe("A 3");
  });
});
