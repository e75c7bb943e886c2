// The steps a person takes in Rootgate's window, written once against the
// UI's data-testid contract (nav-*, add-server, server-form, approval-dialog,
// consent-dialog, folder-row, server-detail...): add a server through the
// form, approve and start it, add a folder and answer the consent dialog,
// read a server's timeline and log. Each step waits for what it needs and
// for its visible result, with bounded timeouts, and fails with words that
// say which step broke.
//
// These are helpers, not tests: what a scenario checks is in *.test.mjs.
// Nothing here reads settings.json or a server's report; the tests do.

import assert from 'node:assert/strict';
import fs from 'node:fs';

import { GiveUp, TIMEOUT, waitUntil } from './app.mjs';

// ----- navigation -----------------------------------------------------------

export async function showView(app, view) {
  await app.click(`nav-${view}`);
  if (view === 'servers' && (await app.isPresent('server-detail'))) await app.click('detail-back');
  if (view === 'connections' && (await app.isPresent('connection-detail'))) await app.click('connection-back');
}

/**
 * Reloads the window and waits until the UI has loaded everything it loads
 * at start. The version in the sidebar's foot is set in the same step as
 * the prompts still open are shown, so once it is there, so is any prompt.
 */
export async function reloadWindow(app) {
  await app.driver.navigate().refresh();
  await app.visible('nav-folders', { timeout: 20_000 });
  await waitUntil(
    () => app.driver.executeScript(() => /Rootgate \d+\.\d+/.test(document.querySelector('nav')?.textContent ?? '')),
    { message: 'the reloaded window to show the app version (loading done)' },
  );
}

// ----- servers --------------------------------------------------------------

/** The displayed server row whose name label is `name`. */
export async function serverRow(app, name, { timeout = TIMEOUT.ui } = {}) {
  return waitUntil(
    async () => {
      for (const row of await app.shown('server-row')) {
        const label = (await app.all('server-name-label', row))[0];
        if (label && (await app.textOf(label)) === name) return row;
      }
      return null;
    },
    { timeout, message: `a server row named "${name}"` },
  );
}

export async function serverId(app, name) {
  return (await serverRow(app, name)).getAttribute('data-server-id');
}

/** The status (data-state) a server row shows now. */
export async function serverState(app, name) {
  const row = await serverRow(app, name);
  return (await app.all('server-status', row))[0].getAttribute('data-state');
}

/**
 * Waits until the row of `name` (in the server list, which must be shown)
 * shows `state`; a server that fails on the way fails the wait at once,
 * with the reason the row shows.
 */
export async function waitServerState(app, name, state, { timeout = TIMEOUT.server } = {}) {
  await waitUntil(
    async () => {
      const row = await serverRow(app, name, { timeout: 0 });
      const status = (await app.all('server-status', row))[0];
      const now = await status.getAttribute('data-state');
      if (now === 'failed' && state !== 'failed') {
        throw new GiveUp(`server "${name}" failed: ${await app.textOf(status)}`);
      }
      return now === state;
    },
    { timeout, message: `server "${name}" to be ${state}` },
  );
}

/**
 * Opens the server form (Add server), fills it in and saves it. `args` are
 * typed one per line, as the form asks; each variable of `env` in a row of
 * its own (Add variable). Secret is left as the form ticks it by the name,
 * unless `secret` lists the names that are secret. Returns the new row's
 * server id.
 */
export async function addServer(app, { name, command, args = [], env = {}, secret, cwd = '', enabled = true, withdrawal, era }) {
  await showView(app, 'servers');
  await app.click('add-server');
  const form = await app.visible('server-form');
  await app.type('server-name', name, { within: form });
  await app.type('server-command', command, { within: form });
  await app.type('server-args', args.join('\n'), { within: form });
  for (const [i, [k, v]] of Object.entries(env).entries()) {
    await app.click('env-add', { within: form });
    await app.type(`env-name-${i}`, k, { within: form });
    if (secret) {
      const box = await app.visible(`env-secret-${i}`, { within: form });
      if ((await box.isSelected()) !== secret.includes(k)) await box.click();
    }
    await app.type(`env-value-${i}`, v, { within: form });
  }
  await app.type('server-cwd', cwd, { within: form });
  const box = await app.visible('server-enabled', { within: form });
  if ((await box.isSelected()) !== enabled) await box.click();
  assert.equal(await box.isSelected(), enabled, 'the "enabled" checkbox did not take the click');
  if (withdrawal) {
    const select = await app.visible('server-withdrawal', { within: form });
    await select.findElement({ css: `option[value="${withdrawal}"]` }).click();
  }
  if (era) {
    const select = await app.visible('server-era', { within: form });
    // The form scrolls; the protocol setting is below its fold.
    await app.driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', select);
    await select.findElement({ css: `option[value="${era}"]` }).click();
  }
  await app.click('server-save');
  await waitUntil(
    async () => {
      const errors = await app.shown('server-form-error');
      if (errors.length > 0) throw new GiveUp(`the server form refused "${name}": ${await app.textOf(errors[0])}`);
      return !(await app.isPresent('server-form'));
    },
    { message: `the server form for "${name}" to close after Save` },
  );
  return serverId(app, name);
}

