// A server of the 2026-07-28 era in the real app: the Python SDK server of
// tests/servers/py_modern_server.py added through the form, set to the
// modern protocol (it speaks both eras, and left to "Find out" it would be
// spoken to in the legacy era, see ARCHITECTURE.md "Protocol eras"). What a
// person sees, checked against what really ran:
//
// - Started, it speaks modern: its row says "modern protocol 2026-07-28",
//   its detail says how it learns its folders (with each request; nothing
//   sent on a change), and the timeline says how the era was settled (set
//   on this server).
// - A folder shared with it is shown "given with each request", and no
//   `list_changed` is ever sent to it.
// - The form offers the protocol setting; forcing the legacy era restarts it
//   speaking `initialize`, and the detail says so.
//
// Calling its tools from the window is the tools issue's; the core tests
// (crates/rootgate-session/tests/it/real_modern_servers.rs) check the folders the
// server itself reports per call. Screenshots of the detail and the form go
// to .ci/out/screenshots/.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';

import { App, cleanup, commandLine, env, tempDir } from './lib/app.mjs';
import {
  addFolder,
  addServer,
  approveAndStart,
  openDetail,
  queuePick,
  serverRow,
  share,
  showView,
  tickExactly,
  timeline,
  waitServerState,
} from './lib/flows.mjs';
import { step } from './lib/steps.mjs';

const NAME = 'Modern Python';

describe('a modern-era server: given its folders with each request', () => {
  let base, a, picks, app, id, server;

  before(() => {
    base = tempDir('rootgate-e2e-modern-');
    a = path.join(base, 'folder A');
    fs.mkdirSync(a);
    picks = path.join(base, 'picks.txt');
    fs.writeFileSync(picks, '');
    server = {
      name: NAME,
      command: path.join(env.repo, 'tests/peers/.venv/bin/python'),
      args: [path.join(env.repo, 'tests/servers/py_modern_server.py')],
      era: 'modern',
    };
  });

  after(async () => {
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('started, it speaks modern, and the window says how it learns its folders', async () => {
    app = await App.launch({ args: ['--e2e-picks', picks] });
    id = await addServer(app, server);
    await approveAndStart(app, NAME, commandLine(server.command, server.args));
    const row = await serverRow(app, NAME);
    assert.match(await app.text('server-status', { within: row }), /modern protocol 2026-07-28/);

    queuePick(picks, a);
    await addFolder(app);
    await tickExactly(app, [id]);
    await share(app);

    await openDetail(app, NAME);
    const era = await app.text('server-learns');
    assert.match(era, /Modern protocol, 2026-07-28 \(set on this server\)\./);
    assert.match(era, /with each request it handles/);
    assert.match(era, /a withdrawal takes effect with its next request/);
    assert.equal(await app.text('folder-state'), 'given with each request');
    const entries = await timeline(app, { details: false });
    const found = entries.find((e) => e.kind === 'eraFound');
    assert.ok(found, `the timeline says how the era was settled: ${JSON.stringify(entries.map((e) => e.kind))}`);
    assert.match(found.text, /Speaks the modern protocol \(2026-07-28\): set on this server/);
    assert.ok(!entries.some((e) => e.kind === 'listChangedSent'), 'a modern server is never sent list_changed');
    await app.screenshot('modern-detail');
  });

  step('forced to the legacy era from the form, it restarts speaking initialize', async () => {
    await app.click('server-edit');
    const form = await app.visible('server-form');
    const select = await app.visible('server-era', { within: form });
    // The dialog scrolls; the protocol setting is below its fold.
    await app.driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', select);
    await select.findElement({ css: 'option[value="legacy"]' }).click();
    assert.match(await app.textOf(form), /told its folders when they change/);
    await app.screenshot('modern-form-legacy');
    await app.click('server-save');
    await app.gone('server-form');
    await showView(app, 'servers');
    await waitServerState(app, NAME, 'running');
    const row = await serverRow(app, NAME);
    assert.match(await app.text('server-status', { within: row }), /· protocol 2025-11-25/);
    await openDetail(app, NAME);
    assert.match(await app.text('server-learns'), /Legacy protocol, initialize \(set on this server\)\./);
  });
});
