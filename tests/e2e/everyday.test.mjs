// Everyday use, end to end in the real app: two folders are kept without
// sharing; the example server is added from its template and approved, and
// adding it ends with its folder checklist, where both folders are given in
// one save (settings.json then holds exactly those two grants, and the
// server's detail lists them); from the detail's own checklist one is
// withdrawn again. Back navigation: from a server's detail, Escape, Alt+Left,
// Ctrl+2 and the sidebar's Servers item each return to the list, and
// Alt+Left goes back from another view to the detail shown before it. The
// `?` key opens the keyboard shortcuts sheet. A server that crashes at once
// (/bin/false), approved and enabled, shows its pending restart on its row
// ("retrying in N s · K of 5") rather than a plain failure; Stop retrying
// cancels it: the row says it waits for the person, settings.json marks it
// gave up, and nothing starts it again. Activity's "Failures only" filter
// keeps only failures. Last, the window is set to its smallest size (760 ×
// 520) and every view is pictured, with the server list, its "⋯" menu
// (opened and walked with the keyboard) and a server's detail; the same
// views at the default size too.
//
// Not tested here: the Activity export's download (where WebKit saves it
// is the desktop's business; lib/activity.ts and the component tests check
// what it holds), a retry that gives up by itself after five attempts (about
// a minute; the core's tests have it).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';

import { App, cleanup, env, Key, readSettings, tempDir, TIMEOUT, waitUntil } from './lib/app.mjs';
import { addFolder, folderRow, queuePick, serverRow, share, showView } from './lib/flows.mjs';
import { step } from './lib/steps.mjs';

const EXAMPLE = 'Example server';
const CRASHY = 'Crashes at once';

/** The heading of the view shown now. */
async function heading(app) {
  return app.driver.executeScript(
    () => document.querySelector('main [data-view]:not([hidden]) h1')?.textContent.replace(/\s+/g, ' ').trim() ?? null,
  );
}

/** Presses keys on whatever has focus (the window answers them). */
async function press(app, ...keys) {
  const actions = app.driver.actions();
  const mods = keys.slice(0, -1);
  for (const m of mods) actions.keyDown(m);
  actions.sendKeys(keys[keys.length - 1]);
  for (const m of mods.reverse()) actions.keyUp(m);
  await actions.perform();
}

async function waitList(app, message) {
  await waitUntil(async () => !(await app.isPresent('server-detail')) && (await heading(app)) === 'Servers', {
    message,
  });
}

async function openDetailOf(app, name) {
  const row = await serverRow(app, name);
  await app.click('server-name-label', { within: row });
  await app.visible('server-detail');
  assert.equal(await heading(app), name);
}

/** The names of the folders the open detail says the server sees. */
async function seesNames(app) {
  return app.driver.executeScript(() =>
    [...document.querySelectorAll('[data-testid="server-detail"] [data-testid="sees-item"] .sees-name')].map((e) =>
      e.textContent.trim(),
    ),
  );
}

/**
 * Puts the dark theme's colours in place whatever the desktop prefers: the
 * variables of app.css's `prefers-color-scheme: dark` block, set on the
 * root through the CSSOM (the window's CSP allows no injected style sheet).
 * `false` takes them off again.
 */
async function darkTheme(app, on) {
  await app.driver.executeScript((dark) => {
    const root = document.documentElement;
    for (const sheet of document.styleSheets) {
      for (const rule of sheet.cssRules) {
        if (!(rule instanceof CSSMediaRule) || !rule.conditionText.includes('prefers-color-scheme: dark')) continue;
        for (const inner of rule.cssRules) {
          if (!(inner instanceof CSSStyleRule) || inner.selectorText !== ':root') continue;
          for (const name of inner.style) {
            if (dark) root.style.setProperty(name, inner.style.getPropertyValue(name));
            else root.style.removeProperty(name);
          }
        }
      }
    }
    root.style.setProperty('color-scheme', dark ? 'dark' : '');
  }, on);
}

