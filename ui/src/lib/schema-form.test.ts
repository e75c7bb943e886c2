// The schema-to-form mapping: what each kind of schema becomes, the
// schemas it must refuse (and send to the raw editor, saying why), and
// values back to arguments. The schemas marked "(real)" are exactly what
// the npm filesystem server and the everything server list (zod's output).
import { describe, expect, it } from "vitest";
import type { JsonValue } from "./bindings";
import {
  buildForm,
  fieldHint,
  initialValues,
  newItem,
  toArguments,
  valuesFromArguments,
  type Field,
  type Value,
} from "./schema-form";

function fields(schema: JsonValue): Field[] {
  const model = buildForm(schema);
  if (!model.ok) throw new Error(`refused: ${model.reason}`);
  return model.fields;
}

function refusal(schema: JsonValue): string {
  const model = buildForm(schema);
  if (model.ok) throw new Error("the form took it");
  return model.reason;
}

const READ_TEXT_FILE = {
  type: "object",
  properties: {
    path: { type: "string" },
    tail: { description: "If provided, returns only the last N lines of the file", type: "number" },
    head: { description: "If provided, returns only the first N lines of the file", type: "number" },
  },
  required: ["path"],
  $schema: "http://json-schema.org/draft-07/schema#",
};

const EDIT_FILE = {
  type: "object",
  properties: {
    path: { type: "string" },
    edits: {
      type: "array",
      items: {
        type: "object",
        properties: {
          oldText: { type: "string", description: "Text to search for - must match exactly" },
          newText: { type: "string", description: "Text to replace with" },
        },
        required: ["oldText", "newText"],
      },
    },
    dryRun: { default: false, description: "Preview changes using git-style diff format", type: "boolean" },
  },
  required: ["path", "edits"],
  $schema: "http://json-schema.org/draft-07/schema#",
};

describe("a schema as a form", () => {
  it("(real) read_text_file: a required string and two optional numbers", () => {
    const f = fields(READ_TEXT_FILE);
    expect(f.map((x) => [x.key, x.kind, x.required])).toEqual([
      ["path", "string", true],
      ["tail", "number", false],
      ["head", "number", false],
    ]);
    expect(f[1].description).toBe("If provided, returns only the last N lines of the file");
  });

  it("puts required fields first, each group in the schema's order", () => {
    const f = fields({
      type: "object",
      properties: { head: { type: "number" }, path: { type: "string" }, tail: { type: "number" }, mode: { type: "string" } },
      required: ["path", "mode"],
    });
    expect(f.map((x) => x.key)).toEqual(["path", "mode", "head", "tail"]);
  });

  it("(real) no properties at all is a form of no fields", () => {
    expect(fields({ type: "object", properties: {}, $schema: "http://json-schema.org/draft-07/schema#" })).toEqual([]);
    expect(fields({ type: "object" })).toEqual([]);
  });

  it("(real) edit_file: a list of objects, and a boolean with a default", () => {
    const f = fields(EDIT_FILE);
    const edits = f[1];
    expect(edits.kind).toBe("array");
    if (edits.kind !== "array") return;
    expect(edits.items.kind).toBe("object");
    if (edits.items.kind !== "object") return;
    expect(edits.items.fields.map((x) => [x.key, x.required])).toEqual([
      ["oldText", true],
      ["newText", true],
    ]);
    expect(f[2]).toMatchObject({ kind: "boolean", default: false, required: false });
  });

  it("(real) enums, defaults, bounds and formats", () => {
    const f = fields({
      type: "object",
      properties: {
        count: { default: 3, description: "Number of resource links to return (1-10)", type: "number", minimum: 1, maximum: 10 },
        data: { type: "string", format: "uri" },
        sortBy: { default: "name", type: "string", enum: ["name", "size"] },
        n: { type: "integer", exclusiveMinimum: 0, multipleOf: 2 },
      },
    });
    expect(f[0]).toMatchObject({ kind: "number", integer: false, minimum: 1, maximum: 10, default: 3 });
    expect(fieldHint(f[0])).toBe("a number · 1 to 10 · default 3");
    expect(f[1]).toMatchObject({ kind: "string", format: "uri" });
    expect(fieldHint(f[1])).toBe("a URI, like https://example.com/a");
    expect(f[2]).toMatchObject({ kind: "choice", options: ["name", "size"], default: "name" });
    expect(f[3]).toMatchObject({ kind: "number", integer: true, exclusiveMinimum: 0, multipleOf: 2 });
    expect(fieldHint(f[3])).toBe("a whole number · more than 0 · a multiple of 2");
  });

  it("takes draft 4's boolean exclusiveMinimum", () => {
    expect(fields({ type: "object", properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true } } })[0]).toMatchObject({
      exclusiveMinimum: 0,
    });
  });

  it("shows a type that also takes null, written either way", () => {
    const f = fields({
      type: "object",
      properties: {
        a: { type: ["string", "null"] },
        b: { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }], description: "b" },
        c: { oneOf: [{ type: "null" }, { type: "boolean" }] },
        d: { type: "string", nullable: true },
      },
    });
    expect(f.map((x) => [x.kind, x.nullable])).toEqual([
      ["string", true],
      ["number", true],
      ["boolean", true],
      ["string", true],
    ]);
    expect(f[1]).toMatchObject({ minimum: 1, integer: true, description: "b" });
  });

  it("uses a schema's title, and a text area for long text", () => {
    const f = fields({
      type: "object",
      properties: { content: { type: "string", title: "File contents" }, path: { type: "string" } },
    });
    expect(f[0]).toMatchObject({ title: "File contents", multiline: true });
    expect(f[1]).toMatchObject({ title: "path", multiline: false });
  });

  it("takes a const as a choice of one", () => {
    expect(fields({ type: "object", properties: { v: { const: 2 } } })[0]).toMatchObject({ kind: "choice", options: [2] });
  });
});

