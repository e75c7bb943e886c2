// Reading what servers send: tools, resources, templates, prompts and
// results, from real servers' JSON (the everything server's, the npm
// filesystem server's) and from garbage, which must be tolerated; what a
// tool's annotations claim, and when calling it asks first.
import { describe, expect, it } from "vitest";
import type { JsonValue } from "./bindings";
import {
  base64Bytes,
  base64Size,
  blobText,
  claims,
  destructiveClaim,
  downloadName,
  formatBytes,
  isDestructive,
  label,
  mediaType,
  parseBlock,
  parseCallResult,
  parsePromptResult,
  parsePrompts,
  parseReadResult,
  parseResources,
  parseTemplates,
  parseTools,
  toolLabel,
  type Tool,
} from "./mcp";

describe("reading lists", () => {
  it("keeps the fields it knows, drops unknown ones, counts what it cannot read", () => {
    const { items, skipped } = parseTools([
      {
        name: "read_text_file",
        title: "Read Text File",
        description: "Read a file",
        inputSchema: { type: "object", properties: { path: { type: "string" } } },
        outputSchema: { type: "object" },
        annotations: { readOnlyHint: true, openWorldHint: false, extra: 1 },
        execution: { taskSupport: "optional" },
        icons: [],
      },
      { name: "bare" },
      { title: "no name" },
      "garbage",
      null,
      { name: 42 },
      { name: "weird", title: 7, annotations: { readOnlyHint: "yes" }, inputSchema: [] },
    ] as JsonValue[]);
    expect(skipped).toBe(4);
    expect(items).toEqual([
      {
        name: "read_text_file",
        title: "Read Text File",
        description: "Read a file",
        inputSchema: { type: "object", properties: { path: { type: "string" } } },
        outputSchema: { type: "object" },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      { name: "bare", inputSchema: { type: "object" } },
      { name: "weird", inputSchema: { type: "object" }, annotations: {} },
    ]);
  });

  it("reads the everything server's resources, templates and prompts", () => {
    expect(
      parseResources([
        {
          name: "features.md",
          uri: "demo://resource/static/document/features.md",
          description: "Static document file exposed from /docs: features.md",
          mimeType: "text/markdown",
        },
        { uri: "demo://no-name", size: 12 },
        { uri: "demo://bad-size", name: "x", size: -1 },
        { name: "no uri" },
      ]),
    ).toEqual({
      items: [
        {
          uri: "demo://resource/static/document/features.md",
          name: "features.md",
          description: "Static document file exposed from /docs: features.md",
          mimeType: "text/markdown",
        },
        { uri: "demo://no-name", name: "demo://no-name", size: 12 },
        { uri: "demo://bad-size", name: "x" },
      ],
      skipped: 1,
    });
    expect(
      parseTemplates([
        { name: "Dynamic Text Resource", uriTemplate: "demo://resource/dynamic/text/{resourceId}", mimeType: "text/plain" },
        { name: "no template" },
      ]),
    ).toEqual({
      items: [{ name: "Dynamic Text Resource", uriTemplate: "demo://resource/dynamic/text/{resourceId}", mimeType: "text/plain" }],
      skipped: 1,
    });
    expect(
      parsePrompts([
        {
          name: "args-prompt",
          title: "Arguments Prompt",
          arguments: [{ name: "city", description: "Name of the city", required: true }, { name: "state", required: false }, { name: "city" }, 5],
        },
        { name: "simple-prompt" },
      ] as JsonValue[]).items,
    ).toEqual([
      {
        name: "args-prompt",
        title: "Arguments Prompt",
        arguments: [
          { name: "city", description: "Name of the city", required: true },
          { name: "state", required: false },
        ],
      },
      { name: "simple-prompt", arguments: [] },
    ]);
  });

  it("shows a tool's title, then its annotations' title, then its name", () => {
    const base: Tool = { name: "t", inputSchema: { type: "object" } };
    expect(toolLabel({ ...base, title: "T", annotations: { title: "A" } })).toBe("T");
    expect(toolLabel({ ...base, annotations: { title: "A" } })).toBe("A");
    expect(toolLabel({ ...base, title: "  " })).toBe("t");
    expect(label({ name: "n", title: "Title" })).toBe("Title");
    expect(label({ name: "n" })).toBe("n");
  });
});

describe("what a tool claims", () => {
  const tool = (annotations?: Tool["annotations"]): Tool => ({ name: "t", inputSchema: { type: "object" }, ...(annotations ? { annotations } : {}) });

  it("read-only tools do not ask first", () => {
    const t = tool({ readOnlyHint: true, openWorldHint: false });
    expect(isDestructive(t)).toBe(false);
    expect(claims(t).map((c) => [c.label, c.said])).toEqual([
      ["read-only", true],
      ["closed world", true],
    ]);
  });

  it("a tool that says nothing is destructive and open-world by MCP's defaults, and says so", () => {
    const t = tool();
    expect(isDestructive(t)).toBe(true);
    expect(claims(t).map((c) => [c.label, c.said])).toEqual([
      ["destructive", false],
      ["open world", false],
    ]);
    expect(destructiveClaim(t)).toMatch(/by MCP's defaults it may change or delete things/);
  });

  it("not read-only with destructiveHint absent asks first; destructiveHint false does not", () => {
    expect(isDestructive(tool({ readOnlyHint: false }))).toBe(true);
    expect(isDestructive(tool({ readOnlyHint: false, destructiveHint: false }))).toBe(false);
    const writes = tool({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    expect(isDestructive(writes)).toBe(true);
    expect(destructiveClaim(writes)).toBe("The server says this tool may change or delete things (destructiveHint: true).");
    expect(claims(writes).map((c) => c.label)).toEqual(["destructive", "idempotent", "closed world"]);
    expect(claims(tool({ readOnlyHint: false, destructiveHint: false })).map((c) => c.label)).toEqual(["only adds", "open world"]);
  });

  it("a read-only claim wins over a destructive one (destructiveHint means something only when not read-only)", () => {
    expect(isDestructive(tool({ readOnlyHint: true, destructiveHint: true }))).toBe(false);
  });
});

describe("reading results", () => {
  it("reads every kind of content block, and keeps what it does not know as JSON", () => {
    const blocks: JsonValue[] = [
      { type: "text", text: "hello", annotations: { priority: 1 } },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "demo://a", mimeType: "text/plain", text: "A" } },
      { type: "resource", resource: { uri: "demo://b", blob: "AAEC" } },
      { type: "resource_link", uri: "demo://resource/dynamic/text/2", name: "Text Resource 2", mimeType: "text/plain" },
      { type: "video", data: "x" },
      { type: "text" },
      "garbage",
    ];
    expect(blocks.map(parseBlock)).toEqual([
      { type: "text", text: "hello" },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "demo://a", mimeType: "text/plain", text: "A" } },
      { type: "resource", resource: { uri: "demo://b", blob: "AAEC" } },
      { type: "resource_link", uri: "demo://resource/dynamic/text/2", name: "Text Resource 2", mimeType: "text/plain" },
      { type: "unknown", kind: "video", raw: { type: "video", data: "x" } },
      { type: "unknown", kind: "text", raw: { type: "text" } },
      { type: "unknown", kind: "", raw: "garbage" },
    ]);
  });

  it("reads a tool's result: its content, structured content and whether it is an error", () => {
    expect(
      parseCallResult({
        content: [{ type: "text", text: "Access denied - path outside allowed directories: /etc/hostname not in /tmp/x" }],
        isError: true,
      }),
    ).toEqual({
      content: [{ type: "text", text: "Access denied - path outside allowed directories: /etc/hostname not in /tmp/x" }],
      isError: true,
    });
    expect(
      parseCallResult({
        content: [{ type: "text", text: '{"temperature":33}' }],
        structuredContent: { temperature: 33 },
        isError: "yes",
      }),
    ).toEqual({ content: [{ type: "text", text: '{"temperature":33}' }], structuredContent: { temperature: 33 }, isError: false });
    expect(parseCallResult(null)).toEqual({ content: [{ type: "unknown", kind: "", raw: null }], isError: false });
    expect(parseCallResult({})).toEqual({ content: [], isError: false });
  });

  it("reads a resource's contents, text or blob", () => {
    expect(
      parseReadResult({
        contents: [
          { uri: "demo://resource/dynamic/blob/1", mimeType: "text/plain", blob: "UmVzb3VyY2UgMQ==" },
          { uri: "demo://t", text: "hi" },
          { uri: "demo://neither" },
        ],
      }),
    ).toEqual({
      contents: [
        { uri: "demo://resource/dynamic/blob/1", mimeType: "text/plain", blob: "UmVzb3VyY2UgMQ==" },
        { uri: "demo://t", text: "hi" },
      ],
      skipped: 1,
    });
    expect(parseReadResult("garbage")).toEqual({ contents: [], skipped: 0 });
  });

  it("reads a prompt's messages", () => {
    expect(
      parsePromptResult({
        description: "d",
        messages: [{ role: "user", content: { type: "text", text: "What's weather in Paris?" } }, 5, { content: null }],
      }),
    ).toEqual({
      description: "d",
      messages: [
        { role: "user", content: { type: "text", text: "What's weather in Paris?" } },
        { role: "", content: { type: "unknown", kind: "", raw: null } },
      ],
    });
  });
});

