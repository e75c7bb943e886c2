// The consent prompt against the fake backend: who is ticked, Share and
// Cancel, the queue and its counter, hidden characters written out, the
// servers' marks (enforced, restarts) and the warnings.
import { flushSync } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";
import { folder, prompt, server, settle } from "../../lib/testing";
import { all, choice, q, RUNNING, startApp, unmountAll } from "../testing/window";

afterEach(unmountAll);

describe("the consent prompt", () => {
  it("asks consent with no server ticked, and shares with exactly the ticked one", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([
        prompt(7, {
          name: "proj",
          chosenPath: "/home/me/link",
          warnings: [{ kind: "holdsSecrets", names: [".env"], message: "This folder holds secrets: .env." }],
          servers: [
            { id: "a", name: "A", granted: false, suggested: false, enforced: false, restarts: false, connected: [] },
            { id: "b", name: "B", granted: false, suggested: false, enforced: false, restarts: false, connected: [] },
          ],
        }),
      ]);
      b.api.answerPrompt.mockResolvedValue(folder("r7"));
    });
    const dialog = q("consent-dialog");
    expect(dialog?.getAttribute("role")).toBe("dialog");
    expect(dialog?.getAttribute("aria-modal")).toBe("true");
    expect(dialog?.textContent).toContain("Share “proj”?");
    expect(q("consent-real-path")?.textContent).toBe("/home/me/folder7");
    expect(q("consent-chosen-path")?.textContent).toContain("/home/me/link");
    expect(all("consent-warning").map((w) => w.textContent?.trim())).toEqual(["This folder holds secrets: .env."]);
    expect(q("consent-note")?.textContent).toContain("tells a server where to work");
    const boxes = all("consent-server") as HTMLInputElement[];
    expect(boxes.map((b) => b.checked)).toEqual([false, false]);
    expect(q("consent-share")?.textContent?.trim()).toBe("Keep without sharing");
    boxes[1].click();
    flushSync();
    expect(q("consent-share")?.textContent?.trim()).toBe("Share");
    q("consent-share")?.click();
    await settle();
    flushSync();
    expect(api.answerPrompt).toHaveBeenCalledWith(7, ["b"], null);
    expect(q("consent-dialog")).toBeNull();
  });

  it("names each server on its card, and brings the ticked suggestion into view with focus on it (#40)", async () => {
    const seen: string[] = [];
    const scroll = vi.fn(function (this: Element) {
      seen.push(this.getAttribute("data-server-id") ?? "");
    });
    const original = Element.prototype.scrollIntoView;
    Element.prototype.scrollIntoView = scroll;
    try {
      const servers = Array.from({ length: 12 }, (_, i) =>
        choice(`s${i}`, { name: `Server number ${i}`, suggested: i === 10, connected: i === 10 ? ["Claude Code"] : [] }),
      );
      await startApp((b) =>
        b.api.openPrompts.mockResolvedValue([
          prompt(70, {
            name: "app",
            servers,
            suggestion: { app: "Claude Code", server: "s10", serverName: "Server number 10", imported: false },
          }),
        ]),
      );
      await settle();
      flushSync();
      expect(all("consent-choice-name").map((n) => n.textContent?.trim())).toEqual(servers.map((s) => s.name));
      const ticked = all("consent-server").filter((c) => (c as HTMLInputElement).checked);
      expect(ticked.map((c) => c.dataset.serverId)).toEqual(["s10"]);
      expect(document.activeElement).toBe(ticked[0]);
      expect(seen).toContain("s10");
    } finally {
      Element.prototype.scrollIntoView = original;
    }
  });

  it("ticks the current grants when changing access", async () => {
    await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([
        prompt(8, {
          root: "r1",
          servers: [
            { id: "a", name: "A", granted: true, suggested: false, enforced: false, restarts: false, connected: [] },
            { id: "b", name: "B", granted: false, suggested: false, enforced: false, restarts: false, connected: [] },
          ],
        }),
      ]);
    });
    expect((all("consent-server") as HTMLInputElement[]).map((b) => b.checked)).toEqual([true, false]);
  });

  it("cancels consent with Escape", async () => {
    const { api } = await startApp((b) => b.api.openPrompts.mockResolvedValue([prompt(9)]));
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await settle();
    flushSync();
    expect(api.cancelPrompt).toHaveBeenCalledWith(9);
    expect(q("consent-dialog")).toBeNull();
  });
});

