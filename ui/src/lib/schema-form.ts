// A tool's input schema as a form, and the form's values as the tool's
// arguments. Pure: `buildForm` turns a JSON Schema into fields (strings
// with their format, enums, numbers and integers with their bounds,
// booleans, lists, nested objects, required or not, defaults, nullable
// types), `initialValues`/`valuesFromArguments` give the fields their
// values, `toArguments` reads them back into the JSON object sent.
//
// It refuses, with the reason in words, any schema it cannot show
// faithfully (references, combinations other than "this or null",
// conditions, pattern or schema-typed additional properties, tuples,
// free-form objects, values of any type): the window then offers the raw
// JSON editor, whose text schema-validate.ts checks against the whole
// schema. It does not validate beyond what each field says of itself
// (the whole schema is checked before sending anyway), and it never sends
// a value the person did not see: an optional field left empty is left out.
//
// A tool's arguments are data for the server, never paths for Rootgate:
// nothing here, or in what sends them, opens or checks a file.

import type { JsonValue } from "./bindings";
import { isObject, type JsonObject } from "./mcp";

interface FieldBase {
  /** Property name; for a list's items, the list's. */
  key: string;
  /** Where the value sits, for errors: "/options/filter", "/paths/2". */
  id: string;
  /** What the person reads: the schema's title, else the property name. */
  title: string;
  description?: string;
  required: boolean;
  /** The schema also takes null ("type": [..., "null"]). */
  nullable: boolean;
  default?: JsonValue;
}

export type Field = FieldBase &
  (
    | { kind: "string"; format?: string; minLength?: number; maxLength?: number; pattern?: string; multiline: boolean }
    | {
        kind: "number";
        integer: boolean;
        minimum?: number;
        maximum?: number;
        exclusiveMinimum?: number;
        exclusiveMaximum?: number;
        multipleOf?: number;
      }
    | { kind: "boolean" }
    /** One of fixed values (enum, const), shown in a select. */
    | { kind: "choice"; options: JsonValue[] }
    | { kind: "array"; items: Field; minItems?: number; maxItems?: number; uniqueItems: boolean }
    | { kind: "object"; fields: Field[] }
  );

export type FormModel = { ok: true; fields: Field[] } | { ok: false; reason: string };

/** A field's value as the form holds it (what the person typed or chose, not yet JSON). */
export type Value = { isNull: boolean } & (
  | { kind: "text"; text: string }
  | { kind: "check"; checked: boolean }
  /** An index into a choice's options (for an optional boolean: 0 true, 1 false); -1: not sent. */
  | { kind: "pick"; index: number }
  | { kind: "list"; items: Value[] }
  | { kind: "group"; fields: Record<string, Value> }
);

export interface FieldError {
  id: string;
  message: string;
}

/** How deep objects and lists may nest before the form gives up (the raw editor takes over). */
export const MAX_DEPTH = 8;
/** How many fields a form may have in all. */
export const MAX_FIELDS = 300;

class Refusal extends Error {}

/** Keywords that make a schema more than the form shows, with how to say so. */
const REFUSED: [string, string][] = [
  ["$ref", "refers to another schema ($ref)"],
  ["$dynamicRef", "refers to another schema ($dynamicRef)"],
  ["$recursiveRef", "refers to another schema ($recursiveRef)"],
  ["allOf", "combines several schemas (allOf)"],
  ["not", "takes anything but a schema (not)"],
  ["if", "depends on a condition (if/then/else)"],
  ["then", "depends on a condition (if/then/else)"],
  ["else", "depends on a condition (if/then/else)"],
  ["patternProperties", "has properties named by a pattern (patternProperties)"],
  ["propertyNames", "limits its property names (propertyNames)"],
  ["dependentSchemas", "changes with the properties given (dependentSchemas)"],
  ["dependencies", "changes with the properties given (dependencies)"],
  ["dependentRequired", "requires some properties only with others (dependentRequired)"],
  ["prefixItems", "is a list whose items differ by position (a tuple)"],
  ["contains", "is a list that must contain a certain item (contains)"],
];

const TYPES = ["string", "number", "integer", "boolean", "array", "object"] as const;
type Type = (typeof TYPES)[number];

function named(id: string): string {
  return id === "" ? "The tool's arguments" : `“${id.slice(1).replaceAll("/", ".")}”`;
}

