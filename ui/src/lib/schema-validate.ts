// Arguments checked against a tool's input schema before they are sent,
// and a result's structured content against its output schema, with
// @cfworker/json-schema: it interprets schemas rather than compiling them
// to code, so it runs under the window's CSP, which forbids eval (ajv's
// compiled validators need it). Its findings are put in plain words, each
// naming the argument it is about. Pure; it does not build forms
// (schema-form.ts) or send anything.

import { Validator, type OutputUnit, type SchemaDraft } from "@cfworker/json-schema";
import type { JsonValue } from "./bindings";
import { isObject } from "./mcp";

export type Check =
  | { ok: true }
  /** What is wrong, in words, a few at most. */
  | { ok: false; errors: string[] }
  /** The schema itself could not be used (a broken $ref, not a schema): nothing was checked. */
  | { ok: null; why: string };

/** At most this many findings are listed; the first ones say enough. */
export const MAX_ERRORS = 6;

/** The JSON Schema draft a schema says it is written in; MCP's default is 2020-12. */
export function draftOf(schema: JsonValue): SchemaDraft {
  const s = isObject(schema) && typeof schema.$schema === "string" ? schema.$schema : "";
  if (s.includes("draft-04")) return "4";
  if (s.includes("draft-06") || s.includes("draft-07")) return "7";
  if (s.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** A JSON pointer ("#/edits/0/oldText") as the person reads it: “edits[0].oldText”. */
function where(pointer: string): string {
  const parts = pointer
    .replace(/^#\/?/, "")
    .split("/")
    .filter((p) => p !== "")
    .map((p) => decodeURIComponent(p).replaceAll("~1", "/").replaceAll("~0", "~"));
  let out = "";
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out === "" ? p : `.${p}`;
  return out;
}

function quoted(name: string): string {
  return `“${name}”`;
}

/** One finding in words, or null for the ones that only say a part below had errors. */
function words(unit: OutputUnit, all: readonly OutputUnit[]): string | null {
  const at = where(unit.instanceLocation);
  const subject = at === "" ? "The arguments" : quoted(at);
  switch (unit.keyword) {
    case "properties":
    case "items":
    case "prefixItems":
    case "additionalItems":
    case "additionalProperties":
    case "unevaluatedProperties":
    case "unevaluatedItems":
    case "$ref":
    case "$dynamicRef":
    case "$recursiveRef":
    case "allOf":
    case "dependentSchemas":
    case "then":
    case "else":
      // A finding about a part, said again by the part's own.
      return null;
    case "required": {
      const m = /required property "(.*)"/.exec(unit.error);
      const name = m ? (at === "" ? m[1] : `${at}.${m[1]}`) : at;
      return `${quoted(name)} is required.`;
    }
    case "type": {
      const m = /type "(\w+)" is invalid\. Expected (.*)\.$/.exec(unit.error);
      if (!m) break;
      const want = m[2]
        .split(", ")
        .map((t) => article(t.replaceAll('"', "")))
        .join(" or ");
      return `${subject} must be ${want}, not ${article(m[1])}.`;
    }
    case "enum": {
      const m = /any of (.*)\.$/.exec(unit.error);
      return `${subject} must be one of ${m ? m[1].replace(/^\[|\]$/g, "").replaceAll(",", ", ") : "the values the schema lists"}.`;
    }
    case "const":
      return `${subject} must be exactly the value the schema gives.`;
    case "format": {
      const m = /format "(.*)"/.exec(unit.error);
      return `${subject} is not in the form ${m ? `“${m[1]}”` : "the schema asks for"}.`;
    }
    case "false": {
      // A property the schema forbids (additionalProperties: false).
      const parent = all.some(
        (u) => u.keyword === "additionalProperties" && unit.instanceLocation.startsWith(`${u.instanceLocation}/`),
      );
      return parent ? `${subject} is not an argument this tool takes.` : `${subject} is not allowed here.`;
    }
    case "anyOf":
    case "oneOf":
      return `${subject} matches none of the shapes the schema allows.`;
    default:
      break;
  }
  return `${subject}: ${unit.error.replace(/^Instance /, "it ")}`;
}

function article(type: string): string {
  switch (type) {
    case "integer":
      return "a whole number";
    case "array":
      return "a list";
    case "object":
      return "an object";
    case "null":
      return "null";
    case "boolean":
      return "true or false";
    default:
      return `a ${type}`;
  }
}

/** Checks `value` against `schema`; findings in plain words. */
export function validate(schema: JsonValue, value: JsonValue): Check {
  let result;
  try {
    const validator = new Validator(schema as object, draftOf(schema), false);
    result = validator.validate(value);
  } catch (e) {
    const why = e instanceof Error ? e.message.split("\n")[0] : String(e);
    return { ok: null, why: why.trim() || "the schema could not be read" };
  }
  if (result.valid) return { ok: true };
  const seen = new Set<string>();
  const errors: string[] = [];
  // Of "none of these shapes", say that, not why each shape did not fit.
  const branches = result.errors
    .filter((u) => u.keyword === "anyOf" || u.keyword === "oneOf")
    .map((u) => `${u.keywordLocation}/`);
  for (const unit of result.errors) {
    if (branches.some((b) => unit.keywordLocation.startsWith(b))) continue;
    const w = words(unit, result.errors);
    if (w === null || seen.has(w)) continue;
    seen.add(w);
    errors.push(w);
  }
  if (errors.length === 0) errors.push("The arguments do not match the tool's schema.");
  return { ok: false, errors: errors.slice(0, MAX_ERRORS) };
}

/**
 * The raw editor's text as the tool's arguments: it must be JSON, a JSON
 * object, and match the input schema. Returns the arguments, or what is
 * wrong in words; when the schema cannot be used, the arguments and why
 * they were not checked (the server checks them anyway).
 */
export function parseArguments(
  text: string,
  schema: JsonValue,
): { ok: true; args: { [key: string]: JsonValue }; unchecked: string | null } | { ok: false; errors: string[] } {
  let value: JsonValue;
  try {
    value = JSON.parse(text.trim() === "" ? "{}" : text) as JsonValue;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { ok: false, errors: [`This is not JSON: ${why.replace(/^JSON\.parse: /, "")}`] };
  }
  if (!isObject(value)) {
    return { ok: false, errors: ["The arguments must be a JSON object, in braces: { \"name\": value, … }."] };
  }
  const check = validate(schema, value);
  if (check.ok === false) return { ok: false, errors: check.errors };
  return { ok: true, args: value, unchecked: check.ok === null ? check.why : null };
}