/**
 * Clicks Start on a server that has never been approved: the approval
 * dialog must show exactly `commandLine`; Approve starts it. Waits until
 * the row shows running.
 *
 * The UI may already show the approval dialog right after Save (it offers
 * to approve a new server at once); that dialog is cancelled first, which
 * must leave the server stopped and unapproved, so that the step under test
 * is always "Start shows the approval dialog".
 */
export async function approveAndStart(app, name, commandLine) {
  if (await app.isPresent('approval-dialog')) {
    assert.equal(await app.text('approval-command'), commandLine, 'approval dialog right after Save');
    await app.click('approval-cancel');
    await app.gone('approval-dialog');
    assert.equal(await serverState(app, name), 'stopped', `"${name}" must not run before it is approved`);
    assert.ok(await app.isPresent('needs-approval', await serverRow(app, name)), `"${name}" still needs approval`);
  }
  const row = await serverRow(app, name);
  await app.click('server-start', { within: row });
  const dialog = await app.visible('approval-dialog', { message: `the approval dialog after Start on "${name}"` });
  assert.equal(
    await app.text('approval-command', { within: dialog }),
    commandLine,
    'the approval dialog shows the exact command line that will run',
  );
  await app.click('approval-approve', { within: dialog });
  await app.gone('approval-dialog');
  await waitServerState(app, name, 'running');
}

// ----- server detail ----------------------------------------------------------

export async function openDetail(app, name) {
  await showView(app, 'servers');
  const row = await serverRow(app, name);
  await app.click('server-open', { within: row });
  const detail = await app.visible('server-detail');
  return detail;
}

/** Reads text and data-kind of every element with a test id, from the DOM. */
async function domList(app, id) {
  return app.driver.executeScript(
    (testid) =>
      [...document.querySelectorAll(`[data-testid="${testid}"]`)].map((e) => ({
        kind: e.getAttribute('data-kind'),
        text: e.textContent.replace(/\s+/g, ' ').trim(),
      })),
    id,
  );
}

/**
 * Every entry of the virtual list holding elements with test id `id`, in
 * order: its viewport is scrolled from the top to the bottom a window at a
 * time, two frames apart so each window is rendered, and rows are kept by
 * their position (aria-posinset). Null when the list is not there.
 */
async function scrolledList(app, id) {
  return app.driver.executeAsyncScript(function (testid) {
    const done = arguments[arguments.length - 1];
    const first = document.querySelector(`[data-testid="${testid}"]`);
    const viewport = first && first.closest('.viewport');
    if (!viewport) return done(null);
    const seen = new Map();
    const collect = () => {
      for (const row of viewport.querySelectorAll('.vrow')) {
        const e = row.querySelector(`[data-testid="${testid}"]`);
        if (e)
          seen.set(Number(row.getAttribute('aria-posinset')), {
            kind: e.getAttribute('data-kind'),
            text: e.textContent.replace(/\s+/g, ' ').trim(),
          });
      }
    };
    const later = (f) => requestAnimationFrame(() => requestAnimationFrame(f));
    const step = () => {
      collect();
      if (viewport.scrollTop + viewport.clientHeight >= viewport.scrollHeight - 1) {
        done([...seen.entries()].sort((a, b) => a[0] - b[0]).map((x) => x[1]));
        return;
      }
      viewport.scrollTop += Math.max(1, viewport.clientHeight - 34);
      later(step);
    };
    viewport.scrollTop = 0;
    later(step);
  }, id);
}

/** The number a tab shows next to its label ("Timeline 12"). */
async function tabCount(app, id) {
  const text = await app.text(id);
  const m = text.match(/(\d+)\s*$/);
  return m ? Number(m[1]) : null;
}

/**
 * Every timeline entry of the open server detail, oldest first, each with
 * `kind`, `text` and `details` (what an expandable entry shows when opened:
 * for rootsAnswered, one line per root told, URI and name). The list is
 * virtual, so this checks that every entry is rendered. With `details:
 * false` no entry is opened (and `details` is left out): opened entries
 * take room, and a detail whose timeline has less room to show them would
 * need scrolling.
 */
