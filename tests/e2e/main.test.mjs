// The main scenario, end to end in the real app: two real MCP servers, the
// npm filesystem server and a Python SDK server, are added through the
// server form, approved (the approval dialog shows the exact command line)
// and started; a fresh folder whose name has a space and Korean letters
// ("공유 폴더") is added through the test-only picker and, in the consent
// dialog (real path shown, no server ticked), shared with ONLY the Python
// server. Each server's own account then says who got it: the Python
// server's report file lists the folder's percent-encoded file:// URI, the
// filesystem server's stderr log never says it took a folder and its
// timeline's roots answers never name it. The folder is then withdrawn
// (Change access…, untick, Share): as it was the Python server's last
// folder, Rootgate restarts that server (servers ignore an empty list), so
// the process that knew the folder must exit and the timeline must say why;
// a second folder shared next must reach the new process without the
// withdrawn one (its own report again). The app is then quit (its process
// and its servers exit) and a new session on the same settings shows both
// servers, still approved (the enabled one starts by itself, the manual one
// on Start with no approval dialog), and both folders. Screenshots of each
// main view go to .ci/out/screenshots/.
//
// Not tested here: the real GTK folder dialog (real-dialog.test.mjs), a
// cancelled picker or consent dialog (cancel.test.mjs), drag and drop,
// renaming or removing folders and servers, editing a server's command (and
// re-approval), and what a server does with a folder beyond being told of
// it (roots are advice, not a sandbox).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  App,
  cleanup,
  cmdline,
  commandLine,
  env,
  GiveUp,
  readSettings,
  screenshotScreen,
  tempDir,
  TIMEOUT,
  waitUntil,
} from './lib/app.mjs';
import {
  addFolder,
  addServer,
  approveAndStart,
  consentChoices,
  folderRow,
  logLines,
  notices,
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

const peers = () => path.join(env.repo, 'tests', 'peers');

// The two servers, as typed into the form.
const FS = {
  name: 'Files (npm)',
  command: 'node',
  get args() {
    return [path.join(peers(), 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')];
  },
  enabled: true,
};
const PY = {
  name: 'Python roots',
  get command() {
    return path.join(peers(), '.venv/bin/python');
  },
  // Filled in before(): the report file lives in this run's temp dir.
  args: [],
  // Its SDK (mcp 2.x) speaks both eras, and its code asks for roots with
  // the 1.x API, which the SDK refuses in the modern era. Its era is left to
  // Rootgate, which speaks the legacy era to a server that accepts it.
  // Started by hand: after the restart, Start must need no approval.
  enabled: false,
};

const FOLDER_NAME = '공유 폴더';

/** The lists the Python server fetched, oldest first (one JSON line each). */
function reports(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).roots);
}

/** The pid of the Python server the app runs now (the child whose command line names our report file). */
function pythonPid(app, report) {
  return app.children().find((pid) => (cmdline(pid) ?? '').includes(report)) ?? null;
}

describe('two real servers, a folder shared with exactly one, withdrawn, kept across restarts', () => {
  let base, folder, real, other, otherReal, picks, report, app;
  const ids = {};

  before(() => {
    base = tempDir('rootgate-e2e-main-');
    folder = path.join(base, FOLDER_NAME);
    fs.mkdirSync(folder);
    real = fs.realpathSync(folder);
    other = path.join(base, 'second');
    fs.mkdirSync(other);
    otherReal = fs.realpathSync(other);
    picks = path.join(base, 'picks.txt');
    fs.writeFileSync(picks, '');
    report = path.join(base, 'py-report.jsonl');
    PY.args = [path.join(env.repo, 'tests/servers/py_roots_server.py'), '--report', report];
    for (const file of [FS.args[0], PY.command, PY.args[0]]) {
      assert.ok(fs.existsSync(file), `${file} is missing: run scripts/setup.sh test`);
    }
  });

  after(async () => {
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('opens on a fresh settings file', async () => {
    assert.equal(readSettings(), null, `a fresh XDG_CONFIG_HOME has no ${env.settingsFile} yet`);
    app = await App.launch({ args: ['--e2e-picks', picks] });
    await app.visible('empty-folders');
    await app.visible('first-run');
    await app.screenshot('first-run');
  });

  step("without a GPU, the window's web process paints with the CPU (src-tauri/src/painting.rs)", async () => {
    // The app re-executes itself to set WebKit's switch, so the web process
    // it started must carry it. With a GPU render node (or the switch set by
    // whoever started the tests) WebKit keeps its own choice.
    const gpu = fs.existsSync('/dev/dri') && fs.readdirSync('/dev/dri').some((n) => n.startsWith('renderD'));
    const web = app.children().filter((pid) => (cmdline(pid) ?? '').includes('WebKitWebProcess'));
    assert.ok(web.length > 0, 'the app runs a WebKitWebProcess');
    const environ = fs.readFileSync(`/proc/${web[0]}/environ`, 'utf8').split('\0');
    const given = process.env.WEBKIT_SKIA_ENABLE_CPU_RENDERING;
    const expected = given !== undefined ? given : gpu ? undefined : '1';
    const seen = environ.find((e) => e.startsWith('WEBKIT_SKIA_ENABLE_CPU_RENDERING='))?.split('=')[1];
    assert.equal(seen, expected, `WEBKIT_SKIA_ENABLE_CPU_RENDERING in the web process (GPU render node here: ${gpu})`);
  });

  step('adds the npm filesystem server and the Python SDK server through the form, approves and starts each', async () => {
    for (const server of [FS, PY]) {
      ids[server.name] = await addServer(app, server);
      await approveAndStart(app, server.name, commandLine(server.command, server.args));
    }
    // Starting the second did not stop the first.
    await waitServerState(app, FS.name, 'running');
    await waitServerState(app, PY.name, 'running');
    assert.notEqual(ids[FS.name], ids[PY.name]);
    await app.screenshot('servers-running');
    await screenshotScreen('screen-servers-running');
  });

  step('the consent dialog shows the real path and no server ticked; Share grants only the Python server', async () => {
    queuePick(picks, folder);
    await addFolder(app);
    assert.equal(await app.text('consent-real-path'), real, 'the consent dialog names the real path');
    assert.equal(await app.isPresent('consent-chosen-path'), false, 'a plain folder is not "chosen as" anything else');
    assert.notEqual((await app.text('consent-note')).trim(), '', 'the note says what sharing means');
    const nameField = await app.visible('consent-name');
    assert.equal(await nameField.getAttribute('value'), FOLDER_NAME, 'the folder is named after itself');
    const choices = await consentChoices(app);
    assert.deepEqual([...choices.keys()].sort(), [ids[FS.name], ids[PY.name]].sort(), 'every server is offered');
    for (const [id, box] of choices) assert.equal(await box.isSelected(), false, `server ${id} is not ticked`);
    await tickExactly(app, [ids[PY.name]]);
    await app.screenshot('consent-dialog');
    await share(app);

    const row = await folderRow(app, real);
    assert.equal(row.name, FOLDER_NAME);
    assert.match(row.servers, new RegExp(PY.name.replace(/[()]/g, '\\$&')));
    assert.doesNotMatch(row.servers, /Files \(npm\)/);
    assert.deepEqual(await notices(app), [], 'sharing shows no notice');
    await app.screenshot('folders-shared');

    const settings = readSettings();
    const root = settings.roots.find((r) => r.realPath === real);
    assert.ok(root, `settings.json keeps the folder: ${JSON.stringify(settings.roots)}`);
    assert.deepEqual(
      settings.grants.filter((g) => g.root === root.id).map((g) => g.server),
      [ids[PY.name]],
      'settings.json grants the folder to the Python server only',
    );
  });

  step("the Python server's own report lists the folder's percent-encoded file:// URI", async () => {
    const roots = await waitUntil(
      () => {
        const last = reports(report).at(-1);
        return last?.length > 0 && last;
      },
      { timeout: TIMEOUT.server, message: `the Python server to report a roots list in ${report}` },
    );
    assert.equal(roots.length, 1, `exactly one root: ${JSON.stringify(roots)}`);
    assert.match(roots[0].uri, /^file:\/\/\/[\x21-\x7e]+$/, 'the URI is percent-encoded ASCII');
    assert.equal(fileURLToPath(roots[0].uri), real, 'the URI decodes to the real path');
    assert.equal(roots[0].name, FOLDER_NAME);
  });

  step("the Python server's timeline shows the answer that named the folder", async () => {
    await openDetail(app, PY.name);
    const entries = await timeline(app);
    const told = entries.filter((e) => e.kind === 'rootsAnswered' && e.details.length > 0);
    assert.ok(told.length > 0, `a rootsAnswered entry with folders: ${JSON.stringify(entries)}`);
    const uris = told.at(-1).details.map((d) => d.match(/file:\/\/\S+/)?.[0]).filter(Boolean);
    assert.deepEqual(uris.map((u) => fileURLToPath(u)), [real], 'the timeline shows the URI it was told');
    await app.screenshot('server-detail-timeline');
  });

  step('the filesystem server was never told: its log and timeline never name the folder', async () => {
    await openDetail(app, FS.name);
    // It asked for roots after `initialized` and took the empty answer.
    assert.ok(
      (await logLines(app, 'No valid root directories provided by client')).length > 0,
      'the filesystem server logged the empty answer it got at start',
    );
    const updates = await logLines(app, 'Updated allowed directories from MCP roots');
    assert.deepEqual(updates, [], 'the filesystem server never took a folder from its roots');
    await app.screenshot('server-detail-log');

    const entries = await timeline(app);
    const answers = entries.filter((e) => e.kind === 'rootsAnswered');
    assert.ok(answers.length > 0, `the filesystem server asked for roots: ${JSON.stringify(entries)}`);
    const encoded = new URL(`file://${real}`).href;
    for (const a of answers) {
      const all = [a.text, ...a.details].join('\n');
      for (const needle of [real, FOLDER_NAME, encoded, path.basename(encoded)]) {
        assert.ok(!all.includes(needle), `a roots answer to the filesystem server names the folder: ${all}`);
      }
      assert.deepEqual(a.details, [], `the filesystem server was told no folders: ${all}`);
    }
    const detail = await app.visible('server-detail');
    const [status] = await app.all('server-status', detail);
    assert.equal(await status.getAttribute('data-state'), 'running', 'the filesystem server is still running');
  });

  step('withdrawing it (Change access…, untick, Share) takes it away from the Python server', async () => {
    const pyPid = pythonPid(app, report);
    assert.ok(pyPid, 'the Python server runs as a child of the app');
    const reportsBefore = reports(report).length;
    await showView(app, 'folders');
    const row = await folderRow(app, real);
    await app.click('folder-access', { within: row.row });
    await app.visible('consent-dialog');
    assert.equal(await app.text('consent-real-path'), real);
    const choices = await consentChoices(app);
    assert.equal(await choices.get(ids[PY.name]).isSelected(), true, 'the Python server is ticked: it sees it now');
    assert.equal(await choices.get(ids[FS.name]).isSelected(), false, 'the filesystem server is not');
    await tickExactly(app, []);
    await share(app);

    await waitUntil(async () => /shared with no one/i.test((await folderRow(app, real)).servers), {
      message: 'the folder row to say "shared with no one"',
    });
    const settings = readSettings();
    assert.deepEqual(settings.grants, [], 'settings.json keeps no grant');
    assert.ok(settings.roots.some((r) => r.realPath === real), 'the folder is still kept');

    // It was the Python server's last folder, and servers keep their old
    // folders when told the list is empty, so Rootgate restarts it (see
    // `must_restart` in the core's session.rs): the process that was told
    // the folder must be gone, and a new one running in its place.
    await waitUntil(() => cmdline(pyPid) === null, {
      timeout: TIMEOUT.server,
      message: `the Python process that was told the folder (pid ${pyPid}) to exit`,
    });
    await showView(app, 'servers');
    await waitServerState(app, PY.name, 'running');
    const newPid = await waitUntil(() => pythonPid(app, report), { message: 'a new Python server process' });
    assert.notEqual(newPid, pyPid);
    await openDetail(app, PY.name);
    const kinds = (await timeline(app, { details: false })).map((e) => e.kind);
    assert.ok(kinds.includes('restartedToWithdraw'), `the timeline says why it restarted: ${kinds}`);
    // Whatever the Python server fetched since, none of it had the folder.
    const since = reports(report).slice(reportsBefore);
    assert.ok(
      since.every((roots) => roots.length === 0),
      `the Python server was told no folder after the withdrawal: ${JSON.stringify(since)}`,
    );
  });

  step("the restarted Python server's own report: a folder shared next comes without the withdrawn one", async () => {
    queuePick(picks, other);
    await addFolder(app);
    assert.equal(await app.text('consent-real-path'), otherReal);
    await tickExactly(app, [ids[PY.name]]);
    await share(app);
    const roots = await waitUntil(
      () => {
        const last = reports(report).at(-1);
        return last?.some((r) => r.uri.startsWith('file://') && fileURLToPath(r.uri) === otherReal) && last;
      },
      { timeout: TIMEOUT.server, message: `the Python server to report ${otherReal}` },
    );
    assert.deepEqual(
      roots.map((r) => fileURLToPath(r.uri)),
      [otherReal],
      'the Python server now knows only the new folder, not the withdrawn one',
    );
  });

  step('the activity view lists what every server asked and was told', async () => {
    await showView(app, 'activity');
    // The newest entries (the list follows them): the restart that withdrew
    // the folder and the answer to the restarted Python server, by name.
    const entries = await waitUntil(
      async () => {
        const found = await app.driver.executeScript(() =>
          [...document.querySelectorAll('[data-testid="activity-entry"]')].map((e) => ({
            kind: e.getAttribute('data-kind'),
            text: e.textContent.replace(/\s+/g, ' ').trim(),
          })),
        );
        return found.some((e) => e.kind === 'restartedToWithdraw') && found.at(-1)?.kind === 'rootsAnswered' && found;
      },
      { message: 'activity entries ending with the restart and the answer after it' },
    );
    assert.match(entries.at(-1).text, /Python roots/, `the activity names the server: ${entries.at(-1).text}`);
    await app.screenshot('activity');
  });

  step('quitting ends the app process and the servers it started', async () => {
    const children = app.children();
    assert.ok(children.length >= 2, `the app runs its two servers as children (found ${children.length})`);
    const quitting = app;
    app = null;
    await quitting.quit();
  });

  step('a new session on the same settings shows both servers, still approved, and the folder', async () => {
    app = await App.launch({ args: ['--e2e-picks', picks] });
    await showView(app, 'servers');
    for (const server of [FS, PY]) {
      const row = await serverRow(app, server.name);
      assert.equal(await row.getAttribute('data-server-id'), ids[server.name], `${server.name} keeps its id`);
      const [line] = await app.all('server-command-line', row);
      assert.equal(await app.textOf(line), commandLine(server.command, server.args), `${server.name} keeps its command`);
      assert.equal(await app.isPresent('needs-approval', row), false, `${server.name} is still approved`);
    }
    // The enabled, approved server started with the app by itself.
    await waitServerState(app, FS.name, 'running');
    // The manual one starts on Start with no approval dialog.
    assert.equal(await serverState(app, PY.name), 'stopped', 'a server not set to start with Rootgate waits');
    await app.click('server-start', { within: await serverRow(app, PY.name) });
    await waitUntil(
      async () => {
        if (await app.isPresent('approval-dialog')) {
          throw new GiveUp(`Start asked to approve again: ${await app.text('approval-command')}`);
        }
        return (await serverState(app, PY.name)) === 'running';
      },
      { timeout: TIMEOUT.server, message: `"${PY.name}" to run after Start, with no approval dialog` },
    );

    await showView(app, 'folders');
    const row = await folderRow(app, real);
    assert.equal(row.name, FOLDER_NAME);
    assert.match(row.servers, /shared with no one/i);
    assert.match((await folderRow(app, otherReal)).servers, /Python roots/);
    assert.deepEqual(await notices(app), [], 'a clean restart shows no notice');
    assert.equal(await app.isPresent('recovery-banner'), false, 'the settings file was read in full');
  });
});
