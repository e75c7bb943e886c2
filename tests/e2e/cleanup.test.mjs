// Nothing is left running, in the real app: a server that starts a child
// in its own process group and a daemon (`setsid -f`: a new session, its
// parent gone at once, so signalling the server's group cannot reach it)
// is added through the form, approved and started. Quitting the app the
// way a person does (closing its window) ends the app, the server, the
// child and the daemon. Started again on the same settings (the server is
// enabled and approved, so it starts by itself), the app is then killed
// with SIGKILL, so none of its own shutdown code runs: the server, the
// child and the daemon still end within a few seconds, because each server
// runs under Rootgate's launcher, which watches the app and ends what the
// server started.
//
// Not tested here: what the launcher does for enforced roots (the core's
// tests/it/launcher.rs), and servers that ignore their input closing (the
// core's process tests).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';

import { App, cleanup, commandLine, TIMEOUT, tempDir, waitUntil } from './lib/app.mjs';
import { addServer, approveAndStart, showView, waitServerState } from './lib/flows.mjs';
import { step } from './lib/steps.mjs';

/** The process ids the server wrote, by role, once it wrote all three. */
async function started(pidsFile) {
  return waitUntil(
    () => {
      let text;
      try {
        text = fs.readFileSync(pidsFile, 'utf8');
      } catch {
        return null;
      }
      const pids = Object.fromEntries(
        text
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(' '))
          .map(([role, pid]) => [role, Number(pid)]),
      );
      return pids.server && pids.child && pids.daemon ? pids : null;
    },
    { timeout: TIMEOUT.server, message: 'the server to write its process ids' },
  );
}

function alive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function groupOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

async function allGone(pids, what) {
  await waitUntil(() => Object.values(pids).every((pid) => !alive(pid)), {
    timeout: TIMEOUT.exit,
    message: `${what}: still running ${JSON.stringify(Object.fromEntries(Object.entries(pids).filter(([, p]) => alive(p))))}`,
  });
}

describe('no server process outlives the app, quit or killed', () => {
  let base, pidsFile, app, server;

  before(() => {
    base = tempDir('rootgate-e2e-cleanup-');
    pidsFile = path.join(base, 'pids');
    const script =
      `setsid -f sh -c 'echo daemon $$ >> "$0"; exec sleep 3600' "$1"; ` +
      `sleep 3600 & echo child $! >> "$1"; echo server $$ >> "$1"; shift; exec "$@"`;
    server = {
      name: 'Forking server',
      command: 'sh',
      // The fixture server (the app in its example-server role) speaks MCP
      // after the shell has started its child and daemon.
      args: ['-c', script, 'forking', pidsFile],
    };
  });

  after(async () => {
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('adds, approves and starts a server that starts a child and a daemon', async () => {
    app = await App.launch();
    server.args.push(app.binary, '--example-server');
    await showView(app, 'servers');
    await addServer(app, server);
    await approveAndStart(app, server.name, commandLine(server.command, server.args));
    await waitServerState(app, server.name, 'running');
    const pids = await started(pidsFile);
    assert.ok(Object.values(pids).every(alive), 'all three run');
    assert.notEqual(groupOf(pids.daemon), groupOf(pids.server), 'the daemon left the server’s process group');
  });

  step('closing the window quits the app, and the server, its child and its daemon end', async () => {
    const pids = await started(pidsFile);
    const appPid = app.pid;
    assert.ok(appPid, 'the app process was found');
    const closing = app;
    app = null;
    await closing.driver.close().catch(() => {});
    await closing.driver.quit().catch(() => {});
    await allGone({ app: appPid, ...pids }, 'after quitting');
  });

  step('started again, the app is killed with SIGKILL, and the server, its child and its daemon still end', async () => {
    fs.rmSync(pidsFile, { force: true });
    app = await App.launch();
    await showView(app, 'servers');
    // Enabled and approved: it starts with the app, with no dialog.
    await waitServerState(app, server.name, 'running');
    const pids = await started(pidsFile);
    assert.ok(Object.values(pids).every(alive), 'all three run again');
    const appPid = app.pid;
    assert.ok(appPid, 'the app process was found');
    process.kill(appPid, 'SIGKILL');
    await allGone({ app: appPid, ...pids }, 'after SIGKILL of the app');
    const killed = app;
    app = null;
    await killed.driver.quit().catch(() => {});
  });
});
