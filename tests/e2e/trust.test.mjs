// Trust and consent in the real app (#20): what the window shows when a
// name or a command could mislead.
//
// - A folder named `invoice\u202Efdp.exe` (a right-to-left override, which
//   would make it read "invoiceexe.pdf") is picked through the test-only
//   picker: the consent prompt's title, its "Folder that would be shared"
//   box and its "Name shown to servers" field all show `<U+202E>` written
//   out, and the page holds the raw character nowhere; shared with a real
//   Python SDK server, the server's own report shows it was sent the
//   written-out name; the folder's row shows the name and path written out,
//   with its hidden-characters marker.
// - The whole home folder is picked: its warning is the strong one, and
//   Share takes a second confirmation (cancelled: nothing is kept).
// - An `npx -y package` server says in its approval that it downloads the
//   package at each start, unpinned.
// - The running Python server's command is edited: the approval dialog
//   shows the approved command and the new one, the changed words marked,
//   and says it keeps running the approved one; the process that runs it is
//   still the same until Approve, then a new one runs the new command.
// - A server with Enforce roots (held in a sandbox: bubblewrap, with
//   Landlock inside): its approval asks the network, off unless allowed,
//   the question reached by Tab and answered by Space, its meaning read
//   with it; the consent prompt marks it "held", the note says what that
//   means, and ticking it while it runs says sharing restarts it; its
//   detail says it is held and has no network, and so does the timeline.
// - A server added through the form with API_TOKEN (Secret ticked by its
//   name, typed masked): the approval shows `API_TOKEN=…` and says it
//   covers the name, not the value; the row and the detail show it masked,
//   and the detail's Reveal shows the value, then hides it; the settings
//   file holds no value, the desktop's keyring (the run's own GNOME Keyring,
//   found with `secret-tool`) does, and the process gets it; a new value
//   typed in the form replaces it there with no new approval, and the
//   server runs again with it. No value is ever in the page but where it
//   was revealed, nor in the timeline.
//
// Screenshots: trust-consent-hidden, trust-folder-row, trust-consent-home,
// trust-confirm-home, trust-approval-download, trust-approval-changed,
// trust-approval-network, trust-consent-enforced, trust-detail-held, trust-form-secret, trust-approval-secret,
// trust-secret-row, trust-secret-revealed, trust-form-secret-kept; of the
// hidden-character prompt, the folder row, the changed approval, the
// held server's approval, prompt and detail, and the secret's form, approval and detail also a -dark one (the window
// in its dark theme: the rules app.css gives a dark desktop, applied for the
// picture).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';

import { App, cleanup, cmdline, commandLine, env, Key, readSettings, tempDir, TIMEOUT, waitUntil } from './lib/app.mjs';
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

const SLY = 'invoice\u202Efdp.exe';
const SHOWN = 'invoice<U+202E>fdp.exe';

/** The lists the Python server fetched, oldest first. */
function reports(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).roots);
}

/** The value of a variable in a process's environment, or undefined. */
function environValue(pid, name) {
  try {
    const line = fs
      .readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((l) => l.startsWith(`${name}=`));
    return line?.slice(name.length + 1);
  } catch {
    return undefined;
  }
}

/** What the desktop's keyring holds for a server's variable (`secret-tool lookup`), or null. */
function inKeyring(serverId, name) {
  try {
    return execFileSync('secret-tool', ['lookup', 'service', 'rootgate', 'username', `${serverId}/${name}`], {
      encoding: 'utf8',
      timeout: 10_000,
    });
  } catch (e) {
    // secret-tool exits 1, printing nothing, when there is no such item.
    if (e.status === 1 && !e.stderr?.length) return null;
    throw e;
  }
}

/**
 * Saves NAME.png, and NAME-dark.png with the window in its dark theme: the
 * rules of app.css's `prefers-color-scheme: dark` block, appended to the
 * style sheet through the CSSOM (the CSP allows no inline style), then
 * removed again.
 */
