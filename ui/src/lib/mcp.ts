// What a server offers and answers, as narrow types read out of the raw MCP
// JSON the core hands over unchanged (OfferList.items, TryOutcome.result):
// tools, resources, resource templates, prompts, and the content of a tool's
// result, a resource read or a prompt. Shapes follow the MCP schema
// (shared/spec/2025-11-25/schema.json; the 2026-07-28 revision only adds
// fields). A server may send anything: every reader here takes unknown
// JSON, keeps the fields it knows when they have the right type, ignores
// the rest, and drops what lacks what is required (counted, so the window
// can say so). Nothing here renders, talks to the backend or validates a
// tool's arguments (schema-validate.ts does).

import type { JsonValue } from "./bindings";

export type JsonObject = { [key: string]: JsonValue };

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function bool(v: unknown): boolean | undefined {
  return typeof v === "boolean" ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** Optional fields that are there, without the ones that are not (no `key: undefined`). */
function defined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/** What a tool says of itself. Hints only: the server's own claims, which nothing checks. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  /** A JSON Schema of the arguments; `{ type: "object" }` when the server sent none usable. */
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: ToolAnnotations;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Bytes before any encoding, when the server knows. */
  size?: number;
}

export interface ResourceTemplate {
  /** An RFC 6570 URI template (uri-template.ts fills it). */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments: PromptArgument[];
}

/** Parsed items, and how many the server sent that could not be read. */
export interface Parsed<T> {
  items: T[];
  skipped: number;
}

function parseAll<T>(items: readonly JsonValue[], one: (v: JsonValue) => T | null): Parsed<T> {
  const out: T[] = [];
  let skipped = 0;
  for (const item of items) {
    const v = one(item);
    if (v === null) skipped++;
    else out.push(v);
  }
  return { items: out, skipped };
}

function annotations(v: unknown): ToolAnnotations | undefined {
  if (!isObject(v)) return undefined;
  return defined({
    title: str(v.title),
    readOnlyHint: bool(v.readOnlyHint),
    destructiveHint: bool(v.destructiveHint),
    idempotentHint: bool(v.idempotentHint),
    openWorldHint: bool(v.openWorldHint),
  });
}

export function parseTool(v: JsonValue): Tool | null {
  if (!isObject(v) || typeof v.name !== "string" || v.name === "") return null;
  return defined({
    name: v.name,
    title: str(v.title),
    description: str(v.description),
    inputSchema: isObject(v.inputSchema) ? v.inputSchema : { type: "object" },
    outputSchema: isObject(v.outputSchema) ? v.outputSchema : undefined,
    annotations: annotations(v.annotations),
  });
}

export function parseResource(v: JsonValue): Resource | null {
  if (!isObject(v) || typeof v.uri !== "string" || v.uri === "") return null;
  const size = num(v.size);
  return defined({
    uri: v.uri,
    // The name is required by the schema; a server that left it out still
    // has its resource shown, under its URI.
    name: str(v.name) || v.uri,
    title: str(v.title),
    description: str(v.description),
    mimeType: str(v.mimeType),
    size: size !== undefined && size >= 0 ? size : undefined,
  });
}

export function parseTemplate(v: JsonValue): ResourceTemplate | null {
  if (!isObject(v) || typeof v.uriTemplate !== "string" || v.uriTemplate === "") return null;
  return defined({
    uriTemplate: v.uriTemplate,
    name: str(v.name) || v.uriTemplate,
    title: str(v.title),
    description: str(v.description),
    mimeType: str(v.mimeType),
  });
}

export function parsePrompt(v: JsonValue): Prompt | null {
  if (!isObject(v) || typeof v.name !== "string" || v.name === "") return null;
  const args: PromptArgument[] = [];
  const seen = new Set<string>();
  for (const a of Array.isArray(v.arguments) ? v.arguments : []) {
    if (!isObject(a) || typeof a.name !== "string" || a.name === "" || seen.has(a.name)) continue;
    seen.add(a.name);
    args.push(defined({ name: a.name, title: str(a.title), description: str(a.description), required: a.required === true }));
  }
  return defined({ name: v.name, title: str(v.title), description: str(v.description), arguments: args });
}

export const parseTools = (items: readonly JsonValue[]) => parseAll(items, parseTool);
export const parseResources = (items: readonly JsonValue[]) => parseAll(items, parseResource);
export const parseTemplates = (items: readonly JsonValue[]) => parseAll(items, parseTemplate);
export const parsePrompts = (items: readonly JsonValue[]) => parseAll(items, parsePrompt);

