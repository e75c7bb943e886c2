// How the window lays itself out for its width. Below COMPACT_BELOW (the
// window's inner width), the sidebar shows its icons only and each row's
// actions move into a "⋯" menu, so that folder names, server names and
// paths keep the room: at the smallest window (760 × 520, tauri.conf.json)
// a full sidebar and a row of buttons left them a few letters.

/** Below this inner width (CSS px) the window is compact. */
export const COMPACT_BELOW = 900;

/** The smallest window Rootgate allows (tauri.conf.json's minWidth × minHeight). */
export const MIN_WINDOW = { width: 760, height: 520 } as const;

export interface Layout {
  /** The sidebar shows icons, with their names as tooltips and labels. */
  iconSidebar: boolean;
  /** Rows show their main action and a "⋯" menu with the rest. */
  rowMenus: boolean;
}

export function layoutFor(width: number): Layout {
  // An unknown width (0, NaN: not laid out yet) is a roomy window.
  const compact = Number.isFinite(width) && width > 0 && width < COMPACT_BELOW;
  return { iconSidebar: compact, rowMenus: compact };
}

/**
 * The one action a compact row keeps beside its menu: what the server's
 * state makes most likely (start a stopped one, stop a running one, stop
 * retrying one waiting to be restarted).
 */
export type MainAction = "start" | "stop" | "stopRetrying";

export function mainAction(state: { retrying: boolean; allowed: { start: boolean; stop: boolean } }): MainAction {
  if (state.retrying) return "stopRetrying";
  if (state.allowed.stop && !state.allowed.start) return "stop";
  return "start";
}