describe("queued consent prompts", () => {
  it("shows the next prompt, usable, after the first is cancelled", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([prompt(1), prompt(2)]);
      b.api.answerPrompt.mockResolvedValue(folder("r2"));
    });
    expect(q("consent-dialog")?.textContent).toContain("Folder 1 of 2");
    q("consent-cancel")?.click();
    await settle();
    flushSync();
    expect(q("consent-real-path")?.textContent).toBe("/home/me/folder2");
    expect(q("consent-dialog")?.closest("[inert]")).toBeNull();
    q("consent-share")?.click();
    await settle();
    expect(api.answerPrompt).toHaveBeenCalledWith(2, [], null);
  });
});

describe("a name with a hidden character", () => {
  const sly = "invoice\u202Efdp.exe";

  it("is written out in the consent prompt's title, folder box and name field, never shown raw", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([
        prompt(30, {
          // The core writes the default name out; the real path holds the character.
          name: "invoice<U+202E>fdp.exe",
          realPath: `/home/me/${sly}`,
          warnings: [
            {
              kind: "hiddenCharacters",
              shown: "invoice<U+202E>fdp.exe",
              message: "A name on this path holds invisible characters. Written out, it is \"invoice<U+202E>fdp.exe\".",
            },
          ],
        }),
      ]);
      b.api.answerPrompt.mockResolvedValue(folder("r30"));
    });
    const dialog = q("consent-dialog")!;
    const h2 = dialog.querySelector("h2")!;
    expect(h2.textContent).toBe("Share “invoice<U+202E>fdp.exe”?");
    expect(h2.querySelector("bdi .hidden-char")?.textContent).toBe("<U+202E>");
    expect(q("consent-real-path")?.textContent).toBe("/home/me/invoice<U+202E>fdp.exe");
    expect(q("consent-real-path")?.querySelector(".hidden-char")?.getAttribute("title")).toMatch(/RIGHT-TO-LEFT OVERRIDE/);
    expect((q("consent-name") as HTMLInputElement).value).toBe("invoice<U+202E>fdp.exe");
    expect(q("consent-name-shown")?.textContent).toContain("invoice<U+202E>fdp.exe");
    expect(all("consent-warning")[0].querySelector(".hidden-char")).not.toBeNull();
    // Nothing in the dialog holds the raw character.
    expect(dialog.textContent).not.toContain("\u202E");
    q("consent-share")?.click();
    await settle();
    expect(api.answerPrompt).toHaveBeenCalledWith(30, [], null);
  });

  it("kept from before, is proposed written out, so the name sent is one that could be typed", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([prompt(31, { name: sly, realPath: `/home/me/${sly}` })]);
      b.api.answerPrompt.mockResolvedValue(folder("r31"));
    });
    expect((q("consent-name") as HTMLInputElement).value).toBe("invoice<U+202E>fdp.exe");
    q("consent-share")?.click();
    await settle();
    expect(api.answerPrompt).toHaveBeenCalledWith(31, [], "invoice<U+202E>fdp.exe");
  });

  it("typed into the name field, is written out under it and called refused", async () => {
    await startApp((b) => b.api.openPrompts.mockResolvedValue([prompt(32)]));
    const input = q("consent-name") as HTMLInputElement;
    input.value = "a\u202Eb";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    expect(q("consent-name-shown")?.textContent).toContain("a<U+202E>b");
    expect(q("consent-name-shown")?.textContent).toContain("refused");
  });

  it("is written out on the folder's row, with a marker, in its name, path and tooltips", async () => {
    await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("s1", { name: "Fi\u200Bles" })]);
      b.api.listFolders.mockResolvedValue([
        folder("r1", { name: "invoice<U+202E>fdp.exe", realPath: `/home/me/${sly}`, chosenPath: `/home/me/${sly}`, servers: ["s1"] }),
        folder("r2", { name: "plain" }),
      ]);
    });
    const [row, plain] = all("folder-row");
    expect(row.querySelector('[data-testid="folder-name"]')?.textContent).toBe("invoice<U+202E>fdp.exe");
    const path = row.querySelector<HTMLElement>('[data-testid="folder-path"]')!;
    expect(path.textContent).toBe("/home/me/invoice<U+202E>fdp.exe");
    expect(path.getAttribute("title")).toBe("/home/me/invoice<U+202E>fdp.exe");
    expect(path.getAttribute("dir")).toBe("ltr");
    expect(path.querySelector(".hidden-char")).not.toBeNull();
    const marker = row.querySelector('[data-testid="folder-hidden-marker"]');
    expect(marker?.getAttribute("title")).toBe("This name holds hidden characters");
    expect(marker?.getAttribute("aria-label")).toBe("This name holds hidden characters");
    expect(row.querySelector('[data-testid="folder-servers"]')?.textContent).toContain("Fi<U+200B>les");
    expect(row.querySelector('[data-testid="folder-rename"]')?.getAttribute("aria-label")).toBe("Rename invoice<U+202E>fdp.exe");
    expect(row.textContent).not.toMatch(/[\u202E\u200B]/);
    expect(plain.querySelector('[data-testid="folder-hidden-marker"]')).toBeNull();
    expect(plain.querySelector('[data-testid="folder-path"] bdi')).toBeNull();
  });
});

