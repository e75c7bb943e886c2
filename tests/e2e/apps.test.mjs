// "Connect an app", end to end in the real app: Claude Desktop's own config
// file (claude_desktop_config.json under the app's XDG_CONFIG_HOME, which
// Claude Desktop honours too) names the npm filesystem server with a
// folder and an API token. The Apps view (Ctrl+5) lists it; Import shows
// the command Rootgate will add and the folder it will offer; the new
// server is then approved as one added by hand, and the folder comes up
// as a consent prompt with the server ticked; Share shares it and the
// server runs with it. "Route through Rootgate" shows the diff (the token
// masked) and writes it: the file then runs `rootgate connect files`,
// keeps its other settings, and a backup with the original bytes sits
// beside it. Claude Desktop is then played by the official TypeScript SDK
// client (tests/peers/apps/ts_app.mjs), which starts the server from the
// rewritten file as Claude Desktop does (`--config FILE --server files`:
// the SDK's default environment plus the entry's own): the filesystem
// server it reaches through Rootgate allows exactly the shared folder.
// Undo restores the file byte for byte and removes the backup. With the
// window open, `rootgate import` in a terminal raises the new server's
// approval in the window, `rootgate route` there shows in the Apps view at
// once, and an Undo a toast offered before `rootgate unroute` in a terminal
// says in plain words that the file changed outside the window (#40).
//
// The app runs from a folder with the `rootgate` command beside it, as an
// installed Rootgate is laid out (packaging puts both in /usr/bin): the
// route writes the `rootgate` beside the app into the file, and
// scripts/e2e.sh keeps its build of the command elsewhere. Screenshots of
// the list, the import dialog, the diff and the routed list go to
// .ci/out/screenshots/.
//
// Not tested here: needs to fill in (VS Code inputs; the unit tests do),
// other apps' formats (crates/rootgate-apps/tests/it/app_configs_*.rs), and a
// partial undo after the app changed its file.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { promisify } from 'node:util';

import { App, cleanup, commandLine, env, Key, tempDir, TIMEOUT, waitUntil } from './lib/app.mjs';
import { consentChoices, notices, serverId, serverRow, share, showView, waitServerState } from './lib/flows.mjs';
import { StandIn } from './lib/standin.mjs';
import { step } from './lib/steps.mjs';

const SECRET = 'sk-test-SECRET-1234';
const KEY = 'files';
const FOLDER_NAME = 'shared by Claude';
const ROUTED = 'Claude Desktop now reaches its servers through Rootgate. Restart Claude Desktop to use it.';

/** The `rootgate` command run as a person runs it in a terminal, with the window open: its output. */
async function terminal(...args) {
  const { stdout } = await promisify(execFile)(env.rootgateCli, args, {
    env: { ...process.env, XDG_CONFIG_HOME: env.configHome },
    timeout: 60_000,
  });
  return stdout;
}

/** `src` at `dest`: a hard link when the file system allows one (instant), else a copy. */
function place(src, dest) {
  try {
    fs.linkSync(src, dest);
  } catch {
    fs.copyFileSync(src, dest);
    fs.chmodSync(dest, 0o755);
  }
}

/** Every element with this test id inside the element with `within`'s test id, read from the DOM. */
async function texts(app, within, id) {
  return app.driver.executeScript(
    (w, t) =>
      [...(document.querySelector(`[data-testid="${w}"]`)?.querySelectorAll(`[data-testid="${t}"]`) ?? [])].map((e) =>
        e.textContent.replace(/\s+/g, ' ').trim(),
      ),
    within,
    id,
  );
}

