// A settings file that cannot be trusted, in the real app: for each kind of
// bad file (damaged JSON whose first entries are whole and some entries of
// the wrong shape, a file cut short in the middle of a server, an empty
// file, a file from a newer Rootgate), the app is started on it once and
// must start, show the recovery banner naming the path where the bad file
// was kept, have kept that file there with exactly the original bytes, and
// show the folders (with who sees them) and servers that could be read,
// and no others; the fresh settings.json it wrote holds the same. A
// screenshot of each banner goes to .ci/out/screenshots/recovery-*.png.
//
// Not tested here: what exactly each kind of damage keeps (the core's unit
// tests in settings.rs go through every cut of a file), a settings file
// the app may not read or a folder it may not write (permissions), and a
// second start on the recovered file (the core's tests; main.test.mjs
// restarts on a good file).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { App, cleanup, env, readSettings, tempDir } from './lib/app.mjs';
import { folderRows, showView } from './lib/flows.mjs';

/** The names of the servers the server list shows. */
async function serverNames(app) {
  await showView(app, 'servers');
  const names = [];
  for (const row of await app.shown('server-row')) {
    const [label] = await app.all('server-name-label', row);
    names.push(await app.textOf(label));
  }
  await showView(app, 'folders');
  return names.sort();
}

/** What the folder list shows: name, real path and who sees each folder. */
async function folders(app) {
  await showView(app, 'folders');
  return (await folderRows(app))
    .map(({ name, path: p, servers }) => ({ name, path: p, servers }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

describe('a bad settings file: the app starts, keeps the file aside, says where, and shows what it could read', () => {
  let base;
  let dirs;
  const ids = {
    alpha: 'root-00000000000000a1',
    beta: 'root-00000000000000b2',
    files: 'srv-00000000000000f1',
    notes: 'srv-00000000000000f2',
  };

  before(() => {
    base = tempDir('rootgate-e2e-recovery-');
    dirs = {};
    for (const name of ['alpha', 'beta']) {
      fs.mkdirSync(path.join(base, name));
      dirs[name] = fs.realpathSync(path.join(base, name));
    }
  });

  after(() => cleanup(base));

  const root = (key) => ({
    id: ids[key],
    name: `Folder ${key}`,
    chosenPath: dirs[key],
    realPath: dirs[key],
    addedAtMs: 1_700_000_000_000,
  });
  // Servers that are neither enabled nor approved: nothing starts.
  const server = (key, name) => ({
    id: ids[key],
    name,
    command: '/bin/true',
    args: ['--serve'],
    env: { TOKEN: 'a "quoted" value with } and ]' },
    cwd: null,
    enabled: false,
    withdrawal: 'notify',
    approvedCommand: null,
  });
  const grant = (serverKey, rootKey) => ({
    server: ids[serverKey],
    root: ids[rootKey],
    realPath: dirs[rootKey],
    grantedAtMs: 1_700_000_000_001,
  });
  /** A good file of two folders, two servers and two grants, as the app writes it. */
  const good = () =>
    JSON.stringify(
      {
        version: 1,
        roots: [root('alpha'), root('beta')],
        grants: [grant('files', 'alpha'), grant('notes', 'beta')],
        servers: [server('files', 'Files'), server('notes', 'Notes')],
      },
      null,
      2,
    ) + '\n';

  const cases = [
    {
      name: 'damaged',
      title: 'damaged JSON with some entries of the wrong shape',
      bytes: () => {
        // Whole roots (one of the wrong shape), whole grants (one naming a
        // folder that does not exist), one whole server and one of the wrong
        // shape; then garbage where the second server began.
        const text = JSON.stringify(
          {
            version: 1,
            roots: [root('alpha'), { id: 7, name: ['not', 'a', 'name'] }],
            grants: [grant('files', 'alpha'), { ...grant('files', 'beta'), root: 'root-gone' }],
            servers: [server('files', 'Files'), { name: 3 }, server('notes', 'Notes')],
          },
          null,
          2,
        );
        const at = text.lastIndexOf('{', text.indexOf(`"id": "${ids.notes}"`));
        assert.ok(at > 0);
        return Buffer.from(`${text.slice(0, at)}\u0000\u00ff garbage ${text.slice(at + 20)}`, 'latin1');
      },
      reason:
        /not valid JSON.*before the damage.*1 folder entry could not be read.*1 server entry could not be read.*1 permission named a missing folder or server/,
      counts: [1, 1, 1],
      folders: () => [{ name: 'Folder alpha', path: dirs.alpha, servers: 'Files' }],
      servers: ['Files'],
    },
    {
      name: 'truncated',
      title: 'a file cut short in the middle of its second server',
      bytes: () => {
        const text = good();
        return Buffer.from(text.slice(0, text.indexOf('"Notes"') + 4));
      },
      reason: /cut short.*whole entries before the cut were kept; 1 permission named a missing folder or server/,
      // The grant to Notes goes with Notes.
      counts: [2, 1, 1],
      folders: () => [
        { name: 'Folder alpha', path: dirs.alpha, servers: 'Files' },
        { name: 'Folder beta', path: dirs.beta, servers: 'shared with no one' },
      ],
      servers: ['Files'],
    },
    {
      name: 'empty',
      title: 'an empty file',
      bytes: () => Buffer.alloc(0),
      reason: /the file is empty/,
      counts: [0, 0, 0],
      folders: () => [],
      servers: [],
    },
    {
      name: 'future',
      title: 'a file from a newer Rootgate',
      bytes: () => Buffer.from(good().replace('"version": 1', '"version": 99')),
      reason: /written by a newer Rootgate \(format 99, this one reads 3\)/,
      counts: [0, 0, 0],
      folders: () => [],
      servers: [],
    },
  ];

  for (const c of cases) {
    it(`${c.title}`, async () => {
      const settingsDir = path.dirname(env.settingsFile);
      fs.rmSync(settingsDir, { recursive: true, force: true });
      fs.mkdirSync(settingsDir, { recursive: true, mode: 0o700 });
      const original = c.bytes();
      fs.writeFileSync(env.settingsFile, original, { mode: 0o600 });

      const app = await App.launch();
      try {
        const banner = await app.visible('recovery-banner', {
          message: 'the recovery banner',
        });
        const text = await app.textOf(banner);
        assert.match(text, /Your settings file could not be read in full/);
        assert.match(text, c.reason);
        const [folderCount, grantCount, serverCount] = c.counts;
        const n = (k, one) => `${k} ${one}${k === 1 ? '' : 's'}`;
        assert.ok(
          text.includes(
            `${n(folderCount, 'folder')}, ${n(grantCount, 'permission')} and ${n(serverCount, 'server')} were recovered`,
          ),
          text,
        );

        // The banner names where the bad file went; it is there, untouched.
        const moved = /moved to "([^"]+)"/.exec(text)?.[1];
        assert.ok(moved, `the banner names a path: ${text}`);
        assert.equal(path.dirname(moved), settingsDir, 'kept beside settings.json');
        assert.match(path.basename(moved), /^settings\.json\.unreadable-\d+-\d+$/);
        assert.deepEqual(fs.readFileSync(moved), original, 'the bad file keeps its original bytes');

        // What could be read is shown, and nothing else.
        assert.deepEqual(await folders(app), c.folders());
        assert.deepEqual(await serverNames(app), c.servers);

        // WebKit's screenshot is the last frame it painted: wait for two
        // more, so that the banner (in the DOM already) is in the picture.
        await app.driver.executeAsyncScript(
          'const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(done));',
        );
        await app.screenshot(`recovery-${c.name}`);

        // ...and saved afresh: the new settings.json holds the same.
        const saved = readSettings();
        // Saved in this build's format (2: secrets by reference), whatever
        // the format read.
        assert.equal(saved.version, 3);
        assert.deepEqual(saved.roots.map((r) => r.realPath).sort(), c.folders().map((f) => f.path));
        assert.deepEqual(saved.servers.map((s) => s.name).sort(), c.servers);
        assert.equal(saved.grants.length, grantCount);
      } catch (e) {
        await app.screenshot(`FAIL-recovery-${c.name}`).catch(() => {});
        throw e;
      } finally {
        await app.quit();
      }
    });
  }
});
