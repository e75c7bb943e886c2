// The Questions view, end to end in the real app: an AI app (the official
// TypeScript SDK client stand-in, calling itself Claude Code) connects
// through `rootgate connect` to the built-in example server while it works
// in a folder not shared with it. There is no notification server in this
// run, so the question waits in the window: its suggestion prompt opens,
// and closing it without an answer leaves the question unanswered. The
// Questions view (Ctrl+6) lists it newest first with the app, the folder,
// the server, when and "No answer yet"; Share, pressed from the keyboard,
// shares it (the server, asked through the bridge, reports the folder);
// Not now, after its confirmation, withdraws it again. Screenshots of the
// view before and after go to .ci/out/screenshots/.
//
// Not tested here: the desktop notification (the core's tests drive dunst),
// a folder with a consent warning (the core's tests), Workspace.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { App, cleanup, env, Key, tempDir, TIMEOUT, waitUntil } from './lib/app.mjs';
import { approveAndStart } from './lib/flows.mjs';
import { rootUris, StandIn } from './lib/standin.mjs';
import { step } from './lib/steps.mjs';

const APP_NAME = 'Claude Code';
const SERVER = 'Example server';

/** The question rows, read from the DOM. */
async function questionRows(app) {
  return app.driver.executeScript(() => {
    const text = (row, id) => row.querySelector(`[data-testid="${id}"]`)?.textContent.replace(/\s+/g, ' ').trim() ?? null;
    return [...document.querySelectorAll('[data-testid="question-row"]')].map((row) => ({
      id: row.getAttribute('data-question-id'),
      answer: text(row, 'question-answer'),
      app: text(row, 'question-app'),
      folder: text(row, 'question-folder'),
      server: text(row, 'question-server'),
      text: row.textContent.replace(/\s+/g, ' ').trim(),
    }));
  });
}

async function questionRow(app, matches, message) {
  return waitUntil(async () => (await questionRows(app)).find(matches), { timeout: TIMEOUT.server, message });
}

describe('the Questions view: what was asked when an AI app needed a folder, answered there', () => {
  let base, real, app, standIn;

  before(() => {
    base = tempDir('rootgate-e2e-questions-');
    const folder = path.join(base, 'project');
    fs.mkdirSync(folder);
    real = fs.realpathSync(folder);
  });

  after(async () => {
    standIn?.kill();
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('the example server runs, and an AI app works in a folder not shared with it', async () => {
    app = await App.launch();
    await app.click('nav-servers');
    await app.click('template-example');
    await app.visible('server-form');
    await app.click('server-save');
    await app.gone('server-form');
    await approveAndStart(app, SERVER, `${env.app} --example-server`);
    standIn = await StandIn.start({
      args: ['--roots', pathToFileURL(real).href, '--name', APP_NAME],
      command: [env.rootgateCli, 'connect', SERVER],
    });
    // No notification server here: the question waits in the window, as
    // its suggestion prompt. Closed without an answer, it stays unanswered.
    await app.visible('consent-dialog', { timeout: TIMEOUT.server, message: 'the suggestion prompt' });
    await app.click('consent-cancel');
    await app.gone('consent-dialog');
  });

  step('Ctrl+6 shows the Questions view: the app, the folder, the server, and no answer yet', async () => {
    await app.driver.actions().keyDown(Key.CONTROL).sendKeys('6').keyUp(Key.CONTROL).perform();
    await app.visible('questions-view');
    const row = await questionRow(app, (r) => r.folder === real, `a question about ${real}`);
    assert.equal(row.app, APP_NAME);
    assert.equal(row.server, SERVER);
    assert.equal(row.answer, 'No answer yet');
    assert.match(row.text, /asked \d\d:\d\d:\d\d · in this window/);
    assert.equal(await app.text('pending-questions'), '1', 'the sidebar counts it');
    await app.screenshot('questions-pending');
  });

  step('Share, from the keyboard, shares it: the server reports the folder through the bridge', async () => {
    const share = await app.visible('question-share');
    await app.driver.executeScript((el) => el.focus(), share);
    await share.sendKeys(Key.ENTER);
    await questionRow(app, (r) => r.folder === real && r.answer === 'Share', 'the answer to read Share');
    const uris = await waitUntil(
      async () => {
        const now = rootUris(await standIn.callTool('ask_roots'));
        return now.length > 0 && now;
      },
      { timeout: TIMEOUT.server, interval: 200, message: 'the shared folder to reach the server through the bridge' },
    );
    assert.deepEqual(uris.map((u) => fileURLToPath(u)), [real]);
    assert.equal(await app.isPresent('pending-questions'), false, 'nothing waits for an answer');
    await app.screenshot('questions-shared');
  });

  step('Not now, once confirmed, withdraws the folder from the server again', async () => {
    await app.click('question-not-now');
    await app.visible('confirm-dialog');
    await app.screenshot('questions-withdraw-confirm');
    await app.click('confirm-ok');
    await questionRow(app, (r) => r.folder === real && r.answer === 'Not now', 'the answer to read Not now');
    await waitUntil(async () => rootUris(await standIn.callTool('ask_roots')).length === 0, {
      timeout: TIMEOUT.server,
      interval: 200,
      message: 'the server to have no folder',
    });
    await app.screenshot('questions-not-now');
  });
});
