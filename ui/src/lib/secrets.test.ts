import { describe, expect, it } from "vitest";
import { keptPlaceholder, keptWords, looksSecret, nameList, placeWords, secretsOf, shownAssignment, waitingForChoice } from "./secrets";
import { server } from "./testing";

describe("looksSecret", () => {
  // The same cases as the core's `names_that_look_secret`
  // (crates/rootgate-core/src/secrets.rs), and the edges of its rule.
  it("marks the names the core marks", () => {
    for (const name of ["API_TOKEN", "openai_api_key", "DB_PASSWORD", "GH_AUTH", "X_SECRET"]) {
      expect(looksSecret(name), name).toBe(true);
    }
    for (const name of ["PATH", "DEBUG", "ROOTS", "LOG_LEVEL"]) {
      expect(looksSecret(name), name).toBe(false);
    }
  });

  it("takes each of the words anywhere in the name, in any ASCII case", () => {
    for (const name of ["token", "MyKey", "KEYRING_PATH", "secret_x", "Password", "MYSQL_PASSWD", "AWS_CREDENTIALS", "oauth_client", "authority"]) {
      expect(looksSecret(name), name).toBe(true);
    }
    for (const name of ["", "TOKE", "KY", "PASS", "CRED", "AUT", "HOME", "USER"]) {
      expect(looksSecret(name), name).toBe(false);
    }
  });

  it("upper-cases ASCII letters only, as Rust's to_ascii_uppercase", () => {
    // A long s (ſ) upper-cases to S in JavaScript, not in the core.
    expect(looksSecret("ſecret")).toBe(false);
    expect(looksSecret("\u017FECRET")).toBe(false);
    // The Kelvin sign is not a K either.
    expect(looksSecret("\u212AEY")).toBe(false);
  });
});

describe("how a secret is shown", () => {
  it("masks the value of a secret, and only of a secret", () => {
    expect(shownAssignment("API_TOKEN", "sk-live-1", true)).toBe("API_TOKEN=…");
    expect(shownAssignment("API_TOKEN", "", true)).toBe("API_TOKEN=…");
    expect(shownAssignment("DEBUG", "1", false)).toBe("DEBUG=1");
  });

  it("says where each value is kept", () => {
    expect(placeWords("keyring")).toBe("in the keyring");
    expect(placeWords("file")).toBe("in the settings file");
    expect(placeWords("notStored")).toBe("not stored, held until Rootgate quits");
    expect(placeWords("notStored", true)).toBe("not stored: give it again");
    expect(placeWords("fileUntilKeyring")).toBe("in the settings file for now");
    expect(keptPlaceholder("keyring", false)).toBe("Kept in the keyring: leave empty to keep it");
    expect(keptPlaceholder("notStored", true)).toBe("Not stored: type its value");
  });

  it("lists names in words", () => {
    expect(nameList([])).toBe("");
    expect(nameList(["A"])).toBe("A");
    expect(nameList(["A", "B", "C"])).toBe("A, B and C");
  });

  it("says where values went once they are kept", () => {
    expect(keptWords(["API_TOKEN"], "keyring")).toBe("API_TOKEN is in the keyring now.");
    expect(keptWords(["A", "B"], "file")).toBe("A and B are kept in the settings file, which only you can read.");
    expect(keptWords(["A"], "notStored")).toBe(
      "A is not stored: Rootgate holds it until it quits, and asks for it again after a restart.",
    );
  });
});

describe("secrets that wait for the person", () => {
  const s = server("s1", {
    env: { A_KEY: "", B_TOKEN: "", C_SECRET: "", D_AUTH: "", DEBUG: "1" },
    secrets: { D_AUTH: "keyring", B_TOKEN: "notStored", A_KEY: "fileUntilKeyring", C_SECRET: "notStored" },
    missingSecrets: ["C_SECRET"],
  });

  it("lists a server's secrets in name order with their place", () => {
    expect(secretsOf(s).map((x) => `${x.name}:${x.place}:${x.missing}`)).toEqual([
      "A_KEY:fileUntilKeyring:false",
      "B_TOKEN:notStored:false",
      "C_SECRET:notStored:true",
      "D_AUTH:keyring:false",
    ]);
  });

  it("asks where to keep those no keyring took, but not one Rootgate does not have", () => {
    expect(waitingForChoice(s)).toEqual([]);
    expect(waitingForChoice({ ...s, keyringProblem: "no Secret Service on the session bus" })).toEqual(["A_KEY", "B_TOKEN"]);
  });
});