describe("the consent prompt's servers", () => {
  it("marks the held ones, and does not say they are not locked in", async () => {
    await startApp((b) =>
      b.api.openPrompts.mockResolvedValue([prompt(40, { servers: [choice("a", { enforced: true, restarts: true, connected: [] })] })]),
    );
    expect(all("consent-enforced")).toHaveLength(1);
    expect(all("consent-enforced")[0].textContent?.trim()).toBe("held");
    expect(all("consent-enforced")[0].getAttribute("title")).toMatch(/^Held in a sandbox \(bubblewrap, with Landlock inside\)/);
    expect(q("consent-note")?.textContent).toMatch(/this server is held in a sandbox/);
    expect(q("consent-note")?.textContent).not.toMatch(/does not lock/);
  });

  it("says which are enforced when only some are", async () => {
    await startApp((b) =>
      b.api.openPrompts.mockResolvedValue([prompt(41, { servers: [choice("a", { enforced: true }), choice("b")] })]),
    );
    expect(all("consent-choice").map((c) => c.querySelector('[data-testid="consent-enforced"]') !== null)).toEqual([
      true,
      false,
    ]);
    expect(q("consent-note")?.textContent).toMatch(/The others are not locked in/);
  });

  it("says that sharing restarts a running server that takes a restart, once it is ticked", async () => {
    await startApp((b) => {
      b.api.listServers.mockResolvedValue([server("a", { name: "A", status: RUNNING }), server("b", { name: "B" })]);
      b.api.openPrompts.mockResolvedValue([
        prompt(42, { servers: [choice("a", { restarts: true, enforced: true }), choice("b", { restarts: true, connected: [] })] }),
      ]);
    });
    // B is not running: nothing to restart.
    expect(all("consent-restarts").map((r) => r.textContent)).toEqual(["sharing restarts it"]);
    expect(q("consent-restart-hint")).toBeNull();
    (all("consent-server")[0] as HTMLInputElement).click();
    flushSync();
    expect(all("consent-restarts").map((r) => r.textContent)).toEqual(["restarts it"]);
    expect(q("consent-restart-hint")?.textContent).toBe("This restarts A, which is running.");
  });

  it("leaves Share disabled while nothing would change, and enables it for another choice or name", async () => {
    await startApp((b) =>
      b.api.openPrompts.mockResolvedValue([
        prompt(43, { root: "r1", servers: [choice("a", { granted: true }), choice("b")] }),
      ]),
    );
    const shareButton = q("consent-share") as HTMLButtonElement;
    expect(shareButton.disabled).toBe(true);
    expect(q("consent-hint")?.textContent?.trim()).toBe("No change to who sees it.");
    const b = all("consent-server")[1] as HTMLInputElement;
    b.click();
    flushSync();
    expect(shareButton.disabled).toBe(false);
    b.click();
    flushSync();
    expect(shareButton.disabled).toBe(true);
    const input = q("consent-name") as HTMLInputElement;
    input.value = "renamed";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    flushSync();
    expect(shareButton.disabled).toBe(false);
    expect(shareButton.textContent?.trim()).toBe("Save name");
  });
});