describe("schemas the form refuses, sending the person to the raw editor", () => {
  it.each<[string, JsonValue, RegExp]>([
    ["a $ref", { type: "object", properties: { a: { $ref: "#/$defs/x" } }, $defs: { x: { type: "string" } } }, /“a” refers to another schema \(\$ref\)/],
    ["a oneOf of two shapes", { type: "object", properties: { a: { oneOf: [{ type: "string" }, { type: "number" }] } } }, /“a” takes one of several kinds of value \(oneOf\)/],
    ["an anyOf of three", { type: "object", properties: { a: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] } } }, /anyOf/],
    ["an allOf", { type: "object", properties: { a: { allOf: [{ type: "string" }, { minLength: 1 }] } } }, /combines several schemas \(allOf\)/],
    ["a root oneOf", { type: "object", oneOf: [{ required: ["a"] }, { required: ["b"] }], properties: { a: { type: "string" } } }, /several shapes \(oneOf\)/],
    ["patternProperties", { type: "object", patternProperties: { "^x-": { type: "string" } } }, /patternProperties/],
    ["a schema for additional properties", { type: "object", properties: { env: { type: "object", additionalProperties: { type: "string" } } } }, /“env” takes further properties of a given schema/],
    ["a tuple", { type: "object", properties: { p: { type: "array", items: [{ type: "number" }, { type: "number" }] } } }, /“p” is a list whose items differ by position/],
    ["prefixItems", { type: "object", properties: { p: { type: "array", prefixItems: [{ type: "number" }] } } }, /tuple/],
    ["if/then", { type: "object", properties: { a: { type: "string", if: { minLength: 2 }, then: { pattern: "^x" } } } }, /depends on a condition/],
    ["not", { type: "object", properties: { a: { not: { type: "string" } } } }, /\(not\)/],
    ["two types", { type: "object", properties: { a: { type: ["string", "number"] } } }, /more than one type of value \(string or number\)/],
    ["no type", { type: "object", properties: { a: { description: "anything" } } }, /“a” takes a value of any type/],
    ["true", { type: "object", properties: { a: true } }, /any type/],
    ["a free-form object", { type: "object", properties: { meta: { type: "object" } } }, /“meta” takes properties of any name and type/],
    ["a list of anything", { type: "object", properties: { xs: { type: "array" } } }, /“xs” is a list of values of any type/],
    ["an unknown type", { type: "object", properties: { a: { type: "date" } } }, /a type the form does not know/],
    ["a required key it does not describe", { type: "object", properties: {}, required: ["x"] }, /requires “x”, which it does not describe/],
    ["arguments that are not an object", { type: "array" }, /not an object/],
    ["garbage", "not a schema", /not an object/],
    ["a nested $ref", { type: "object", properties: { a: { type: "array", items: { $ref: "#" } } } }, /“a\.\*” refers to another schema/],
  ])("%s", (_what, schema, why) => {
    const reason = refusal(schema);
    expect(reason).toMatch(why);
    expect(reason).toMatch(/which the form cannot show faithfully\.$/);
  });

  it("refuses nesting deeper than it shows", () => {
    let s: JsonValue = { type: "string" };
    for (let i = 0; i < 12; i++) s = { type: "object", properties: { x: s } };
    expect(refusal(s)).toMatch(/nests more than 8 levels deep/);
  });

  it("refuses more fields than a form can hold", () => {
    const properties = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`f${i}`, { type: "string" }]));
    expect(refusal({ type: "object", properties })).toMatch(/more than 300 fields/);
  });
});