describe("bytes", () => {
  it("measures and decodes base64", () => {
    expect(base64Size("UmVzb3VyY2UgMQ==")).toBe(10);
    expect(new TextDecoder().decode(base64Bytes("UmVzb3VyY2UgMQ==") ?? new Uint8Array())).toBe("Resource 1");
    expect(base64Bytes("not base64!")).toBe(null);
  });

  it("says sizes in words", () => {
    expect([1, 999, 1000, 1234, 56_789, 3_400_000, 12_000_000_000].map(formatBytes)).toEqual([
      "1 byte",
      "999 bytes",
      "1.0 kB",
      "1.2 kB",
      "57 kB",
      "3.4 MB",
      "12 GB",
    ]);
  });

  it("puts only plain image and audio types in a data: URL", () => {
    expect(mediaType("image/png", "image")).toBe("image/png");
    expect(mediaType("IMAGE/JPEG; q=1", "image")).toBe("image/jpeg");
    expect(mediaType("image/svg+xml", "image")).toBe(null);
    expect(mediaType("audio/wav", "image")).toBe(null);
    expect(mediaType('image/png"><script>', "image")).toBe(null);
    expect(mediaType("audio/mpeg", "audio")).toBe("audio/mpeg");
  });

  it("names a download after the resource, safely, with an extension for its type", () => {
    expect(downloadName("demo://resource/dynamic/blob/1")).toBe("blob-1");
    expect(downloadName("demo://resource/dynamic/blob/1", "text/plain")).toBe("blob-1.txt");
    expect(downloadName("file:///home/me/My%20File.gz?x=1", "application/gzip")).toBe("My File.gz");
    expect(downloadName("demo://resource/session/README.md.gz", "application/gzip")).toBe("README.md.gz");
    expect(downloadName("demo://a/..")).toBe("resource");
    expect(downloadName("demo://a/b:c*d")).toBe("b_c_d");
    expect(downloadName("demo://", "application/octet-stream")).toBe("resource.bin");
  });

  it("reads bytes of a text type as text, when they are UTF-8", () => {
    expect(blobText("UmVzb3VyY2UgMQ==", "text/plain")).toBe("Resource 1");
    expect(blobText("UmVzb3VyY2UgMQ==", "application/octet-stream")).toBe(null);
    expect(blobText("/w==", "text/plain")).toBe(null);
    expect(blobText("e30=", "application/json; charset=utf-8")).toBe("{}");
  });
});