describe("the consent prompt's warnings", () => {
  it("are one banner for several nested folders, listing them", async () => {
    await startApp((b) =>
      b.api.openPrompts.mockResolvedValue([
        prompt(50, {
          warnings: ["/home/me/p/a", "/home/me/p/b", "/home/me/p/c"].map((root) => ({
            kind: "contains" as const,
            root,
            message: `This folder contains the shared folder "${root}".`,
          })),
        }),
      ]),
    );
    const banners = all("consent-warning");
    expect(banners).toHaveLength(1);
    expect(banners[0].textContent).toContain("This folder contains 3 shared folders");
    expect([...banners[0].querySelectorAll("code")].map((c) => c.textContent)).toEqual([
      "/home/me/p/a",
      "/home/me/p/b",
      "/home/me/p/c",
    ]);
  });

  it("report a link once: the chosen path and the real one, each once, not again as a warning", async () => {
    await startApp((b) =>
      b.api.openPrompts.mockResolvedValue([
        prompt(51, {
          name: "work",
          realPath: "/srv/x/2026",
          chosenPath: "/home/me/work",
          warnings: [
            { kind: "symlink", chosen: "/home/me/work", real: "/srv/x/2026", message: '"/home/me/work" is a link; the folder shared is "/srv/x/2026".' },
          ],
        }),
      ]),
    );
    const dialog = q("consent-dialog")!;
    expect(all("consent-warning")).toHaveLength(0);
    expect(dialog.textContent?.split("/home/me/work")).toHaveLength(2);
    expect(dialog.textContent?.split("/srv/x/2026")).toHaveLength(2);
    expect((q("consent-name") as HTMLInputElement).value).toBe("work");
    expect(dialog.querySelector("h2")?.textContent).toBe("Share “work”?");
  });

  it("for the whole home folder, look stronger and take a second confirmation before sharing", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([
        prompt(52, {
          realPath: "/home/me",
          warnings: [
            { kind: "holdsSecrets", names: [".ssh"], message: "This folder holds secrets a server could read: .ssh." },
            { kind: "homeFolder", message: "This is your entire home folder, including documents, keys and settings." },
          ],
          servers: [choice("a")],
        }),
      ]);
      b.api.answerPrompt.mockResolvedValue(folder("r52"));
    });
    const banners = all("consent-warning");
    expect(banners.map((w) => [w.dataset.kind, w.classList.contains("severe")])).toEqual([
      ["homeFolder", true],
      ["holdsSecrets", false],
    ]);
    (q("consent-server") as HTMLInputElement).click();
    flushSync();
    expect(q("consent-share")?.textContent?.trim()).toBe("Share…");
    q("consent-share")?.click();
    await settle();
    flushSync();
    expect(q("confirm-dialog")?.textContent).toContain("Share your whole home folder?");
    expect(q("confirm-dialog")?.textContent).toContain("A would be told it may work in /home/me");
    q("confirm-cancel")?.click();
    await settle();
    flushSync();
    expect(api.answerPrompt).not.toHaveBeenCalled();
    expect(q("consent-dialog")).not.toBeNull();
    q("consent-share")?.click();
    await settle();
    flushSync();
    q("confirm-ok")?.click();
    await settle();
    expect(api.answerPrompt).toHaveBeenCalledWith(52, ["a"], null);
  });

  it("for the whole home folder, shared with no one, take no second confirmation", async () => {
    const { api } = await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([
        prompt(53, { warnings: [{ kind: "homeFolder", message: "home" }], servers: [choice("a")] }),
      ]);
      b.api.answerPrompt.mockResolvedValue(folder("r53"));
    });
    q("consent-share")?.click();
    await settle();
    expect(q("confirm-dialog")).toBeNull();
    expect(api.answerPrompt).toHaveBeenCalledWith(53, [], null);
  });
});

describe("the consent prompts' counter", () => {
  it("counts on after a cancel and an answer, instead of renumbering", async () => {
    await startApp((b) => {
      b.api.openPrompts.mockResolvedValue([prompt(61), prompt(62), prompt(63)]);
      b.api.answerPrompt.mockResolvedValue(folder("r62"));
    });
    const eyebrow = () => q("consent-dialog")?.querySelector(".eyebrow")?.textContent;
    expect(eyebrow()).toBe("Folder 1 of 3");
    q("consent-cancel")?.click();
    await settle();
    flushSync();
    expect(eyebrow()).toBe("Folder 2 of 3");
    q("consent-share")?.click();
    await settle();
    flushSync();
    expect(eyebrow()).toBe("Folder 3 of 3");
  });

  it("starts again for the next batch", async () => {
    const { app } = await startApp((b) => b.api.openPrompts.mockResolvedValue([prompt(64), prompt(65)]));
    q("consent-cancel")?.click();
    await settle();
    q("consent-cancel")?.click();
    await settle();
    flushSync();
    expect(q("consent-dialog")).toBeNull();
    app.prompts.enqueue([prompt(66)]);
    flushSync();
    expect(q("consent-dialog")?.querySelector(".eyebrow")?.textContent).toBe("New folder");
  });
});