/** The name to show: a tool's title, then its annotations' title, then its name (the schema's order). */
export function toolLabel(tool: Tool): string {
  return tool.title?.trim() || tool.annotations?.title?.trim() || tool.name;
}

/** The name to show for a resource, template or prompt: its title, else its name. */
export function label(item: { name: string; title?: string }): string {
  return item.title?.trim() || item.name;
}

// ----- what a tool claims ------------------------------------------------

/** One claim a tool's annotations make (or MCP's default makes for it), for a badge. */
export interface Claim {
  key: "readOnly" | "destructive" | "additive" | "idempotent" | "openWorld" | "closedWorld";
  label: string;
  tone: "good" | "bad" | "warn" | "neutral" | "info";
  /** The server said so; false: the annotation is absent and this is MCP's default. */
  said: boolean;
}

/**
 * What a tool's annotations claim, with MCP's defaults for what it does not
 * say (readOnlyHint false; destructiveHint true and idempotentHint false,
 * which mean something only when it is not read-only; openWorldHint true).
 */
export function claims(tool: Tool): Claim[] {
  const a = tool.annotations ?? {};
  const out: Claim[] = [];
  if (a.readOnlyHint === true) {
    out.push({ key: "readOnly", label: "read-only", tone: "good", said: true });
  } else {
    const said = a.destructiveHint !== undefined;
    if (a.destructiveHint === false) out.push({ key: "additive", label: "only adds", tone: "neutral", said });
    else out.push({ key: "destructive", label: "destructive", tone: "bad", said });
    if (a.idempotentHint === true) out.push({ key: "idempotent", label: "idempotent", tone: "neutral", said: true });
  }
  if (a.openWorldHint === false) out.push({ key: "closedWorld", label: "closed world", tone: "neutral", said: true });
  else out.push({ key: "openWorld", label: "open world", tone: "info", said: a.openWorldHint === true });
  return out;
}

/**
 * Whether calling the tool asks the person first: it does not claim to be
 * read-only, and claims to be destructive or says nothing of it (MCP's
 * default for destructiveHint is true).
 */
export function isDestructive(tool: Tool): boolean {
  const a = tool.annotations ?? {};
  return a.readOnlyHint !== true && a.destructiveHint !== false;
}

/** What the confirmation says the annotations claim, in words. */
export function destructiveClaim(tool: Tool): string {
  const a = tool.annotations ?? {};
  if (a.destructiveHint === true) return "The server says this tool may change or delete things (destructiveHint: true).";
  return "The server does not say this tool only reads, nor that it only adds; by MCP's defaults it may change or delete things.";
}

// ----- results -----------------------------------------------------------

/** A resource's contents: text, or bytes in base64. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: ResourceContents }
  | ({ type: "resource_link" } & Resource)
  /** Anything else, or a known type missing what it needs: shown as the JSON it is. */
  | { type: "unknown"; kind: string; raw: JsonValue };

export function parseContents(v: JsonValue): ResourceContents | null {
  if (!isObject(v)) return null;
  const uri = str(v.uri) ?? "";
  const mimeType = str(v.mimeType);
  if (typeof v.text === "string") return defined({ uri, mimeType, text: v.text });
  if (typeof v.blob === "string") return defined({ uri, mimeType, blob: v.blob });
  return null;
}

export function parseBlock(v: JsonValue): ContentBlock {
  const kind = isObject(v) && typeof v.type === "string" ? v.type : "";
  const unknown: ContentBlock = { type: "unknown", kind, raw: v };
  if (!isObject(v)) return unknown;
  switch (kind) {
    case "text":
      return typeof v.text === "string" ? { type: "text", text: v.text } : unknown;
    case "image":
    case "audio":
      return typeof v.data === "string" && typeof v.mimeType === "string"
        ? { type: kind, data: v.data, mimeType: v.mimeType }
        : unknown;
    case "resource": {
      const resource = parseContents(v.resource ?? null);
      return resource ? { type: "resource", resource } : unknown;
    }
    case "resource_link": {
      const r = parseResource(v);
      return r ? { type: "resource_link", ...r } : unknown;
    }
    default:
      return unknown;
  }
}

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: JsonObject;
  isError: boolean;
}

export function parseCallResult(v: JsonValue): CallToolResult {
  if (!isObject(v)) return { content: [{ type: "unknown", kind: "", raw: v }], isError: false };
  return defined({
    content: Array.isArray(v.content) ? v.content.map(parseBlock) : [],
    structuredContent: isObject(v.structuredContent) ? v.structuredContent : undefined,
    isError: v.isError === true,
  });
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  /** Entries of `contents` that were neither text nor a blob. */
  skipped: number;
}

