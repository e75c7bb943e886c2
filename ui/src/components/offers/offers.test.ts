// A running server's Tools, Resources and Prompts in its detail, against
// the fake backend: the empty states, a tool called from its form (and
// from the raw editor when the form refuses its schema), the confirmation
// a destructive tool asks, progress and Cancel, results of every kind,
// resources read (text shown, bytes downloaded), templates filled, prompts
// got, lists refreshed on list_changed, keyboard access, long lists kept
// virtual and long text cut.
import { flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";
import App from "../../App.svelte";
import { AppState } from "../../lib/state/app.svelte";
import type { JsonValue, TryOutcome } from "../../lib/bindings";
import { fakeBackend, offers, outcome, server, settle } from "../../lib/testing";
import { SHOWN_CHARS } from "../common/LongText.svelte";

let mounted: Record<string, unknown>[] = [];
afterEach(() => {
  for (const m of mounted) unmount(m);
  mounted = [];
  document.body.innerHTML = "";
});

const q = (testid: string) => document.querySelector<HTMLElement>(`[data-testid="${testid}"]`);
const all = (testid: string) => [...document.querySelectorAll<HTMLElement>(`[data-testid="${testid}"]`)];
const text = (el: Element | null) => el?.textContent?.replace(/\s+/g, " ").trim() ?? "";

const RUNNING = {
  state: "running" as const,
  era: "legacy" as const,
  pid: 3,
  protocolVersion: "2025-11-25",
  serverName: "secure-filesystem-server",
  serverVersion: "1",
  capabilities: {},
};

const READ_TEXT_FILE = {
  name: "read_text_file",
  title: "Read Text File",
  description: "Read the complete contents of a file as text.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string" },
      tail: { description: "If provided, returns only the last N lines of the file", type: "number" },
    },
    required: ["path"],
    $schema: "http://json-schema.org/draft-07/schema#",
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};
const WRITE_FILE = {
  name: "write_file",
  inputSchema: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
};
const LONG_RUNNING = {
  name: "trigger-long-running-operation",
  inputSchema: {
    type: "object",
    properties: { duration: { default: 10, type: "number" }, steps: { default: 5, type: "number" } },
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};
const ONE_OF = {
  name: "search",
  inputSchema: {
    type: "object",
    properties: { q: { oneOf: [{ type: "string" }, { type: "number" }] } },
    required: ["q"],
  },
  annotations: { readOnlyHint: true },
};

async function openRunning(setup: (b: ReturnType<typeof fakeBackend>) => void = () => {}, status: object = RUNNING) {
  const b = fakeBackend();
  b.api.listServers.mockResolvedValue([server("s1", { name: "Files", status: status as never })]);
  b.api.serverOffers.mockResolvedValue(offers({ tools: [READ_TEXT_FILE, WRITE_FILE, LONG_RUNNING, ONE_OF] }));
  setup(b);
  const app = new AppState(b.api, b.events);
  mounted.push(mount(App, { target: document.body, props: { app, autostart: false, prepareViewsAfterMs: 60_000 } }));
  await app.start();
  await app.nav.openDetail("s1");
  await settle();
  flushSync();
  return { app, ...b };
}

async function showTab(id: "tools" | "resources" | "prompts") {
  q(`tab-${id}`)?.click();
  flushSync();
  await settle();
  flushSync();
}

async function pick(name: string) {
  const item = all("offer-item").find((e) => e.dataset.name === name);
  if (!item) throw new Error(`no item ${name}: ${all("offer-item").map((e) => e.dataset.name)}`);
  item.click();
  flushSync();
  await settle();
  flushSync();
}

function arg(id: string): HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement {
  const el = document.querySelector<HTMLInputElement>(`[data-testid="tool-arg"][data-arg="${id}"]`);
  if (!el) throw new Error(`no field ${id}`);
  return el;
}

function typeInto(el: HTMLInputElement | HTMLTextAreaElement, value: string) {
  el.value = value;
  el.dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
}

async function press(id: string) {
  q(id)?.click();
  flushSync();
  await settle();
  flushSync();
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("what a server offers, in its detail", () => {
  it("says to start a server that is not running, and starts it from there", async () => {
    const { api } = await openRunning(() => {}, { state: "stopped", lastExit: null });
    await showTab("tools");
    expect(text(q("offers-not-running"))).toContain("Start the server to see what it offers.");
    expect(api.serverOffers).not.toHaveBeenCalled();
    await press("offers-start");
    expect(api.startServer).toHaveBeenCalledWith("s1");
  });

  it("counts each kind on its tab, and says when the server does not offer one", async () => {
    await openRunning((b) =>
      b.api.serverOffers.mockResolvedValue(
        offers({ tools: [READ_TEXT_FILE], resources: [{ uri: "demo://a", name: "a" }], templates: [], prompts: null }),
      ),
    );
    expect(text(q("tab-tools"))).toBe("Tools 1");
    expect(text(q("tab-resources"))).toBe("Resources 1");
    expect(text(q("tab-prompts"))).toBe("Prompts");
    await showTab("prompts");
    expect(text(q("offers-none"))).toContain("This server does not offer prompts.");
  });

  it("says when a list is offered but empty, and when it could not be had", async () => {
    await openRunning((b) =>
      b.api.serverOffers.mockResolvedValue({
        ...offers({ tools: [] }),
        prompts: { offered: true, items: [], error: "the server answered prompts/list with an error: boom" },
      }),
    );
    await showTab("tools");
    expect(text(q("offers-empty"))).toContain("It offers tools but lists none now.");
    await showTab("prompts");
    expect(text(q("offers-list-error"))).toContain("The server did not list its prompts. the server answered");
  });

  it("lists tools with their titles and what they claim, and asks again when the server says they changed", async () => {
    const { api, handlers } = await openRunning();
    await showTab("tools");
    expect(all("offer-item").map((e) => e.dataset.name)).toEqual(["read_text_file", "write_file", "trigger-long-running-operation", "search"]);
    expect(text(all("offer-item")[0])).toContain("Read Text File");
    expect(text(all("offer-item")[1])).toContain("may destroy");
    expect(text(q("offers-pick"))).toContain("Choose a tool");
    await pick("read_text_file");
    expect(text(q("tool-claims"))).toContain("read-only");
    expect(text(q("tool-claims"))).toContain("closed world");
    expect(text(q("tool-claims"))).toContain("Annotations are the server's own claims; Rootgate does not check them.");

    api.serverOffers.mockResolvedValue(offers({ tools: [READ_TEXT_FILE, { name: "brand_new", inputSchema: { type: "object" } }] }));
    handlers.changes?.([{ kind: "offersChanged", server: "s1", offer: "tools" }]);
    await settle();
    flushSync();
    expect(all("offer-item").map((e) => e.dataset.name)).toEqual(["read_text_file", "brand_new"]);
    expect(text(q("tab-tools"))).toBe("Tools 2");
    // The tool open stays open.
    expect(q("tool-view")?.dataset.name).toBe("read_text_file");
  });

  it("filters the list, and says when nothing matches", async () => {
    await openRunning();
    await showTab("tools");
    const filter = q("offers-filter") as HTMLInputElement;
    typeInto(filter, "FILE");
    expect(all("offer-item").map((e) => e.dataset.name)).toEqual(["read_text_file", "write_file"]);
    expect(text(q("offers-count"))).toBe("2 of 4 tools");
    typeInto(filter, "zzz");
    expect(text(q("offers-no-match"))).toBe("No tool matches “zzz”.");
  });
});

describe("calling a tool", () => {
  it("from its form: the arguments typed, the text it answered, how long it took", async () => {
    const { api } = await openRunning((b) =>
      b.api.callTool.mockResolvedValue(
        outcome({ content: [{ type: "text", text: "hello from a.txt" }] }, { durationMs: 12, rootsAsked: 2 }),
      ),
    );
    await showTab("tools");
    await pick("read_text_file");
    typeInto(arg("/path") as HTMLInputElement, "/home/me/shared/a.txt");
    await press("tool-call");
    expect(api.callTool).toHaveBeenCalledWith("s1", expect.any(Number), "read_text_file", { path: "/home/me/shared/a.txt" });
    expect(text(q("content-text"))).toBe("hello from a.txt");
    expect(text(q("call-outcome"))).toBe("Answered in 12 ms. It asked for roots twice while handling the call.");
  });

  it("from a form with a list of objects, an enum and an optional boolean", async () => {
    const tool = {
      name: "edit_file",
      inputSchema: {
        type: "object",
        properties: {
          dryRun: { default: false, type: "boolean" },
          edits: {
            type: "array",
            items: {
              type: "object",
              properties: { newText: { type: "string" }, oldText: { type: "string" } },
              required: ["oldText", "newText"],
            },
          },
          mode: { type: "string", enum: ["exact", "fuzzy"] },
          path: { type: "string" },
          verbose: { type: "boolean" },
        },
        required: ["path", "edits"],
      },
      annotations: { readOnlyHint: false, destructiveHint: false },
    };
    const { api } = await openRunning((b) => b.api.serverOffers.mockResolvedValue(offers({ tools: [tool] })));
    await showTab("tools");
    await pick("edit_file");
    // Required first (edits and path), then the rest, each in the schema's order.
    expect(all("schema-field").map((f) => f.dataset.field)).toEqual(["/edits", "/path", "/dryRun", "/mode", "/verbose"]);
    typeInto(arg("/path") as HTMLInputElement, "a.txt");
    await press("tool-arg-add");
    typeInto(arg("/edits/0/oldText") as HTMLInputElement, "foo");
    typeInto(arg("/edits/0/newText") as HTMLInputElement, "bar");
    const mode = arg("/mode") as HTMLSelectElement;
    expect([...mode.options].map((o) => o.textContent)).toEqual(["Not sent", "exact", "fuzzy"]);
    mode.selectedIndex = 2;
    mode.dispatchEvent(new Event("change", { bubbles: true }));
    const verbose = arg("/verbose") as HTMLSelectElement;
    verbose.selectedIndex = 2;
    verbose.dispatchEvent(new Event("change", { bubbles: true }));
    flushSync();
    await press("tool-call");
    expect(api.callTool).toHaveBeenCalledWith("s1", expect.any(Number), "edit_file", {
      path: "a.txt",
      edits: [{ oldText: "foo", newText: "bar" }],
      dryRun: false,
      mode: "fuzzy",
      verbose: false,
    });
  });

  it("refuses to send what the form finds wrong, saying so by the field", async () => {
    const { api } = await openRunning();
    await showTab("tools");
    await pick("read_text_file");
    typeInto(arg("/tail") as HTMLInputElement, "ten");
    await press("tool-call");
    expect(api.callTool).not.toHaveBeenCalled();
    expect(all("field-error").map(text)).toEqual(["Fill in “path”: it is required.", "“tail” must be a number, such as 42 or 0.5."]);
    expect(text(q("args-problems"))).toBe("2 fields need a look.");
  });

  it("says a tool's own error (isError) in plain words", async () => {
    await openRunning((b) =>
      b.api.callTool.mockResolvedValue(
        outcome({
          content: [{ type: "text", text: "Access denied - path outside allowed directories: /etc/hostname not in /home/me/shared" }],
          isError: true,
        }),
      ),
    );
    await showTab("tools");
    await pick("read_text_file");
    typeInto(arg("/path") as HTMLInputElement, "/etc/hostname");
    await press("tool-call");
    const result = q("call-result");
    expect(result?.dataset.error).toBe("true");
    expect(text(q("call-outcome"))).toBe("The tool says it failed (it answered with isError), after 12 ms.");
    expect(text(q("content-text"))).toContain("Access denied - path outside allowed directories");
  });

  it("says in words why a call did not go through", async () => {
    await openRunning((b) => b.api.callTool.mockRejectedValue({ code: "server", message: "Files stopped while the call was under way" }));
    await showTab("tools");
    await pick("trigger-long-running-operation");
    await press("tool-call");
    expect(text(q("call-error"))).toBe("The call did not go through: Files stopped while the call was under way.");
  });

  it("asks first for a destructive tool, saying what the annotations claim; Cancel sends nothing", async () => {
    const { api } = await openRunning();
    await showTab("tools");
    await pick("write_file");
    expect(text(q("tool-call"))).toBe("Call…");
    typeInto(arg("/path") as HTMLInputElement, "/home/me/shared/b.txt");
    typeInto(arg("/content") as HTMLTextAreaElement, "new text");
    await press("tool-call");
    const dialog = q("confirm-dialog");
    expect(text(dialog)).toContain("Call “write_file”?");
    expect(text(dialog)).toContain("The server says this tool may change or delete things (destructiveHint: true).");
    expect(text(dialog)).toContain("Annotations are the server's own claims; Rootgate does not check them.");
    expect(text(dialog)).toContain('{"path":"/home/me/shared/b.txt","content":"new text"}');
    await press("confirm-cancel");
    expect(api.callTool).not.toHaveBeenCalled();
    await press("tool-call");
    await press("confirm-ok");
    expect(api.callTool).toHaveBeenCalledWith("s1", expect.any(Number), "write_file", {
      path: "/home/me/shared/b.txt",
      content: "new text",
    });
  });

  it("asks first for a tool that claims nothing (MCP's defaults), saying so", async () => {
    await openRunning((b) => b.api.serverOffers.mockResolvedValue(offers({ tools: [{ name: "mystery", inputSchema: { type: "object" } }] })));
    await showTab("tools");
    await pick("mystery");
    expect(text(q("tool-claims"))).toContain("destructive (default)");
    await press("tool-call");
    expect(text(q("confirm-dialog"))).toContain("by MCP's defaults it may change or delete things");
  });

  it("opens the raw editor for a schema the form refuses, and checks the JSON against the schema before sending", async () => {
    const { api } = await openRunning();
    await showTab("tools");
    await pick("search");
    expect(text(q("form-refused"))).toContain("“q” takes one of several kinds of value (oneOf), which the form cannot show faithfully.");
    expect(q("mode-form")).toBeNull();
    const raw = q("tool-raw") as HTMLTextAreaElement;
    typeInto(raw, '{"q": true}');
    await press("tool-call");
    expect(api.callTool).not.toHaveBeenCalled();
    expect(text(q("args-problems"))).toBe("“q” matches none of the shapes the schema allows.");
    typeInto(raw, '{"q": ');
    await press("tool-call");
    expect(text(q("args-problems"))).toMatch(/^This is not JSON: /);
    typeInto(raw, '{"q": 42}');
    await press("tool-call");
    expect(api.callTool).toHaveBeenCalledWith("s1", expect.any(Number), "search", { q: 42 });
  });

  it("moves the arguments between the form and the JSON editor", async () => {
    const { api } = await openRunning();
    await showTab("tools");
    await pick("trigger-long-running-operation");
    expect((arg("/duration") as HTMLInputElement).value).toBe("10");
    await press("mode-json");
    const raw = q("tool-raw") as HTMLTextAreaElement;
    expect(JSON.parse(raw.value)).toEqual({ duration: 10, steps: 5 });
    typeInto(raw, '{"duration": 2, "extra": 1}');
    await press("mode-form");
    expect(text(q("args-problems"))).toBe("The form has no field for “extra”. The form cannot hold these arguments; they stay here.");
    typeInto(raw, '{"duration": 2}');
    await press("mode-form");
    expect((arg("/duration") as HTMLInputElement).value).toBe("2");
    expect((arg("/steps") as HTMLInputElement).value).toBe("");
    await press("tool-call");
    expect(api.callTool).toHaveBeenCalledWith("s1", expect.any(Number), "trigger-long-running-operation", { duration: 2 });
  });

  it("shows a long call's progress and cancels it calmly", async () => {
    const answer = deferred<TryOutcome>();
    const { api, handlers } = await openRunning((b) => b.api.callTool.mockReturnValue(answer.promise));
    await showTab("tools");
    await pick("trigger-long-running-operation");
    await press("tool-call");
    expect(q("call-running")).not.toBeNull();
    expect((q("tool-call") as HTMLButtonElement).disabled).toBe(true);
    const call = api.callTool.mock.calls[0][1];
    handlers.changes?.([{ kind: "callProgress", call, progress: 2, total: 5, message: "step two" }]);
    flushSync();
    expect(text(q("call-progress-text"))).toMatch(/^2 of 5 · \d+ ms$/);
    expect((q("call-progress") as HTMLProgressElement).value).toBe(2);
    expect(text(q("call-running"))).toContain("step two");
    await press("call-cancel");
    expect(api.cancelCall).toHaveBeenCalledWith(call);
    expect(text(q("call-progress-text"))).toMatch(/^Cancelling…/);
    answer.reject({ code: "cancelled", message: "The call was cancelled." });
    await settle();
    flushSync();
    expect(text(q("call-cancelled"))).toMatch(/^Cancelled after \d+ ms\. The server was told to stop\.$/);
    expect(q("call-error")).toBeNull();
  });

  it("keeps what was typed when another tab or tool is opened and back", async () => {
    await openRunning((b) =>
      b.api.serverOffers.mockResolvedValue(
        offers({
          tools: [READ_TEXT_FILE, LONG_RUNNING],
          templates: [{ name: "T", uriTemplate: "demo://t/{id}" }],
          prompts: [{ name: "p", arguments: [{ name: "city" }] }],
        }),
      ),
    );
    await showTab("tools");
    await pick("read_text_file");
    typeInto(arg("/path") as HTMLInputElement, "/home/me/typed.txt");
    await pick("trigger-long-running-operation");
    await showTab("resources");
    await pick("demo://t/{id}");
    typeInto(document.querySelector('[data-testid="template-var"]') as HTMLInputElement, "7");
    await showTab("prompts");
    await pick("p");
    typeInto(document.querySelector('[data-testid="prompt-arg"]') as HTMLInputElement, "Oslo");
    await showTab("tools");
    await pick("read_text_file");
    expect((arg("/path") as HTMLInputElement).value).toBe("/home/me/typed.txt");
    await showTab("resources");
    expect(text(q("template-uri"))).toBe("demo://t/7");
    await showTab("prompts");
    expect((document.querySelector('[data-testid="prompt-arg"]') as HTMLInputElement).value).toBe("Oslo");
  });

  it("keeps each tool's last answer when another is opened and back", async () => {
    await openRunning();
    await showTab("tools");
    await pick("trigger-long-running-operation");
    await press("tool-call");
    expect(text(q("content-text"))).toBe("ok");
    await pick("read_text_file");
    expect(q("call-result")).toBeNull();
    await pick("trigger-long-running-operation");
    expect(text(q("content-text"))).toBe("ok");
  });
});

describe("what a tool answered, as the server sent it", () => {
  async function answered(result: JsonValue, tool: JsonValue = LONG_RUNNING) {
    const b = await openRunning((f) => {
      f.api.serverOffers.mockResolvedValue(offers({ tools: [tool] }));
      f.api.callTool.mockResolvedValue(outcome(result));
    });
    await showTab("tools");
    await pick((tool as { name: string }).name);
    await press("tool-call");
    return b;
  }

  it("images and audio from data: URLs, with their type, size and a download", async () => {
    await answered({
      content: [
        { type: "image", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", mimeType: "image/png" },
        { type: "audio", data: "UklGRiQAAABXQVZF", mimeType: "audio/wav" },
        { type: "image", data: "PHN2Zz48L3N2Zz4=", mimeType: "image/svg+xml" },
      ],
    });
    const [png, svg] = all("content-image");
    expect(png.querySelector("img")?.getAttribute("src")).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(text(png)).toContain("image/png");
    expect(text(png)).toContain("bytes");
    expect(q("content-audio")?.querySelector("audio")?.getAttribute("src")).toBe("data:audio/wav;base64,UklGRiQAAABXQVZF");
    // An SVG is a document: not put in an <img>, offered as a download.
    expect(svg.querySelector("img")).toBeNull();
    expect(text(svg)).toContain("which the window does not play or show");
  });

  it("structured content next to its output schema, and whether it matches", async () => {
    const tool = {
      name: "get-structured-content",
      inputSchema: { type: "object" },
      outputSchema: {
        type: "object",
        properties: { temperature: { type: "number" }, conditions: { type: "string" } },
        required: ["temperature", "conditions"],
      },
      annotations: { readOnlyHint: true },
    };
    await answered({ content: [{ type: "text", text: '{"temperature":33}' }], structuredContent: { temperature: 33, conditions: "Cloudy" } }, tool);
    expect(JSON.parse(text(q("call-structured")))).toEqual({ temperature: 33, conditions: "Cloudy" });
    expect(q("structured-matches")).not.toBeNull();
    expect(JSON.parse(text(q("call-output-schema")))).toEqual(tool.outputSchema);
  });

  it("structured content that does not match its schema, said so", async () => {
    await answered(
      { content: [], structuredContent: { temperature: "hot" } },
      { name: "t", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { temperature: { type: "number" } } }, annotations: { readOnlyHint: true } },
    );
    expect(q("structured-mismatch")).not.toBeNull();
    expect(text(q("call-result"))).toContain("“temperature” must be a number, not a string.");
  });

  it("embedded resources, links it reads on request, and blocks it does not know", async () => {
    const { api } = await answered({
      content: [
        { type: "resource", resource: { uri: "demo://resource/dynamic/text/1", mimeType: "text/plain", text: "Resource 1 text" } },
        { type: "resource_link", uri: "demo://resource/dynamic/text/2", name: "Text Resource 2", mimeType: "text/plain" },
        { type: "hologram", data: "…" },
      ],
    });
    expect(text(q("content-resource"))).toContain("Resource 1 text");
    expect(text(q("content-link"))).toContain("Text Resource 2");
    await press("content-link-read");
    expect(api.readResource).toHaveBeenCalledWith("s1", "demo://resource/dynamic/text/2");
    expect(text(q("content-link"))).toContain("hello");
    expect(text(q("content-unknown"))).toContain("A “hologram” block, which the window does not show");
  });

  it("cuts megabytes of text, with Show all", async () => {
    const long = "x".repeat(SHOWN_CHARS * 3);
    await answered({ content: [{ type: "text", text: long }] });
    expect(text(q("content-text")).length).toBe(SHOWN_CHARS);
    expect(text(q("text-cut"))).toContain(`of ${(SHOWN_CHARS * 3).toLocaleString("en-US")} characters`);
    await press("show-all");
    expect(text(q("content-text")).length).toBe(SHOWN_CHARS * 3);
    expect(q("text-cut")).toBeNull();
  });

  it("the whole answer as JSON, on request", async () => {
    await answered({ content: [{ type: "text", text: "hi" }], _meta: { x: 1 } });
    expect(q("call-raw")).toBeNull();
    await press("call-raw-toggle");
    expect(JSON.parse(text(q("call-raw")))).toEqual({ content: [{ type: "text", text: "hi" }], _meta: { x: 1 } });
  });
});

describe("resources and prompts", () => {
  const RESOURCES = offers({
    resources: [
      { uri: "demo://resource/static/document/features.md", name: "features.md", mimeType: "text/markdown" },
      { uri: "demo://resource/dynamic/blob/1", name: "Blob 1", mimeType: "application/octet-stream" },
    ],
    templates: [{ name: "Dynamic Text Resource", uriTemplate: "demo://resource/dynamic/text/{resourceId}", mimeType: "text/plain" }],
    prompts: [
      { name: "args-prompt", title: "Arguments Prompt", arguments: [{ name: "city", description: "Name of the city", required: true }, { name: "state" }] },
    ],
  });

  it("reads a resource and shows its text, and follows its changes", async () => {
    const { api, handlers } = await openRunning((b) => {
      b.api.serverOffers.mockResolvedValue(RESOURCES);
      b.api.readResource.mockResolvedValue(outcome({ contents: [{ uri: "demo://resource/static/document/features.md", mimeType: "text/markdown", text: "# Features" }] }));
    });
    await showTab("resources");
    expect(all("offer-item").map((e) => e.dataset.name)).toEqual([
      "demo://resource/static/document/features.md",
      "demo://resource/dynamic/blob/1",
      "demo://resource/dynamic/text/{resourceId}",
    ]);
    expect(text(q("offers-count"))).toBe("2 resources · 1 template");
    await pick("demo://resource/static/document/features.md");
    await press("resource-read");
    expect(api.readResource).toHaveBeenCalledWith("s1", "demo://resource/static/document/features.md");
    expect(text(q("resource-text"))).toBe("# Features");
    await press("resource-subscribe");
    expect(api.subscribeResource).toHaveBeenCalledWith("s1", "demo://resource/static/document/features.md");
    expect(q("resource-subscribed")).not.toBeNull();
    handlers.changes?.([{ kind: "resourceUpdated", server: "s1", uri: "demo://resource/static/document/features.md" }]);
    flushSync();
    expect(text(q("resource-changed"))).toMatch(/^The server says it changed at \d\d:\d\d:\d\d\. Read again$/);
  });

  it("offers bytes as a download with their size and type, saved by the webview", async () => {
    const createObjectURL = vi.fn((_b: Blob) => "blob:x");
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    await openRunning((b) => {
      b.api.serverOffers.mockResolvedValue(RESOURCES);
      b.api.readResource.mockResolvedValue(
        outcome({ contents: [{ uri: "demo://resource/dynamic/blob/1", mimeType: "application/octet-stream", blob: "UmVzb3VyY2UgMQ==" }] }),
      );
    });
    await showTab("resources");
    await pick("demo://resource/dynamic/blob/1");
    await press("resource-read");
    expect(text(q("resource-binary"))).toContain("Binary contents, 10 bytes, application/octet-stream");
    await press("resource-download");
    expect(click).toHaveBeenCalled();
    const blob = createObjectURL.mock.calls[0][0];
    expect(blob.type).toBe("application/octet-stream");
    expect(await blob.text()).toBe("Resource 1");
  });

  it("fills a template's variables into the URI it reads", async () => {
    const { api } = await openRunning((b) => b.api.serverOffers.mockResolvedValue(RESOURCES));
    await showTab("resources");
    await pick("demo://resource/dynamic/text/{resourceId}");
    const input = document.querySelector<HTMLInputElement>('[data-testid="template-var"][data-var="resourceId"]');
    typeInto(input as HTMLInputElement, "3");
    expect(text(q("template-uri"))).toBe("demo://resource/dynamic/text/3");
    await press("resource-read");
    expect(api.readResource).toHaveBeenCalledWith("s1", "demo://resource/dynamic/text/3");
    expect(text(q("resource-text"))).toBe("hello");
  });

  it("says why a read failed", async () => {
    await openRunning((b) => {
      b.api.serverOffers.mockResolvedValue(RESOURCES);
      b.api.readResource.mockRejectedValue({ code: "server", message: "MCP error -32002: Resource not found" });
    });
    await showTab("resources");
    await pick("demo://resource/static/document/features.md");
    await press("resource-read");
    expect(text(q("resource-error"))).toBe("The server did not read it: MCP error -32002: Resource not found.");
  });

  it("gets a prompt with its arguments, asking for the required ones", async () => {
    const { api } = await openRunning((b) => {
      b.api.serverOffers.mockResolvedValue(RESOURCES);
      b.api.getPrompt.mockResolvedValue(outcome({ messages: [{ role: "user", content: { type: "text", text: "What's weather in Paris?" } }] }));
    });
    await showTab("prompts");
    await pick("args-prompt");
    await press("prompt-get");
    expect(api.getPrompt).not.toHaveBeenCalled();
    expect(text(q("field-error"))).toBe("Fill in “city”: it is required.");
    typeInto(document.querySelector('[data-testid="prompt-arg"][data-arg="city"]') as HTMLInputElement, "Paris");
    await press("prompt-get");
    expect(api.getPrompt).toHaveBeenCalledWith("s1", "args-prompt", { city: "Paris" });
    expect(all("prompt-message").map((m) => m.dataset.role)).toEqual(["user"]);
    expect(text(q("prompt-message"))).toContain("What's weather in Paris?");
  });
});

describe("keyboard and long lists", () => {
  it("walks the tabs with the arrow keys, and the list with ↑ ↓", async () => {
    await openRunning();
    const timeline = q("tab-timeline");
    timeline?.focus();
    timeline?.dispatchEvent(new KeyboardEvent("keydown", { key: "End", bubbles: true }));
    flushSync();
    expect(q("tab-prompts")?.getAttribute("aria-selected")).toBe("true");
    q("tab-prompts")?.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowLeft", bubbles: true }));
    q("tab-resources")?.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowLeft", bubbles: true }));
    flushSync();
    await settle();
    flushSync();
    expect(q("tab-tools")?.getAttribute("aria-selected")).toBe("true");
    expect(document.activeElement).toBe(q("tab-tools"));

    const filter = q("offers-filter") as HTMLInputElement;
    filter.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    flushSync();
    expect(q("tool-view")?.dataset.name).toBe("read_text_file");
    const items = () => all("offer-item");
    items()[0].dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    flushSync();
    expect(q("tool-view")?.dataset.name).toBe("write_file");
    items()[1].dispatchEvent(new KeyboardEvent("keydown", { key: "End", bubbles: true }));
    flushSync();
    expect(q("tool-view")?.dataset.name).toBe("search");
    // One tab stop in the list: the item open.
    expect(items().filter((i) => i.tabIndex === 0).map((i) => i.dataset.name)).toEqual(["search"]);
  });

  it("keeps hundreds of tools virtual", async () => {
    const tools = Array.from({ length: 800 }, (_, i) => ({ name: `tool_${i}`, inputSchema: { type: "object" } }));
    await openRunning((b) => b.api.serverOffers.mockResolvedValue(offers({ tools })));
    await showTab("tools");
    expect(text(q("tab-tools"))).toBe("Tools 800");
    expect(all("offer-item").length).toBeGreaterThan(5);
    expect(all("offer-item").length).toBeLessThan(60);
  });

  it("forgets what it offered when the server stops", async () => {
    const { app, handlers } = await openRunning();
    await showTab("tools");
    expect(all("offer-item").length).toBe(4);
    handlers.changes?.([{ kind: "status", server: "s1", status: { state: "stopped", lastExit: "exit code 0" } }]);
    flushSync();
    expect(q("offers-not-running")).not.toBeNull();
    expect(app.offers.offers).toBe(null);
    expect(text(q("tab-tools"))).toBe("Tools");
  });
});
