// Arguments checked against a tool's input schema (the raw editor's text,
// and the form's arguments too) and structured content against an output
// schema, with findings in plain words; schemas that cannot be used are
// said so, not crashed on.
import { describe, expect, it } from "vitest";
import { draftOf, parseArguments, validate } from "./schema-validate";

const SCHEMA = {
  type: "object",
  properties: {
    path: { type: "string" },
    n: { type: "integer", minimum: 1 },
    d: { type: "string", format: "date" },
    mode: { enum: ["a", "b"] },
    edits: { type: "array", items: { type: "object", properties: { oldText: { type: "string" } }, required: ["oldText"] } },
  },
  required: ["path"],
  additionalProperties: false,
  $schema: "http://json-schema.org/draft-07/schema#",
};

describe("checking arguments against a schema", () => {
  it("says which draft a schema is in (2020-12 when it does not say)", () => {
    expect(draftOf({ $schema: "http://json-schema.org/draft-07/schema#" })).toBe("7");
    expect(draftOf({ $schema: "http://json-schema.org/draft-04/schema#" })).toBe("4");
    expect(draftOf({ $schema: "https://json-schema.org/draft/2019-09/schema" })).toBe("2019-09");
    expect(draftOf({ type: "object" })).toBe("2020-12");
    expect(draftOf("garbage")).toBe("2020-12");
  });

  it("takes what matches", () => {
    expect(validate(SCHEMA, { path: "a", n: 2, d: "2025-01-31", mode: "a", edits: [{ oldText: "x" }] })).toEqual({ ok: true });
  });

  it("says each thing that does not, in words, naming the argument", () => {
    const r = validate(SCHEMA, { n: 0, d: "soon", mode: "c", extra: 1, edits: [{}], path: 5 });
    expect(r).toEqual({
      ok: false,
      errors: [
        "“path” must be a string, not a number.",
        "“n”: 0 is less than 1.",
        "“d” is not in the form “date”.",
        "“mode” must be one of \"a\", \"b\".",
        "“edits[0].oldText” is required.",
        "“extra” is not an argument this tool takes.",
      ],
    });
    expect(validate(SCHEMA, {})).toEqual({ ok: false, errors: ["“path” is required."] });
  });

  it("checks references and combinations the form refuses", () => {
    const schema = {
      type: "object",
      properties: { a: { $ref: "#/$defs/x" }, b: { oneOf: [{ type: "string" }, { type: "number" }] } },
      $defs: { x: { type: "number" } },
    };
    expect(validate(schema, { a: 1, b: "s" })).toEqual({ ok: true });
    expect(validate(schema, { a: "s", b: true })).toEqual({
      ok: false,
      errors: ["“a” must be a number, not a string.", "“b” matches none of the shapes the schema allows."],
    });
  });

  it("says when the schema itself cannot be used, rather than failing", () => {
    const r = validate({ type: "object", properties: { a: { $ref: "#/nope" } } }, { a: 1 });
    expect(r.ok).toBe(null);
    if (r.ok === null) expect(r.why).toMatch(/Unresolved \$ref/);
  });
});

describe("the raw editor's text", () => {
  it("must be JSON", () => {
    const r = parseArguments('{"path": ', SCHEMA);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatch(/^This is not JSON: /);
  });

  it("must be an object", () => {
    expect(parseArguments("[1]", SCHEMA)).toEqual({
      ok: false,
      errors: ['The arguments must be a JSON object, in braces: { "name": value, … }.'],
    });
  });

  it("is empty arguments when empty", () => {
    expect(parseArguments("  ", { type: "object" })).toEqual({ ok: true, args: {}, unchecked: null });
  });

  it("must match the schema", () => {
    expect(parseArguments('{"n": 3}', SCHEMA)).toEqual({ ok: false, errors: ["“path” is required."] });
    expect(parseArguments('{"path": "/home/me/a.txt"}', SCHEMA)).toEqual({
      ok: true,
      args: { path: "/home/me/a.txt" },
      unchecked: null,
    });
  });

  it("is sent unchecked, saying so, when the schema cannot be used", () => {
    const r = parseArguments('{"a": 1}', { type: "object", properties: { a: { $ref: "#/nope" } } });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.unchecked).toMatch(/Unresolved/);
  });
});
