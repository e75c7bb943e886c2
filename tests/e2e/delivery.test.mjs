// A server that does not follow `notifications/roots/list_changed`, in the
// real app: what a person sees. The built-in example server (this very
// binary with --example-server) is added through the server form with
// `--ignore-list-changed --report FILE`: it asks for roots/list once, after
// `initialized`, and never again, and appends every list it receives to
// FILE (one JSON line each), which is its own account of what it holds.
//
// Folder A is shared with it before it starts, so it holds A (its report
// says so). Folder B is shared next; the core waits its pickup time (3 s)
// for the server to ask, it does not, and the window says so: the server's
// row shows "does not follow changes" and "1 folder not picked up yet", its
// detail shows A as told and B as not picked up yet, with "Restart to
// apply" and the "Does not follow changes" note. Withdrawing A (the
// detail's Withdraw button) then restarts the server at once, as it is
// known not to follow changes: its report's last list is exactly B, the
// detail shows A as "withdrawn · restarted to apply" and B as told, and the
// timeline says it restarted so a withdrawn folder takes effect. "Watch
// again" forgets what was learned: the note goes away. Screenshots of the
// row and the detail before the restart, and of the detail after it, go to
// .ci/out/screenshots/.
//
// Not tested here: a server that asks on its own schedule (--ask-every-ms),
// a withdrawal that is told first and applied by restart when the server
// does not ask in time (crates/rootgate-session/tests/it/pickup.rs has both),
// "Restart to apply" itself, and what "Watch again" does to the next
// withdrawal.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

import { App, cleanup, cmdline, commandLine, env, readSettings, tempDir, TIMEOUT, waitUntil } from './lib/app.mjs';
import {
  addFolder,
  addServer,
  approveAndStart,
  folderRow,
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

const NAME = 'Asks once';

/** The lists the server received, oldest first (every process of it appends to the same file). */
function reports(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.event === 'roots')
    .map((e) => e.roots);
}

/** The real paths the server's last received list names (null before it got one). */
function lastReported(file) {
  const last = reports(file).at(-1);
  return last ? last.map((r) => fileURLToPath(r.uri)) : null;
}

/** The pid of the server the app runs now (the child whose command line names its report file). */
function serverPid(app, report) {
  return app.children().find((pid) => (cmdline(pid) ?? '').includes(report)) ?? null;
}

/** The badges (delivery notes) the server's row shows now. */
async function rowNotes(app) {
  const row = await serverRow(app, NAME);
  return Promise.all((await app.shown('delivery-note', row)).map((n) => app.textOf(n)));
}

/**
 * The rows of the open detail's "Folders it may see", from the DOM: each
 * folder's name, data-state and the label it shows, and whether it offers
 * "Restart to apply".
 */
async function seesItems(app) {
  return app.driver.executeScript(() =>
    [...document.querySelectorAll('[data-testid="server-detail"] [data-testid="sees-item"]')].map((li) => ({
      name: li.querySelector('.sees-name')?.textContent.trim() ?? null,
      state: li.getAttribute('data-state'),
      label: li.querySelector('[data-testid="folder-state"]')?.textContent.replace(/\s+/g, ' ').trim() ?? null,
      restart: li.querySelector('[data-testid="restart-to-apply"]') !== null,
    })),
  );
}

/** Waits until the open detail's folder rows are exactly `want`, in order. */
async function waitSees(app, want, message) {
  let last;
  try {
    return await waitUntil(
      async () => {
        last = await seesItems(app);
        return isDeepStrictEqual(last, want) && last;
      },
      { message },
    );
  } catch (e) {
    throw new Error(`${e.message}\n  shown: ${JSON.stringify(last)}\n  want:  ${JSON.stringify(want)}`);
  }
}

function spec(id) {
  return readSettings().servers.find((s) => s.id === id);
}