/**
 * The type a schema takes, and whether it also takes null: from `type` (one
 * type, or one and "null"), an `anyOf`/`oneOf` of a schema and
 * `{ "type": "null" }`, OpenAPI's `nullable`, or what `enum`/`const` hold.
 * Returns the schema to read the rest from (the non-null branch).
 */
function typeOf(schema: JsonObject, id: string): { type: Type | "choice"; nullable: boolean; schema: JsonObject } {
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (branches === undefined) continue;
    if (!Array.isArray(branches)) throw new Refusal(`${named(id)} has a ${key} that is not a list`);
    const nonNull = branches.filter((b) => !(isObject(b) && b.type === "null" && Object.keys(b).length === 1));
    if (nonNull.length !== 1 || branches.length !== 2 || !isObject(nonNull[0])) {
      throw new Refusal(`${named(id)} takes one of several kinds of value (${key})`);
    }
    const rest: JsonObject = { ...schema };
    delete rest[key];
    const inner = typeOf({ ...rest, ...nonNull[0] }, id);
    return { ...inner, nullable: true };
  }
  let nullable = schema.nullable === true;
  let type = schema.type;
  if (Array.isArray(type)) {
    const kinds = type.filter((t) => t !== "null");
    if (kinds.length !== type.length) nullable = true;
    if (kinds.length === 0) throw new Refusal(`${named(id)} takes only null`);
    if (kinds.length > 1) throw new Refusal(`${named(id)} takes more than one type of value (${kinds.join(" or ")})`);
    type = kinds[0];
  }
  if ("const" in schema || Array.isArray(schema.enum)) {
    if (Array.isArray(schema.enum) && schema.enum.includes(null)) nullable = true;
    return { type: "choice", nullable, schema };
  }
  if (type === undefined) {
    if (isObject(schema.properties)) return { type: "object", nullable, schema };
    throw new Refusal(`${named(id)} does not say what type of value it takes`);
  }
  if (typeof type !== "string" || !(TYPES as readonly string[]).includes(type)) {
    throw new Refusal(`${named(id)} has a type the form does not know (${JSON.stringify(type)})`);
  }
  return { type: type as Type, nullable, schema };
}

function number(v: JsonValue | undefined): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function count(v: JsonValue | undefined): number | undefined {
  const n = number(v);
  return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
}

const LONG_TEXT = /^(content|contents|text|body|code|script|patch|diff|query|prompt|message|notes?|markdown|html|sql)$/i;

class Builder {
  fields = 0;

