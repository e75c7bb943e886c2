import { describe, expect, it } from "vitest";
import type { WarningView } from "./bindings";
import { consentBanners, consentNote, enforcedMark, severeConfirmation } from "./consent";

const home: WarningView = { kind: "homeFolder", message: "This is your entire home folder." };
const secrets: WarningView = { kind: "holdsSecrets", names: [".env"], message: "This folder holds secrets: .env." };
const link: WarningView = { kind: "symlink", chosen: "/home/me/link", real: "/srv/x", message: "link" };
const contains = (root: string): WarningView => ({ kind: "contains", root, message: `contains ${root}` });
const nested = (root: string): WarningView => ({ kind: "nestedIn", root, message: `inside ${root}` });

describe("consentBanners", () => {
  it("puts the whole home folder first, marked severe, the rest in the core's order", () => {
    const banners = consentBanners({ warnings: [secrets, home], chosenPath: null });
    expect(banners.map((b) => [b.kind, b.severe])).toEqual([
      ["homeFolder", true],
      ["holdsSecrets", false],
    ]);
  });
  it("leaves out the link warning when the prompt shows the chosen path, and keeps it otherwise", () => {
    expect(consentBanners({ warnings: [link, secrets], chosenPath: "/home/me/link" }).map((b) => b.kind)).toEqual([
      "holdsSecrets",
    ]);
    expect(consentBanners({ warnings: [link], chosenPath: null }).map((b) => b.kind)).toEqual(["symlink"]);
  });
  it("groups several nested folders of a kind into one banner listing them", () => {
    const banners = consentBanners({
      warnings: [contains("/a/1"), secrets, contains("/a/2"), contains("/a/3"), nested("/")],
      chosenPath: null,
    });
    expect(banners.map((b) => b.kind)).toEqual(["contains", "holdsSecrets", "nestedIn"]);
    expect(banners[0].message).toBe("This folder contains 3 shared folders; a server it is shared with sees them too:");
    expect(banners[0].paths).toEqual(["/a/1", "/a/2", "/a/3"]);
    // One of a kind keeps the core's words.
    expect(banners[2]).toEqual({ kind: "nestedIn", severe: false, message: "inside /", paths: [] });
  });
});

describe("consentNote", () => {
  const note = "Sharing a folder tells a server where to work. It does not lock the server in.";
  it("is the core's note when no server is enforced", () => {
    expect(consentNote([{ enforced: false }], note)).toBe(note);
    expect(consentNote([], note)).toBe(note);
  });
  const held = { state: "available" } as const;
  const partial = { state: "partial", reason: "bubblewrap is not installed", notStopped: "it still reaches the network" } as const;
  it("never says it does not lock the server in when every server is enforced", () => {
    const one = consentNote([{ enforced: true }], note, held);
    expect(one).toMatch(/this server is held in a sandbox \(bubblewrap, with Landlock inside\)/);
    expect(one).not.toMatch(/does not lock/);
    expect(consentNote([{ enforced: true }, { enforced: true }], note, held)).toMatch(/each of these servers is held/);
  });
  it("does not call a server held where bubblewrap cannot hold it, and says what is not stopped", () => {
    const one = consentNote([{ enforced: true }], note, partial);
    expect(one).not.toMatch(/is held/);
    expect(one).toMatch(/not held in a sandbox here \(bubblewrap is not installed\): it still reaches the network\./);
    expect(enforcedMark(partial).label).toBe("kept to its folders");
    expect(enforcedMark(partial).title).toMatch(/^Not held in a sandbox here/);
    expect(enforcedMark(held).label).toBe("held");
  });
  it("says which is which when some are", () => {
    const mixed = consentNote([{ enforced: true }, { enforced: false }], note, held);
    expect(mixed).toMatch(/A server marked “held” runs in a sandbox/);
    expect(mixed).toMatch(/The others are not locked in/);
    expect(consentNote([{ enforced: true }, { enforced: false }], note, partial)).toMatch(
      /marked “kept to its folders” is kept to them by Landlock and a filter, but is not held in a sandbox here/,
    );
  });
});

describe("severeConfirmation", () => {
  const banners = consentBanners({ warnings: [home], chosenPath: null });
  it("asks again before a server newly sees the whole home folder", () => {
    const ask = severeConfirmation(banners, ["Files", "Git"], "/home/me");
    expect(ask?.title).toBe("Share your whole home folder?");
    expect(ask?.body).toMatch(/^Files and Git would be told they may work in \/home\/me/);
    expect(ask?.ok).toBe("Share my home folder");
  });
  it("does not ask when no server newly sees it, or for an ordinary folder", () => {
    expect(severeConfirmation(banners, [], "/home/me")).toBeNull();
    expect(severeConfirmation(consentBanners({ warnings: [secrets], chosenPath: null }), ["Files"], "/x")).toBeNull();
  });
  it("asks about the whole disk in its own words", () => {
    const disk = consentBanners({ warnings: [{ kind: "filesystemRoot", message: "disk" }], chosenPath: null });
    expect(severeConfirmation(disk, ["Files"], "/")?.title).toBe("Share the whole disk?");
  });
});