describe('connect an app: import a Claude Desktop server, route Claude Desktop through Rootgate, undo', () => {
  let base, shared, sharedReal, layout, binary, cli, js, configDir, configFile, original, app, standIn, id;

  const backups = () => fs.readdirSync(configDir).filter((f) => f.startsWith('claude_desktop_config.json.before-rootgate-'));

  /** The server row of `key` in Claude Desktop's card. */
  async function entryRow() {
    const card = await app.visible('app-card-claude-desktop');
    return app.visible(`app-server-${KEY}`, { within: card });
  }

  async function chip() {
    return app.text('app-server-chip', { within: await entryRow() });
  }

  before(() => {
    base = tempDir('rootgate-e2e-apps-');
    shared = path.join(base, FOLDER_NAME);
    fs.mkdirSync(shared);
    sharedReal = fs.realpathSync(shared);
    layout = path.join(base, 'bin');
    fs.mkdirSync(layout);
    binary = path.join(layout, 'rootgate-desktop');
    cli = path.join(layout, 'rootgate');
    place(env.app, binary);
    place(env.rootgateCli, cli);
    js = path.join(env.repo, 'tests/peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
    configDir = path.join(env.configHome, 'Claude');
    fs.mkdirSync(configDir, { recursive: true });
    configFile = path.join(configDir, 'claude_desktop_config.json');
    original = `${JSON.stringify(
      {
        globalShortcut: 'Ctrl+Space',
        mcpServers: { [KEY]: { command: process.execPath, args: [js, sharedReal], env: { API_TOKEN: SECRET } } },
      },
      null,
      2,
    )}\n`;
    fs.writeFileSync(configFile, original);
  });

  after(async () => {
    standIn?.kill();
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('Ctrl+5 opens the Apps view, which lists Claude Desktop’s config and its server, not imported', async () => {
    app = await App.launch({ binary });
    await app.driver.actions().keyDown(Key.CONTROL).sendKeys('5').keyUp(Key.CONTROL).perform();
    await app.visible('apps-view', { message: 'the Apps view after Ctrl+5' });
    await waitUntil(() => app.driver.executeScript(() => document.activeElement?.id === 'apps-title'), {
      message: 'the view heading to take focus',
    });
    const card = await app.visible('app-card-claude-desktop');
    assert.equal(await app.text('app-title', { within: card }), 'Claude Desktop');
    assert.equal(await app.text('app-file-path', { within: card }), configFile);
    assert.equal(await chip(), 'Not imported');
    const command = await app.text('app-server-command', { within: await entryRow() });
    assert.equal(command, `API_TOKEN=… ${commandLine(process.execPath, [js, sharedReal])}`, 'env values hidden');
    const route = await app.visible('route-button', { within: card });
    assert.equal(await route.isEnabled(), false, 'nothing to route before a server is imported');
    await app.screenshot('apps-list');
  });

  step('Import shows the command Rootgate will add and the folder it will offer', async () => {
    await app.click('app-import', { within: await entryRow() });
    const dialog = await app.visible('import-dialog');
    assert.equal(
      await app.text('import-command', { within: dialog }),
      `API_TOKEN=… ${commandLine(process.execPath, [js, '${folders}'])}`,
    );
    assert.deepEqual(await texts(app, 'import-dialog', 'import-folder'), [sharedReal]);
    assert.match(await app.textOf(dialog), /You'll be asked about each folder next; nothing is shared until you say so/);
    assert.equal(await app.isPresent('import-need-0', dialog), false, 'a plain token asks for nothing');
    assert.doesNotMatch(await app.textOf(dialog), new RegExp(SECRET), 'the token is not shown');
    await app.screenshot('apps-import');
    await app.click('import-confirm', { within: dialog });
    await app.gone('import-dialog');
  });

  step('the new server’s command is shown for approval; approved, its folder is asked about with it ticked', async () => {
    const dialog = await app.visible('approval-dialog', { message: 'the approval dialog after Import' });
    assert.equal(
      await app.text('approval-command', { within: dialog }),
      `API_TOKEN=… ${commandLine(process.execPath, [js, '${folders}'])}`,
      'the approval shows what will run, and covers the secret variable by its name, not its value',
    );
    assert.equal(await app.isPresent('consent-dialog'), false, 'the folder is asked about after the approval');
    await app.click('approval-approve', { within: dialog });
    await app.gone('approval-dialog');

    const consent = await app.visible('consent-dialog', { message: 'the consent prompt for the imported folder' });
    assert.equal(
      await app.textOf(await consent.findElement({ css: 'h2' })),
      `${KEY} was imported from Claude Desktop, whose config gave it “${FOLDER_NAME}”. Share it with ${KEY}?`,
    );
    assert.equal(await app.text('consent-real-path'), sharedReal);
    const choices = await consentChoices(app);
    assert.equal(choices.size, 1, 'the one server there is');
    [id] = choices.keys();
    assert.equal(await choices.get(id).isSelected(), true, `${KEY} starts ticked`);
    await app.screenshot('apps-consent');
    await share(app);
  });

  step('the server is in Servers and runs with the shared folder', async () => {
    await showView(app, 'servers');
    assert.equal(await serverId(app, KEY), id);
    await waitServerState(app, KEY, 'running');
    assert.equal(await app.isPresent('needs-approval', await serverRow(app, KEY)), false);
  });

  step('Route through Rootgate shows the change, the token masked', async () => {
    await app.click('nav-apps');
    await waitUntil(async () => (await chip()) === `Imported as ${KEY}`, { message: 'the chip to say imported' });
    await app.click('route-button', { within: await app.visible('app-card-claude-desktop') });
    const dialog = await app.visible('route-dialog');
    assert.equal(await app.textOf(await dialog.findElement({ css: 'h2' })), 'Route Claude Desktop through Rootgate?');
    assert.equal(await app.text('route-path', { within: dialog }), configFile);
    assert.deepEqual(await texts(app, 'route-dialog', 'route-entry'), [`${KEY} → rootgate connect ${KEY}`]);
    const diff = await app.text('route-diff', { within: dialog });
    assert.match(diff, /connect/);
    assert.ok(!diff.includes(SECRET), `the diff masks the token: ${diff}`);
    assert.match(await app.textOf(dialog), /A backup is kept beside the file; Undo restores it byte for byte\./);
    const kinds = await app.driver.executeScript(() =>
      [...document.querySelectorAll('[data-testid="route-diff"] [data-kind]')].map((s) => s.getAttribute('data-kind')),
    );
    assert.ok(kinds.includes('add') && kinds.includes('del'), `added and removed lines: ${kinds}`);
    assert.equal(fs.readFileSync(configFile, 'utf8'), original, 'nothing is written before Write');
    await app.screenshot('apps-route-diff');
  });

  step('at the smallest window the route dialog fits: nothing wider than the window, its buttons in view', async () => {
    const before = await app.driver.manage().window().getRect();
    await app.driver.manage().window().setRect({ width: 760, height: 520 });
    await waitUntil(
      async () => (await app.driver.executeScript(() => window.innerWidth)) <= 760,
      { message: 'the window to be 760 wide' },
    );
    // What overflowed is measured, not looked for in a picture: the page
    // must not scroll sideways, the dialog must lie inside the window, and
    // its Write and Cancel buttons must be reachable without scrolling it.
    const fit = await app.driver.executeScript(() => {
      const dialog = document.querySelector('[data-testid="route-dialog"]');
      const box = dialog.getBoundingClientRect();
      const button = document.querySelector('[data-testid="route-confirm"]').getBoundingClientRect();
      return {
        pageWide: document.documentElement.scrollWidth,
        inner: [window.innerWidth, window.innerHeight],
        dialog: [box.left, box.top, box.right, box.bottom],
        dialogWide: dialog.scrollWidth - dialog.clientWidth,
        button: [button.left, button.top, button.right, button.bottom],
      };
    });
    const [w, h] = fit.inner;
    assert.ok(fit.pageWide <= w, `the page scrolls sideways: ${JSON.stringify(fit)}`);
    assert.ok(fit.dialog[0] >= 0 && fit.dialog[2] <= w, `the dialog is wider than the window: ${JSON.stringify(fit)}`);
    assert.ok(fit.dialog[1] >= 0 && fit.dialog[3] <= h, `the dialog is taller than the window: ${JSON.stringify(fit)}`);
    assert.ok(fit.dialogWide <= 0, `the dialog scrolls sideways: ${JSON.stringify(fit)}`);
    assert.ok(fit.button[2] <= w && fit.button[3] <= h, `Write the change is out of view: ${JSON.stringify(fit)}`);
    await app.screenshot('apps-route-diff-small');
    await app.driver.manage().window().setRect({ width: before.width, height: before.height });
    await waitUntil(
      async () => (await app.driver.executeScript(() => window.innerWidth)) > 760,
      { message: 'the window back to its size' },
    );
  });

  step('Write routes the file: `rootgate connect`, its other settings kept, the original backed up', async () => {
    await app.click('route-confirm');
    await app.gone('route-dialog');
    // The toast's text, then its Undo button's.
    await waitUntil(async () => (await notices(app)).some((n) => n.startsWith(ROUTED)), {
      message: 'the toast saying it is routed',
    });
    assert.equal(await app.text('notice-action'), 'Undo', 'the toast offers Undo');
    const now = fs.readFileSync(configFile, 'utf8');
    const parsed = JSON.parse(now);
    assert.equal(parsed.globalShortcut, 'Ctrl+Space');
    assert.equal(parsed.mcpServers[KEY].command, cli, 'the `rootgate` beside the app');
    assert.deepEqual(parsed.mcpServers[KEY].args, ['connect', KEY]);
    assert.match(now, /"args":\s*\[\s*"connect",\s*"files"\s*\]/);
    assert.equal(parsed.mcpServers[KEY].env?.XDG_CONFIG_HOME, env.configHome, 'the bridge finds these settings');
    assert.ok(!now.includes(SECRET), 'the token stays in Rootgate, not in the app’s file');
    const saved = backups();
    assert.equal(saved.length, 1, `one backup: ${saved}`);
    assert.equal(fs.readFileSync(path.join(configDir, saved[0]), 'utf8'), original, 'the backup holds the original bytes');
    await waitUntil(async () => (await chip()) === `Routed through Rootgate (${KEY})`, {
      message: 'the chip to say routed',
    });
    await app.visible('undo-button', { within: await app.visible('app-card-claude-desktop') });
    await app.screenshot('apps-routed');
  });

  step('Claude Desktop, played by the TypeScript SDK from the rewritten file, reaches exactly the shared folder', async () => {
    // The stand-in's own environment has no XDG_CONFIG_HOME: the entry's must bring it.
    const environment = { ...process.env };
    delete environment.XDG_CONFIG_HOME;
    standIn = await StandIn.start({
      args: ['--config', configFile, '--server', KEY, '--name', 'Claude Desktop'],
      command: [],
      environment,
    });
    const result = await waitUntil(
      async () => {
        const r = await standIn.callTool('list_allowed_directories');
        const text = r?.content?.[0]?.text ?? '';
        return text.includes(sharedReal) && text;
      },
      { timeout: TIMEOUT.server, interval: 200, message: 'the filesystem server to allow the shared folder' },
    );
    assert.deepEqual(
      result.split('\n').slice(1),
      [sharedReal],
      `exactly the shared folder, through Rootgate: ${JSON.stringify(result)}\n${standIn.stderr()}`,
    );
    const exit = await standIn.close();
    assert.equal(exit.code, 0, `the stand-in exited cleanly: ${JSON.stringify(exit)}\n${standIn.stderr()}`);
  });

  step('Undo restores the file byte for byte', async () => {
    await app.click('undo-button', { within: await app.visible('app-card-claude-desktop') });
    const dialog = await app.visible('route-dialog');
    assert.equal(await app.textOf(await dialog.findElement({ css: 'h2' })), "Restore Claude Desktop's original file?");
    assert.equal(await app.isPresent('route-partial', dialog), false, 'the file is as Rootgate wrote it');
    assert.ok(!(await app.text('route-diff', { within: dialog })).includes(SECRET), 'the undo diff masks the token too');
    assert.equal(await app.text('route-confirm', { within: dialog }), 'Restore the original');
    await app.screenshot('apps-undo');
    await app.click('route-confirm', { within: dialog });
    await app.gone('route-dialog');
    await waitUntil(() => fs.readFileSync(configFile, 'utf8') === original, {
      message: 'the file to be back as it was',
    });
    assert.ok(fs.readFileSync(configFile).equals(Buffer.from(original)), 'byte for byte');
    assert.deepEqual(backups(), [], 'the backup is removed once its bytes are back');
    await waitUntil(async () => (await chip()) === `Imported as ${KEY}`, { message: 'the chip to say imported again' });
    assert.equal(await app.isPresent('undo-button', await app.visible('app-card-claude-desktop')), false);
  });

  step('`rootgate import` in a terminal, with the window open, raises the approval there, its folder asked after (#40)', async () => {
    const notes = path.join(base, 'notes for Claude');
    fs.mkdirSync(notes);
    const notesReal = fs.realpathSync(notes);
    const config = JSON.parse(fs.readFileSync(configFile, 'utf8'));
    config.mcpServers.notes = { command: process.execPath, args: [js, notesReal] };
    fs.writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
    const said = await terminal('import', 'claude-desktop', 'notes');
    assert.match(said, /notes/, said);
    const dialog = await app.visible('approval-dialog', { message: 'the approval the terminal import raised' });
    assert.equal(await app.text('approval-command', { within: dialog }), commandLine(process.execPath, [js, '${folders}']));
    assert.equal(await app.isPresent('consent-dialog'), false, 'the folder is asked about after the approval');
    await app.screenshot('apps-terminal-import-approval');
    await app.click('approval-approve', { within: dialog });
    await app.gone('approval-dialog');
    const consent = await app.visible('consent-dialog', { message: 'the consent prompt for the imported folder' });
    assert.equal(await app.text('consent-real-path'), notesReal);
    await app.click('consent-cancel', { within: consent });
    await app.gone('consent-dialog');
  });

  step('`rootgate route` in a terminal shows in the Apps view without Look again (#40)', async () => {
    await app.click('nav-apps');
    assert.equal(await chip(), `Imported as ${KEY}`);
    await terminal('route', 'claude-desktop', KEY);
    assert.deepEqual(JSON.parse(fs.readFileSync(configFile, 'utf8')).mcpServers[KEY].args, ['connect', KEY]);
    await waitUntil(async () => (await chip()) === `Routed through Rootgate (${KEY})`, {
      message: 'the Apps view to show the route made in the terminal',
    });
    await app.visible('undo-button', { within: await app.visible('app-card-claude-desktop') });
    await app.screenshot('apps-terminal-route');
  });

  step('an Undo offered before `rootgate unroute` in a terminal says in plain words what happened, not an error (#40)', async () => {
    // Routed in the window (notes too): the toast offers Undo.
    await app.click('route-button', { within: await app.visible('app-card-claude-desktop') });
    await app.visible('route-dialog');
    await app.click('route-confirm');
    await app.gone('route-dialog');
    const toast = await waitUntil(
      async () => {
        for (const n of await app.all('notice')) if ((await app.textOf(n)).startsWith(ROUTED)) return n;
        return false;
      },
      { message: 'the toast offering Undo' },
    );
    // Held on screen (a toast waits while the pointer is on it).
    await app.driver.actions().move({ origin: toast }).perform();
    await terminal('unroute', 'claude-desktop');
    await waitUntil(async () => !(await app.isPresent('undo-button', await app.visible('app-card-claude-desktop'))), {
      message: 'the Apps view to show the undo made in the terminal',
    });
    await app.click('notice-action', { within: toast });
    const said = await waitUntil(
      async () => (await notices(app)).find((n) => n.includes('changed outside this window')),
      { message: 'the words for the stale Undo' },
    );
    assert.match(said, /^Claude Desktop's file changed outside this window .*: nothing in it goes through Rootgate now\. Here it is as it is now\./);
    const roles = await app.driver.executeScript(() =>
      [...document.querySelectorAll('[data-testid="notice"]')].map((n) => n.getAttribute('role')),
    );
    assert.ok(!roles.includes('alert'), `no error toast: ${roles}`);
    assert.equal(await app.isPresent('route-dialog'), false);
    await app.screenshot('apps-stale-undo');
  });
});