  field(schema: JsonValue, key: string, id: string, required: boolean, depth: number): Field {
    if (++this.fields > MAX_FIELDS) throw new Refusal(`The tool takes more than ${MAX_FIELDS} fields`);
    if (depth > MAX_DEPTH) throw new Refusal(`${named(id)} nests more than ${MAX_DEPTH} levels deep`);
    if (schema === true || (isObject(schema) && Object.keys(schema).every((k) => k === "description" || k === "title"))) {
      throw new Refusal(`${named(id)} takes a value of any type`);
    }
    if (!isObject(schema)) throw new Refusal(`${named(id)} has a schema that is not an object`);
    for (const [keyword, why] of REFUSED) {
      if (keyword in schema) throw new Refusal(`${named(id)} ${why}`);
    }
    const { type, nullable, schema: s } = typeOf(schema, id);
    for (const [keyword, why] of REFUSED) {
      if (keyword in s) throw new Refusal(`${named(id)} ${why}`);
    }
    const base: FieldBase = {
      key,
      id,
      title: typeof s.title === "string" && s.title.trim() !== "" ? s.title.trim() : key,
      required,
      nullable,
    };
    if (typeof s.description === "string" && s.description.trim() !== "") base.description = s.description.trim();
    if ("default" in s && s.default !== undefined) base.default = s.default;

    switch (type) {
      case "choice": {
        const options = "const" in s ? [s.const] : (s.enum as JsonValue[]).filter((o) => o !== null);
        if (options.length === 0) throw new Refusal(`${named(id)} has no value to choose from`);
        return { ...base, kind: "choice", options };
      }
      case "string": {
        const f: Field = {
          ...base,
          kind: "string",
          multiline: LONG_TEXT.test(key) || (count(s.maxLength) ?? 0) > 200 || typeof s.contentMediaType === "string",
        };
        if (typeof s.format === "string") f.format = s.format;
        if (count(s.minLength) !== undefined) f.minLength = count(s.minLength);
        if (count(s.maxLength) !== undefined) f.maxLength = count(s.maxLength);
        if (typeof s.pattern === "string") f.pattern = s.pattern;
        return f;
      }
      case "number":
      case "integer": {
        const f: Field = { ...base, kind: "number", integer: type === "integer" };
        for (const k of ["minimum", "maximum", "multipleOf"] as const) {
          if (number(s[k]) !== undefined) f[k] = number(s[k]);
        }
        // Draft 4 said exclusiveMinimum: true beside minimum; later drafts a number.
        for (const [ex, plain] of [
          ["exclusiveMinimum", "minimum"],
          ["exclusiveMaximum", "maximum"],
        ] as const) {
          if (number(s[ex]) !== undefined) f[ex] = number(s[ex]);
          else if (s[ex] === true && f[plain] !== undefined) {
            f[ex] = f[plain];
            delete f[plain];
          }
        }
        return f;
      }
      case "boolean":
        return { ...base, kind: "boolean" };
      case "array": {
        if (Array.isArray(s.items)) throw new Refusal(`${named(id)} is a list whose items differ by position (a tuple)`);
        if (s.items === undefined || s.items === true) throw new Refusal(`${named(id)} is a list of values of any type`);
        const items = this.field(s.items, key, `${id}/*`, true, depth + 1);
        const f: Field = { ...base, kind: "array", items, uniqueItems: s.uniqueItems === true };
        if (count(s.minItems) !== undefined) f.minItems = count(s.minItems);
        if (count(s.maxItems) !== undefined) f.maxItems = count(s.maxItems);
        return f;
      }
      case "object":
        return { ...base, kind: "object", fields: this.properties(s, id, depth) };
    }
  }

  properties(s: JsonObject, id: string, depth: number): Field[] {
    const extra = s.additionalProperties;
    if (isObject(extra) && Object.keys(extra).length > 0) {
      throw new Refusal(`${named(id)} takes further properties of a given schema (additionalProperties)`);
    }
    for (const k of ["unevaluatedProperties"] as const) {
      if (isObject(s[k]) && Object.keys(s[k] as JsonObject).length > 0) {
        throw new Refusal(`${named(id)} takes further properties of a given schema (${k})`);
      }
    }
    const props = s.properties ?? {};
    if (!isObject(props)) throw new Refusal(`${named(id)} has properties that are not an object`);
    const keys = Object.keys(props);
    // An object that lists no properties and does not forbid others is a
    // map of anything: the form cannot list its keys. The tool's own
    // arguments with no properties are simply none.
    if (keys.length === 0 && id !== "" && extra !== false) {
      throw new Refusal(`${named(id)} takes properties of any name and type`);
    }
    const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === "string") : [];
    for (const r of required) {
      if (!keys.includes(r)) throw new Refusal(`${named(id)} requires “${r}”, which it does not describe`);
    }
    // Required fields come first, each group in the schema's order: what
    // must be filled in is at the top (and the backend's JSON keeps keys
    // sorted, not in the server's order, so "path" would follow "head").
    const ordered = [...keys.filter((k) => required.includes(k)), ...keys.filter((k) => !required.includes(k))];
    return ordered.map((k) => this.field(props[k], k, `${id}/${k}`, required.includes(k), depth + 1));
  }
}

/** The form for a tool's input schema, or why there cannot be one. */
export function buildForm(inputSchema: JsonValue): FormModel {
  try {
    if (!isObject(inputSchema)) throw new Refusal("The tool's input schema is not an object");
    for (const [keyword, why] of REFUSED) {
      if (keyword in inputSchema) throw new Refusal(`The tool's arguments: the schema ${why}`);
    }
    for (const key of ["anyOf", "oneOf"]) {
      if (key in inputSchema) throw new Refusal(`The tool's arguments take one of several shapes (${key})`);
    }
    if (inputSchema.type !== undefined && inputSchema.type !== "object") {
      throw new Refusal(`The tool's arguments are not an object (type ${JSON.stringify(inputSchema.type)})`);
    }
    return { ok: true, fields: new Builder().properties(inputSchema, "", 0) };
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, reason: `${e.message}, which the form cannot show faithfully.` };
    throw e;
  }
}