describe("values to arguments", () => {
  it("starts at the defaults and sends them; leaves out what is empty and optional", () => {
    const f = fields({
      type: "object",
      properties: {
        path: { type: "string" },
        count: { type: "number", default: 3 },
        dryRun: { type: "boolean", default: false },
        verbose: { type: "boolean" },
        sortBy: { type: "string", enum: ["name", "size"], default: "name" },
        mode: { type: "string", enum: ["a", "b"] },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["path"],
    });
    const values = initialValues(f);
    values.path = { kind: "text", text: "/home/me/a.txt", isNull: false };
    expect(toArguments(f, values)).toEqual({
      args: { path: "/home/me/a.txt", count: 3, dryRun: false, sortBy: "name" },
      errors: [],
    });
  });

  it("says in words what is missing or wrong, by field", () => {
    const f = fields({
      type: "object",
      properties: {
        path: { type: "string" },
        n: { type: "integer", minimum: 1, maximum: 10 },
        x: { type: "number" },
        name: { type: "string", minLength: 2, pattern: "^[a-z]+$" },
        mode: { type: "string", enum: ["a", "b"] },
      },
      required: ["path", "mode"],
    });
    const values: Record<string, Value> = {
      ...initialValues(f),
      n: { kind: "text", text: "2.5", isNull: false },
      x: { kind: "text", text: "12abc", isNull: false },
      name: { kind: "text", text: "A", isNull: false },
    };
    // Required fields first (path, mode), then the others in the schema's order.
    expect(toArguments(f, values).errors).toEqual([
      { id: "/path", message: "Fill in “path”: it is required." },
      { id: "/mode", message: "Choose “mode”: it is required." },
      { id: "/n", message: "“n” must be a whole number." },
      { id: "/x", message: "“x” must be a number, such as 42 or 0.5." },
      { id: "/name", message: "“name” needs at least 2 characters." },
    ]);
    values.n = { kind: "text", text: "11", isNull: false };
    expect(toArguments(f, values).errors[2]).toEqual({ id: "/n", message: "“n” must be 10 or less." });
  });

  it("reads lists of objects, naming the item that is wrong", () => {
    const f = fields(EDIT_FILE);
    const values = initialValues(f);
    values.path = { kind: "text", text: "a.txt", isNull: false };
    const edits = f[1];
    if (edits.kind !== "array") throw new Error("not a list");
    const first = newItem(edits);
    const second = newItem(edits);
    if (first.kind !== "group" || second.kind !== "group") throw new Error("not a group");
    first.fields.oldText = { kind: "text", text: "foo", isNull: false };
    first.fields.newText = { kind: "text", text: "bar", isNull: false };
    second.fields.oldText = { kind: "text", text: "x", isNull: false };
    values.edits = { kind: "list", items: [first, second], isNull: false };
    const r = toArguments(f, values);
    expect(r.errors).toEqual([{ id: "/edits/1/newText", message: "Fill in “newText”: it is required." }]);
    second.fields.newText = { kind: "text", text: "", isNull: false };
    values.edits = { kind: "list", items: [first], isNull: false };
    expect(toArguments(f, values)).toEqual({
      args: { path: "a.txt", edits: [{ oldText: "foo", newText: "bar" }], dryRun: false },
      errors: [],
    });
  });

  it("names an empty item of a list of strings by its place", () => {
    const f = fields({ type: "object", properties: { paths: { type: "array", items: { type: "string" }, minItems: 1 } }, required: ["paths"] });
    const values: Record<string, Value> = {
      paths: { kind: "list", items: [{ kind: "text", text: "a", isNull: false }, { kind: "text", text: "", isNull: false }], isNull: false },
    };
    expect(toArguments(f, values).errors).toEqual([{ id: "/paths/1", message: "Fill in item 2 of “paths”: it is required." }]);
    values.paths = { kind: "list", items: [], isNull: false };
    expect(toArguments(f, values).errors).toEqual([{ id: "/paths", message: "“paths” needs at least 1 item." }]);
  });

  it("leaves out an optional object nothing was filled in, without complaining of its required fields", () => {
    const f = fields({
      type: "object",
      properties: { opts: { type: "object", properties: { a: { type: "string" }, b: { type: "number" } }, required: ["a"] } },
    });
    const values = initialValues(f);
    expect(toArguments(f, values)).toEqual({ args: {}, errors: [] });
    const opts = values.opts;
    if (opts.kind !== "group") throw new Error("not a group");
    opts.fields.b = { kind: "text", text: "4", isNull: false };
    expect(toArguments(f, values)).toEqual({
      args: { opts: { b: 4 } },
      errors: [{ id: "/opts/a", message: "Fill in “a”: it is required." }],
    });
  });

  it("sends null for a nullable field set to null", () => {
    const f = fields({ type: "object", properties: { a: { type: ["string", "null"] } }, required: ["a"] });
    expect(toArguments(f, { a: { kind: "text", text: "", isNull: true } })).toEqual({ args: { a: null }, errors: [] });
  });

  it("picks an optional boolean as true, false or not sent", () => {
    const f = fields({ type: "object", properties: { v: { type: "boolean" } } });
    for (const [index, want] of [
      [0, { v: true }],
      [1, { v: false }],
      [-1, {}],
    ] as const) {
      expect(toArguments(f, { v: { kind: "pick", index, isNull: false } }).args).toEqual(want);
    }
  });

  it("puts the raw editor's arguments back in the form, or says why it cannot", () => {
    const f = fields(EDIT_FILE);
    const back = valuesFromArguments(f, { path: "a", edits: [{ oldText: "x", newText: "y" }] });
    expect(back.ok).toBe(true);
    if (!back.ok) return;
    expect(toArguments(f, back.values)).toEqual({ args: { path: "a", edits: [{ oldText: "x", newText: "y" }] }, errors: [] });
    expect(valuesFromArguments(f, { path: "a", extra: 1 })).toEqual({ ok: false, reason: "The form has no field for “extra”." });
    expect(valuesFromArguments(f, { path: 7 })).toEqual({ ok: false, reason: "“path” holds 7, which its field cannot show." });
    expect(valuesFromArguments(f, [])).toEqual({ ok: false, reason: "The arguments are not a JSON object." });
  });
});