async function shots(app, name) {
  await app.screenshot(name);
  const added = await app.driver.executeScript(() => {
    const added = [];
    for (const sheet of document.styleSheets) {
      let rules;
      try {
        rules = [...sheet.cssRules];
      } catch {
        continue;
      }
      for (const r of rules) {
        if (r instanceof CSSMediaRule && /prefers-color-scheme:\s*dark/.test(r.media.mediaText)) {
          for (const inner of [...r.cssRules]) {
            added.push([sheet, sheet.cssRules[sheet.insertRule(inner.cssText, sheet.cssRules.length)]]);
          }
        }
      }
    }
    window.__trustDark = added;
    return added.length;
  });
  assert.ok(added > 0, 'the dark theme has rules to apply');
  try {
    await app.screenshot(`${name}-dark`);
  } finally {
    await app.driver.executeScript(() => {
      for (const [sheet, rule] of window.__trustDark.reverse()) {
        const at = [...sheet.cssRules].indexOf(rule);
        if (at >= 0) sheet.deleteRule(at);
      }
      window.__trustDark = [];
    });
  }
}

describe('names that could mislead are written out; commands that changed or download are said so', () => {
  let base, folder, real, picks, report, app, id;
  const PY = {
    name: 'Python roots',
    get command() {
      return path.join(env.repo, 'tests/peers/.venv/bin/python');
    },
    args: [],
    era: 'legacy',
    enabled: false,
  };

  before(() => {
    base = tempDir('rootgate-e2e-trust-');
    folder = path.join(base, SLY);
    fs.mkdirSync(folder);
    real = fs.realpathSync(folder);
    picks = path.join(base, 'picks.txt');
    fs.writeFileSync(picks, '');
    report = path.join(base, 'py-report.jsonl');
    PY.args = [path.join(env.repo, 'tests/servers/py_roots_server.py'), '--report', report, '--mode', 'v1'];
    for (const file of [PY.command, PY.args[0]]) {
      assert.ok(fs.existsSync(file), `${file} is missing: run scripts/setup.sh test`);
    }
  });

  after(async () => {
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  /** Whether the page's text holds a character that reorders text (it must not, anywhere). */
  const rawInPage = () =>
    app.driver.executeScript(() => /[\u202a-\u202e\u2066-\u2069]/.test(document.body.textContent ?? ''));

  step('a server to share with is added and started', async () => {
    app = await App.launch({ args: ['--e2e-picks', picks] });
    id = await addServer(app, PY);
    await approveAndStart(app, PY.name, commandLine(PY.command, PY.args));
    // Adding a server may end with its folder checklist: closed, as the
    // folder is shared from the consent prompt here.
    await waitUntil(() => app.isPresent('folder-checklist'), { timeout: 3_000 }).catch(() => {});
    if (await app.isPresent('folder-checklist')) {
      await app.click('checklist-cancel');
      await app.gone('folder-checklist');
    }
  });

  step('the consent prompt writes the hidden character out in its title, folder box and name field', async () => {
    queuePick(picks, folder);
    const dialog = await addFolder(app);
    const title = await app.textOf(await dialog.findElement({ css: 'h2' }));
    assert.equal(title, `Share “${SHOWN}”?`, 'the title');
    assert.equal(await app.text('consent-real-path'), path.join(path.dirname(real), SHOWN), 'the folder box');
    const field = await app.visible('consent-name');
    assert.equal(await field.getAttribute('value'), SHOWN, 'the name field');
    const markers = await app.driver.executeScript(
      (d) => [...d.querySelectorAll('.hidden-char')].map((m) => m.textContent),
      dialog,
    );
    assert.ok(markers.length >= 3, `markers in title, box and name note: ${JSON.stringify(markers)}`);
    assert.ok(markers.every((m) => m === '<U+202E>'), JSON.stringify(markers));
    assert.equal(await rawInPage(), false, 'the page holds no raw reordering character');
    // The marker's look: a box of its own, not plain text.
    const style = await app.driver.executeScript(
      (d) => {
        const m = d.querySelector('h2 .hidden-char');
        const s = getComputedStyle(m);
        return { display: s.display, bidi: s.unicodeBidi, border: s.borderTopWidth };
      },
      dialog,
    );
    assert.deepEqual(style, { display: 'inline-block', bidi: 'isolate', border: '1px' });
    await tickExactly(app, [id]);
    await shots(app, 'trust-consent-hidden');
    await share(app);
  });

  step('the server is sent the written-out name, never the raw one', async () => {
    const roots = await waitUntil(() => reports(report).find((r) => r.length > 0), {
      timeout: TIMEOUT.server,
      message: `the Python server to report a roots list in ${report}`,
    });
    assert.deepEqual(
      roots.map((r) => r.name),
      [SHOWN],
    );
  });

  step("the folder's row shows the name and path written out, with the marker", async () => {
    const shownPath = path.join(path.dirname(real), SHOWN);
    const row = await folderRow(app, shownPath);
    assert.equal(row.name, SHOWN);
    const [marker] = await app.all('folder-hidden-marker', row.row);
    assert.ok(marker, 'the row has the hidden-characters marker');
    assert.equal(await marker.getAttribute('title'), 'This name holds hidden characters');
    const [pathEl] = await app.all('folder-path', row.row);
    assert.equal(await pathEl.getAttribute('title'), shownPath, "the path's tooltip is written out too");
    assert.equal(await rawInPage(), false, 'the page holds no raw reordering character');
    await shots(app, 'trust-folder-row');
  });

  step('the whole home folder is the strong warning, and Share asks a second time', async () => {
    queuePick(picks, os.homedir());
    await addFolder(app);
    const [first] = await app.shown('consent-warning');
    assert.equal(await first.getAttribute('data-kind'), 'homeFolder', 'the home folder warning comes first');
    assert.match(await first.getAttribute('class'), /\bsevere\b/);
    await tickExactly(app, [id]);
    assert.equal(await app.text('consent-share'), 'Share…');
    await app.screenshot('trust-consent-home');
    await app.click('consent-share');
    const confirm = await app.visible('confirm-dialog');
    assert.match(await app.textOf(confirm), /Share your whole home folder\?/);
    await app.screenshot('trust-confirm-home');
    await app.click('confirm-cancel');
    await app.gone('confirm-dialog');
    assert.ok(await app.isShown('consent-dialog'), 'the consent prompt stays open after the second "no"');
    await app.click('consent-cancel');
    await app.gone('consent-dialog');
    await showView(app, 'folders');
    assert.equal((await app.shown('folder-row')).length, 1, 'the home folder was not kept');
  });

  step('an npx server says in its approval that it downloads an unpinned package at each start', async () => {
    const NPX = { name: 'Downloads', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], enabled: false };
    await addServer(app, NPX);
    if (!(await app.isPresent('approval-dialog'))) {
      await app.click('server-start', { within: await serverRow(app, NPX.name) });
    }
    const dialog = await app.visible('approval-dialog');
    const box = await app.visible('approval-download', { within: dialog });
    assert.equal(await box.getAttribute('data-pinned'), 'false');
    assert.equal(
      await app.text('approval-download-lead'),
      'This command downloads @modelcontextprotocol/server-everything from the npm registry each time it starts (npx).',
    );
    assert.match(await app.text('approval-download-status'), /^Not pinned: approving it approves whatever version/);
    await app.screenshot('trust-approval-download');
    await app.click('approval-cancel');
    await app.gone('approval-dialog');
  });

  step('a running server whose command is edited shows both commands, and keeps running the approved one', async () => {
    await showView(app, 'servers');
    await waitServerState(app, PY.name, 'running');
    const before = app.children().find((pid) => (cmdline(pid) ?? '').includes(report));
    assert.ok(before, 'the Python server runs');
    const oldLine = commandLine(PY.command, PY.args);
    const newArgs = [...PY.args.slice(0, -1), 'v2', '--verbose'];
    const newLine = commandLine(PY.command, newArgs);

    await app.click('server-edit', { within: await serverRow(app, PY.name) });
    const form = await app.visible('server-form');
    await app.type('server-args', newArgs.join('\n'), { within: form });
    await app.click('server-save');
    await app.gone('server-form');
    const dialog = await app.visible('approval-dialog', { message: 'the approval dialog after editing the command' });
    assert.ok(await app.isShown('approval-compare', dialog), 'the old and new commands are compared');
    assert.equal(await app.text('approval-previous'), oldLine);
    assert.equal(await app.text('approval-command'), newLine);
    const marks = await app.driver.executeScript(
      (d) => ({
        removed: [...d.querySelectorAll('[data-testid="approval-previous"] del')].map((e) => e.textContent),
        added: [...d.querySelectorAll('[data-testid="approval-command"] ins')].map((e) => e.textContent),
      }),
      dialog,
    );
    assert.deepEqual(marks, { removed: ['v1'], added: ['v2 --verbose'] });
    assert.equal(await app.text('approval-keeps'), 'It keeps running its approved command until you approve this one.');
    assert.equal(cmdline(before)?.includes('v1'), true, 'the approved command still runs while the new one waits');
    await shots(app, 'trust-approval-changed');

    await app.click('approval-approve');
    await app.gone('approval-dialog');
    const after = await waitUntil(
      () => app.children().find((pid) => pid !== before && (cmdline(pid) ?? '').includes('--verbose')),
      { timeout: TIMEOUT.server, message: 'the server to run the newly approved command' },
    );
    assert.ok(after);
    await waitServerState(app, PY.name, 'running');
    assert.equal(cmdline(before), null, 'the process that ran the old command has exited');
  });
  step('a held server is asked its network at approval (off), marked held in the consent prompt, and ticking it says it restarts', async (t) => {
    const ENF = {
      name: 'Held in',
      command: PY.command,
      args: [path.join(env.repo, 'tests/servers/py_roots_server.py'), '--report', path.join(base, 'held-report.jsonl')],
    };
    await showView(app, 'servers');
    await app.click('add-server');
    const form = await app.visible('server-form');
    await app.type('server-name', ENF.name, { within: form });
    await app.type('server-command', ENF.command, { within: form });
    await app.type('server-args', ENF.args.join('\n'), { within: form });
    const era = await app.visible('server-era', { within: form });
    await app.driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', era);
    await era.findElement({ css: 'option[value="legacy"]' }).click();
    const enforce = await app.visible('server-enforce', { within: form });
    await app.driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', enforce);
    if (!(await enforce.isEnabled())) {
      await app.click('server-cancel');
      await app.gone('server-form');
      return t.skip(`Landlock is not available here: ${await app.textOf(await app.visible('server-enforce-help')).catch(() => '')}`);
    }
    const help = await app.text('server-enforce-help', { within: form });
    assert.doesNotMatch(
      help,
      /^Not held here/,
      `bubblewrap must hold servers on the test machine (scripts/setup.sh test installs it): ${help}`,
    );
    if (!(await enforce.isSelected())) await enforce.click();
    await app.click('server-save');
    await app.gone('server-form');
    const enfId = await (await serverRow(app, ENF.name)).getAttribute('data-server-id');

    // The approval says it runs held, and asks the network, off unless the
    // person allows it, with what off means read with the checkbox.
    if (!(await app.isPresent('approval-dialog'))) {
      await app.click('server-start', { within: await serverRow(app, ENF.name) });
    }
    const approval = await app.visible('approval-dialog', { message: 'the approval dialog of the held server' });
    assert.equal(await app.text('approval-command', { within: approval }), commandLine(ENF.command, ENF.args));
    assert.match(await app.textOf(approval), /It runs held in a sandbox \(bubblewrap, with Landlock inside\)/);
    const network = await app.visible('approval-network-check', { within: approval });
    assert.equal(await network.isSelected(), false, 'the network is off unless the person allows it');
    const described = await network.getAttribute('aria-describedby');
    assert.equal(
      await app.text('approval-network-help', { within: approval }),
      'Off: it reaches no other machine, nor anything listening on this one. A server that calls an online service needs it.',
    );
    assert.equal(
      await app.driver.executeScript((id) => document.getElementById(id)?.getAttribute('data-testid'), described),
      'approval-network-help',
      'the checkbox is described by the words saying what off means',
    );
    // Reached from the keyboard: Tab from where the dialog puts the focus
    // (Cancel) comes round to the question, and Space answers it.
    let reached = false;
    for (let i = 0; i < 20 && !reached; i++) {
      await app.driver.actions().sendKeys(Key.TAB).perform();
      reached = await app.driver.executeScript(
        () => document.activeElement?.getAttribute('data-testid') === 'approval-network-check',
      );
    }
    assert.ok(reached, 'Tab reaches the network question');
    await app.driver.actions().sendKeys(Key.SPACE).perform();
    await waitUntil(() => network.isSelected(), { message: 'Space to allow the network' });
    assert.match(await app.text('approval-network-help', { within: approval }), /^On: it may reach other machines/);
    await app.driver.actions().sendKeys(Key.SPACE).perform();
    await waitUntil(async () => !(await network.isSelected()), { message: 'Space to turn the network off again' });
    await app.driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', network);
    await shots(app, 'trust-approval-network');
    await app.click('approval-approve', { within: approval });
    await app.gone('approval-dialog');
    await waitServerState(app, ENF.name, 'running');
    await waitUntil(() => app.isPresent('folder-checklist'), { timeout: 3_000 }).catch(() => {});
    if (await app.isPresent('folder-checklist')) {
      await app.click('checklist-cancel');
      await app.gone('folder-checklist');
    }
    const saved = readSettings().servers.find((s) => s.id === enfId);
    assert.notEqual(saved?.allowNetwork, true, 'the settings keep the network off');

    const other = path.join(base, 'notes');
    fs.mkdirSync(other);
    queuePick(picks, other);
    const dialog = await addFolder(app);
    const choices = await app.all('consent-choice', dialog);
    const marked = {};
    for (const c of choices) marked[await c.getAttribute('data-server-id')] = (await app.all('consent-enforced', c)).length > 0;
    assert.equal(marked[enfId], true, 'the held server is marked');
    assert.deepEqual(
      Object.entries(marked).filter(([, on]) => on).map(([k]) => k),
      [enfId],
      'no other server is marked held',
    );
    assert.equal(marked[id], false);
    const [mark] = await app.all('consent-enforced', dialog);
    assert.equal(await app.textOf(mark), 'held');
    assert.match(await mark.getAttribute('title'), /^Held in a sandbox \(bubblewrap, with Landlock inside\)/);
    assert.match(await app.text('consent-note'), /A server marked “held” runs in a sandbox and sees only the folders shared with it\./);
    assert.doesNotMatch(await app.text('consent-note'), /kernel/);
    await tickExactly(app, [enfId]);
    assert.equal(await app.text('consent-restart-hint'), `This restarts ${ENF.name}, which is running.`);
    await shots(app, 'trust-consent-enforced');
    await app.click('consent-cancel');
    await app.gone('consent-dialog');

    // The detail says it is held and has no network; so does the timeline.
    const detail = await openDetail(app, ENF.name);
    const held = await app.visible('server-enforcement', { within: detail });
    assert.match(await app.textOf(held), /^Held in a sandbox \(bubblewrap, with Landlock inside\)/);
    assert.equal(
      await app.text('server-detail-network', { within: detail }),
      'Off: it reaches no other machine, nor anything listening on this one',
    );
    await app.driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', held);
    await new Promise((r) => setTimeout(r, 300));
    await shots(app, 'trust-detail-held');
    const entries = await timeline(app, { details: false });
    assert.ok(
      entries.some((e) => /Held in a sandbox \(bubblewrap, with Landlock inside\): .* and has no network\.$/.test(e.text ?? e)),
      `the timeline says it is held without the network: ${JSON.stringify(entries)}`,
    );
  });

  step('a secret is kept in the keyring, shown masked, revealed on request, and approved by its name', async () => {
    assert.ok(process.env.DBUS_SESSION_BUS_ADDRESS, "the test shares the keyring daemon's bus (scripts/with-keyring.sh)");
    const SECRET = `sk-e2e-${process.pid}-${Date.now().toString(36)}`;
    const ROTATED = `${SECRET}-rotated`;
    const keyedReport = path.join(base, 'keyed-report.jsonl');
    const KEYED = {
      name: 'Keyed',
      command: PY.command,
      args: [path.join(env.repo, 'tests/servers/py_roots_server.py'), '--report', keyedReport],
    };
    const line = `API_TOKEN=… DEBUG=1 ${commandLine(KEYED.command, KEYED.args)}`;
    const pageHas = (value) => app.driver.executeScript((v) => document.body.textContent.includes(v), value);

    // The form: Secret is ticked by the name, the value typed masked.
    await showView(app, 'servers');
    await app.click('add-server');
    const form = await app.visible('server-form');
    await app.type('server-name', KEYED.name, { within: form });
    await app.type('server-command', KEYED.command, { within: form });
    await app.type('server-args', KEYED.args.join('\n'), { within: form });
    const enabled = await app.visible('server-enabled', { within: form });
    if (await enabled.isSelected()) await enabled.click();
    const era = await app.visible('server-era', { within: form });
    await app.driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', era);
    await era.findElement({ css: 'option[value="legacy"]' }).click();
    for (const [i, [k, v]] of [
      ['API_TOKEN', SECRET],
      ['DEBUG', '1'],
    ].entries()) {
      await app.click('env-add', { within: form });
      await app.type(`env-name-${i}`, k, { within: form });
      await app.type(`env-value-${i}`, v, { within: form });
    }
    assert.equal(await (await app.visible('env-secret-0')).isSelected(), true, 'API_TOKEN is secret by its name');
    assert.equal(await (await app.visible('env-secret-1')).isSelected(), false, 'DEBUG is not');
    assert.equal(await (await app.visible('env-value-0')).getAttribute('type'), 'password');
    assert.equal(await (await app.visible('env-value-1')).getAttribute('type'), 'text');
    const envField = await app.visible('server-env', { within: form });
    await app.driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', envField);
    await new Promise((r) => setTimeout(r, 300));
    await shots(app, 'trust-form-secret');
    assert.equal(await pageHas(SECRET), false, 'the typed value is in no text of the page (only in the masked field)');
    await app.click('server-save');
    await app.gone('server-form');
    const id = await (await serverRow(app, KEYED.name)).getAttribute('data-server-id');

    // The approval names the secret, and says it covers the name.
    const dialog = await app.visible('approval-dialog', { message: 'the approval dialog after adding the server' });
    assert.equal(await app.text('approval-command', { within: dialog }), line);
    assert.equal(
      await app.text('approval-secrets', { within: dialog }),
      "Its secret API_TOKEN=… is shown by name. Approving covers the variable's name, not its value, so a new value (a rotated key) needs no new approval.",
    );
    await shots(app, 'trust-approval-secret');
    await app.click('approval-approve', { within: dialog });
    await app.gone('approval-dialog');
    await waitUntil(() => app.isPresent('folder-checklist'), { timeout: 3_000 }).catch(() => {});
    if (await app.isPresent('folder-checklist')) {
      await app.click('checklist-cancel');
      await app.gone('folder-checklist');
    }
    await waitServerState(app, KEYED.name, 'running');

    // The keyring has the value, the settings file only its name and place,
    // and the process got it.
    assert.equal(inKeyring(id, 'API_TOKEN'), SECRET, 'secret-tool finds the value in the keyring');
    const settings = fs.readFileSync(env.settingsFile, 'utf8');
    assert.equal(settings.includes(SECRET), false, 'the settings file holds no value');
    const saved = JSON.parse(settings).servers.find((s) => s.id === id);
    assert.deepEqual(saved.env, { API_TOKEN: '', DEBUG: '1' });
    assert.deepEqual(saved.secrets, { API_TOKEN: 'keyring' });
    const running = () => app.children().find((pid) => (cmdline(pid) ?? '').includes(keyedReport));
    const first = await waitUntil(running, { timeout: TIMEOUT.server, message: 'the Keyed server process' });
    assert.equal(environValue(first, 'API_TOKEN'), SECRET, 'the server process gets the value');

    // The row shows it masked.
    const row = await serverRow(app, KEYED.name);
    assert.equal(await app.text('server-command-line', { within: row }), line);
    assert.equal(await pageHas(SECRET), false, 'the list shows no value');
    await app.driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', row);
    await app.screenshot('trust-secret-row');

    // The detail: masked, revealed on request, hidden again.
    await openDetail(app, KEYED.name);
    const assignments = () =>
      app.driver.executeScript(() =>
        [...document.querySelectorAll('[data-testid="env-assignment"]')].map((e) => e.textContent.trim()),
      );
    assert.deepEqual(await assignments(), ['API_TOKEN=…', 'DEBUG=1']);
    assert.equal(await app.text('env-place'), 'in the keyring');
    await app.click('env-reveal');
    await waitUntil(async () => (await assignments())[0] === `API_TOKEN=${SECRET}`, {
      message: 'the revealed value in the detail',
    });
    assert.equal(await app.text('env-reveal'), 'Hide');
    await shots(app, 'trust-secret-revealed');
    await app.click('env-reveal');
    await waitUntil(async () => (await assignments())[0] === 'API_TOKEN=…', { message: 'the value hidden again' });
    assert.equal(await pageHas(SECRET), false, 'hidden, the value is nowhere in the page');
    const entries = await timeline(app, { details: false });
    assert.ok(entries.length > 0, 'the timeline has entries');
    assert.equal(JSON.stringify(entries).includes(SECRET), false, 'the timeline never holds the value');

    // A new value typed in the form replaces it, with no new approval: the
    // running server starts again with it.
    await app.click('server-edit');
    const edit = await app.visible('server-form');
    const value = await app.visible('env-value-0', { within: edit });
    assert.equal(await value.getAttribute('value'), '', 'the form is never sent the value');
    assert.equal(await value.getAttribute('placeholder'), 'Kept in the keyring: leave empty to keep it');
    await app.driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', value);
    await shots(app, 'trust-form-secret-kept');
    await app.type('env-value-0', ROTATED, { within: edit });
    assert.match(await app.text('env-note-0'), /needs no new approval/);
    await app.click('server-save');
    await app.gone('server-form');
    await waitUntil(() => inKeyring(id, 'API_TOKEN') === ROTATED, { message: 'the rotated value in the keyring' });
    const second = await waitUntil(
      () => {
        const pid = running();
        return pid && pid !== first && environValue(pid, 'API_TOKEN') === ROTATED ? pid : null;
      },
      { timeout: TIMEOUT.server, message: 'the server to run again with the new value' },
    );
    assert.ok(second);
    assert.equal(await app.isPresent('approval-dialog'), false, 'a new value needs no new approval');
    assert.equal(fs.readFileSync(env.settingsFile, 'utf8').includes(ROTATED), false);
    await showView(app, 'servers');
    await waitServerState(app, KEYED.name, 'running');
    assert.equal(await app.isPresent('needs-approval', await serverRow(app, KEYED.name)), false, 'still approved');
  });
});
