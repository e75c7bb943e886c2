import { describe, expect, it } from "vitest";
import type { WarningView } from "./bindings";
import { consentBanners, consentNote, severeConfirmation } from "./consent";

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
  it("never says it does not lock the server in when every server is enforced", () => {
    const one = consentNote([{ enforced: true }], note);
    expect(one).toMatch(/the kernel holds this server to the folders shared with it/);
    expect(one).not.toMatch(/does not lock/);
    expect(consentNote([{ enforced: true }, { enforced: true }], note)).toMatch(/each of these servers/);
  });
  it("says which is which when some are", () => {
    const mixed = consentNote([{ enforced: true }, { enforced: false }], note);
    expect(mixed).toMatch(/marked kernel-enforced is held/);
    expect(mixed).toMatch(/The others are not locked in/);
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
