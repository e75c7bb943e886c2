// For tests of the window's state: an AppState on the fake backend
// (../testing.ts), started as the window starts it.
//
// Not here: the fakes themselves, or anything a test asserts.

import { fakeBackend } from "../testing";
import { AppState } from "./app.svelte";

/** A started AppState, with the fake backend's commands and events to drive it. */
export async function started() {
  const b = fakeBackend();
  const app = new AppState(b.api, b.events);
  await app.start();
  return { app, ...b };
}
