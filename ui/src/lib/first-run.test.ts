import { describe, expect, it } from "vitest";

import type { AppView, EntryView, FileView } from "./bindings";
import { foundApps, foundSentence, listWords } from "./first-run";

function entry(key: string, over: Partial<EntryView> = {}): EntryView {
  return {
    scope: { kind: "global" },
    key,
    commandLine: `npx ${key}`,
    envNames: [],
    remote: false,
    enabled: true,
    routedTo: null,
    importedAs: null,
    folders: [],
    needs: [],
    keptPaths: [],
    importCommandLine: `npx ${key}`,
    notImportable: null,
    ...over,
  } as EntryView;
}

function file(servers: EntryView[]): FileView {
  return {
    index: 0,
    path: "/home/a/.config/x.json",
    format: "json",
    exists: true,
    problem: null,
    routedByRootgate: false,
    servers,
  };
}

function app(title: string, servers: EntryView[]): AppView {
  return { app: "cursor", title, files: [file(servers)] };
}

describe("the first run's apps found", () => {
  it("names each app with local servers not under Rootgate yet, and counts those servers", () => {
    const found = foundApps([
      app("Claude Code", [entry("files"), entry("git")]),
      app("Cursor", [entry("memory")]),
      app("VS Code", [entry("fetch")]),
      app("Zed", [entry("time")]),
      app("Goose", []),
    ]);
    expect(found).toEqual({ titles: ["Claude Code", "Cursor", "VS Code", "Zed"], servers: 5 });
    expect(foundSentence(found!)).toBe("Found Claude Code, Cursor, VS Code and Zed with 5 servers");
  });

  it("leaves out remote servers and those routed or imported already", () => {
    const found = foundApps([
      app("Claude Desktop", [entry("web", { remote: true })]),
      app("Cursor", [
        entry("files", { routedTo: "files" }),
        entry("git", { importedAs: { id: "s1" as never, name: "git" } }),
        entry("memory"),
      ]),
    ]);
    expect(found).toEqual({ titles: ["Cursor"], servers: 1 });
    expect(foundSentence(found!)).toBe("Found Cursor with 1 server");
  });

  it("is nothing when no app has a server to bring, or the apps are not listed yet", () => {
    expect(foundApps(null)).toBeNull();
    expect(foundApps([])).toBeNull();
    expect(foundApps([app("Zed", [entry("files", { routedTo: "files" })])])).toBeNull();
  });

  it("joins names as a sentence does", () => {
    expect(listWords([])).toBe("");
    expect(listWords(["Zed"])).toBe("Zed");
    expect(listWords(["Zed", "Goose"])).toBe("Zed and Goose");
    expect(listWords(["A", "B", "C"])).toBe("A, B and C");
  });
});