export function parseReadResult(v: JsonValue): ReadResourceResult {
  const all = isObject(v) && Array.isArray(v.contents) ? v.contents : [];
  const contents: ResourceContents[] = [];
  for (const c of all) {
    const parsed = parseContents(c);
    if (parsed) contents.push(parsed);
  }
  return { contents, skipped: all.length - contents.length };
}

export interface PromptMessage {
  role: string;
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
}

export function parsePromptResult(v: JsonValue): GetPromptResult {
  if (!isObject(v)) return { messages: [] };
  const messages: PromptMessage[] = [];
  for (const m of Array.isArray(v.messages) ? v.messages : []) {
    if (!isObject(m)) continue;
    messages.push({ role: str(m.role) ?? "", content: parseBlock(m.content ?? null) });
  }
  return defined({ description: str(v.description), messages });
}

// ----- bytes -------------------------------------------------------------

/** How many bytes a base64 string holds (without decoding it). */
export function base64Size(b64: string): number {
  const clean = b64.replace(/[^A-Za-z0-9+/]/g, "");
  return Math.floor((clean.length * 3) / 4);
}

/** Whether a string is base64 (standard alphabet, padding, whitespace allowed). */
export function isBase64(s: string): boolean {
  return /^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(s);
}

/** Decodes base64 into bytes; null when it is not base64. */
export function base64Bytes(b64: string): Uint8Array | null {
  if (!isBase64(b64)) return null;
  let bin: string;
  try {
    bin = atob(b64.replace(/\s/g, ""));
  } catch {
    return null;
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** A size in words: "512 bytes", "1.2 kB", "3.4 MB" (powers of 1000, as files show). */
export function formatBytes(n: number): string {
  if (n < 1000) return n === 1 ? "1 byte" : `${n} bytes`;
  const units = ["kB", "MB", "GB", "TB"];
  let v = n / 1000;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/**
 * A MIME type the window may put in a data: URL for an <img> or <audio>:
 * type/subtype in the few characters MIME allows, of the wanted family.
 * SVG is left out: it is a document, and shown as an image only by a
 * browser that keeps its scripts from running.
 */
export function mediaType(mime: string, family: "image" | "audio"): string | null {
  const m = mime.trim().toLowerCase().split(";")[0].trim();
  if (!/^[a-z]+\/[a-z0-9.+-]+$/.test(m) || !m.startsWith(`${family}/`)) return null;
  if (m === "image/svg+xml") return null;
  return m;
}

/** Extensions for the types a download is most often of, when its name has none. */
const EXTENSIONS: Record<string, string> = {
  "text/plain": ".txt",
  "text/markdown": ".md",
  "text/html": ".html",
  "text/csv": ".csv",
  "application/json": ".json",
  "application/gzip": ".gz",
  "application/zip": ".zip",
  "application/pdf": ".pdf",
  "application/octet-stream": ".bin",
  "image/png": ".png",
  "image/jpeg": ".jpg",
  "image/gif": ".gif",
  "image/webp": ".webp",
  "audio/wav": ".wav",
  "audio/mpeg": ".mp3",
};

/**
 * A file name for saving a resource: the last part of its URI (with the
 * part before it when the last is a bare number: "blob-1"), an extension
 * for its type when it has none, without characters file systems or a
 * download refuse.
 */
export function downloadName(uri: string, mimeType?: string, fallback = "resource"): string {
  const parts = uri
    .replace(/^[a-z][a-z0-9+.-]*:\/*/i, "")
    .replace(/[?#].*$/, "")
    .split("/")
    .filter((p) => p !== "");
  const decode = (p: string) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  };
  let last = decode(parts.at(-1) ?? "");
  if (/^\d+$/.test(last) && parts.length > 1) last = `${decode(parts[parts.length - 2])}-${last}`;
  // eslint-disable-next-line no-control-regex
  let clean = last.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, "_").replace(/^\.+/, "").trim();
  if (clean === "") clean = fallback;
  clean = clean.slice(0, 120);
  const ext = mimeType ? EXTENSIONS[mimeType.split(";")[0].trim().toLowerCase()] : undefined;
  return ext && !/\.[A-Za-z0-9]{1,8}$/.test(clean) ? `${clean}${ext}` : clean;
}

/** Bytes as text when their type says text and they decode as UTF-8; null otherwise. */
export function blobText(b64: string, mimeType: string | undefined): string | null {
  const m = (mimeType ?? "").split(";")[0].trim().toLowerCase();
  if (!(m.startsWith("text/") || m === "application/json" || m.endsWith("+json") || m.endsWith("+xml"))) return null;
  const bytes = base64Bytes(b64);
  if (!bytes) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
