// Which dialog is on top: only that one answers Esc and keeps Tab inside.
//
// The stack itself is a plain array, changed as dialogs mount and unmount
// (inside Svelte's own updates); a counter in $state makes readers react.

import { untrack } from "svelte";

const stack: number[] = [];
let version = $state(0);
let next = 1;

// Bumping must not make the caller (a component being set up) depend on it.
function bump() {
  version = untrack(() => version) + 1;
}

export const modals = {
  open(): number {
    const id = next++;
    stack.push(id);
    bump();
    return id;
  },
  close(id: number): void {
    const at = stack.indexOf(id);
    if (at >= 0) stack.splice(at, 1);
    bump();
  },
  isTop(id: number): boolean {
    void version;
    return stack.length > 0 && stack[stack.length - 1] === id;
  },
  get any(): boolean {
    void version;
    return stack.length > 0;
  },
};

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"]), summary';

/** The elements Tab reaches inside `root`, in order. */
export function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => !el.closest("[inert]") && el.getClientRects().length > 0,
  );
}