/** Whether an element's text is cut (it would need more room than it has). */
async function cut(app, el) {
  return app.driver.executeScript('return arguments[0].scrollWidth > arguments[0].clientWidth + 1', el);
}

describe('everyday use: a server’s folder checklist, a pending retry, going back, shortcuts, a small window', () => {
  let base, alpha, beta, alphaReal, betaReal, picks, app;
  const ids = {};

  before(() => {
    base = tempDir('rootgate-e2e-everyday-');
    alpha = path.join(base, 'Alpha project');
    beta = path.join(base, 'Beta notes');
    fs.mkdirSync(alpha);
    fs.mkdirSync(beta);
    alphaReal = fs.realpathSync(alpha);
    betaReal = fs.realpathSync(beta);
    picks = path.join(base, 'picks.txt');
    fs.writeFileSync(picks, '');
  });

  after(async () => {
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('two folders are kept, shared with no one yet', async () => {
    app = await App.launch({ args: ['--e2e-picks', picks] });
    for (const folder of [alpha, beta]) {
      queuePick(picks, folder);
      await addFolder(app);
      await share(app);
    }
    ids.alpha = (await folderRow(app, alphaReal)).id;
    ids.beta = (await folderRow(app, betaReal)).id;
    assert.deepEqual(readSettings().grants, [], 'nothing is shared yet');
  });

  step('adding a server ends with its checklist, which gives it both folders in one save', async () => {
    await showView(app, 'servers');
    await app.click('template-example');
    await app.visible('server-form');
    await app.click('server-save');
    await app.gone('server-form');
    const approval = await app.visible('approval-dialog', { message: 'the approval right after adding' });
    await app.click('approval-approve', { within: approval });
    await app.gone('approval-dialog');
    const checklist = await app.visible('folder-checklist', { message: 'the folder checklist after the approval' });
    assert.equal(await app.textOf(await checklist.findElement({ css: 'h2' })), `Which folders may “${EXAMPLE}” see?`);
    const boxes = await app.all('checklist-folder', checklist);
    const roots = await Promise.all(boxes.map((b) => b.getAttribute('data-root-id')));
    assert.deepEqual(roots.sort(), [ids.alpha, ids.beta].sort(), 'every kept folder is listed');
    for (const box of boxes) assert.equal(await box.isSelected(), false, 'a new server sees nothing yet');
    assert.equal(await (await app.visible('checklist-save')).isEnabled(), false, 'Save waits for a change');
    for (const box of boxes) await box.click();
    assert.equal(await app.text('checklist-summary'), '2 to share.');
    await app.screenshot('everyday-checklist-after-add');
    await app.click('checklist-save');
    await app.gone('folder-checklist', { message: 'the checklist to close after Save' });

    const settings = await waitUntil(
      () => {
        const s = readSettings();
        return s.grants.length === 2 ? s : null;
      },
      { message: 'settings.json to hold the two grants of one save' },
    );
    ids.example = settings.servers.find((s) => s.name === EXAMPLE).id;
    assert.deepEqual(
      settings.grants.map((g) => `${g.server}:${g.root}`).sort(),
      [`${ids.example}:${ids.alpha}`, `${ids.example}:${ids.beta}`].sort(),
    );
    // The new row was scrolled into view and marked; it is on screen.
    const row = await serverRow(app, EXAMPLE);
    assert.match(await app.textOf(row), /sees 2 folders/);
    await openDetailOf(app, EXAMPLE);
    await waitUntil(async () => (await seesNames(app)).length === 2, { message: 'the detail to list both folders' });
    assert.deepEqual((await seesNames(app)).sort(), ['Alpha project', 'Beta notes']);
  });

  step("the detail's own checklist withdraws one of them", async () => {
    await app.click('choose-folders');
    const checklist = await app.visible('folder-checklist');
    assert.equal(await app.textOf(await checklist.findElement({ css: 'h2' })), `Folders “${EXAMPLE}” may see`);
    const boxes = await app.all('checklist-folder', checklist);
    for (const box of boxes) {
      assert.equal(await box.isSelected(), true, 'it sees both now');
      if ((await box.getAttribute('data-root-id')) === ids.beta) await box.click();
    }
    assert.equal(await app.text('checklist-summary'), '1 to withdraw.');
    await app.click('checklist-save');
    await app.gone('folder-checklist');
    await waitUntil(() => readSettings().grants.length === 1, { message: 'settings.json to hold one grant' });
    assert.deepEqual(
      readSettings().grants.map((g) => [g.server, g.root]),
      [[ids.example, ids.alpha]],
    );
    await waitUntil(async () => (await seesNames(app)).join() === 'Alpha project', {
      message: 'the detail to list Alpha alone',
    });
  });

  step('from a detail, Escape, Alt+Left, Ctrl+2 and the Servers item go back to the list', async () => {
    await press(app, Key.ESCAPE);
    await waitList(app, 'Escape to go back to the list');

    await openDetailOf(app, EXAMPLE);
    await press(app, Key.ALT, Key.ARROW_LEFT);
    await waitList(app, 'Alt+Left to go back to the list');

    await openDetailOf(app, EXAMPLE);
    await press(app, Key.CONTROL, '2');
    await waitList(app, 'Ctrl+2 to show the list');

    await openDetailOf(app, EXAMPLE);
    await app.click('nav-servers');
    await waitList(app, "the sidebar's Servers item to show the list");

    // Alt+Left goes back generally: Activity, then the detail shown before it.
    await openDetailOf(app, EXAMPLE);
    await press(app, Key.CONTROL, '3');
    await waitUntil(async () => (await heading(app)) === 'Activity', { message: 'Ctrl+3 to show Activity' });
    await press(app, Key.ALT, Key.ARROW_LEFT);
    await waitUntil(async () => (await heading(app)) === EXAMPLE && (await app.isShown('server-detail')), {
      message: 'Alt+Left to go back to the detail',
    });
    await press(app, Key.ALT, Key.ARROW_LEFT);
    await waitList(app, 'Alt+Left again to go back to the list');
  });

  step('? opens the keyboard shortcuts sheet', async () => {
    await press(app, '?');
    const sheet = await app.visible('shortcuts-dialog', { message: 'the shortcuts sheet after ?' });
    const keys = await app.driver.executeScript(() =>
      [...document.querySelectorAll('[data-testid="shortcut"]')].map((s) => s.getAttribute('data-keys')),
    );
    for (const k of ['Ctrl+1', 'Ctrl+2', 'Ctrl+3', 'Ctrl+4', 'Ctrl+5', 'Ctrl+O', 'Alt+← or Mouse back button', 'Esc']) {
      assert.ok(keys.includes(k), `the sheet lists ${k}: ${keys.join(' | ')}`);
    }
    assert.match(await app.textOf(sheet), /Switch between Timeline and Log/);
    await app.screenshot('everyday-shortcuts');
    await press(app, Key.ESCAPE);
    await app.gone('shortcuts-dialog');
    assert.equal(await app.isPresent('server-detail'), false, "the sheet's Escape is the sheet's");
  });

  step('a crashing approved server shows its pending retry; Stop retrying leaves it waiting for you', async () => {
    await app.click('add-server');
    const form = await app.visible('server-form');
    await app.type('server-name', CRASHY, { within: form });
    await app.type('server-command', '/bin/false', { within: form });
    await app.click('server-save');
    await app.gone('server-form');
    await app.click('approval-approve', { within: await app.visible('approval-dialog') });
    await app.gone('approval-dialog');
    // Adding it ends with its checklist; not now.
    await app.visible('folder-checklist');
    await app.click('checklist-cancel');
    await app.gone('folder-checklist');

    // The first retries come 1 and 2 s apart: wait for one with time left to press the button.
    const row = await serverRow(app, CRASHY);
    const label = await waitUntil(
      async () => {
        const [badge] = await app.all('server-retry', row);
        const text = badge ? await app.textOf(badge) : '';
        const m = /^retrying in (\d+) s · (\d) of 5$/.exec(text);
        return m && Number(m[1]) >= 2 ? text : null;
      },
      { timeout: TIMEOUT.server, message: `"${CRASHY}" to show a pending retry with 2 s or more to go` },
    );
    assert.equal(await (await app.all('server-status', row))[0].getAttribute('data-state'), 'retrying');
    assert.equal(await (await app.all('server-start', row))[0].isEnabled(), false, 'Start waits while it retries');
    assert.match(await app.textOf(row), /It failed: /);
    await app.screenshot('everyday-retrying');
    await app.click('server-stop-retrying', { within: row });
    const note = await waitUntil(
      async () => {
        const [n] = await app.all('server-gave-up', row);
        return n && !(await app.isPresent('server-retry', row)) ? app.textOf(n) : null;
      },
      { message: 'the row to say it waits for you' },
    );
    assert.equal(note, 'Not restarted again, as you asked; start it when ready.');
    const saved = await waitUntil(() => readSettings().servers.find((s) => s.name === CRASHY && s.gaveUp), {
      message: 'settings.json to say Rootgate gave up on it',
    });
    assert.equal(saved.command, '/bin/false');
    console.log(`stopped retrying at "${label}"`);

    // Nothing starts it again: the next retry would have come within a few seconds.
    await new Promise((r) => setTimeout(r, 6_000));
    assert.equal(await (await app.all('server-status', row))[0].getAttribute('data-state'), 'failed');
    assert.equal(await app.isPresent('server-retry', row), false, 'no retry is scheduled again');
    assert.equal(await (await app.all('server-start', row))[0].isEnabled(), true, 'Start is for the person now');
    await app.screenshot('everyday-gave-up');
  });

  step('Activity keeps failures only when asked', async () => {
    await press(app, Key.CONTROL, '3');
    await waitUntil(async () => (await heading(app)) === 'Activity', { message: 'Activity' });
    const kind = await app.visible('activity-kind');
    await kind.findElement({ css: 'option[value="failures"]' }).click();
    const kinds = await waitUntil(
      async () => {
        const k = await app.driver.executeScript(() =>
          [...document.querySelectorAll('[data-testid="activity-entry"]')].map((e) => e.getAttribute('data-kind')),
        );
        return k.length > 0 && k.every((x) => ['failed', 'restartScheduled', 'exited', 'gaveUp'].includes(x)) ? k : null;
      },
      { message: 'Activity to show failures only' },
    );
    assert.ok(kinds.includes('failed'), `the crashes are there: ${kinds}`);
    assert.match(await app.text('activity-shown'), /^\d+ of \d+ shown/);
    await app.type('activity-search', 'exit code 1');
    await app.screenshot('everyday-activity-failures');
    await app.click('activity-show-all');
    await app.gone('activity-shown');
    assert.equal(await (await app.visible('activity-search')).getAttribute('value'), '');
  });

  step('at the default size, the views keep their full sidebar and row buttons', async () => {
    await showView(app, 'servers');
    const { width, height } = await app.driver.manage().window().getRect();
    console.log(`default window: ${width}×${height}`);
    assert.equal(await app.isPresent('server-menu'), false, 'no row menu in a roomy window');
    assert.ok(await app.isShown('server-restart', await serverRow(app, EXAMPLE)));
    await app.screenshot('everyday-servers-default');
    await openDetailOf(app, CRASHY);
    await app.screenshot('everyday-detail-default');
    await press(app, Key.ESCAPE);
    await waitList(app, 'the list');
  });

  step('at the smallest window, the sidebar is icons, row actions are in a menu, and names keep their room', async () => {
    await app.driver.manage().window().setRect({ width: 760, height: 520 });
    const inner = await waitUntil(
      async () => {
        const w = await app.driver.executeScript(() => [window.innerWidth, window.innerHeight]);
        return w[0] <= 760 ? w : null;
      },
      { message: 'the window to be 760 wide' },
    );
    console.log(`small window: inner ${inner.join('×')}`);
    await waitUntil(async () => app.isPresent('server-menu'), { message: 'the rows to show their menu' });
    const nav = await app.visible('nav-servers');
    assert.equal((await nav.findElements({ css: '.label' })).length, 0, 'the sidebar shows icons only');
    assert.match(await nav.getAttribute('aria-label'), /^Servers/);
    assert.equal(await nav.getAttribute('title'), 'Servers (Ctrl+2)');

    for (const name of [EXAMPLE, CRASHY]) {
      const row = await serverRow(app, name);
      assert.equal(await cut(app, (await app.all('server-name-label', row))[0]), false, `"${name}" is not cut`);
      assert.equal(await app.isPresent('server-restart', row), false, 'Restart is in the menu');
    }
    await app.screenshot('small-servers');

    // The menu, by keyboard: ↓ opens it on its first item, ↓ moves, Esc closes it.
    const row = await serverRow(app, EXAMPLE);
    const more = (await app.all('server-menu', row))[0];
    await app.driver.executeScript('arguments[0].focus()', more);
    await press(app, Key.ARROW_DOWN);
    const menu = await app.visible('server-menu-list');
    const items = await app.driver.executeScript(
      (m) => [...m.querySelectorAll('[role=menuitem]')].map((i) => i.textContent.trim()),
      menu,
    );
    assert.deepEqual(items, ['Open', 'Start', 'Stop', 'Restart', 'Folders it may see…', 'Edit…', 'Remove…']);
    assert.equal(await app.driver.executeScript(() => document.activeElement?.textContent.trim()), 'Open');
    await press(app, Key.ARROW_DOWN);
    await app.screenshot('small-server-menu');
    await press(app, Key.ESCAPE);
    await app.gone('server-menu-list');
    assert.equal(
      await app.driver.executeScript(() => document.activeElement?.getAttribute('data-testid')),
      'server-menu',
      'Escape goes back to the ⋯ button',
    );

    await openDetailOf(app, EXAMPLE);
    await app.screenshot('small-server-detail');
    await press(app, Key.ESCAPE);
    await waitList(app, 'the list');

    await showView(app, 'folders');
    for (const real of [alphaReal, betaReal]) {
      const f = await folderRow(app, real);
      const [name] = await app.all('folder-name', f.row);
      assert.equal(await cut(app, name), false, `${f.name} is not cut`);
    }
    await app.screenshot('small-folders');
    await showView(app, 'activity');
    await app.screenshot('small-activity');
    await showView(app, 'connections');
    await app.screenshot('small-connections');
    await showView(app, 'apps');
    await app.screenshot('small-apps');
    await press(app, '?');
    await app.visible('shortcuts-dialog');
    await app.screenshot('small-shortcuts');
    await press(app, Key.ESCAPE);
    await app.gone('shortcuts-dialog');
  });

  step('the small window in the dark theme', async () => {
    await darkTheme(app, true);
    await showView(app, 'servers');
    await app.screenshot('small-servers-dark');
    const row = await serverRow(app, EXAMPLE);
    await app.click('server-menu', { within: row });
    await app.visible('server-menu-list');
    await app.screenshot('small-server-menu-dark');
    await press(app, Key.ESCAPE);
    await app.gone('server-menu-list');
    await openDetailOf(app, CRASHY);
    await app.screenshot('small-server-detail-dark');
    await app.click('server-menu', { within: await app.visible('server-detail') });
    await app.click('menu-folders');
    await app.visible('folder-checklist');
    await app.screenshot('small-checklist-dark');
    await app.click('checklist-cancel');
    await app.gone('folder-checklist');
    await darkTheme(app, false);
  });
});
