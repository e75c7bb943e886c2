// Every tool of two real servers through the schema-to-form mapping: the
// lists in fixtures/ are exactly what the npm everything server
// (2026.8.31, `node dist/index.js stdio`) and the npm filesystem server
// (2026.8.31) answer to tools/list, captured over raw JSON-RPC. Each input
// schema must become a form (none needs the raw editor), and together
// they must use every kind of field the mapping has.
import { describe, expect, it } from "vitest";
import type { JsonValue } from "./bindings";
import everything from "./fixtures/everything-tools.json";
import filesystem from "./fixtures/filesystem-tools.json";
import { buildForm, type Field } from "./schema-form";

type Tool = { name: string; inputSchema: JsonValue };

function kinds(fields: readonly Field[], into: Set<string>): Set<string> {
  for (const f of fields) {
    into.add(f.kind);
    if (f.kind === "object") kinds(f.fields, into);
    if (f.kind === "array") kinds([f.items], into);
  }
  return into;
}

describe.each([
  ["everything", everything as unknown as Tool[]],
  ["filesystem", filesystem as unknown as Tool[]],
])("the %s server's tools", (_server, tools) => {
  it.each(tools.map((t) => [t.name, t] as const))("%s becomes a form", (_name, tool) => {
    const model = buildForm(tool.inputSchema);
    expect(model.ok ? "form" : model.reason).toBe("form");
  });
});

describe("real servers' schemas together", () => {
  it("use strings, numbers, booleans, choices, arrays and nested objects", () => {
    const seen = new Set<string>();
    for (const tool of [...(everything as unknown as Tool[]), ...(filesystem as unknown as Tool[])]) {
      const model = buildForm(tool.inputSchema);
      if (model.ok) kinds(model.fields, seen);
    }
    expect([...seen].sort()).toEqual(expect.arrayContaining(["array", "boolean", "choice", "number", "object", "string"]));
  });
});
