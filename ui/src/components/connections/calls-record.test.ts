// The record of calls in the Connections view against the fake backend:
// opened, it searches; words and an outcome are sent as the query; more
// matches than shown are said; an export sends the same query without a
// limit and says where it went; a cancelled save says nothing.
import { flushSync } from "svelte";
import { afterEach, describe, expect, it } from "vitest";
import type { CallRecord } from "../../lib/bindings";
import { fakeBackend, settle } from "../../lib/testing";
import { all, q, startApp, unmountAll } from "../testing/window";

afterEach(unmountAll);

function record(over: Partial<CallRecord> = {}): CallRecord {
  return {
    atMs: 1_700_000_000_000,
    app: "claude-code",
    appVersion: "2.0.1",
    server: "s1",
    serverName: "files",
    method: "tools/call",
    target: "write_file",
    durationMs: 12,
    outcome: "ok",
    consent: "allowed once by you, in the window, after 2140 ms",
    bytesIn: 120,
    bytesOut: 2048,
    ...over,
  };
}

describe("the record of calls", () => {
  async function opened(setup: (b: ReturnType<typeof fakeBackend>) => void = () => {}) {
    const started = await startApp(setup);
    started.app.nav.show("connections");
    flushSync();
    await settle();
    (q("record-toggle") as HTMLButtonElement).click();
    flushSync();
    await settle();
    return started;
  }

  it("searches when opened and shows each call with who allowed it", async () => {
    const { api } = await opened((b) =>
      b.api.searchCalls.mockResolvedValue({
        records: [record(), record({ app: "cursor-vscode", outcome: "refused: hidden", consent: null })],
        matched: 250,
        unreadable: 1,
      }),
    );
    expect(api.searchCalls).toHaveBeenCalledWith({ text: "", kind: null, limit: 200 });
    const rows = all("record-row");
    expect(rows).toHaveLength(2);
    expect(rows[0].textContent).toContain("Claude Code");
    expect(rows[0].textContent).toContain("allowed once by you, in the window");
    expect(rows[0].textContent).toContain("120 B / 2.0 KiB");
    expect(rows[1].textContent).toContain("refused: hidden");
    expect(q("record-count")?.textContent).toContain("The newest 2 of 250 calls that match.");
    expect(q("record-count")?.textContent).toContain("1 line of the record could not be read.");
  });

  it("names each app by its product with its version quieter, and one it does not know as it said (#40)", async () => {
    await opened((b) =>
      b.api.searchCalls.mockResolvedValue({
        records: [
          record({ app: "claude-code", appVersion: "2.0.14" }),
          record({ app: "codex-mcp-client", appVersion: "0.47.0" }),
          record({ app: "my-agent", appVersion: "" }),
        ],
        matched: 3,
        unreadable: 0,
      }),
    );
    const cells = all("record-app");
    expect(cells.map((c) => c.querySelector(".name")?.textContent?.trim())).toEqual(["Claude Code", "Codex CLI", "my-agent"]);
    expect(cells.map((c) => c.querySelector(".version")?.textContent?.trim() ?? null)).toEqual(["2.0.14", "0.47.0", null]);
    expect(cells[0].getAttribute("title")).toBe("It calls itself “claude-code” 2.0.14");
  });

  it("sends the words and the outcome, and exports every match", async () => {
    const { api } = await opened((b) => {
      b.api.exportCalls.mockResolvedValue({ path: "/home/me/calls.csv", count: 3 });
    });
    const input = q("record-text") as HTMLInputElement;
    input.value = "cursor write";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    const kind = q("record-kind") as HTMLSelectElement;
    kind.value = "refused";
    kind.dispatchEvent(new Event("change", { bubbles: true }));
    flushSync();
    await settle();
    expect(api.searchCalls).toHaveBeenLastCalledWith({ text: "cursor write", kind: "refused", limit: 200 });
    expect(q("record-count")?.textContent).toContain("No call matches.");
    (q("record-export-csv") as HTMLButtonElement).click();
    await settle();
    expect(api.exportCalls).toHaveBeenCalledWith({ text: "cursor write", kind: "refused", limit: null }, "csv");
    expect(document.body.textContent).toContain("3 calls exported to /home/me/calls.csv.");
  });

  it("says nothing when the save dialog is cancelled, and says why a search failed", async () => {
    await opened((b) => {
      b.api.searchCalls.mockRejectedValue({ code: "settings", message: "the record could not be read" });
    });
    expect(document.querySelector(".record .alert-error")?.textContent).toContain("The record could not be read");
    (q("record-export-csv") as HTMLButtonElement).click();
    await settle();
    expect(document.body.textContent).not.toContain("exported to");
  });
});
