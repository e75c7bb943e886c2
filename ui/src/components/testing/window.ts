// For component tests: the whole window (App.svelte) mounted against the
// fake backend (lib/testing.ts), and ways to find what it shows by its
// data-testid. Each test file calls `unmountAll` after each test, so no
// window outlives its test.
//
// Not here: fakes of the backend's answers (lib/testing.ts), or anything a
// test asserts.

import { flushSync, mount, unmount } from "svelte";
import App from "../../App.svelte";
import type { ServerChoice } from "../../lib/bindings";
import { AppState } from "../../lib/state/app.svelte";
import { fakeBackend } from "../../lib/testing";

const mounted: Record<string, unknown>[] = [];

/** Keeps a mounted component, to be unmounted after the test. */
export function track(component: Record<string, unknown>): void {
  mounted.push(component);
}

/** Unmounts what the test mounted and empties the page. */
export function unmountAll(): void {
  for (const m of mounted.splice(0)) unmount(m);
  document.body.innerHTML = "";
}

export function q(testid: string): HTMLElement | null {
  return document.querySelector(`[data-testid="${testid}"]`);
}

export function all(testid: string): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>(`[data-testid="${testid}"]`)];
}

/**
 * Mounts the window with a fake backend `setup` prepares, and starts it.
 * The views not shown are made after `prepareViewsAfterMs` (a minute by
 * default: not during a test, unless it asks).
 */
export async function startApp(
  setup: (b: ReturnType<typeof fakeBackend>) => void = () => {},
  prepareViewsAfterMs = 60_000,
) {
  const b = fakeBackend();
  setup(b);
  const app = new AppState(b.api, b.events);
  track(mount(App, { target: document.body, props: { app, autostart: false, prepareViewsAfterMs } }));
  await app.start();
  flushSync();
  return { app, ...b };
}

/** A running legacy server's status. */
export const RUNNING = {
  state: "running" as const,
  era: "legacy" as const,
  pid: 3,
  protocolVersion: "2025-11-25",
  serverName: "srv",
  serverVersion: "1",
  capabilities: {},
};

/** A server as a consent prompt offers it. */
export const choice = (id: string, over: Partial<ServerChoice> = {}) => ({
  id,
  name: id.toUpperCase(),
  granted: false,
  suggested: false,
  enforced: false,
  restarts: false,
  connected: [] as string[],
  ...over,
});
