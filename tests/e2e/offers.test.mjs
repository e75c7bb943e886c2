// What servers offer, tried from the window (issue #19), end to end in the
// real app with real servers. The npm filesystem server is given one
// shared folder; in its detail's Tools, `list_allowed_directories` names
// exactly that folder, `read_text_file` (its path typed into the form made
// from the tool's schema) shows a file inside it, and a file outside it
// ends in the server's own denial, said as the tool's error; each call is
// in its timeline. The npm everything server's long-running tool shows
// the server's progress and is cancelled (calmly, and the timeline says
// so); a resource is read, a template filled and read (bytes offered as a
// download), a prompt got with an argument from its form. Screenshots of
// the three views (Tools with a result, Resources with a read, Prompts with
// a got prompt), and of the three in the smallest window in the dark theme.
//
// Not tested here: what the core's tests cover against the same servers
// (every kind listed, every schema type, images, structured content,
// subscriptions' updates, list changes), the download itself (where
// WebKit saves it is the desktop's), a destructive tool's confirmation and
// the raw JSON editor (the component tests have both).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';

import { App, By, cleanup, commandLine, env, Key, tempDir, TIMEOUT, waitUntil } from './lib/app.mjs';
import { addFolder, addServer, approveAndStart, openDetail, queuePick, share, tickExactly } from './lib/flows.mjs';
import { step } from './lib/steps.mjs';

const peers = () => path.join(env.repo, 'tests', 'peers', 'node_modules', '@modelcontextprotocol');

const FS = {
  name: 'Files',
  command: 'node',
  get args() {
    return [path.join(peers(), 'server-filesystem/dist/index.js')];
  },
};
const EVERYTHING = {
  name: 'Everything',
  command: 'node',
  get args() {
    return [path.join(peers(), 'server-everything/dist/index.js'), 'stdio'];
  },
};

/** The element matching a CSS selector, once it is shown. */
async function shownCss(app, css, message) {
  return waitUntil(
    async () => {
      for (const el of await app.driver.findElements(By.css(css))) {
        if (await el.isDisplayed()) return el;
      }
      return null;
    },
    { message: message ?? `${css} to be shown` },
  );
}

/** Opens a tab of the open detail (Tools, Resources, Prompts) and waits for its list. */
async function showOffers(app, tab) {
  // In the smallest window the tabs may be scrolled above the view (the
  // Tools tab's own controls take its height): brought back first.
  await app.driver.executeScript(
    (id) => document.querySelector(`[data-testid="${id}"]`)?.scrollIntoView({ block: 'nearest' }),
    `tab-${tab}`,
  );
  await app.click(`tab-${tab}`);
  await app.visible('offers-list', { timeout: TIMEOUT.server, message: `the ${tab} list` });
}

/** Opens one item of the list shown. */
async function pick(app, name) {
  const item = await shownCss(app, `[data-testid="offer-item"][data-name="${name}"]`, `“${name}” in the list`);
  // In the smallest window the list shows a few items; the one asked for
  // is scrolled into the list's view first, as a person scrolls to it.
  await app.driver.executeScript((el) => el.scrollIntoView({ block: 'nearest' }), item);
  await item.click();
}

/** Types into a field of the tool's form (by where its value sits: "/path"). */
async function typeArg(app, id, text, testid = 'tool-arg') {
  const attr = testid === 'tool-arg' ? 'data-arg' : testid === 'template-var' ? 'data-var' : 'data-arg';
  const el = await shownCss(app, `[data-testid="${testid}"][${attr}="${id}"]`, `the field ${id}`);
  await el.clear();
  await el.sendKeys(Key.chord(Key.CONTROL, 'a'), Key.DELETE);
  if (text !== '') await el.sendKeys(text);
  assert.equal(await el.getAttribute('value'), text, `the field ${id} holds what was typed`);
}

/** The text of the first element with this test id, as the DOM holds it (newlines kept). */
async function rawText(app, testid) {
  return app.driver.executeScript(
    (id) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null,
    testid,
  );
}

/** Calls the open tool and waits for its answer (a result, an error or a cancellation). */
async function callAndWait(app) {
  // What an earlier call showed is marked, so that only this call's answer counts.
  const answers = '[data-testid="call-result"], [data-testid="call-error"]';
  await app.driver.executeScript((css) => {
    for (const e of document.querySelectorAll(css)) e.setAttribute('data-e2e-old', '');
  }, answers);
  await app.click('tool-call');
  await waitUntil(
    () =>
      app.driver.executeScript(
        (css) => [...document.querySelectorAll(css)].some((e) => !e.hasAttribute('data-e2e-old')),
        answers,
      ),
    { timeout: TIMEOUT.server, message: 'the tool to answer' },
  );
  if (await app.isShown('call-error')) assert.fail(`the call failed: ${await app.text('call-error')}`);
  return app.visible('call-result');
}