// ----- values ----------------------------------------------------------

function same(a: JsonValue, b: JsonValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

class Unshowable extends Error {}

/** A field's value for `given` (a value of the arguments, or its default when undefined). */
function valueFor(field: Field, given: JsonValue | undefined): Value {
  const v = given === undefined ? field.default : given;
  if (v === null && field.nullable) return { ...emptyValue(field), isNull: true };
  if (v === undefined) return emptyValue(field);
  const wrong = () => new Unshowable(`${named(field.id)} holds ${JSON.stringify(v)}, which its field cannot show`);
  switch (field.kind) {
    case "string":
      if (typeof v !== "string") throw wrong();
      return { kind: "text", text: v, isNull: false };
    case "number":
      if (typeof v !== "number") throw wrong();
      return { kind: "text", text: String(v), isNull: false };
    case "boolean":
      if (typeof v !== "boolean") throw wrong();
      return field.required ? { kind: "check", checked: v, isNull: false } : { kind: "pick", index: v ? 0 : 1, isNull: false };
    case "choice": {
      const index = field.options.findIndex((o) => same(o, v));
      if (index < 0) throw wrong();
      return { kind: "pick", index, isNull: false };
    }
    case "array":
      if (!Array.isArray(v)) throw wrong();
      return { kind: "list", items: v.map((item) => valueFor(field.items, item)), isNull: false };
    case "object": {
      if (!isObject(v)) throw wrong();
      const extra = Object.keys(v).filter((k) => !field.fields.some((f) => f.key === k));
      if (extra.length > 0) throw new Unshowable(`${named(field.id)} holds “${extra[0]}”, which the form has no field for`);
      return { kind: "group", fields: Object.fromEntries(field.fields.map((f) => [f.key, valueFor(f, v[f.key])])), isNull: false };
    }
  }
}

/** A field with nothing in it (and its own fields at their defaults). */
export function emptyValue(field: Field): Value {
  switch (field.kind) {
    case "string":
    case "number":
      return { kind: "text", text: "", isNull: false };
    case "boolean":
      return field.required ? { kind: "check", checked: false, isNull: false } : { kind: "pick", index: -1, isNull: false };
    case "choice":
      // A required choice of one (a const) is that one.
      return { kind: "pick", index: field.required && field.options.length === 1 ? 0 : -1, isNull: false };
    case "array":
      return { kind: "list", items: [], isNull: false };
    case "object":
      return { kind: "group", fields: Object.fromEntries(field.fields.map((f) => [f.key, valueFor(f, undefined)])), isNull: false };
  }
}

/** A new item of a list, at its items' default. */
export function newItem(list: Extract<Field, { kind: "array" }>): Value {
  return valueFor(list.items, undefined);
}

/** The form's values at the schema's defaults. */
export function initialValues(fields: readonly Field[]): Record<string, Value> {
  return Object.fromEntries(fields.map((f) => [f.key, valueFor(f, undefined)]));
}

/**
 * The form's values holding these arguments (from the raw editor), or why
 * the form cannot hold them (a key it has no field for, a value of
 * another type): the raw editor then stays.
 */
export function valuesFromArguments(
  fields: readonly Field[],
  args: JsonValue,
): { ok: true; values: Record<string, Value> } | { ok: false; reason: string } {
  if (!isObject(args)) return { ok: false, reason: "The arguments are not a JSON object." };
  const extra = Object.keys(args).filter((k) => !fields.some((f) => f.key === k));
  if (extra.length > 0) return { ok: false, reason: `The form has no field for “${extra[0]}”.` };
  try {
    // Fields the arguments leave out are left empty, not set to their defaults.
    return {
      ok: true,
      values: Object.fromEntries(fields.map((f) => [f.key, args[f.key] === undefined ? emptyValue(f) : valueFor(f, args[f.key])])),
    };
  } catch (e) {
    if (e instanceof Unshowable) return { ok: false, reason: `${e.message}.` };
    throw e;
  }
}

// ----- values to arguments ----------------------------------------------

/** A value as text, for a choice's option or an error. */
export function showValue(v: JsonValue): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A field in an error: its title, or "item 2 of “paths”" for a list's item (ids end in its index). */
function itemName(field: Field, id: string): string {
  const m = /\/(\d+)$/.exec(id);
  return m && field.id.endsWith("/*") ? `item ${Number(m[1]) + 1} of “${field.title}”` : `“${field.title}”`;
}

type Read = { present: false } | { present: true; value: JsonValue };

class Reader {
  errors: FieldError[] = [];

  /** `id` is where the value sits in the arguments ("/edits/0/oldText"), as the form's fields know it. */
  read(field: Field, value: Value | undefined, id: string): Read {
    const name = itemName(field, id);
    const fail = (message: string): Read => {
      this.errors.push({ id, message });
      return { present: false };
    };
    const missing = (): Read => (field.required ? fail(`Fill in ${name}: it is required.`) : { present: false });
    if (!value) return missing();
    if (value.isNull && field.nullable) return { present: true, value: null };
    switch (field.kind) {
      case "string": {
        if (value.kind !== "text") return missing();
        const t = value.text;
        if (t === "") return missing();
        const length = [...t].length;
        if (field.minLength !== undefined && length < field.minLength) {
          return fail(`${cap(name)} needs at least ${field.minLength} characters.`);
        }
        if (field.maxLength !== undefined && length > field.maxLength) {
          return fail(`${cap(name)} takes at most ${field.maxLength} characters.`);
        }
        if (field.pattern !== undefined) {
          let re: RegExp | null = null;
          try {
            re = new RegExp(field.pattern, "u");
          } catch {
            // A pattern this browser cannot read is left to the schema check.
          }
          if (re && !re.test(t)) return fail(`${cap(name)} must match the pattern ${field.pattern}.`);
        }
        return { present: true, value: t };
      }
      case "number": {
        if (value.kind !== "text") return missing();
        const t = value.text.trim();
        if (t === "") return missing();
        if (!NUMBER.test(t) || !Number.isFinite(Number(t))) {
          return fail(`${cap(name)} must be a number, such as 42 or 0.5.`);
        }
        const n = Number(t);
        if (field.integer && !Number.isInteger(n)) return fail(`${cap(name)} must be a whole number.`);
        const bound = boundError(field, n);
        if (bound) return fail(`${cap(name)} ${bound}.`);
        return { present: true, value: n };
      }
      case "boolean":
        if (value.kind === "check") return { present: true, value: value.checked };
        if (value.kind === "pick" && value.index >= 0) return { present: true, value: value.index === 0 };
        return missing();
      case "choice":
        if (value.kind !== "pick" || value.index < 0 || value.index >= field.options.length) {
          return field.required ? fail(`Choose ${name}: it is required.`) : { present: false };
        }
        return { present: true, value: field.options[value.index] };
      case "array": {
        if (value.kind !== "list") return missing();
        if (value.items.length === 0 && !field.required) return { present: false };
        const out: JsonValue[] = [];
        value.items.forEach((item, i) => {
          const r = this.read(field.items, item, `${id}/${i}`);
          if (r.present) out.push(r.value);
        });
        if (field.minItems !== undefined && value.items.length < field.minItems) {
          return fail(`“${field.title}” needs at least ${field.minItems === 1 ? "1 item" : `${field.minItems} items`}.`);
        }
        if (field.maxItems !== undefined && value.items.length > field.maxItems) {
          return fail(`“${field.title}” takes at most ${field.maxItems === 1 ? "1 item" : `${field.maxItems} items`}.`);
        }
        if (field.uniqueItems && new Set(out.map((v) => JSON.stringify(v))).size !== out.length) {
          return fail(`The items of “${field.title}” must all differ.`);
        }
        return { present: true, value: out };
      }
      case "object": {
        if (value.kind !== "group") return missing();
        // An optional object nothing was filled in is left out, and so are
        // the complaints about its required fields.
        const inner = new Reader();
        const out: JsonObject = {};
        for (const f of field.fields) {
          const r = inner.read(f, value.fields[f.key], `${id}/${f.key}`);
          if (r.present) out[f.key] = r.value;
        }
        if (Object.keys(out).length === 0 && !field.required) return { present: false };
        this.errors.push(...inner.errors);
        return { present: true, value: out };
      }
    }
  }
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function boundError(field: Extract<Field, { kind: "number" }>, n: number): string | null {
  if (field.minimum !== undefined && n < field.minimum) return `must be ${field.minimum} or more`;
  if (field.exclusiveMinimum !== undefined && n <= field.exclusiveMinimum) return `must be more than ${field.exclusiveMinimum}`;
  if (field.maximum !== undefined && n > field.maximum) return `must be ${field.maximum} or less`;
  if (field.exclusiveMaximum !== undefined && n >= field.exclusiveMaximum) return `must be less than ${field.exclusiveMaximum}`;
  if (field.multipleOf !== undefined && field.multipleOf > 0) {
    const q = n / field.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) return `must be a multiple of ${field.multipleOf}`;
  }
  return null;
}

/**
 * The arguments the form's values make, and what is wrong with them, each
 * error with the id of its field. Fields left empty are left out unless
 * required.
 */
export function toArguments(
  fields: readonly Field[],
  values: Readonly<Record<string, Value>>,
): { args: JsonObject; errors: FieldError[] } {
  const reader = new Reader();
  const args: JsonObject = {};
  for (const f of fields) {
    const r = reader.read(f, values[f.key], `/${f.key}`);
    if (r.present) args[f.key] = r.value;
  }
  return { args, errors: reader.errors };
}

/** What a field's bounds and format are, in words, for the hint under it ("1 to 10", "a date, like 2025-01-31"). */
export function fieldHint(field: Field): string | null {
  const parts: string[] = [];
  switch (field.kind) {
    case "string":
      if (field.format) parts.push(FORMATS[field.format] ?? `format: ${field.format}`);
      if (field.minLength !== undefined && field.maxLength !== undefined) {
        parts.push(`${field.minLength} to ${field.maxLength} characters`);
      } else if (field.minLength !== undefined) parts.push(`at least ${field.minLength} characters`);
      else if (field.maxLength !== undefined) parts.push(`at most ${field.maxLength} characters`);
      if (field.pattern) parts.push(`matching ${field.pattern}`);
      break;
    case "number": {
      parts.push(field.integer ? "a whole number" : "a number");
      const lo = field.minimum ?? field.exclusiveMinimum;
      const hi = field.maximum ?? field.exclusiveMaximum;
      const loWord = field.minimum !== undefined ? `${lo} or more` : `more than ${lo}`;
      const hiWord = field.maximum !== undefined ? `${hi} or less` : `less than ${hi}`;
      if (lo !== undefined && hi !== undefined && field.exclusiveMinimum === undefined && field.exclusiveMaximum === undefined) {
        parts.push(`${lo} to ${hi}`);
      } else {
        if (lo !== undefined) parts.push(loWord);
        if (hi !== undefined) parts.push(hiWord);
      }
      if (field.multipleOf !== undefined) parts.push(`a multiple of ${field.multipleOf}`);
      break;
    }
    case "array":
      if (field.minItems !== undefined) parts.push(`at least ${field.minItems === 1 ? "1 item" : `${field.minItems} items`}`);
      if (field.maxItems !== undefined) parts.push(`at most ${field.maxItems === 1 ? "1 item" : `${field.maxItems} items`}`);
      if (field.uniqueItems) parts.push("all different");
      break;
    default:
      break;
  }
  if (field.default !== undefined) parts.push(`default ${showValue(field.default)}`);
  return parts.length > 0 ? parts.join(" · ") : null;
}

/** The formats JSON Schema names, in words. */
export const FORMATS: Record<string, string> = {
  uri: "a URI, like https://example.com/a",
  "uri-reference": "a URI or a relative reference",
  iri: "an IRI (a URI that may hold any letters)",
  email: "an e-mail address",
  date: "a date, like 2025-01-31",
  "date-time": "a date and time, like 2025-01-31T14:00:00Z",
  time: "a time, like 14:00:00Z",
  duration: "a duration, like P3D or PT1H30M",
  uuid: "a UUID, like 123e4567-e89b-12d3-a456-426614174000",
  ipv4: "an IPv4 address, like 192.0.2.1",
  ipv6: "an IPv6 address, like 2001:db8::1",
  hostname: "a host name, like example.com",
  regex: "a regular expression",
  "json-pointer": "a JSON pointer, like /a/0",
};
