// Workspace ("only the project the app is working in"), end to end in the
// real app: the built-in example server is added with the setting ticked
// in its form, and two folders, `a` and `b`, are shared with it through the
// consent prompt. An AI app (the official TypeScript SDK client stand-in,
// calling itself Claude Code) working in `a` connects through `rootgate
// connect`: the server, asked through the bridge (its ask_roots tool),
// reports `a` alone, and the Connections view says, in the row and in the
// connection's detail, which folders it sees and why. Screenshots go to
// .ci/out/screenshots/.
//
// Not tested here: two apps at once and an app without roots (the core's
// tests: crates/rootgate-cli/tests/it/workspace.rs).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { App, cleanup, env, Key, tempDir, TIMEOUT, waitUntil } from './lib/app.mjs';
import { addFolder, approveAndStart, queuePick, serverId, share, showView, tickExactly } from './lib/flows.mjs';
import { rootUris, StandIn } from './lib/standin.mjs';
import { step } from './lib/steps.mjs';

const SERVER = 'Example server';

describe('Workspace: each AI app connection sees only the project it works in', () => {
  let base, picks, a, b, app, standIn, example;

  before(() => {
    base = tempDir('rootgate-e2e-workspace-');
    picks = path.join(base, 'picks.txt');
    fs.writeFileSync(picks, '');
    for (const name of ['a', 'b']) fs.mkdirSync(path.join(base, name));
    a = fs.realpathSync(path.join(base, 'a'));
    b = fs.realpathSync(path.join(base, 'b'));
  });

  after(async () => {
    standIn?.kill();
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('the example server is added with Workspace ticked, and folders a and b are shared with it', async () => {
    app = await App.launch({ args: ['--e2e-picks', picks] });
    await showView(app, 'servers');
    await app.click('template-example');
    await app.visible('server-form');
    const workspace = await app.visible('server-workspace');
    assert.equal(await workspace.isSelected(), false, 'off by default');
    await workspace.click();
    await app.screenshot('workspace-setting');
    await app.click('server-save');
    await app.gone('server-form');
    example = await serverId(app, SERVER);
    await approveAndStart(app, SERVER, `${env.app} --example-server`);
    for (const folder of [a, b]) {
      queuePick(picks, folder);
      await addFolder(app);
      await tickExactly(app, [example]);
      await share(app);
    }
  });

  step('an AI app working in a is given a alone, from its first call', async () => {
    standIn = await StandIn.start({
      args: ['--roots', pathToFileURL(a).href, '--name', 'Claude Code'],
      command: [env.rootgateCli, 'connect', SERVER],
    });
    const uris = rootUris(await standIn.callTool('ask_roots'));
    assert.deepEqual(uris.map((u) => fileURLToPath(u)), [a], `the server reports a alone: ${JSON.stringify(uris)}`);
  });

  step('the Connections view says which folders the connection sees, and why', async () => {
    await showView(app, 'connections');
    const sees = await waitUntil(
      async () => {
        const [el] = await app.all('connection-sees');
        const text = el ? await app.textOf(el) : '';
        return text.includes(a) && text;
      },
      { timeout: TIMEOUT.server, message: 'the row to say what the connection sees' },
    );
    assert.ok(!sees.includes(b), `b is not seen: ${sees}`);
    await app.screenshot('workspace-connections');
    const open = await app.visible('connection-open');
    await open.sendKeys(Key.ENTER);
    await app.visible('connection-detail');
    const why = await app.text('connection-sees-why');
    assert.match(why, /^Why: Workspace: the shared folders the app works in \(its roots: .*\)\.$/);
    await app.screenshot('workspace-connection-detail');
  });
});
