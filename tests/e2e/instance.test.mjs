// One Rootgate per settings file, and a first run that starts from the AI
// apps found, end to end in the real app under Xvfb.
//
// Four AI apps are set up on this "machine" with five servers between
// them, each in its own config file as the app's documentation writes it,
// under the XDG_CONFIG_HOME the app runs with: Claude Desktop
// (claude_desktop_config.json, two servers), VS Code (Code/User/mcp.json,
// JSONC with a comment), Zed (zed/settings.json, context_servers with
// trailing commas) and Goose (goose/config.yaml, extensions). The first run
// leads with them ("Found Claude Desktop, VS Code, Zed and Goose with 5
// servers") and its button opens the Apps view; the sidebar lists Apps
// beside Servers.
//
// Then, while the window is open: `rootgate FOLDER` (the real command, as a
// terminal runs it) hands the folder to the window and exits at once, and
// the window shows its consent prompt; starting the app binary again, as
// the menu entry does, with a folder and without one, hands over or only
// raises the window, and exits. Through all of it there is one app
// process, which alone holds the settings' lock. Screenshots go to
// .ci/out/screenshots/ (instance-*.png).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { promisify } from 'node:util';

import { App, appPids, cleanup, env, screenshotScreen, tempDir, TIMEOUT, waitUntil } from './lib/app.mjs';
import { notices, showView } from './lib/flows.mjs';
import { step } from './lib/steps.mjs';

const run = promisify(execFile);

