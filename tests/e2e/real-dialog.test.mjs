// A smoke test of the REAL folder picker: in the app built WITHOUT the
// e2e-picker feature, "Add folder…" opens the native GTK dialog, which
// xdotool drives like a person at the keyboard (focus it, alt+Home to leave
// the "Recent" view that ignores typed paths, ctrl+L, type the path with a
// trailing "/", Delete to drop GTK's inline completion, Return). The consent
// dialog must then show that folder's real path; it is cancelled. A
// whole-screen capture shows the GTK dialog.
//
// Then it opens the dialog again and presses only Return: the dialog must
// have opened beside the folder chosen last (GTK's own default is
// "Recent").
//
// Not tested here: choosing several folders, the dialog's Cancel button,
// anything after the consent dialog (the other files use the test-only
// picker for that), and other desktops' portals (only GTK under Xvfb, no
// window manager).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

import { App, cleanup, env, screenshotScreen, tempDir, waitUntil } from './lib/app.mjs';
import { folderRows, showView } from './lib/flows.mjs';

const run = promisify(execFile);

/** Runs xdotool with a bound on how long it may take. */
async function xdotool(...args) {
  const { stdout } = await run('timeout', ['20', 'xdotool', ...args], { timeout: 30_000 });
  return stdout.trim();
}

describe('the real GTK folder dialog', () => {
  let base, folder, app;

  before(() => {
    assert.ok(fs.existsSync(env.appReal), `${env.appReal} is missing: scripts/e2e.sh builds it`);
    base = tempDir('rootgate-e2e-real-');
    folder = path.join(base, 'picked for real');
    fs.mkdirSync(folder);
  });

  after(async () => {
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  it('a folder typed into the GTK dialog reaches the consent dialog with its real path', async () => {
    app = await App.launch({ binary: env.appReal });
    await showView(app, 'folders');
    await app.click('add-folder');

    // The dialog is a separate X window titled by the app.
    const ids = await xdotool('search', '--sync', '--onlyvisible', '--name', '^Choose folders to share$');
    const win = ids.split('\n')[0];
    await xdotool('windowfocus', '--sync', win);
    await xdotool('key', '--clearmodifiers', 'alt+Home');
    await xdotool('key', '--clearmodifiers', 'ctrl+l');
    await xdotool('type', '--delay', '15', `${folder}/`);
    await xdotool('key', 'Delete');
    await screenshotScreen('gtk-folder-dialog');
    await xdotool('key', 'Return');

    await app.visible('consent-dialog', { timeout: 20_000, message: 'the consent dialog after the GTK dialog' });
    assert.equal(await app.text('consent-real-path'), fs.realpathSync(folder));
    await app.screenshot('real-dialog-consent');
    await app.click('consent-cancel');
    await app.gone('consent-dialog');
    await waitUntil(async () => (await folderRows(app)).length === 0, { message: 'no folder kept after Cancel' });
  });

  it('the dialog opens again beside the folder chosen last, not on "Recent"', async () => {
    await app.click('add-folder');
    const ids = await xdotool('search', '--sync', '--onlyvisible', '--name', '^Choose folders to share$');
    const win = ids.split('\n')[0];
    await xdotool('windowfocus', '--sync', win);
    await screenshotScreen('gtk-folder-dialog-again');
    // Nothing typed, nothing navigated: Return takes the folder the dialog
    // opened in, or the one row in it. Both are where the last folder was;
    // "Recent" or the home folder would give neither.
    await xdotool('key', 'Return');
    await app.visible('consent-dialog', { timeout: 20_000, message: 'the consent dialog after Return' });
    const got = await app.text('consent-real-path');
    assert.ok(
      [fs.realpathSync(base), fs.realpathSync(folder)].includes(got),
      `the dialog opened beside ${base}, and Return gave ${got}`,
    );
    await app.click('consent-cancel');
    await app.gone('consent-dialog');
  });
});
