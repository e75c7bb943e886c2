// An AI app reaching a server through `rootgate connect`, end to end in the
// real app: the built-in example server is added from its template and
// approved; with no AI app yet, the Connections view says how to connect
// one, naming that server. The test then starts an AI app itself, the
// official TypeScript SDK client stand-in (tests/peers/apps/ts_app.mjs),
// calling itself "Claude Code" and saying it works in a fresh folder, with
// the `rootgate` command (crates/rootgate-cli) as its server's command, in
// the app's XDG_CONFIG_HOME. The window shows the live connection (the
// app's name, the server's, the app's folder); the folder comes up as a
// suggestion ("Claude Code is working in …. Share it with Example server?")
// with the example server ticked; nothing reaches the server before Share,
// and after Share the server's own report through the bridge (its
// ask_roots tool) names the folder. The connection's detail, opened from
// the keyboard, shows the app's calls in its timeline; Escape goes back; an
// app that closes leaves an ended connection. Screenshots of the empty
// view, the suggestion, the list, the detail and the ended connection go to
// .ci/out/screenshots/.
//
// Not tested here: several apps or servers at once, a bridge started before
// the window (the core's tests do), and an app that lists no folders.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { App, cleanup, env, Key, tempDir, TIMEOUT, waitUntil } from './lib/app.mjs';
import { approveAndStart, consentChoices, folderRow, serverId, serverRow, share, showView } from './lib/flows.mjs';
import { rootUris, StandIn } from './lib/standin.mjs';
import { step } from './lib/steps.mjs';

// The stand-in introduces itself as Claude Code does (`clientInfo.name`
// `claude-code`, version 1.0.0); the window names it by its product.
const CLIENT_NAME = 'claude-code';
const APP_NAME = 'Claude Code';
const SERVER = 'Example server';
const FOLDER_NAME = 'the app works here';

/** Every connection row in the page, read from the DOM (it may be behind a dialog). */
async function connectionRows(app) {
  return app.driver.executeScript(() => {
    const text = (row, id) => row.querySelector(`[data-testid="${id}"]`)?.textContent.replace(/\s+/g, ' ').trim() ?? null;
    return [...document.querySelectorAll('[data-testid="connection-row"]')].map((row) => ({
      id: row.getAttribute('data-connection-id'),
      live: row.getAttribute('data-live') === 'true',
      app: text(row, 'connection-app'),
      version: text(row, 'connection-app-version'),
      server: text(row, 'connection-server'),
      when: text(row, 'connection-when'),
      status: row.querySelector('[data-testid="server-status"]')?.getAttribute('data-state') ?? null,
      roots: [...row.querySelectorAll('[data-testid="connection-root"]')].map((p) => p.textContent),
    }));
  });
}

/** The number of calls a row counts ("· 3 calls"). */
function calls(row) {
  return Number(row.when?.match(/· (\d+) calls?$/)?.[1] ?? NaN);
}

async function connectionRow(app, matches, message) {
  return waitUntil(async () => (await connectionRows(app)).find(matches), { timeout: TIMEOUT.server, message });
}

