import { describe, expect, it } from "vitest";
import type { ServerSpec } from "./bindings";
import {
  draftToForm,
  emptyForm,
  envProblem,
  envRow,
  envRowsOf,
  formToDraft,
  keepsValue,
  parseArgs,
  parseEnv,
  pastedRows,
  pasteInto,
  renamed,
  rowsToEnv,
  uniqueName,
  unmasksValue,
} from "./draft";

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
  const base = { ...emptyForm(), name: " Files ", command: " npx ", args: "-y\npkg", env: [envRow("A", "1")] };

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
        secretEnv: [],
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
    const r = formToDraft({ ...base, env: [envRow("MY VAR", "x")] });
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
      secretEnv: ["API_KEY"],
    };
    expect(formToDraft(draftToForm({ ...draft, env: { ...draft.env, API_KEY: "sk-1" } }))).toEqual({
      ok: true,
      value: { ...draft, env: { K: "v=w", API_KEY: "sk-1" } },
    });
  });
});

describe("the environment's rows", () => {
  it("marks a variable secret by default when its name looks secret, until the person chooses", () => {
    let row = envRow();
    expect(row.secret).toBe(false);
    row = renamed(row, "API_TOK");
    expect(row.secret).toBe(false);
    row = renamed(row, "API_TOKEN");
    expect(row.secret).toBe(true);
    // The person unticks it: typing on in the name no longer ticks it.
    row = { ...row, secret: false, chosen: true };
    expect(renamed(row, "API_TOKEN_2").secret).toBe(false);
  });

  it("sends the secret names as secretEnv, and leaves empty rows out", () => {
    const rows = [envRow("API_TOKEN", "sk-1"), envRow("", ""), envRow(" DEBUG ", "1"), envRow("PLAIN_KEY", "k", { secret: false, chosen: true })];
    expect(rowsToEnv(rows)).toEqual({ env: { API_TOKEN: "sk-1", DEBUG: "1", PLAIN_KEY: "k" }, secretEnv: ["API_TOKEN"] });
  });

  it("says what is wrong with the first wrong row, and where", () => {
    expect(envProblem([envRow("A", "1"), envRow("", "x")])).toEqual({
      index: 1,
      part: "name",
      message: "Environment variable 2 has a value but no name. Give it one, or remove it.",
    });
    expect(envProblem([envRow("A=1", "")])?.message).toMatch(/cannot contain “=”/);
    expect(envProblem([envRow("MY VAR", "")])?.message).toMatch(/cannot contain spaces/);
    expect(envProblem([envRow("1ST", "")])?.message).toMatch(/cannot start with a digit/);
    expect(envProblem([envRow("A", "1"), envRow("B", "2"), envRow("A", "3")])?.message).toMatch(/variables 1 and 3/);
    expect(envProblem([envRow(), envRow("EMPTY", "")])).toBeNull();
  });

  const saved: ServerSpec = {
    id: "s1",
    name: "GitHub",
    command: "gh-mcp",
    args: [],
    env: { API_TOKEN: "", DEBUG: "1", OLD_KEY: "" },
    secrets: { API_TOKEN: "keyring", OLD_KEY: "notStored" },
    cwd: null,
    enabled: true,
    withdrawal: "notify",
    enforceRoots: false,
    approvedCommand: null,
    ignoresListChanged: false,
    era: "auto",
    seenEra: null,
  };

  it("shows a saved server's secrets as kept, with no value, and keeps them when left empty", () => {
    const rows = envRowsOf(saved, ["OLD_KEY"]);
    expect(rows.map((r) => [r.name, r.value, r.secret, r.kept])).toEqual([
      ["API_TOKEN", "", true, { name: "API_TOKEN", place: "keyring", missing: false }],
      ["DEBUG", "1", false, null],
      ["OLD_KEY", "", true, { name: "OLD_KEY", place: "notStored", missing: true }],
    ]);
    expect(rows.every((r) => r.chosen)).toBe(true);
    expect(keepsValue(rows[0])).toBe(true);
    expect(keepsValue({ ...rows[0], value: "sk-new" })).toBe(false);
    expect(keepsValue(renamed(rows[0], "API_TOKEN2"))).toBe(false);
    expect(unmasksValue({ ...rows[0], secret: false })).toBe(true);
    // The edit sends the secret with an empty value: the backend keeps it.
    const draft = formToDraft(draftToForm(saved, ["OLD_KEY"]));
    expect(draft.ok && draft.value.env).toEqual({ API_TOKEN: "", DEBUG: "1", OLD_KEY: "" });
    expect(draft.ok && draft.value.secretEnv).toEqual(["API_TOKEN", "OLD_KEY"]);
  });

  it("leaves a template's secrets to the names unless it names them", () => {
    const template = { ...saved, env: { GITHUB_TOKEN: "", LOG: "x" } } as Partial<ServerSpec>;
    delete template.secrets;
    const rows = envRowsOf(template as never);
    expect(rows.map((r) => [r.name, r.secret, r.chosen])).toEqual([
      ["GITHUB_TOKEN", true, false],
      ["LOG", false, false],
    ]);
  });

  it("turns KEY=VALUE lines pasted into a name into rows", () => {
    expect(pastedRows("API_TOKEN")).toBeNull();
    expect(pastedRows("no equals\nA=1")).toBeNull();
    const pasted = pastedRows("API_TOKEN=sk-1=2\n\nDEBUG=1\n")!;
    expect(pasted.map((r) => [r.name, r.value, r.secret])).toEqual([
      ["API_TOKEN", "sk-1=2", true],
      ["DEBUG", "1", false],
    ]);
    const rows = [envRow("A", "1"), envRow(), envRow("B", "2")];
    expect(pasteInto(rows, 1, pasted).map((r) => r.name)).toEqual(["A", "API_TOKEN", "DEBUG", "B"]);
  });
});

describe("uniqueName", () => {
  it("keeps a free name and numbers a taken one", () => {
    expect(uniqueName("Example server", [])).toBe("Example server");
    expect(uniqueName("Example server", ["example SERVER"])).toBe("Example server 2");
    expect(uniqueName("A", ["A", "A 2"])).toBe("A 3");
  });
});
