// Servers from where they are published, end to end in the real app: an
// MCP bundle packed by the official `mcpb` CLI (tests/peers) is chosen with
// "Install a bundle…" (the picks file stands in for the native dialog), the
// install dialog shows who made it, that it is not signed, what it runs and
// its setting; installed with an answer, its command is shown for approval,
// its files sit in the data folder, and removing the server removes them.
// Then the MCP Registry: its address set in Settings to a registry on this
// machine (a small node HTTP server answering the v0 API from the snapshot
// in crates/rootgate-sources/tests/fixtures/registry), "Add from the
// registry…" searches it, lists the official filesystem server's npm
// package, and the install dialog shows the pinned command with its folders
// as a placeholder. Screenshots go to .ci/out/screenshots/.
//
// Not tested here: running the installed servers through `rootgate connect`
// (crates/rootgate-cli/tests/it/bundles.rs and registry.rs do, with the real
// filesystem server), hostile bundles (the same), the file manager's Open
// (the package's check covers the MIME type).

import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe } from 'node:test';

import { App, cleanup, env, Key, tempDir, TIMEOUT, waitUntil } from './lib/app.mjs';
import { queuePick, serverRow, showView } from './lib/flows.mjs';
import { step } from './lib/steps.mjs';

const SNAPSHOT = () => path.join(env.repo, 'crates/rootgate-sources/tests/fixtures/registry');

/** The registry's answers from the snapshot: a search over every entry's latest version, and one version. */
function registry() {
  const versions = path.join(SNAPSHOT(), 'versions');
  const latest = () =>
    fs
      .readdirSync(versions)
      .map((d) => path.join(versions, d, 'latest.json'))
      .filter((f) => fs.existsSync(f))
      .map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
  return http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const send = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const one = url.pathname.match(/^\/v0\/servers\/([^/]+)\/versions\/([^/]+)$/);
    if (one) {
      const file = path.join(versions, encodeURIComponent(decodeURIComponent(one[1])), `${decodeURIComponent(one[2])}.json`);
      return fs.existsSync(file) ? send(200, JSON.parse(fs.readFileSync(file, 'utf8'))) : send(404, { title: 'Not Found' });
    }
    if (url.pathname === '/v0/servers') {
      const words = (url.searchParams.get('search') ?? '').toLowerCase();
      const servers = latest().filter((a) => a.server.name.toLowerCase().includes(words));
      return send(200, { servers, metadata: { count: servers.length } });
    }
    send(404, { title: 'Not Found' });
  });
}