describe('an AI app through rootgate connect: shown live, its folder suggested, shared on Share', () => {
  let base, folder, real, app, standIn, example;

  before(() => {
    base = tempDir('rootgate-e2e-connections-');
    folder = path.join(base, FOLDER_NAME);
    fs.mkdirSync(folder);
    real = fs.realpathSync(folder);
  });

  after(async () => {
    standIn?.kill();
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('the example server, added from its template, is approved and runs', async () => {
    app = await App.launch();
    await showView(app, 'servers');
    await app.click('template-example');
    const form = await app.visible('server-form');
    assert.equal(await (await app.visible('server-name', { within: form })).getAttribute('value'), SERVER);
    await app.click('server-save');
    await app.gone('server-form');
    example = await serverId(app, SERVER);
    await approveAndStart(app, SERVER, `${env.app} --example-server`);
  });

  step('with no AI app yet, the Connections view says how to connect one through the example server', async () => {
    await showView(app, 'connections');
    await app.visible('empty-connections');
    assert.equal(await app.text('connect-command'), `rootgate connect '${SERVER}'`);
    assert.match(await app.text('empty-connections'), /in place of the server's own command/);
    await app.screenshot('connections-empty');
  });

  step(`"${APP_NAME}", started with rootgate connect, shows as a live connection to the server`, async () => {
    standIn = await StandIn.start({
      args: ['--roots', pathToFileURL(real).href, '--name', CLIENT_NAME],
      command: [env.rootgateCli, 'connect', SERVER],
    });
    assert.equal(standIn.connected.server?.name, 'rootgate-fixture', JSON.stringify(standIn.connected));
    const row = await connectionRow(
      app,
      (r) => r.live && r.app === APP_NAME && r.server === SERVER,
      `a live connection of ${APP_NAME} to ${SERVER}`,
    );
    // The product's name, its version apart (#40): never `claude-code 1.0.0`.
    assert.equal(row.version, '1.0.0');
    assert.deepEqual(await connectionRows(app).then((rows) => rows.map((r) => r.id)), [row.id], 'one connection');
    assert.match(row.when, /^since \d\d:\d\d:\d\d · \d+ calls?$/);
    // The folder it works in, from its roots, as a path.
    await connectionRow(app, (r) => r.roots.includes(real), `the row to say ${APP_NAME} works in ${real}`);
    await connectionRow(app, (r) => r.status === 'running', 'the connection to show its server running');
    assert.equal(await app.text('live-connections'), '1', 'the sidebar counts the live connection');
  });

  step('the folder it works in is a suggestion naming the app and the server, with the server ticked', async () => {
    const dialog = await app.visible('consent-dialog', {
      timeout: TIMEOUT.server,
      message: 'the suggestion consent prompt',
    });
    const title = await app.textOf(await dialog.findElement({ css: 'h2' }));
    assert.equal(title, `${APP_NAME} is working in “${FOLDER_NAME}”. Share it with ${SERVER}?`);
    assert.equal(await app.text('consent-real-path'), real);
    assert.match(await app.text('consent-note'), /\S/, 'the note that roots are advice is still there');
    const choices = await consentChoices(app);
    assert.deepEqual([...choices.keys()], [example]);
    assert.equal(await choices.get(example).isSelected(), true, `${SERVER} starts ticked`);
    // The card names the server it shares with, whole (#40): its badges
    // ("running", "Claude Code connected") once squeezed the name to nothing.
    const name = await app.driver.executeScript(() => {
      const el = document.querySelector('[data-testid="consent-choice-name"]');
      const box = el.getBoundingClientRect();
      return { text: el.textContent.trim(), width: box.width, clipped: el.scrollWidth > el.clientWidth + 1 };
    });
    assert.equal(name.text, SERVER);
    assert.ok(name.width > 0 && !name.clipped, `the server's name is shown whole on its card: ${JSON.stringify(name)}`);
    // The ticked suggestion has focus, so it is in view.
    assert.equal(
      await app.driver.executeScript(() => document.activeElement?.getAttribute('data-server-id')),
      example,
      'focus on the ticked suggestion',
    );
    assert.equal(await app.text('consent-share'), 'Share');
    await app.screenshot('suggestion-prompt');
    // Saying where it works shares nothing: the server, asked through the
    // bridge, has no folder yet.
    assert.deepEqual(rootUris(await standIn.callTool('ask_roots')), []);
  });

  step('Share shares it: the server, asked through the bridge, reports the folder', async () => {
    await share(app);
    const uris = await waitUntil(
      async () => {
        const now = rootUris(await standIn.callTool('ask_roots'));
        return now.length > 0 && now;
      },
      { timeout: TIMEOUT.server, interval: 200, message: 'the shared folder to reach the server through the bridge' },
    );
    assert.deepEqual(
      uris.map((u) => fileURLToPath(u)),
      [real],
      `the server reports exactly the shared folder: ${JSON.stringify(uris)}`,
    );
    assert.deepEqual(rootUris(await standIn.callTool('list_roots')), uris, 'and keeps it');
    // ask_roots twice or more, list_roots once: each counted.
    await connectionRow(app, (r) => calls(r) >= 3, 'the row to count the calls');
    await app.screenshot('connections');
  });

  step('the record of calls names the app by its product, its version apart', async () => {
    await app.click('record-toggle');
    // The bridge writes a call to the record once it has answered it; a
    // search made before that finds none, so it is searched again.
    const cells = await waitUntil(
      async () => {
        const found = await app.driver.executeScript(() => {
          const rows = [...document.querySelectorAll('[data-testid="record-app"]')].map((c) => ({
            name: c.querySelector('.name')?.textContent.trim() ?? null,
            version: c.querySelector('.version')?.textContent.trim() ?? null,
            title: c.getAttribute('title'),
          }));
          if (rows.length === 0) document.querySelector('form[role="search"] button[type="submit"]')?.click();
          return rows;
        });
        return found.length > 0 && found;
      },
      { timeout: TIMEOUT.server, interval: 500, message: 'the record to list the calls' },
    );
    assert.deepEqual(cells[0], { name: APP_NAME, version: '1.0.0', title: `It calls itself “${CLIENT_NAME}” 1.0.0` });
    await app.screenshot('connections-record');
    await app.click('record-toggle');
  });

  step('the server row says the app it runs for, not "manual start"', async () => {
    await showView(app, 'servers');
    const row = await serverRow(app, SERVER);
    const said = await waitUntil(
      async () => {
        const [badge] = await app.all('server-apps', row);
        return badge && app.textOf(badge);
      },
      { timeout: TIMEOUT.server, message: 'the row to say which app it runs for' },
    );
    assert.equal(said, `running for ${APP_NAME}`);
    assert.doesNotMatch(await app.textOf(row), /manual start/);
    await app.screenshot('connections-server-row');
  });

  step('withdrawing the folder while the app is connected says so in one sentence', async () => {
    await showView(app, 'folders');
    const { row } = await folderRow(app, real);
    await app.click('folder-access', { within: row });
    await app.visible('consent-dialog');
    const choices = await consentChoices(app);
    await choices.get(example).click();
    const warning = await app.visible('consent-in-use');
    assert.equal(await app.text('consent-folder-label'), 'Folder that would be withdrawn');
    assert.match(await app.textOf(warning), new RegExp(`^${APP_NAME} is connected to ${SERVER} now\\. Withdrawing takes`));
    // One sentence in one column item, a few lines at most: each piece was
    // once a line of its own under "Folder that would be shared".
    const shape = await app.driver.executeScript(() => {
      const column = document.querySelector('[data-testid="consent-in-use"] .warning-text');
      const line = parseFloat(getComputedStyle(column).lineHeight) || 20;
      return { children: column.children.length, lines: Math.round(column.getBoundingClientRect().height / line) };
    });
    assert.equal(shape.children, 1, JSON.stringify(shape));
    assert.ok(shape.lines <= 3, `the warning takes ${shape.lines} lines`);
    await app.screenshot('consent-withdraw-in-use');
    await app.click('consent-cancel');
    await app.gone('consent-dialog');
    await showView(app, 'connections');
  });

  step("the connection's detail, opened with Enter, shows the calls in its timeline; Escape goes back", async () => {
    const open = await app.visible('connection-open');
    await open.sendKeys(Key.ENTER);
    const detail = await app.visible('connection-detail', { message: 'the connection detail after Enter' });
    assert.match(await app.textOf(await detail.findElement({ css: 'h1' })), new RegExp(`^${APP_NAME} .* to ${SERVER}$`));
    const calls = await waitUntil(
      async () => {
        const entries = await app.driver.executeScript(() =>
          [...document.querySelectorAll('[data-testid="connection-entry"]')].map((e) => ({
            kind: e.getAttribute('data-kind'),
            text: e.textContent.replace(/\s+/g, ' ').trim(),
          })),
        );
        const asked = entries.filter((e) => e.kind === 'call' && e.text.includes('“ask_roots”'));
        return asked.length > 0 && entries.some((e) => e.kind === 'call' && e.text.includes('“list_roots”')) && asked;
      },
      { timeout: TIMEOUT.server, message: 'the ask_roots and list_roots calls in the connection timeline' },
    );
    assert.match(calls[0].text, /The AI app called tools\/call “ask_roots”: answered in/);
    assert.equal(await app.text('connection-root'), real);
    await app.screenshot('connection-detail');
    await app.driver.actions().sendKeys(Key.ESCAPE).perform();
    await app.gone('connection-detail', { message: 'the detail to close on Escape' });
    await app.visible('connection-row');
  });

  step('when the app closes, its connection shows as ended', async () => {
    const exit = await standIn.close();
    assert.equal(exit.code, 0, `the stand-in exited cleanly: ${JSON.stringify(exit)}\n${standIn.stderr()}`);
    const row = await connectionRow(app, (r) => !r.live, 'the connection to show as ended');
    assert.match(row.when, /^since \d\d:\d\d:\d\d · ended \d\d:\d\d:\d\d · \d+ calls$/);
    assert.equal(row.app, APP_NAME);
    assert.equal(await app.isPresent('live-connections'), false, 'no live connection is counted');
    await app.screenshot('connections-ended');
  });
});
