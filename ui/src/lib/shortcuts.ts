// Every keyboard shortcut of the window, in one place: the keys App.svelte
// answers (keyAction) and the sheet `?` opens (SHORTCUTS) are read from
// the same table, so the sheet cannot forget one. Shortcuts that belong to
// one control (a dialog's Esc, the detail's tabs, a folder's rename box, a
// "⋯" menu) are handled there and listed here.

import type { View } from "./state/navigation.svelte";

/** Ctrl+<key> shows a view; the shortcuts sheet lists them in this order (the sidebar puts Apps beside Servers). */
export const VIEW_KEYS: Readonly<Record<string, View>> = {
  "1": "folders",
  "2": "servers",
  "3": "activity",
  "4": "connections",
  "5": "apps",
  "6": "questions",
  // Ctrl+, opens settings in most desktop apps.
  ",": "settings",
};

export const VIEW_NAMES: Readonly<Record<View, string>> = {
  folders: "Folders",
  servers: "Servers",
  activity: "Activity",
  connections: "Connections",
  apps: "Connect an app",
  questions: "Questions",
  settings: "Settings",
};

/** The key of the view, for "Ctrl+2". */
export function viewKey(view: View): string {
  return Object.entries(VIEW_KEYS).find(([, v]) => v === view)?.[0] ?? "";
}

export type KeyAction =
  | { kind: "view"; view: View }
  | { kind: "addFolder" }
  /** Back to where the person was before (Alt+Left). */
  | { kind: "back" }
  /** From a detail up to its list (Escape). */
  | { kind: "up" }
  | { kind: "help" };

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  defaultPrevented?: boolean;
}

export interface KeyContext {
  /** A dialog is open: it has the keys. */
  dialogOpen: boolean;
  /** A server's or a connection's detail is open. */
  inDetail: boolean;
  /** Focus is in a text field, and what it holds. */
  editing: { value: string } | null;
}

/** What the window does for a key pressed anywhere in it, or null (the key is someone else's). */
export function keyAction(e: KeyLike, ctx: KeyContext): KeyAction | null {
  if (ctx.dialogOpen || e.defaultPrevented) return null;
  const mod = e.ctrlKey || e.metaKey;
  if (mod && !e.altKey && !e.shiftKey) {
    const key = e.key.toLowerCase();
    if (key === "o") return { kind: "addFolder" };
    if (key in VIEW_KEYS) return { kind: "view", view: VIEW_KEYS[key] };
    return null;
  }
  if (e.altKey && !mod && !e.shiftKey && e.key === "ArrowLeft") return { kind: "back" };
  if (mod || e.altKey) return null;
  if (e.key === "Escape" && !e.shiftKey) {
    // A search box with text in it clears first (WebKit does it); the
    // next Escape goes up.
    if (!ctx.inDetail || (ctx.editing && ctx.editing.value !== "")) return null;
    return { kind: "up" };
  }
  // "?" is typed in a text field, not a shortcut there.
  if ((e.key === "?" || e.key === "F1") && ctx.editing === null) return { kind: "help" };
  return null;
}

/** What focus is in, for keyAction: a text field (and its text), or not. */
export function editingOf(target: EventTarget | null): { value: string } | null {
  if (!(target instanceof HTMLElement)) return null;
  if (target instanceof HTMLTextAreaElement) return { value: target.value };
  if (target instanceof HTMLInputElement) {
    const textual = ["text", "search", "url", "email", "password", "number", "tel", ""].includes(target.type);
    return textual ? { value: target.value } : null;
  }
  if (target instanceof HTMLSelectElement) return { value: "" };
  return target.isContentEditable ? { value: target.textContent ?? "" } : null;
}

export interface Shortcut {
  /** Each way to press it; each a list of keys pressed together. */
  keys: string[][];
  what: string;
}

export interface ShortcutGroup {
  title: string;
  items: Shortcut[];
}

export const SHORTCUTS: readonly ShortcutGroup[] = [
  {
    title: "Anywhere in the window",
    items: [
      ...Object.entries(VIEW_KEYS).map(([key, view]) => ({ keys: [["Ctrl", key]], what: `Show ${VIEW_NAMES[view]}` })),
      { keys: [["Ctrl", "O"]], what: "Add folders to share (Add folder…)" },
      { keys: [["Alt", "←"], ["Mouse back button"]], what: "Go back to the view or detail shown before" },
      { keys: [["?"], ["F1"]], what: "Show these keyboard shortcuts" },
    ],
  },
  {
    title: "In a server's or a connection's detail",
    items: [
      { keys: [["Esc"]], what: "Back to the list" },
      { keys: [["←"], ["→"], ["Home"], ["End"]], what: "Switch between Timeline and Log, Tools, Resources and Prompts (on the tabs)" },
      { keys: [["↑"], ["↓"], ["Home"], ["End"]], what: "Move through the Tools, Resources or Prompts listed" },
      { keys: [["Ctrl", "Enter"]], what: "Call the tool, from anywhere in its form" },
    ],
  },
  {
    title: "Lists and menus",
    items: [
      { keys: [["Tab"], ["Shift", "Tab"]], what: "Move to the next or previous control" },
      { keys: [["Enter"], ["Space"]], what: "Press the button or tick the box with focus" },
      { keys: [["↑"], ["↓"], ["Home"], ["End"]], what: "Move in an open “⋯” menu" },
      { keys: [["Esc"]], what: "Close a “⋯” menu; in a search box with text, clear it" },
      { keys: [["Enter"]], what: "Save a folder's new name (Esc keeps the old one)" },
    ],
  },
  {
    title: "In a dialog",
    items: [
      { keys: [["Esc"]], what: "Cancel and close it" },
      { keys: [["Tab"]], what: "Move between its controls (focus stays inside)" },
      { keys: [["Enter"]], what: "In a text field of a form: press its main button" },
    ],
  },
];

/** The keys of a shortcut as people write them: "Ctrl+2", "Alt+← or Mouse back button". */
export function keysText(s: Shortcut): string {
  return s.keys.map((k) => k.join("+")).join(" or ");
}
