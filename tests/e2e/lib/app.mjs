// The harness every end-to-end test uses: it opens the real Rootgate binary
// in a WebKit window through tauri-driver (WebDriver), finds elements by the
// UI's data-testid contract, waits for conditions with bounded timeouts, takes
// screenshots and checks that the app's process (and the servers it started)
// really exit when a session ends.
//
// It does not start Xvfb or tauri-driver: scripts/e2e.sh does, one
// tauri-driver per test file, started with that file's own XDG_CONFIG_HOME
// (the app inherits tauri-driver's environment; WebDriver has no env option),
// and hands over what it started in E2E_* variables. Nothing here knows
// Rootgate's screens beyond the test ids; the flows are in flows.mjs.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { Builder, By, Key } from 'selenium-webdriver';

export { By, Key };

const run = promisify(execFile);

function required(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: run the end-to-end tests with scripts/e2e.sh ` +
        '(e.g. `bash scripts/e2e.sh tests/e2e/main.test.mjs`), which builds the app, ' +
        'starts Xvfb and tauri-driver and sets it',
    );
  }
  return value;
}

/** What scripts/e2e.sh started for this test file. */
export const env = {
  get webdriverUrl() {
    return required('E2E_WEBDRIVER_URL');
  },
  /** The app built with the `e2e-picker` feature. */
  get app() {
    return required('E2E_APP');
  },
  /** The app built without it: the real GTK folder dialog. */
  get appReal() {
    return required('E2E_APP_REAL');
  },
  /** The `rootgate` command (crates/rootgate-cli): what AI apps run as `rootgate connect NAME`. */
  get rootgateCli() {
    return required('E2E_ROOTGATE_CLI');
  },
  /** The XDG_CONFIG_HOME tauri-driver (and so the app) runs with. */
  get configHome() {
    return required('E2E_CONFIG_HOME');
  },
  get settingsFile() {
    return path.join(this.configHome, 'rootgate', 'settings.json');
  },
  get screenshots() {
    return required('E2E_SCREENSHOTS');
  },
  get repo() {
    return required('E2E_REPO');
  },
};

/** Bounds of the waits, in ms. Generous: a cold WebKit and a cold Python take seconds on 2 cores. */
export const TIMEOUT = {
  ui: 10_000,
  server: 45_000,
  exit: 20_000,
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Thrown by a wait's condition to fail the wait at once (a server that failed). */
export class GiveUp extends Error {}

/**
 * Waits until `condition()` returns a truthy value and returns it; an error
 * thrown by the condition (a stale element, a missing file) counts as "not
 * yet", except a `GiveUp`, which fails the wait at once. Fails after
 * `timeout` ms with `message` and the last value or error.
 */
export async function waitUntil(condition, { timeout = TIMEOUT.ui, message = 'condition', interval = 100 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
      last = value;
    } catch (e) {
      if (e instanceof GiveUp) throw e;
      last = e;
    }
    if (Date.now() >= deadline) {
      const detail = last instanceof Error ? `${last.name}: ${last.message}` : JSON.stringify(last);
      throw new Error(`timed out after ${timeout} ms waiting for ${message} (last: ${detail})`);
    }
    await sleep(interval);
  }
}

export const byTestId = (id) => By.css(`[data-testid="${id}"]`);

/**
 * One running app: a WebDriver session on the real binary, with helpers
 * that find elements by test id.
 */
export class App {
  /** The app launched last and not yet quit (for failure screenshots). */
  static current = null;

  constructor(driver, binary) {
    this.driver = driver;
    this.binary = binary;
    this.pid = null;
  }

  /**
   * Starts `binary` (by default the e2e-picker build) with `args` and waits
   * until the UI has drawn its navigation.
   */
  static async launch({ binary = env.app, args = [] } = {}) {
    const before = new Set(appPids(binary));
    const driver = await new Builder()
      .usingServer(env.webdriverUrl)
      .withCapabilities({
        browserName: 'wry',
        'tauri:options': { application: binary, args },
      })
      .build();
    const app = new App(driver, binary);
    try {
      const pids = await waitUntil(() => appPids(binary).filter((p) => !before.has(p)), {
        message: 'the app process to appear',
      });
      app.pid = pids.length === 1 ? pids[0] : null;
      await app.visible('nav-folders', { timeout: 20_000, message: 'the app window to show its navigation' });
    } catch (e) {
      await driver.quit().catch(() => {});
      throw e;
    }
    App.current = app;
    return app;
  }

  /** All elements with this test id (inside `within`, if given). */
  async all(id, within) {
    return (within ?? this.driver).findElements(byTestId(id));
  }

  /** All displayed elements with this test id. */
  async shown(id, within) {
    const out = [];
    for (const el of await this.all(id, within)) {
      try {
        if (await el.isDisplayed()) out.push(el);
      } catch {
        // went stale while looking: not shown
      }
    }
    return out;
  }

  /**
   * Whether an element with this test id is in the page at all, displayed or
   * not (a dialog fading in is not "displayed" yet): for "there is none".
   */
  async isPresent(id, within) {
    return (await this.all(id, within)).length > 0;
  }

  /** Whether an element with this test id is displayed now. */
  async isShown(id, within) {
    return (await this.shown(id, within)).length > 0;
  }

  /** Waits for exactly one displayed element with this id and returns it. */
  async visible(id, { within, timeout = TIMEOUT.ui, message } = {}) {
    return waitUntil(
      async () => {
        const els = await this.shown(id, within);
        if (els.length > 1) throw new Error(`${els.length} elements with data-testid="${id}" are shown`);
        return els[0];
      },
      { timeout, message: message ?? `[data-testid="${id}"] to be shown` },
    );
  }

  /** Waits until no element with this id is in the page. */
  async gone(id, { timeout = TIMEOUT.ui, message } = {}) {
    await waitUntil(async () => !(await this.isPresent(id)), {
      timeout,
      message: message ?? `[data-testid="${id}"] to go away`,
    });
  }

  /** Waits for the element to be shown and enabled, then clicks it. */
  async click(id, { within, timeout } = {}) {
    const el = await this.visible(id, { within, timeout });
    await waitUntil(() => el.isEnabled(), { timeout, message: `[data-testid="${id}"] to be enabled` });
    await el.click();
    return el;
  }

  /** Replaces what a text field holds by typing `text` into it. */
  async type(id, text, { within } = {}) {
    const el = await this.visible(id, { within });
    await el.clear();
    // Typing clears nothing the framework does not see; select-all + delete
    // makes sure a value set by a template is gone too.
    await el.sendKeys(Key.chord(Key.CONTROL, 'a'), Key.DELETE);
    // A newline is typed as the Enter key (WebKitWebDriver drops "\n").
    const keys = text.split('\n').flatMap((line, i) => (i === 0 ? [line] : [Key.ENTER, line]));
    if (text !== '') await el.sendKeys(...keys.filter((k) => k !== ''));
    const value = await el.getAttribute('value');
    if (value !== text) throw new Error(`typed ${JSON.stringify(text)} into ${id} but it holds ${JSON.stringify(value)}`);
    return el;
  }

  /**
   * The text of an element as the DOM holds it, spaces collapsed. Not
   * WebDriver's getText: WebKit gives "" for anything behind an open modal
   * dialog (the page under it is inert).
   */
  async textOf(el) {
    const text = await this.driver.executeScript('return arguments[0].textContent', el);
    return text.replace(/\s+/g, ' ').trim();
  }

  /** The text of the one displayed element with this test id. */
  async text(id, { within } = {}) {
    return this.textOf(await this.visible(id, { within }));
  }

  /** Saves a WebDriver screenshot of the window as NAME.png. */
  async screenshot(name) {
    // A dialog fades in: wait (briefly) for finite animations to end, so the
    // picture shows what a person reads, not a frame of the fade. Endless
    // ones (a busy spinner) are left running.
    await waitUntil(
      () =>
        this.driver.executeScript(() =>
          document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
        ),
      { timeout: 2_000, message: 'animations to end before the screenshot' },
    ).catch(() => {});
    fs.mkdirSync(env.screenshots, { recursive: true });
    const file = path.join(env.screenshots, `${name}.png`);
    fs.writeFileSync(file, await this.driver.takeScreenshot(), 'base64');
    return file;
  }

  /** The processes the app started (its servers), by pid. */
  children() {
    return this.pid ? childPids(this.pid) : [];
  }

  /**
   * Ends the session and waits until the app process and every server it
   * had started have exited.
   */
  async quit() {
    const pids = [this.pid, ...this.children()].filter(Boolean).map((pid) => [pid, cmdline(pid)]);
    if (App.current === this) App.current = null;
    await this.driver.quit();
    await waitUntil(() => pids.every(([pid, cmd]) => cmdline(pid) !== cmd), {
      timeout: TIMEOUT.exit,
      message: `the app and its servers to exit (${pids.map(([p, c]) => `${p}: ${c}`).join('; ')})`,
    });
  }
}

// ----- processes ------------------------------------------------------------

/** The command line of a process, or null once it is gone. */
export function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ') || null;
  } catch {
    return null;
  }
}

function processes() {
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number);
}

function environOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/**
 * Pids of `binary` running as the app (not as the built-in example server)
 * with this test file's XDG_CONFIG_HOME.
 */
export function appPids(binary) {
  const real = fs.realpathSync(binary);
  const want = `XDG_CONFIG_HOME=${env.configHome}`;
  return processes().filter((pid) => {
    try {
      if (fs.readlinkSync(`/proc/${pid}/exe`) !== real) return false;
    } catch {
      return false;
    }
    return !(cmdline(pid) ?? '').includes('--example-server') && environOf(pid).includes(want);
  });
}

export function childPids(parent) {
  return processes().filter((pid) => {
    try {
      // The command name in parentheses may hold spaces; the ppid follows it.
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
    } catch {
      return false;
    }
  });
}

// ----- files ----------------------------------------------------------------

/** A fresh temporary directory under the system's; removed by `cleanup`. */
export function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function cleanup(...dirs) {
  if (process.env.E2E_KEEP) return;
  for (const dir of dirs) if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

/** The settings file as the app last wrote it (null when there is none yet). */
export function readSettings() {
  try {
    return JSON.parse(fs.readFileSync(env.settingsFile, 'utf8'));
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw e;
  }
}

/** Saves the whole X screen (not just the webview) as NAME.png with ImageMagick. */
export async function screenshotScreen(name) {
  fs.mkdirSync(env.screenshots, { recursive: true });
  const file = path.join(env.screenshots, `${name}.png`);
  await run('import', ['-window', 'root', file], { timeout: 20_000 });
  return file;
}

/** The same quoting as the core's `shell_quote`: what the approval dialog shows. */
export function shellQuote(word) {
  return word !== '' && /^[A-Za-z0-9\-_./:=@%+,]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

export function commandLine(command, args = []) {
  return [command, ...args].map(shellQuote).join(' ');
}