/** The AI apps' own files, as each app's documentation writes them. */
function writeAppConfigs(configHome, work) {
  const write = (rel, text) => {
    const file = path.join(configHome, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  };
  write(
    'Claude/claude_desktop_config.json',
    `${JSON.stringify(
      {
        mcpServers: {
          filesystem: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', path.join(work, 'Desktop')],
          },
          memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        },
      },
      null,
      2,
    )}\n`,
  );
  write(
    'Code/User/mcp.json',
    `{
  // Servers VS Code starts for Copilot's agent mode.
  "servers": {
    "git": {
      "type": "stdio",
      "command": "uvx",
      "args": ["mcp-server-git", "--repository", "${path.join(work, 'repo')}"]
    }
  },
  "inputs": []
}
`,
  );
  write(
    'zed/settings.json',
    `// Zed settings
{
  "vim_mode": true,
  "context_servers": {
    "time": {
      "source": "custom",
      "command": "uvx",
      "args": ["mcp-server-time", "--local-timezone=Europe/Berlin",],
      "env": {},
    },
  },
}
`,
  );
  write(
    'goose/config.yaml',
    `GOOSE_PROVIDER: anthropic
extensions:
  fetch:
    name: fetch
    type: stdio
    cmd: uvx
    args:
    - mcp-server-fetch
    enabled: true
    envs: {}
    timeout: 300
`,
  );
}

/** Runs `program` with `args` on the app's settings, as a terminal or the menu would; its output and status. */
async function start(program, args) {
  try {
    const { stdout, stderr } = await run(program, args, {
      env: { ...process.env, XDG_CONFIG_HOME: env.configHome },
      timeout: TIMEOUT.server,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '', signal: e.signal };
  }
}

/**
 * Waits for two frames, so that a screenshot shows what the page holds now:
 * WebKit hands WebDriver the last frame it painted, which right after a
 * change can still be the one before.
 */
async function painted(app) {
  await app.driver.executeAsyncScript((done) => requestAnimationFrame(() => requestAnimationFrame(() => done())));
}

/** The real paths of the folders the consent dialogs open now ask about, reading each and cancelling it. */
async function consentPaths(app) {
  const out = [];
  while (await app.isShown('consent-dialog')) {
    out.push(await app.text('consent-real-path'));
    await app.click('consent-cancel');
    await waitUntil(async () => !(await app.isShown('consent-dialog')) || (await app.text('consent-real-path')) !== out.at(-1), {
      message: 'the next consent dialog or none',
    });
  }
  return out;
}

describe('one Rootgate per settings file; the first run leads with the AI apps found', () => {
  let base, work, notes, drafts, app;

  before(() => {
    base = tempDir('rootgate-e2e-instance-');
    work = path.join(base, 'home');
    notes = path.join(work, 'notes');
    drafts = path.join(work, 'drafts');
    fs.mkdirSync(notes, { recursive: true });
    fs.mkdirSync(drafts, { recursive: true });
    writeAppConfigs(env.configHome, work);
  });

  after(async () => {
    if (app) await app.quit().catch(() => {});
    cleanup(base);
  });

  step('the first run names the apps found and their servers, before the example server', async () => {
    app = await App.launch();
    const found = await app.visible('first-run-found', { timeout: TIMEOUT.server, message: 'the apps found on the first run' });
    assert.equal(
      await app.text('first-run-found-text'),
      'Found Claude Desktop, VS Code, Zed and Goose with 5 servers: bring them under Rootgate.',
    );
    assert.ok(await app.isShown('first-run-apps', found), 'the lead button is in the found block');
    // The sidebar lists Apps beside Servers.
    const order = await app.driver.executeScript(() =>
      [...document.querySelectorAll('nav.sidebar [data-testid^="nav-"]')].map((e) => e.dataset.testid),
    );
    assert.deepEqual(order, ['nav-folders', 'nav-servers', 'nav-apps', 'nav-connections', 'nav-activity', 'nav-questions', 'nav-settings']);
    await painted(app);
    await app.screenshot('instance-first-run-apps-found');
    await screenshotScreen('instance-first-run-apps-found-screen');
  });

  step('`rootgate FOLDER` while the window is open: the window asks about it, the command exits', async () => {
    const before = appPids(env.app);
    assert.equal(before.length, 1, `one app process: ${before}`);
    const out = await start(env.rootgateCli, [notes]);
    assert.equal(out.code, 0, `rootgate exited: ${JSON.stringify(out)}`);
    assert.equal(out.stdout.trim(), 'Rootgate is open already: it asks you about the folder in its window.');
    await app.visible('consent-dialog', { message: 'the consent prompt of the folder handed over' });
    assert.equal(await app.text('consent-real-path'), fs.realpathSync(notes));
    await painted(app);
    await app.screenshot('instance-handed-over-prompt');
    assert.deepEqual(await consentPaths(app), [fs.realpathSync(notes)]);
    assert.deepEqual(appPids(env.app), before, 'no second app process');
  });

  step('starting the app again from the menu hands its folders over, or only raises the window, and exits', async () => {
    const before = appPids(env.app);
    // The desktop entry runs the app binary itself (`Exec=rootgate-desktop %F`).
    const withFolders = await start(env.app, [drafts, path.join(work, 'gone')]);
    assert.equal(withFolders.code, 1, `one folder was refused: ${JSON.stringify(withFolders)}`);
    assert.equal(withFolders.stdout.trim(), 'Rootgate is open already: it asks you about the folder in its window.');
    assert.match(withFolders.stderr, /gone/);
    await app.visible('consent-dialog', { message: 'the prompt of the folder the second start handed over' });
    assert.equal(await app.text('consent-real-path'), fs.realpathSync(drafts));
    // The refused folder is a notice in the window too.
    await waitUntil(async () => (await notices(app)).some((n) => n.includes('gone')), {
      message: 'the refusal as a notice',
    });
    await painted(app);
    await app.screenshot('instance-second-start-prompt');
    assert.deepEqual(await consentPaths(app), [fs.realpathSync(drafts)]);

    const bare = await start(env.app, []);
    assert.equal(bare.code, 0, JSON.stringify(bare));
    assert.equal(bare.stdout.trim(), 'Rootgate is open already; its window was brought to the front.');
    assert.equal(await app.isShown('consent-dialog'), false);
    assert.deepEqual(appPids(env.app), before, 'still one app process');
    // The one app holds the lock; the settings file was written by it alone.
    assert.ok(fs.existsSync(path.join(env.configHome, 'rootgate', 'settings.json.lock')));
    assert.equal(
      fs.readFileSync(path.join(env.configHome, 'rootgate', 'settings.json.lock'), 'utf8').trim(),
      String(before[0]),
    );
  });

  step('the first run\'s button opens the Apps view with the apps found', async () => {
    await showView(app, 'folders');
    await app.click('first-run-apps');
    await app.visible('apps-view', { message: 'the Apps view from the first run' });
    for (const kind of ['claude-desktop', 'vscode', 'zed', 'goose']) {
      await app.visible(`app-card-${kind}`, { message: `the ${kind} card` });
    }
    await painted(app);
    await app.screenshot('instance-apps-from-first-run');
  });
});
