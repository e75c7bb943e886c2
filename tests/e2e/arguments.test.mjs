// A server that takes its folders as arguments, in the real app: the npm
// filesystem server added through the form as `node index.js ${folders}`,
// as the "Filesystem (npm)" template writes it. What a person sees, checked
// against what the server's process really runs with (/proc/PID/cmdline)
// and what it says itself on stderr (the app's Log tab):
//
// - Start, with no folder shared yet: the approval dialog shows the command
//   as written and says it will not start yet, and why; approved, its row
//   says it is waiting for its folders.
// - Folder A shared: it starts with A's real path as its argument, the
//   detail shows the command with A filled in, and the server logs that it
//   took its folders ("Updated allowed directories from MCP roots: 1 valid
//   directories": it is told the same folder as a root).
// - Folder B shared too: it is started again with both, the timeline says
//   why, and it logs 2 directories.
//
// Screenshots of the waiting row, the approval and the detail go to
// .ci/out/screenshots/. Not tested here: `${folder}` and `${folder:NAME}`
// (crates/rootgate-session/tests/it/placeholders.rs runs them against our fixture
// and the Git server from PyPI).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';

import { App, cleanup, cmdline, commandLine, env, tempDir, TIMEOUT, waitUntil } from './lib/app.mjs';
import {
  addFolder,
  addServer,
  logLines,
  openDetail,
  queuePick,
  serverRow,
  serverState,
  share,
  showView,
  tickExactly,
  timeline,
  waitServerState,
} from './lib/flows.mjs';
import { step } from './lib/steps.mjs';

const NAME = 'Files by argument';

describe('a server that takes its folders as arguments: waits, starts with them, restarts with new ones', () => {
  let base, a, aReal, b, bReal, picks, js, app, id, server, pidWithA;

  /** The arguments of the server process the app runs now, or null. */
  function serverArgs() {
    for (const pid of app.children()) {
      const line = cmdline(pid);
      if (line?.includes(js)) return { pid, line };
    }
    return null;
  }

  before(() => {
    base = tempDir('rootgate-e2e-arguments-');
    a = path.join(base, 'folder A');
    b = path.join(base, 'folder B');
    fs.mkdirSync(a);
    fs.mkdirSync(b);
    aReal = fs.realpathSync(a);
    bReal = fs.realpathSync(b);
    picks = path.join(base, 'picks.txt');
    fs.writeFileSync(picks, '');
    js = path.join(env.repo, 'tests/peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
    server = { name: NAME, command: 'node', args: [js, '${folders}'] };
  });

  after(async () => {
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('with no folder shared, the approval says it will not start yet; approved, it waits', async () => {
    app = await App.launch({ args: ['--e2e-picks', picks] });
    id = await addServer(app, server);
    if (await app.isPresent('approval-dialog')) {
      await app.click('approval-cancel');
      await app.gone('approval-dialog');
    }
    await app.click('server-start', { within: await serverRow(app, NAME) });
    const dialog = await app.visible('approval-dialog');
    assert.equal(
      await app.text('approval-command', { within: dialog }),
      commandLine(server.command, server.args),
      'the approval shows the command as written, placeholder and all',
    );
    assert.match(
      await app.text('approval-filled', { within: dialog }),
      /will not start yet: it takes its folders as arguments .* no folder is shared with it yet/,
    );
    assert.equal(await app.isPresent('approval-resolved', dialog), false, 'nothing to fill in yet');
    await app.screenshot('arguments-approval-waiting');
    await app.click('approval-approve', { within: dialog });
    await app.gone('approval-dialog');

    await waitServerState(app, NAME, 'waiting');
    const row = await serverRow(app, NAME);
    assert.match(await app.text('server-status', { within: row }), /waiting for its folders/);
    assert.equal(serverArgs(), null, 'no server process runs while it waits');
    await app.screenshot('arguments-waiting');
  });

  step('folder A shared: it starts with A as its argument, and says it took it', async () => {
    queuePick(picks, a);
    await addFolder(app);
    assert.equal(await app.text('consent-real-path'), aReal);
    await tickExactly(app, [id]);
    await share(app);
    await showView(app, 'servers');
    await waitServerState(app, NAME, 'running');
    const started = await waitUntil(serverArgs, { timeout: TIMEOUT.server, message: 'the server process' });
    assert.ok(started.line.endsWith(` ${aReal}`), `its command line ends with A's real path: ${started.line}`);

    await openDetail(app, NAME);
    assert.equal(
      await app.text('server-resolved-command'),
      commandLine(server.command, [js, aReal]),
      'the detail shows the command with A filled in',
    );
    const said = await waitUntil(
      async () => {
        const lines = await logLines(app, 'Updated allowed directories');
        return lines.length > 0 && lines;
      },
      { timeout: TIMEOUT.server, message: 'the server to log the folders it took' },
    );
    assert.match(said.at(-1), /1 valid directories/);
    await app.click('tab-timeline');
    await app.screenshot('arguments-detail');
    pidWithA = started.pid;
  });

  step('folder B shared too: it is started again with both, and the timeline says why', async () => {
    const before = pidWithA;
    queuePick(picks, b);
    await addFolder(app);
    await tickExactly(app, [id]);
    await share(app);
    const again = await waitUntil(
      () => {
        const now = serverArgs();
        return now && now.pid !== before && now.line.includes(bReal) && now;
      },
      { timeout: TIMEOUT.server, message: 'a new server process with B among its arguments' },
    );
    assert.ok(again.line.includes(aReal) && again.line.includes(bReal), again.line);
    await waitUntil(() => cmdline(before) === null, { timeout: TIMEOUT.server, message: 'the process with A alone to exit' });
    await showView(app, 'servers');
    await waitServerState(app, NAME, 'running');
    assert.equal(await serverState(app, NAME), 'running');

    await openDetail(app, NAME);
    const entries = await timeline(app, { details: false });
    const restarted = entries.filter((e) => e.kind === 'restartedForArguments');
    assert.equal(restarted.length, 1, `one restart for its arguments: ${JSON.stringify(entries.map((e) => e.kind))}`);
    const said = await waitUntil(
      async () => {
        const lines = await logLines(app, 'Updated allowed directories');
        return lines.some((l) => /2 valid directories/.test(l)) && lines;
      },
      { timeout: TIMEOUT.server, message: 'the restarted server to log two folders' },
    );
    assert.match(said.at(-1), /2 valid directories/);
  });
});
