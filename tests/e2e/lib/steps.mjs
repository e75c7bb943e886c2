// Scenario steps for node:test: each `step` is one `it` that needs the ones
// before it. After a failure the rest are skipped (not failed again), and
// the window is saved as FAIL-<n>.png with its DOM as FAIL-<n>.html next to
// the screenshots, so a red run shows what the app showed.
//
// Nothing here drives the app; see app.mjs and flows.mjs.

import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';

import { App, env } from './app.mjs';

let broken = false;
let failures = 0;

export function step(name, fn) {
  it(name, async (t) => {
    if (broken) return t.skip('an earlier step failed');
    try {
      await fn(t);
    } catch (e) {
      broken = true;
      await saveFailure(name).catch((why) => console.error(`could not save the failure's screenshot: ${why}`));
      throw e;
    }
  });
}

async function saveFailure(name) {
  const app = App.current;
  if (!app) return;
  const base = `FAIL-${path.basename(process.argv[1] ?? 'test', '.test.mjs')}-${++failures}`;
  const png = await app.screenshot(base);
  fs.writeFileSync(path.join(env.screenshots, `${base}.html`), await app.driver.getPageSource());
  console.error(`step "${name}" failed; the window is in ${png}`);
}
