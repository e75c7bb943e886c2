// The server form's mistakes, each at its field: every field is checked at
// once (not only the first mistake), and the backend's refusal is put at
// the field it is about. The form shows each under its field and focuses
// the first one wrong, in FIELD_ORDER.

import { envProblem, type ServerForm } from "./draft";

export type FormField = "name" | "command" | "args" | "env" | "cwd";

/** The fields in the order the form shows them. */
export const FIELD_ORDER: readonly FormField[] = ["name", "command", "args", "env", "cwd"];

export type FieldErrors = Partial<Record<FormField, string>>;

/** What is wrong with each field of the form, as typed; empty when nothing is. */
export function formErrors(form: ServerForm): FieldErrors {
  const errors: FieldErrors = {};
  if (form.name.trim() === "") errors.name = "Give the server a name.";
  if (form.command.trim() === "") errors.command = "Enter the command that starts the server.";
  const env = envProblem(form.env);
  if (env) errors.env = env.message;
  const cwd = form.cwd.trim();
  if (cwd !== "" && !cwd.startsWith("/")) {
    errors.cwd = "Write the working directory as an absolute path, starting with “/”.";
  }
  return errors;
}

/** The first field with a mistake, in the order they are shown. */
export function firstInvalid(errors: FieldErrors): FormField | null {
  return FIELD_ORDER.find((f) => errors[f] !== undefined) ?? null;
}

/**
 * The field the backend's refusal is about, from its words (the core's
 * servers.rs errors), or null for one about the whole server.
 */
export function fieldOfMessage(message: string): FormField | null {
  const m = message.trim().toLowerCase();
  if (/^(the server needs a name|the server's name|a server named)/.test(m)) return "name";
  if (/^(the server needs a command|the command)/.test(m)) return "command";
  if (/^argument \d+/.test(m)) return "args";
  if (/^(the value of )?environment variable/.test(m)) return "env";
  if (/^the working directory/.test(m)) return "cwd";
  return null;
}
