// The Settings view in the real app: how long an unused shared server is
// kept, saved in the settings file where the gate reads it; Pause all
// sharing saved in the settings file (where bridges read it) and shown as
// a banner in every view until resumed; Start at login writing the XDG autostart entry under
// the app's XDG_CONFIG_HOME, naming the app's own program with --hidden,
// and removing it again. Screenshots go to .ci/out/screenshots/
// (settings-*.png).
//
// Not here: the tray itself (rootgate-cli's `tray` tests read it over
// D-Bus), what a pause does to a server (the core's `paused` test and the
// tray tests, through the real npm filesystem server).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { App, By, env, readSettings, waitUntil } from './lib/app.mjs';
import { showView } from './lib/flows.mjs';

/** Waits for two painted frames, so that a screenshot shows what the page holds now. */
async function painted(app) {
  await app.driver.executeAsyncScript(
    'const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(done));',
  );
}

describe('the Settings view', () => {
  it('pauses all sharing with a banner until resumed, and starts Rootgate at login', async () => {
    const app = await App.launch();
    try {
      await showView(app, 'settings');
      await app.visible('settings-view', { message: 'the Settings view' });
      await painted(app);
      await app.screenshot('settings-view');

      // How long a server no AI app session uses keeps running: ten minutes
      // unless chosen, and the choice saved where the gate reads it.
      const keep = await app.visible('unused-server-minutes');
      assert.equal(await keep.getAttribute('value'), '10');
      await keep.findElement(By.css('option[value="0"]')).click();
      await waitUntil(() => readSettings()?.preferences?.unusedServerMinutes === 0, {
        message: 'the choice in settings.json',
      });

      // Pause: saved where bridges read it, and said above every view.
      await app.click('pause-sharing');
      await app.visible('paused-banner', { message: 'the paused banner' });
      await waitUntil(() => readSettings()?.preferences?.sharingPaused === true, {
        message: 'the pause in settings.json',
      });
      await showView(app, 'folders');
      assert.match(await app.text('paused-banner'), /Sharing is paused/);
      await painted(app);
      await app.screenshot('settings-paused');
      await app.click('resume-sharing');
      await app.gone('paused-banner', { message: 'the banner to go' });
      await waitUntil(() => readSettings()?.preferences?.sharingPaused === false, {
        message: 'the resume in settings.json',
      });

      // Start at login: the entry beside the app's configuration.
      await showView(app, 'settings');
      const entry = path.join(env.configHome, 'autostart', 'rootgate.desktop');
      await app.click('start-at-login');
      await waitUntil(() => fs.existsSync(entry), { message: 'the autostart entry' });
      const text = fs.readFileSync(entry, 'utf8');
      assert.match(text, /^\[Desktop Entry\]\n/);
      assert.match(text, /\nExec=\S*rootgate\S* --hidden\n/);
      assert.equal(readSettings()?.preferences?.startAtLoginOffered, true, 'answering counts as the offer made');
      await app.click('start-at-login');
      await waitUntil(() => !fs.existsSync(entry), { message: 'the entry to be removed' });
    } catch (e) {
      await app.screenshot('FAIL-settings').catch(() => {});
      throw e;
    } finally {
      await app.quit();
    }
  });
});