/** The open detail's "tried" timeline entries, oldest first. */
async function tried(app) {
  await app.click('tab-timeline');
  return app.driver.executeScript(() =>
    [...document.querySelectorAll('[data-testid="timeline-entry"][data-kind="tried"]')].map((e) =>
      e.textContent.replace(/\s+/g, ' ').trim(),
    ),
  );
}

/** Puts the panel shown at the top of the view, for a picture of it. */
async function panelInView(app) {
  await app.driver.executeScript(() =>
    document.querySelector('[data-testid="offers-panel"]')?.closest('.tabs-wrap')?.scrollIntoView({ block: 'start' }),
  );
}

/** The dark theme's colours whatever the desktop prefers (as everyday.test.mjs does). */
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

describe('what servers offer, tried from the window: tools, resources, prompts', () => {
  let base, shared, sharedReal, inside, outside, picks, app;
  const ids = {};

  before(() => {
    base = tempDir('rootgate-e2e-offers-');
    shared = path.join(base, 'shared');
    fs.mkdirSync(shared);
    sharedReal = fs.realpathSync(shared);
    inside = path.join(sharedReal, 'hello.txt');
    fs.writeFileSync(inside, 'Hello from the shared folder.\nSecond line.\n');
    outside = path.join(fs.realpathSync(base), 'outside.txt');
    fs.writeFileSync(outside, 'Not shared.\n');
    picks = path.join(base, 'picks.txt');
    fs.writeFileSync(picks, '');
    for (const file of [FS.args[0], EVERYTHING.args[0]]) {
      assert.ok(fs.existsSync(file), `${file} is missing: run scripts/setup.sh test`);
    }
  });

  after(async () => {
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('the filesystem server runs with one folder shared with it', async () => {
    app = await App.launch({ args: ['--e2e-picks', picks] });
    ids.fs = await addServer(app, FS);
    await approveAndStart(app, FS.name, commandLine(FS.command, FS.args));
    queuePick(picks, shared);
    await addFolder(app);
    await tickExactly(app, [ids.fs]);
    await share(app);
  });

  step('its Tools list its tools, and list_allowed_directories names exactly the shared folder', async () => {
    await openDetail(app, FS.name);
    await showOffers(app, 'tools');
    const names = await app.driver.executeScript(() =>
      [...document.querySelectorAll('[data-testid="offer-item"]')].map((e) => e.getAttribute('data-name')),
    );
    for (const n of ['read_text_file', 'list_allowed_directories']) assert.ok(names.includes(n), `${n} is listed: ${names}`);
    assert.match(await app.text('tab-tools'), /^Tools \d+$/);
    await pick(app, 'list_allowed_directories');
    await app.visible('tool-view');
    assert.match(await app.text('tool-claims'), /read-only/);
    assert.equal(await app.isShown('no-arguments'), true, 'it takes no arguments');
    // The server asks for its folders after being told they changed; until
    // then it lists none, so the call is made again until it names one.
    const lines = await waitUntil(
      async () => {
        await callAndWait(app);
        const text = await rawText(app, 'content-text');
        const dirs = text.split('\n').slice(1).filter(Boolean);
        return dirs.length > 0 ? dirs : null;
      },
      { timeout: TIMEOUT.server, interval: 500, message: 'list_allowed_directories to name a folder' },
    );
    assert.deepEqual(lines, [sharedReal], 'exactly the shared folder');
    assert.match(await app.text('call-outcome'), /^Answered in \d/);
  });

  step('read_text_file through the form: a file inside is shown, one outside is the server’s denial', async () => {
    await pick(app, 'read_text_file');
    await typeArg(app, '/path', inside);
    await callAndWait(app);
    assert.equal(await rawText(app, 'content-text'), 'Hello from the shared folder.\nSecond line.\n');
    assert.equal(await (await app.visible('call-result')).getAttribute('data-error'), 'false');
    await panelInView(app);
    await app.screenshot('offers-tools');

    await typeArg(app, '/path', outside);
    const denied = await callAndWait(app);
    assert.equal(await denied.getAttribute('data-error'), 'true', 'the denial is an error result');
    assert.match(await app.text('call-outcome'), /^The tool says it failed \(it answered with isError\)/);
    assert.match(await rawText(app, 'content-text'), /Access denied - path outside allowed directories/);
    await app.screenshot('offers-tools-denied');
  });

  step('each call is in the server’s timeline', async () => {
    const entries = await waitUntil(
      async () => {
        const e = await tried(app);
        return e.some((t) => t.includes('the tool said it failed')) ? e : null;
      },
      { message: 'the tries in the timeline' },
    );
    assert.ok(entries.some((t) => /You called tool “list_allowed_directories”: ok in /.test(t)), entries.join(' | '));
    assert.ok(entries.some((t) => /You called tool “read_text_file”: ok in /.test(t)), entries.join(' | '));
    assert.ok(
      entries.some((t) => /You called tool “read_text_file”: the tool said it failed, after .*Access denied/.test(t)),
      entries.join(' | '),
    );
    await app.screenshot('offers-timeline');
  });

  step('the everything server’s long call shows its progress and is cancelled', async () => {
    ids.everything = await addServer(app, EVERYTHING);
    await approveAndStart(app, EVERYTHING.name, commandLine(EVERYTHING.command, EVERYTHING.args));
    await openDetail(app, EVERYTHING.name);
    await showOffers(app, 'tools');
    await pick(app, 'trigger-long-running-operation');
    await typeArg(app, '/duration', '60');
    await typeArg(app, '/steps', '60');
    await app.click('tool-call');
    await app.visible('call-running', { message: 'the call to be under way' });
    const progress = await waitUntil(
      async () => {
        const t = await app.text('call-progress-text');
        return /^[1-9]\d* of 60 · /.test(t) ? t : null;
      },
      { timeout: TIMEOUT.server, message: 'the server’s progress (“N of 60”)' },
    );
    console.log(`progress shown: ${progress}`);
    await panelInView(app);
    await app.screenshot('offers-tools-progress');
    await app.click('call-cancel');
    const cancelled = await app.visible('call-cancelled', { timeout: TIMEOUT.server, message: 'the call to end as cancelled' });
    assert.match(await app.textOf(cancelled), /^Cancelled after \d/);
    assert.equal(await app.isPresent('call-error'), false, 'a cancelled call is no error');
    const entries = await waitUntil(
      async () => {
        const e = await tried(app);
        return e.some((t) => t.includes('cancelled after')) ? e : null;
      },
      { message: 'the cancelled call in the timeline' },
    );
    assert.ok(
      entries.some((t) => /You called tool “trigger-long-running-operation”: cancelled after /.test(t)),
      entries.join(' | '),
    );
  });

  step('a resource is read, and a template is filled and read', async () => {
    await showOffers(app, 'resources');
    await pick(app, 'demo://resource/static/document/features.md');
    await app.click('resource-read');
    await waitUntil(async () => (await rawText(app, 'resource-text'))?.includes('# Everything Server - Features'), {
      timeout: TIMEOUT.server,
      message: 'features.md to be shown',
    });
    await panelInView(app);
    await app.screenshot('offers-resources');

    await pick(app, 'demo://resource/dynamic/blob/{resourceId}');
    await typeArg(app, 'resourceId', '1', 'template-var');
    assert.equal(await app.text('template-uri'), 'demo://resource/dynamic/blob/1');
    await app.click('resource-read');
    const binary = await app.visible('resource-binary', { timeout: TIMEOUT.server, message: 'the blob offered as a download' });
    assert.match(await app.textOf(binary), /^Binary contents, \d+ bytes, text\/plain: its type says text/);
    assert.match(await app.text('resource-blob-text'), /^Resource 1: /, 'bytes of a text type are shown decoded too');
    assert.ok(await app.isShown('resource-download'));
    await app.screenshot('offers-resources-blob');
  });

  step('a prompt is got with its argument from the form', async () => {
    await showOffers(app, 'prompts');
    await pick(app, 'args-prompt');
    await app.click('prompt-get');
    assert.equal(await app.text('field-error'), 'Fill in “city”: it is required.');
    await typeArg(app, 'city', 'Paris', 'prompt-arg');
    await app.click('prompt-get');
    const message = await app.visible('prompt-message', { timeout: TIMEOUT.server, message: 'the prompt’s message' });
    assert.equal(await message.getAttribute('data-role'), 'user');
    assert.match(await app.textOf(message), /Paris/);
    await panelInView(app);
    await app.screenshot('offers-prompts');
  });

  step('Tools in the smallest window, in the dark theme', async () => {
    await showOffers(app, 'tools');
    await pick(app, 'get-structured-content');
    const select = await shownCss(app, '[data-testid="tool-arg"][data-arg="/location"]');
    await select.findElement(By.css('option:nth-child(2)')).click();
    await callAndWait(app);
    assert.ok(await app.isShown('structured-matches'), 'the structured content matches its output schema');
    await app.driver.manage().window().setRect({ width: 760, height: 520 });
    await waitUntil(async () => (await app.driver.executeScript(() => window.innerWidth)) <= 760, {
      message: 'the window to be 760 wide',
    });
    await panelInView(app);
    await app.screenshot('offers-tools-small');
    await darkTheme(app, true);
    await app.screenshot('offers-tools-small-dark');
    await pick(app, 'get-tiny-image');
    await callAndWait(app);
    assert.ok(await app.isShown('content-image'), 'the image is shown');
    await app.screenshot('offers-tools-image-dark');
    // The other two views keep what was read and got.
    await showOffers(app, 'resources');
    await app.visible('resource-blob-text');
    await panelInView(app);
    await app.screenshot('offers-resources-small-dark');
    await showOffers(app, 'prompts');
    await app.visible('prompt-message');
    await panelInView(app);
    await app.screenshot('offers-prompts-small-dark');
    await darkTheme(app, false);
  });
});
