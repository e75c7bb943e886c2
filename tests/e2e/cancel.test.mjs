// Saying no changes nothing, in the real app: a folder picker that was
// cancelled (an empty line in the test-only picker's file) shows no consent
// dialog and no error and leaves the folder list and settings.json as they
// were; Cancel in the consent dialog, with a server ticked, shares nothing
// and keeps no folder, and the prompt does not come back when the window
// reloads. A first folder is shared with the built-in example server
// (added from its template, approved and started) beforehand, so "nothing
// changed" is checked against a state that has a folder and a grant, and
// the example server's own timeline shows it was never told the cancelled
// folder.
//
// Not tested here: the real GTK dialog's own Cancel button (the picker is
// the test-only one), Escape as cancel, several folders in one pick, and
// anything after a share (main.test.mjs).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { fileURLToPath } from 'node:url';

import { App, cleanup, env, readSettings, tempDir, waitUntil } from './lib/app.mjs';
import {
  addFolder,
  approveAndStart,
  consentChoices,
  folderRow,
  folderRows,
  notices,
  openDetail,
  queuePick,
  reloadWindow,
  serverId,
  share,
  showView,
  tickExactly,
  timeline,
} from './lib/flows.mjs';
import { step } from './lib/steps.mjs';


/** What the folder list shows, without the element handles. */
async function listed(app) {
  return (await folderRows(app)).map(({ id, name, path: p, servers }) => ({ id, name, path: p, servers }));
}

describe('a cancelled picker and a cancelled consent dialog change nothing', () => {
  let base, kept, refused, picks, app, example;

  before(() => {
    base = tempDir('rootgate-e2e-cancel-');
    kept = path.join(base, 'kept folder');
    refused = path.join(base, 'refused folder');
    fs.mkdirSync(kept);
    fs.mkdirSync(refused);
    picks = path.join(base, 'picks.txt');
    fs.writeFileSync(picks, '');
  });

  after(async () => {
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('a folder shared with the example server (from its template) is the starting state', async () => {
    app = await App.launch({ args: ['--e2e-picks', picks] });
    await showView(app, 'servers');
    await app.click('template-example');
    const form = await app.visible('server-form');
    const name = await (await app.visible('server-name', { within: form })).getAttribute('value');
    assert.equal(name, 'Example server', 'the template fills in the form');
    const command = await (await app.visible('server-command', { within: form })).getAttribute('value');
    assert.equal(command, env.app, 'the example server is this very binary');
    await app.click('server-save');
    await app.gone('server-form');
    example = await serverId(app, name);
    await approveAndStart(app, name, `${env.app} --example-server`);

    queuePick(picks, kept);
    await addFolder(app);
    await tickExactly(app, [example]);
    await share(app);
    const row = await folderRow(app, fs.realpathSync(kept));
    assert.match(row.servers, /Example server/);
  });

  step('a cancelled picker shows no consent dialog and no error, and changes nothing', async () => {
    await showView(app, 'folders');
    const rowsBefore = await listed(app);
    const settingsBefore = fs.readFileSync(env.settingsFile, 'utf8');
    queuePick(picks); // an empty line: the person cancelled the picker
    queuePick(picks, refused); // what the next pick answers
    await app.click('add-folder');
    // The pick is over once the app took the empty line and the button is
    // back (it is disabled while the picker is open).
    await waitUntil(() => fs.readFileSync(picks, 'utf8').trim() === refused, {
      message: 'the app to take the empty line from the picks file',
    });
    await waitUntil(async () => (await app.visible('add-folder')).isEnabled(), {
      message: '"Add folder…" to be enabled again after the cancelled pick',
    });
    assert.equal(await app.isPresent('consent-dialog'), false, 'no consent dialog after a cancelled pick');
    assert.deepEqual(await notices(app), [], 'no notice or error after a cancelled pick');
    assert.deepEqual(await listed(app), rowsBefore, 'the folder list is unchanged');
    assert.equal(fs.readFileSync(env.settingsFile, 'utf8'), settingsBefore, 'settings.json is unchanged');
  });

  step('Cancel in the consent dialog, with a server ticked, shares nothing and keeps no folder', async () => {
    const rowsBefore = await listed(app);
    const settingsBefore = fs.readFileSync(env.settingsFile, 'utf8');
    await addFolder(app);
    assert.equal(await app.text('consent-real-path'), fs.realpathSync(refused));
    // Still nothing from the cancelled pick: this dialog is the only one.
    assert.deepEqual(await notices(app), [], 'no notice from the cancelled pick before');
    // An open prompt survives a reload of the window (so that the check
    // after Cancel below means something).
    await reloadWindow(app);
    await app.visible('consent-dialog', { message: 'the open prompt to be shown again after a reload' });
    assert.equal(await app.text('consent-real-path'), fs.realpathSync(refused));
    await tickExactly(app, [example]);
    assert.equal(await (await consentChoices(app)).get(example).isSelected(), true);
    await app.click('consent-cancel');
    await app.gone('consent-dialog');

    assert.deepEqual(await listed(app), rowsBefore, 'the folder list is unchanged');
    assert.equal(fs.readFileSync(env.settingsFile, 'utf8'), settingsBefore, 'settings.json is unchanged');
    assert.deepEqual(await notices(app), [], 'Cancel shows no error');
    const settings = readSettings();
    assert.ok(!settings.roots.some((r) => r.realPath === fs.realpathSync(refused)), 'the refused folder is not kept');

    // The prompt is gone in the app too: a reloaded window, which shows the
    // prompts still open, does not ask again.
    await reloadWindow(app);
    assert.equal(await app.isPresent('consent-dialog'), false, 'no consent dialog after the reload');
    assert.deepEqual(await listed(app), rowsBefore, 'the folder list after the reload');
  });

  step('the example server was told the kept folder and never the refused one', async () => {
    await openDetail(app, 'Example server');
    const answers = (await timeline(app)).filter((e) => e.kind === 'rootsAnswered');
    const told = answers.flatMap((a) => a.details.map((d) => d.match(/file:\/\/\S+/)?.[0]).filter(Boolean));
    assert.ok(told.length > 0, `the example server was told some folder: ${JSON.stringify(answers)}`);
    const paths = new Set(told.map((u) => fileURLToPath(u)));
    assert.deepEqual([...paths], [fs.realpathSync(kept)], 'only the kept folder was ever told');
  });
});