describe('a server that does not follow list_changed: not picked up, then restarted to withdraw', () => {
  let base, a, aReal, b, bReal, picks, report, app, id, server, pidBefore;

  before(() => {
    base = tempDir('rootgate-e2e-delivery-');
    a = path.join(base, 'folder A');
    b = path.join(base, 'folder B');
    fs.mkdirSync(a);
    fs.mkdirSync(b);
    aReal = fs.realpathSync(a);
    bReal = fs.realpathSync(b);
    picks = path.join(base, 'picks.txt');
    fs.writeFileSync(picks, '');
    report = path.join(base, 'asks-once-report.jsonl');
    server = {
      name: NAME,
      command: env.app,
      args: ['--example-server', '--ignore-list-changed', '--report', report],
    };
  });

  after(async () => {
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('the example server, asking once, is added through the form; folder A is shared before it starts', async () => {
    app = await App.launch({ args: ['--e2e-picks', picks] });
    id = await addServer(app, server);
    // The UI may offer to approve it at once; A is shared first, so that
    // the one list it ever asks for holds A.
    if (await app.isPresent('approval-dialog')) {
      await app.click('approval-cancel');
      await app.gone('approval-dialog');
    }
    queuePick(picks, a);
    await addFolder(app);
    assert.equal(await app.text('consent-real-path'), aReal);
    await tickExactly(app, [id]);
    await share(app);
    assert.match((await folderRow(app, aReal)).servers, /Asks once/);
    assert.deepEqual(reports(report), [], 'the server has not run yet');

    await showView(app, 'servers');
    await approveAndStart(app, NAME, commandLine(server.command, server.args));
    const told = await waitUntil(() => lastReported(report), {
      timeout: TIMEOUT.server,
      message: `the server to report the list it asked for in ${report}`,
    });
    assert.deepEqual(told, [aReal], "the server's own report: it holds A");
    assert.equal(spec(id).ignoresListChanged, false, 'nothing is known yet of its way with changes');
  });

  step('folder B, shared next, is not picked up: the row and the detail say so', async () => {
    pidBefore = serverPid(app, report);
    assert.ok(pidBefore, 'the server runs as a child of the app');
    queuePick(picks, b);
    await addFolder(app);
    assert.equal(await app.text('consent-real-path'), bReal);
    await tickExactly(app, [id]);
    await share(app);

    // The core waits 3 s for it to ask for the new list; it never does.
    await showView(app, 'servers');
    const notes = await waitUntil(
      async () => {
        const now = await rowNotes(app);
        return now.includes('does not follow changes') && now.includes('1 folder not picked up yet') && now;
      },
      { timeout: TIMEOUT.server, message: 'the row to say it does not follow changes and 1 folder is not picked up' },
    );
    assert.deepEqual(notes.sort(), ['1 folder not picked up yet', 'does not follow changes']);
    await app.screenshot('delivery-row-not-picked-up');
    assert.deepEqual(lastReported(report), [aReal], 'the server still holds only A: it did not ask');
    assert.equal(reports(report).length, 1, 'it asked once, and only once');
    assert.equal(serverPid(app, report), pidBefore, 'it was not restarted for an addition');
    assert.equal(spec(id).ignoresListChanged, true, 'settings.json remembers it does not follow changes');

    await openDetail(app, NAME);
    await waitSees(
      app,
      [
        { name: 'folder A', state: 'told', label: 'told', restart: false },
        { name: 'folder B', state: 'notPickedUp', label: 'not picked up yet', restart: true },
      ],
      'the detail to show A told and B not picked up yet',
    );
    const restart = await app.visible('restart-to-apply');
    assert.equal(await app.textOf(restart), 'Restart to apply');
    assert.equal(await restart.isEnabled(), true, '"Restart to apply" can be pressed');
    assert.match(await app.text('ignores-changes'), /Does not follow changes/);
    await app.visible('forget-following');
    const kinds = (await timeline(app, { details: false })).map((e) => e.kind);
    assert.ok(kinds.includes('notPickedUp'), `the timeline says it did not ask: ${kinds}`);
    await app.screenshot('delivery-not-picked-up');
  });

  step('withdrawing A restarts it at once: its own report lists exactly B', async () => {
    const [button] = await app.driver.findElements({
      css: `[data-testid="server-detail"] button[aria-label="Withdraw folder A from ${NAME}"]`,
    });
    assert.ok(button, "A's row has a Withdraw button");
    await button.click();

    // Known not to follow changes, it is restarted, not told: the new
    // process asks for its list once, and gets B alone.
    const told = await waitUntil(
      () => {
        const last = lastReported(report);
        return reports(report).length > 1 && last;
      },
      { timeout: TIMEOUT.server, message: `the restarted server to report its list in ${report}` },
    );
    assert.deepEqual(told, [bReal], "the server's own report after the withdrawal: exactly B");
    await waitUntil(() => cmdline(pidBefore) === null, {
      timeout: TIMEOUT.server,
      message: `the process that held A (pid ${pidBefore}) to exit`,
    });
    const pidAfter = await waitUntil(() => serverPid(app, report), { message: 'a new server process' });
    assert.notEqual(pidAfter, pidBefore);

    await waitSees(
      app,
      [
        { name: 'folder B', state: 'told', label: 'told', restart: false },
        { name: 'folder A', state: 'restartedToApply', label: 'withdrawn · restarted to apply', restart: false },
      ],
      'the detail to show B told and A withdrawn by the restart',
    );
    assert.match(await app.text('restarted-note'), /so a withdrawal takes effect: it does not pick up changes/);
    const entries = await timeline(app, { details: false });
    const restarted = entries.filter((e) => e.kind === 'restartedToWithdraw');
    assert.equal(restarted.length, 1, `one restart to withdraw: ${JSON.stringify(entries.map((e) => e.kind))}`);
    assert.match(restarted[0].text, /Restarted so a withdrawn folder takes effect: it does not pick up changes/);
    // Between the addition it did not pick up and the restart, it was not
    // told of the withdrawal first: known not to follow, it is restarted.
    const between = entries.slice(
      entries.findLastIndex((e) => e.kind === 'notPickedUp'),
      entries.indexOf(restarted[0]),
    );
    assert.ok(
      !between.some((e) => e.kind === 'listChangedSent'),
      `it was not told of the withdrawal before the restart: ${JSON.stringify(between.map((e) => e.kind))}`,
    );
    // The restart's entry in view for the screenshot: the detail scrolled to
    // its foot (the folders stay in view), the timeline to the entry.
    await app.driver.executeScript(() => {
      const detail = document.querySelector('[data-testid="server-detail"]');
      detail.scrollTop = detail.scrollHeight;
      document
        .querySelector('[data-testid="timeline-entry"][data-kind="restartedToWithdraw"]')
        ?.scrollIntoView({ block: 'nearest' });
    });
    await app.screenshot('delivery-restarted');

    await showView(app, 'folders');
    assert.match((await folderRow(app, aReal)).servers, /shared with no one/i);
    assert.match((await folderRow(app, bReal)).servers, /Asks once/);
  });

  step('"Watch again" forgets that it does not follow changes: the note goes away', async () => {
    await openDetail(app, NAME);
    await app.visible('ignores-changes');
    await app.click('forget-following');
    await app.gone('ignores-changes', { message: 'the "Does not follow changes" note to go away after Watch again' });
    assert.equal(await app.isPresent('forget-following'), false);
    await waitUntil(() => spec(id).ignoresListChanged === false, {
      message: 'settings.json to forget that it does not follow changes',
    });
    await showView(app, 'servers');
    await waitServerState(app, NAME, 'running');
    await waitUntil(async () => !(await rowNotes(app)).includes('does not follow changes'), {
      message: 'the row to stop saying it does not follow changes',
    });
  });
});