export async function timeline(app, { details = true } = {}) {
  await app.click('tab-timeline');
  if (!details) {
    // The list is virtual: it is scrolled through, a window at a time, and
    // the entries are read by their position, however long it is.
    return waitUntil(
      async () => {
        const count = await tabCount(app, 'tab-timeline');
        const list = await scrolledList(app, 'timeline-entry');
        return count !== null && list !== null && list.length === count ? list : null;
      },
      { message: 'every timeline entry (as many as the tab counts), scrolled through' },
    );
  }
  const entries = await waitUntil(
    async () => {
      const count = await tabCount(app, 'tab-timeline');
      const list = await domList(app, 'timeline-entry');
      return count !== null && list.length === count ? list : null;
    },
    { message: 'every timeline entry (as many as the tab counts) to be rendered' },
  );
  // Open every roots answer that has folders ("Show folders") to read them.
  const elements = await app.all('timeline-entry');
  for (const [i, el] of elements.entries()) {
    entries[i].details = [];
    if (entries[i].kind !== 'rootsAnswered') continue;
    const buttons = await el.findElements({ css: 'button[aria-expanded]' });
    if (buttons.length > 0 && (await buttons[0].getAttribute('aria-expanded')) !== 'true') await buttons[0].click();
  }
  // Detail rows follow their entry in the DOM; read entries and details in order.
  const rows = await app.driver.executeScript(() =>
    [...document.querySelectorAll('[data-testid="timeline-entry"], [data-testid="timeline-entry-detail"]')].map((e) => ({
      detail: e.getAttribute('data-testid') === 'timeline-entry-detail',
      text: e.textContent.replace(/\s+/g, ' ').trim(),
    })),
  );
  // Entries are matched by their time stamps (an opened entry's button reads differently).
  const stamp = (text) => text.split(' ')[0];
  assert.deepEqual(
    rows.filter((r) => !r.detail).map((r) => stamp(r.text)),
    entries.map((e) => stamp(e.text)),
    'the whole timeline is rendered with its details (a longer one would need scrolling here)',
  );
  let at = -1;
  for (const r of rows) {
    if (!r.detail) at++;
    else entries[at].details.push(r.text);
  }
  return entries;
}

/**
 * The open server's stderr lines containing `query`, through the log's
 * search box. An empty answer means something only once the log is known
 * to be loaded (ask for a line that is there first).
 */
export async function logLines(app, query) {
  await app.click('tab-log');
  await app.type('log-search', query);
  return waitUntil(
    async () => {
      const lines = await domList(app, 'log-line');
      const all = lines.every((l) => l.text.toLowerCase().includes(query.toLowerCase()));
      return all ? lines.map((l) => l.text) : null;
    },
    { message: `the log filtered by "${query}"` },
  );
}

// ----- folders ----------------------------------------------------------------

/**
 * Makes the test-only picker answer one more "Add folder…" with `paths`
 * (several: tab-separated on one line; none: an empty line, a cancelled
 * picker). The app pops the first line of the file at each pick.
 */
export function queuePick(picksFile, ...paths) {
  for (const p of paths) assert.ok(!/[\t\n]/.test(p), `a picked path cannot hold a tab or newline: ${p}`);
  let now = fs.existsSync(picksFile) ? fs.readFileSync(picksFile, 'utf8') : '';
  if (now !== '' && !now.endsWith('\n')) now += '\n';
  fs.writeFileSync(picksFile, `${now}${paths.join('\t')}\n`);
}

export async function folderRows(app) {
  const out = [];
  for (const row of await app.shown('folder-row')) {
    const text = async (id) => {
      const [el] = await app.all(id, row);
      return el ? app.textOf(el) : null;
    };
    out.push({
      row,
      id: await row.getAttribute('data-root-id'),
      name: await text('folder-name'),
      path: await text('folder-path'),
      servers: await text('folder-servers'),
    });
  }
  return out;
}

export async function folderRow(app, realPath, { timeout = TIMEOUT.ui } = {}) {
  return waitUntil(async () => (await folderRows(app)).find((f) => f.path === realPath), {
    timeout,
    message: `a folder row for ${realPath}`,
  });
}

/** Clicks "Add folder…" and waits for the consent dialog. */
export async function addFolder(app) {
  await showView(app, 'folders');
  await app.click('add-folder');
  return app.visible('consent-dialog', { message: 'the consent dialog after "Add folder…"' });
}

/** The server checkboxes of the open consent dialog, by server id. */
export async function consentChoices(app) {
  const dialog = await app.visible('consent-dialog');
  const out = new Map();
  for (const box of await app.all('consent-server', dialog)) {
    out.set(await box.getAttribute('data-server-id'), box);
  }
  return out;
}

/** Ticks exactly the servers in `ids` (unticks the others) and checks it took. */
export async function tickExactly(app, ids) {
  const choices = await consentChoices(app);
  for (const id of ids) assert.ok(choices.has(id), `the consent dialog lists server ${id}`);
  for (const [id, box] of choices) {
    if ((await box.isSelected()) !== ids.includes(id)) await box.click();
  }
  for (const [id, box] of choices) {
    assert.equal(await box.isSelected(), ids.includes(id), `checkbox of server ${id} after ticking`);
  }
}

/** Presses Share (or "Keep without sharing") and waits for the dialog to close. */
export async function share(app) {
  await app.click('consent-share');
  await app.gone('consent-dialog', { message: 'the consent dialog to close after Share' });
}

/** The texts of the notices in the page now (shown or still fading in). */
export async function notices(app) {
  return Promise.all((await app.all('notice')).map((n) => app.textOf(n)));
}
