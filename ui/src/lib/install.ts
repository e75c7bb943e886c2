// Words and decisions of the install dialog (pure): what a signature
// says, where a server comes from, a setting's starting value and whether
// the answers are enough to install.
//
// Not here: the dialog itself, or any call to the backend.

import type { InstallView, Setting, Signature, Source } from "./bindings";

/** The toast after an install. */
export function installedMessage(title: string, server: string, updated: boolean): string {
  if (updated) return `${server} now runs the new version of ${title}. Approve its command to start it again.`;
  return title === server
    ? `${title} was added. Approve its command to run it.`
    : `${title} was added as ${server}. Approve its command to run it.`;
}

/** A signature in words, and whether it deserves caution. */
export function signatureWords(signature: Signature): { text: string; caution: boolean } {
  switch (signature.kind) {
    case "notApplicable":
      return { text: "Published as a package (no signature in this format)", caution: false };
    case "unsigned":
      return { text: "Not signed: nothing says who made this file", caution: true };
    case "signed": {
      const by = signature.by ? ` by ${signature.by}` : "";
      return signature.checked
        ? { text: `Signed${by}, and the signature holds`, caution: false }
        : { text: `Signed${by}; Rootgate did not check the signature`, caution: true };
    }
    case "invalid":
      return { text: `The signature does not hold: ${signature.reason}`, caution: true };
  }
}

/** Where the offer comes from, in a few words (the dialog's eyebrow). */
export function sourceWords(source: Source): string {
  return source.kind === "bundle" ? "An MCP bundle" : "From the MCP Registry";
}

/** Which package of a registry entry it is, in words; none for a bundle. */
export function packageWords(source: Source): string | null {
  if (source.kind === "bundle") return null;
  const [kind, ...rest] = source.package.split(":");
  return `${source.name}, its ${kind} package ${rest.join(":")}`;
}

/** A setting's hint: its description, then where it is used, as sentences. */
export function settingHint(description: string, usedIn: readonly string[]): string {
  const said = description.trim();
  const sentence = said === "" || /[.!?]$/.test(said) ? said : `${said}.`;
  const used = usedIn.length > 0 ? `Used in ${usedIn.join(", ")}.` : "";
  return [sentence, used].filter((p) => p !== "").join(" ");
}

/** The settings the person answers here: all but folders, which consent shares. */
export function asked(view: InstallView): Setting[] {
  return view.settings.filter((s) => s.kind.kind !== "folder");
}

/** The folder settings, shared through the consent prompt after installing. */
export function folderSettings(view: InstallView): Setting[] {
  return view.settings.filter((s) => s.kind.kind === "folder");
}

/** The starting answers: each setting's default, else empty (a boolean: false). */
export function startingValues(view: InstallView): Record<string, string> {
  return Object.fromEntries(
    asked(view).map((s) => [s.key, s.default ?? (s.kind.kind === "boolean" ? "false" : "")]),
  );
}

/** The required settings left empty, by title. */
export function missingSettings(view: InstallView, values: Record<string, string>): string[] {
  return asked(view)
    .filter((s) => s.required && (values[s.key] ?? "").trim() === "")
    .map((s) => s.title);
}

/**
 * The answers to send: empty optional ones left out, so the backend
 * takes the publisher's default or leaves the setting out.
 */
export function answersToSend(view: InstallView, values: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of asked(view)) {
    const v = values[s.key] ?? "";
    if (v !== "") out[s.key] = v;
  }
  return out;
}