describe('install a bundle and add from the registry', () => {
  let base, picks, bundle, dataHome, server, address, app;

  before(async () => {
    base = tempDir('rootgate-e2e-install-');
    picks = path.join(base, 'picks.txt');
    fs.writeFileSync(picks, '');
    const source = path.join(base, 'hello');
    fs.cpSync(path.join(env.repo, 'crates/rootgate-cli/tests/fixtures/bundles/hello'), source, { recursive: true });
    // Who made it, whole, as an MCP bundle's manifest says it: a name, an
    // address and a page, and its licence.
    const manifest = JSON.parse(fs.readFileSync(path.join(source, 'manifest.json'), 'utf8'));
    manifest.author = { name: "Rootgate's tests", email: 'tests@example.com', url: 'https://example.com/rootgate-tests' };
    manifest.license = 'MIT';
    fs.writeFileSync(path.join(source, 'manifest.json'), JSON.stringify(manifest, null, 2));
    bundle = path.join(base, 'hello.mcpb');
    execFileSync(path.join(env.repo, 'tests/peers/node_modules/.bin/mcpb'), ['pack', source, bundle], { stdio: 'pipe' });
    dataHome = process.env.XDG_DATA_HOME ?? path.join(process.env.HOME, '.local/share');
    server = registry();
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    address = `http://127.0.0.1:${server.address().port}`;
  });

  after(async () => {
    if (app) await app.quit().catch(() => {});
    server?.close();
    cleanup(base);
  });

  step('Install a bundle… shows the bundle before anything is unpacked', async () => {
    app = await App.launch({ args: ['--e2e-picks', picks] });
    await showView(app, 'servers');
    queuePick(picks, bundle);
    await app.click('install-bundle');
    const dialog = await app.visible('install-dialog', { message: 'the install dialog after the picker' });
    assert.equal(await app.text('install-title', { within: dialog }), 'hello 1.0.0');
    assert.equal(await app.text('install-author', { within: dialog }), "By Rootgate's tests <tests@example.com>");
    assert.equal(await app.text('install-homepage', { within: dialog }), 'https://example.com/rootgate-tests · licence MIT');
    assert.match(await app.text('install-signature', { within: dialog }), /^Not signed/);
    assert.match(await app.text('install-command', { within: dialog }), /node .*bundles\/hello\/1\.0\.0\/server\/index\.js/);
    assert.equal(fs.existsSync(path.join(dataHome, 'rootgate/bundles/hello')), false, 'nothing unpacked yet');
    await app.screenshot('install-bundle');
  });

  step('installed with an answer, its command waits for approval and its files are in the data folder', async () => {
    const dialog = await app.visible('install-dialog');
    const greeting = await dialog.findElement({ css: '[data-key="greeting"]' });
    await greeting.clear();
    await greeting.sendKeys('bonjour');
    await app.click('install-confirm', { within: dialog });
    await app.gone('install-dialog');
    const approval = await app.visible('approval-dialog', { message: 'the approval dialog after installing' });
    assert.match(await app.text('approval-command', { within: approval }), /--greeting=bonjour/);
    await app.click('approval-approve', { within: approval });
    await app.gone('approval-dialog');
    await serverRow(app, 'hello');
    assert.ok(fs.existsSync(path.join(dataHome, 'rootgate/bundles/hello/1.0.0/manifest.json')), 'unpacked in the data folder');
  });

  step('removing the server removes its bundle files', async () => {
    await app.click('server-remove', { within: await serverRow(app, 'hello') });
    await app.click('confirm-ok');
    await waitUntil(() => !fs.existsSync(path.join(dataHome, 'rootgate/bundles/hello')), {
      message: "the bundle's folder to go with the server",
    });
  });

  step('`rootgate install FILE.mcpb` while the window is open hands the bundle to the window, which shows it', async () => {
    const { stdout } = await promisify(execFile)(env.rootgateCli, ['install', bundle], {
      env: { ...process.env, XDG_CONFIG_HOME: env.configHome },
      timeout: TIMEOUT.server,
    });
    assert.match(stdout, /It shows the bundle there; install it from the window\./);
    const dialog = await app.visible('install-dialog', { message: 'the install dialog of the bundle handed over' });
    assert.equal(await app.text('install-title', { within: dialog }), 'hello 1.0.0');
    await app.click('install-cancel', { within: dialog });
    await app.gone('install-dialog');
  });

  step('Settings take a registry on this machine; Add from the registry… finds the filesystem server', async () => {
    await app.driver.actions().keyDown(Key.CONTROL).sendKeys(',').keyUp(Key.CONTROL).perform();
    const field = await app.visible('registry-address');
    // Enter saves it, as a form does (the toast of the install above may
    // still cover the Save button in the corner).
    await field.sendKeys(address, Key.ENTER);
    await waitUntil(() => fs.readFileSync(env.settingsFile, 'utf8').includes(address), {
      message: 'the address to be saved in the settings',
    });
    await showView(app, 'servers');
    await app.click('add-from-registry');
    const dialog = await app.visible('registry-dialog');
    await (await app.visible('registry-words', { within: dialog })).sendKeys('filesystem');
    await app.click('registry-search', { within: dialog });
    let result;
    await waitUntil(
      async () => {
        for (const r of await app.all('registry-result', dialog)) {
          if ((await r.getAttribute('data-name')) === 'io.github.modelcontextprotocol/filesystem') result = r;
        }
        return result !== undefined;
      },
      { message: 'the official filesystem server among the results' },
    );
    await app.screenshot('install-registry-search');
    const npm = await result.findElement({ css: '[data-testid="registry-choose"][data-package="npm"]' });
    await npm.click();
    const install = await app.visible('install-dialog', { message: 'the install dialog for the registry entry' });
    assert.match(
      await app.text('install-command', { within: install }),
      / npx -y @modelcontextprotocol\/server-filesystem@2026\.8\.31 '\$\{folders\}'$/,
    );
    assert.match(await app.textOf(install), /From the MCP Registry/);
    assert.equal(
      await app.text('install-package', { within: install }),
      'io.github.modelcontextprotocol/filesystem, its npm package @modelcontextprotocol/server-filesystem',
    );
    await app.screenshot('install-registry-offer');
    await app.click('install-cancel', { within: install });
    await app.gone('install-dialog');
  });
});
