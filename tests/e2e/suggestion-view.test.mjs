// The ticked suggestion in view (#40): with many servers, the server an AI
// app reached can sit below the fold of the consent prompt's list. Eleven
// servers are added first (named so that they come before it whichever
// way the list is ordered), then the built-in example server, approved;
// the official TypeScript SDK client stand-in connects to it through
// `rootgate connect` and says it works in a fresh folder. The suggestion
// prompt's list then holds twelve servers: the example server, ticked, is
// focused and lies wholly inside the list's scrolled view, its name shown.
// Screenshot: suggestion-in-view.
//
// Not tested here: the prompt's words (connections.test.mjs).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { pathToFileURL } from 'node:url';

import { App, cleanup, env, tempDir, TIMEOUT } from './lib/app.mjs';
import { addServer, approveAndStart, consentChoices, serverId, showView } from './lib/flows.mjs';
import { StandIn } from './lib/standin.mjs';
import { step } from './lib/steps.mjs';

const SERVER = 'Example server';
const FILLERS = Array.from({ length: 11 }, (_, i) => `Archive ${String(i + 1).padStart(2, '0')}`);

describe('the ticked suggestion is in view among many servers', () => {
  let base, real, app, standIn, example;

  before(() => {
    base = tempDir('rootgate-e2e-suggestion-view-');
    const folder = path.join(base, 'project');
    fs.mkdirSync(folder);
    real = fs.realpathSync(folder);
  });

  after(async () => {
    standIn?.kill();
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('eleven servers, then the example server, approved and running', async () => {
    app = await App.launch();
    for (const name of FILLERS) {
      await addServer(app, { name, command: '/bin/true', enabled: false });
      if (await app.isPresent('approval-dialog')) {
        await app.click('approval-cancel');
        await app.gone('approval-dialog');
      }
    }
    await showView(app, 'servers');
    await app.click('template-example');
    await app.visible('server-form');
    await app.click('server-save');
    await app.gone('server-form');
    example = await serverId(app, SERVER);
    await approveAndStart(app, SERVER, `${env.app} --example-server`);
  });

  step('the app’s folder is suggested with the example server ticked, focused and in the list’s view', async () => {
    standIn = await StandIn.start({
      args: ['--roots', pathToFileURL(real).href, '--name', 'claude-code'],
      command: [env.rootgateCli, 'connect', SERVER],
    });
    await app.visible('consent-dialog', { timeout: TIMEOUT.server, message: 'the suggestion consent prompt' });
    const choices = await consentChoices(app);
    assert.equal(choices.size, FILLERS.length + 1);
    assert.equal(await choices.get(example).isSelected(), true, `${SERVER} starts ticked`);
    const seen = await app.driver.executeScript((id) => {
      const list = document.querySelector('[data-testid="consent-dialog"] .choices');
      const card = list.querySelector(`[data-testid="consent-choice"][data-server-id="${id}"]`);
      const l = list.getBoundingClientRect();
      const c = card.getBoundingClientRect();
      return {
        scrolls: list.scrollHeight > list.clientHeight,
        inView: c.top >= l.top - 1 && c.bottom <= l.bottom + 1,
        focused: document.activeElement?.getAttribute('data-server-id'),
        name: card.querySelector('[data-testid="consent-choice-name"]').textContent.trim(),
      };
    }, example);
    assert.ok(seen.scrolls, `the list is long enough to scroll: ${JSON.stringify(seen)}`);
    assert.ok(seen.inView, `the ticked suggestion lies in the list's view: ${JSON.stringify(seen)}`);
    assert.equal(seen.focused, example, 'focus on the ticked suggestion');
    assert.equal(seen.name, SERVER);
    await app.screenshot('suggestion-in-view');
  });
});
