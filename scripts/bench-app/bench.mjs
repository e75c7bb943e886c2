// Measures the app itself (issue 6, "The app itself"), run by
// scripts/bench-app.sh under Xvfb with release builds:
//
// 1. Start-up: from launch to a window showing the saved folders and
//    servers, against a bare Tauri window (crates/bare-window), both
//    launched the same way (tauri-driver -> WebKitWebDriver) in the same
//    run, interleaved. Launch = just before the WebDriver session is
//    requested; shown = the page's `app-ready` performance mark, which both
//    pages set by the same rule (content in the DOM, then one frame drawn),
//    read as wall-clock time (performance.timeOrigin + mark). Rootgate runs
//    with 20 servers that start at once, 20 that take 3 s to start, and none.
// 2. Idle cost and memory: each app launched directly (no WebDriver), with
//    20 running servers for Rootgate; after it settles, the CPU time
//    (utime + stime from /proc) of the app's own processes (the app and its
//    WebKit helpers, not the servers) over BENCH_IDLE_SECONDS, then their
//    PSS and RSS.
// 3. Long lists: 1,000 folders and one server whose timeline holds 100,000
//    entries; opening the views and scrolling them, each step timed in the
//    page (see page.mjs).
//
// It writes .ci/out/bench-app/results.json and summary.md. Benchmarks, not
// tests: nothing here fails on a time.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { READY_SCRIPT, STEP_SCRIPT } from './page.mjs';
import * as procs from './procs.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// selenium-webdriver is installed for the end-to-end tests; use that copy.
const { Builder } = createRequire(path.join(repo, 'tests/e2e/package.json'))('selenium-webdriver');

const num = (name, fallback) => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number, not ${JSON.stringify(v)}`);
  return n;
};

const cfg = {
  runs: num('BENCH_RUNS', 7),
  idleRuns: num('BENCH_IDLE_RUNS', 3),
  idleSeconds: num('BENCH_IDLE_SECONDS', 60),
  listRuns: num('BENCH_LIST_RUNS', 3),
  servers: num('BENCH_SERVERS', 20),
  folders: num('BENCH_FOLDERS', 1000),
  timeline: num('BENCH_TIMELINE', 100_000),
  // How many of them the window is expected to show (an older build kept 20,000).
  timelineKept: num('BENCH_TIMELINE_KEPT', num('BENCH_TIMELINE', 100_000)),
  slowStartSeconds: num('BENCH_SLOW_START_SECONDS', 3),
  only: (process.env.BENCH_ONLY ?? 'startup,idle,lists').split(',').map((s) => s.trim()),
  rootgate: process.env.BENCH_ROOTGATE || path.join(repo, 'target/release/rootgate-desktop'),
  bare: process.env.BENCH_BARE || path.join(repo, 'target/release/bare-window'),
  driver: path.join(repo, '.ci/tools/bin/tauri-driver'),
  out: path.join(repo, '.ci/out/bench-app'),
  python: ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => fs.existsSync(p)) ?? 'python3',
};

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rootgate-bench-app.'));
fs.mkdirSync(cfg.out, { recursive: true });
const results = { started: new Date().toISOString(), config: { ...cfg }, uptime: uptime() };
const cleanups = [];

// ----- small helpers -------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const say = (...a) => console.error('bench-app:', ...a);

function uptime() {
  try {
    const [one, five, fifteen] = fs.readFileSync('/proc/loadavg', 'utf8').split(' ');
    return `load average: ${one}, ${five}, ${fifteen} (${os.cpus().length} cores)`;
  } catch {
    return 'unknown';
  }
}

function median(xs) {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
const max = (xs) => Math.max(...xs.filter((x) => Number.isFinite(x)));
const min = (xs) => Math.min(...xs.filter((x) => Number.isFinite(x)));
const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

async function waitUntil(what, condition, { timeout = 60_000, interval = 50 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    let value;
    try {
      value = await condition();
    } catch {
      value = null;
    }
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await sleep(interval);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function portOpen(port) {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1', () => {
      c.destroy();
      resolve(true);
    });
    c.on('error', () => resolve(false));
  });
}

// The same quoting as the core's `shell_quote`: the approved command line
// must be exactly what Rootgate computes, or the server waits for approval.
const shellQuote = (w) => (w !== '' && /^[A-Za-z0-9\-_./:=@%+,]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`);
const commandLine = (command, args) => [command, ...args].map(shellQuote).join(' ');

// ----- settings --------------------------------------------------------------

/** A fresh XDG_CONFIG_HOME holding a settings file with these folders and servers. */
function configHome(label, { folders = [], servers = [], grants = [] }) {
  const home = path.join(work, label, 'config');
  const dir = path.join(home, 'rootgate');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const now = Date.now();
  const settings = {
    version: 1,
    roots: folders.map((f) => ({ id: f.id, name: f.name, chosenPath: f.path, realPath: f.path, addedAtMs: now })),
    grants: grants.map(([server, root]) => ({
      server,
      root,
      realPath: folders.find((f) => f.id === root).path,
      grantedAtMs: now,
    })),
    servers: servers.map((s) => ({
      id: s.id,
      name: s.name,
      command: s.command,
      args: s.args,
      env: {},
      cwd: null,
      enabled: true,
      withdrawal: 'notify',
      approvedCommand: commandLine(s.command, s.args),
    })),
  };
  const file = path.join(dir, 'settings.json');
  fs.writeFileSync(file, JSON.stringify(settings, null, 2), { mode: 0o600 });
  return { home, file, settings };
}

/** `count` real folders to share, with names of varied length. */
function makeFolders(label, count) {
  const base = path.join(work, label, 'folders');
  const words = ['notes', 'client-work', 'photos 2024', 'thesis', 'mcp-experiments', 'invoices', 'site'];
  const out = [];
  for (let i = 1; i <= count; i++) {
    const name = `${words[i % words.length]}-${String(i).padStart(4, '0')}`;
    const dir = path.join(base, name);
    fs.mkdirSync(dir, { recursive: true });
    out.push({ id: `root-bench-${String(i).padStart(4, '0')}`, name, path: fs.realpathSync(dir) });
  }
  return out;
}

/** Our example server, `count` times; each appends what it is told to its own report file. */
function exampleServers(label, count, { slowStart = 0 } = {}) {
  const reports = path.join(work, label, 'reports');
  fs.mkdirSync(reports, { recursive: true });
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(2, '0');
    const report = path.join(reports, `server-${n}.jsonl`);
    const own = ['--example-server', '--report', report, '--name', `bench-${n}`];
    // A slow start: the shell waits, then becomes the server.
    const [command, args] =
      slowStart > 0 ? ['/bin/sh', ['-c', `sleep ${slowStart}; exec "$0" "$@"`, cfg.rootgate, ...own]] : [cfg.rootgate, own];
    return { id: `srv-bench-${n}`, name: `Example ${n}`, command, args, report };
  });
}

const reportsIn = (servers) => servers.filter((s) => {
  try {
    return fs.statSync(s.report).size > 0;
  } catch {
    return false;
  }
}).length;

// ----- launching --------------------------------------------------------------

/** A tauri-driver whose apps get this XDG_CONFIG_HOME (they inherit its environment). */
async function startDriver(home, label) {
  const port = await freePort();
  let native = await freePort();
  while (native === port) native = await freePort();
  const log = fs.openSync(path.join(cfg.out, `${label}.tauri-driver.log`), 'w');
  const child = spawn(cfg.driver, ['--port', String(port), '--native-port', String(native)], {
    env: { ...process.env, XDG_CONFIG_HOME: home, RUST_LOG: 'warn' },
    stdio: ['ignore', log, log],
  });
  cleanups.push(() => child.kill());
  await waitUntil(`tauri-driver on :${port}`, () => portOpen(port), { timeout: 20_000 });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** Starts `binary` over WebDriver; returns the session and the wall-clock ms just before it was asked for. */
async function wdLaunch(driver, binary) {
  const t0 = Date.now();
  const session = await new Builder()
    .usingServer(driver.url)
    .withCapabilities({ browserName: 'wry', 'tauri:options': { application: binary, args: [] } })
    .build();
  return { session, t0, sessionMs: Date.now() - t0 };
}

/** Ends a WebDriver session and waits until the app and everything it started have exited. */
async function wdQuit(session, pids) {
  await session.quit().catch(() => {});
  await waitForExit(pids);
}

async function waitForExit(pids) {
  const alive = () => pids.filter((pid) => procs.stat(pid) && procs.stat(pid).comm !== 'zombie');
  try {
    await waitUntil('the app and its servers to exit', () => alive().length === 0, { timeout: 30_000, interval: 100 });
  } catch (e) {
    // Only processes this run started, by pid.
    for (const pid of alive()) {
      say(`still running after 30 s, killing ${pid} ${procs.cmdline(pid)}`);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/** The app process WebDriver started for this config home. */
async function findApp(binary, home) {
  const found = await waitUntil('the app process', () => {
    const p = procs.appPids(binary, home);
    return p.length === 1 ? p : null;
  }, { timeout: 20_000 });
  return found[0];
}

// ----- 1. start-up -------------------------------------------------------------

async function startup() {
  const folders = makeFolders('startup', 10);
  const variants = [];
  variants.push({ key: 'bare', label: 'bare Tauri window', binary: cfg.bare, home: configHome('bare', {}).home });
  for (const [key, label, slowStart] of [
    ['rootgate', `Rootgate, 10 folders, ${cfg.servers} servers`, 0],
    ['rootgate-slow', `Rootgate, 10 folders, ${cfg.servers} servers taking ${cfg.slowStartSeconds} s to start`, cfg.slowStartSeconds],
  ]) {
    const servers = exampleServers(key, cfg.servers, { slowStart });
    const grants = servers.flatMap((s) => folders.map((f) => [s.id, f.id]));
    variants.push({ key, label, binary: cfg.rootgate, servers, home: configHome(key, { folders, servers, grants }).home });
  }
  variants.push({
    key: 'rootgate-empty',
    label: 'Rootgate, 10 folders, no servers',
    binary: cfg.rootgate,
    home: configHome('rootgate-empty', { folders }).home,
  });
  for (const v of variants) v.driver = await startDriver(v.home, `startup-${v.key}`);

  const samples = Object.fromEntries(variants.map((v) => [v.key, []]));
  // One warm-up launch of each (page cache, fontconfig), not counted; then
  // the runs, each launching every variant in a rotating order.
  for (let run = 0; run <= cfg.runs; run++) {
    const order = variants.map((_, i) => variants[(i + run) % variants.length]);
    for (const v of order) {
      for (const s of v.servers ?? []) fs.rmSync(s.report, { force: true });
      const { session, t0, sessionMs } = await wdLaunch(v.driver, v.binary);
      const pid = await findApp(v.binary, v.home);
      const ready = await waitUntil(`${v.key} to mark app-ready`, () => session.executeScript(READY_SCRIPT), {
        timeout: 60_000,
        interval: 20,
      });
      // CPU time the app's own processes used until now: start-up work
      // that does not depend on how busy the machine is.
      const cpuMs = ([...procs.ticks(procs.appTree(pid).app).values()].reduce((a, b) => a + b, 0) * 1000) / procs.CLK_TCK;
      const sample = {
        run,
        ms: ready.origin + ready.ready - t0,
        cpuMs,
        navigationStartMs: ready.origin - t0,
        sessionMs,
        folderRows: ready.folderRows,
        folderCount: ready.folderCount,
        serverCount: ready.serverCount,
      };
      if (v.servers) {
        // Servers start in the background: how long until every one has
        // been told its folders (its report file has a line), from launch.
        await waitUntil(`${v.key}'s servers to run`, () => reportsIn(v.servers) === v.servers.length, {
          timeout: 60_000,
        });
        sample.serversToldMs = Date.now() - t0;
      }
      const { app, servers } = procs.appTree(pid);
      await wdQuit(session, [...app, ...servers]);
      if (run > 0) samples[v.key].push(sample);
      say(`start-up run ${run}${run === 0 ? ' (warm-up)' : ''}: ${v.key} ${fmt(sample.ms)} ms (servers ${sample.serverCount ?? '-'})`);
    }
  }
  for (const v of variants) v.driver.child.kill();
  const bare = median(samples.bare.map((s) => s.ms));
  results.startup = variants.map((v) => {
    const ms = samples[v.key].map((s) => s.ms);
    return {
      key: v.key,
      label: v.label,
      medianMs: median(ms),
      minMs: min(ms),
      maxMs: max(ms),
      ratio: median(ms) / bare,
      cpuMs: median(samples[v.key].map((s) => s.cpuMs)),
      cpuRatio: median(samples[v.key].map((s) => s.cpuMs)) / median(samples.bare.map((s) => s.cpuMs)),
      // Ratios run by run (each run launches every variant once).
      runRatios: samples[v.key].map((s, i) => s.ms / samples.bare[i].ms),
      navigationStartMs: median(samples[v.key].map((s) => s.navigationStartMs)),
      serversToldMs: v.servers ? median(samples[v.key].map((s) => s.serversToldMs)) : null,
      serverCountAtReady: samples[v.key].map((s) => s.serverCount),
      folderRowsAtReady: samples[v.key].map((s) => s.folderRows),
      samples: samples[v.key],
    };
  });
}

// ----- 2. idle cost and memory ------------------------------------------------

async function idle() {
  const folders = makeFolders('idle', 10);
  const servers = exampleServers('idle', cfg.servers);
  const grants = servers.flatMap((s) => folders.map((f) => [s.id, f.id]));
  const apps = [
    { key: 'bare', label: 'bare Tauri window', binary: cfg.bare, home: configHome('idle-bare', {}).home },
    {
      key: 'rootgate',
      label: `Rootgate, ${cfg.servers} running servers`,
      binary: cfg.rootgate,
      servers,
      home: configHome('idle-rootgate', { folders, servers, grants }).home,
    },
  ];
  const samples = Object.fromEntries(apps.map((a) => [a.key, []]));
  for (let run = 0; run < cfg.idleRuns; run++) {
    for (const a of run % 2 ? [...apps].reverse() : apps) {
      for (const s of a.servers ?? []) fs.rmSync(s.report, { force: true });
      const log = fs.openSync(path.join(cfg.out, `idle-${a.key}-${run}.log`), 'w');
      const launched = Date.now();
      const child = spawn(a.binary, [], {
        env: { ...process.env, XDG_CONFIG_HOME: a.home, RUST_LOG: 'warn' },
        stdio: ['ignore', log, log],
      });
      cleanups.push(() => child.kill());
      // Settled, for both apps alike: every server has been told its
      // folders, at least 10 s since launch, and then the app's processes
      // used at most one clock tick in 3 s (start-up is over), or 60 s
      // passed (an app that never goes quiet is measured as it is).
      if (a.servers) {
        await waitUntil('the servers to be told their folders', () => reportsIn(a.servers) === a.servers.length, {
          timeout: 60_000,
        });
      }
      await sleep(Math.max(0, 10_000 - (Date.now() - launched)));
      const quietBy = Date.now() + 60_000;
      for (;;) {
        const t = procs.ticks(procs.appTree(child.pid).app);
        await sleep(3_000);
        const u = procs.ticks(procs.appTree(child.pid).app);
        const used = [...t].reduce((sum, [pid, x]) => sum + ((u.get(pid) ?? x) - x), 0);
        if (used <= 1 || Date.now() > quietBy) break;
      }
      const settledMs = Date.now() - launched;
      const tree = procs.appTree(child.pid);
      const before = procs.ticks(tree.app);
      const serversBefore = procs.ticks(tree.servers);
      const wakeupsBefore = new Map(tree.app.map((pid) => [pid, procs.switches(pid)]));
      const t0 = process.hrtime.bigint();
      await sleep(cfg.idleSeconds * 1000);
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const after = procs.ticks(tree.app);
      const serversAfter = procs.ticks(tree.servers);
      const delta = (b, a2) => [...b].reduce((sum, [pid, t]) => sum + ((a2.get(pid) ?? t) - t), 0);
      const perProcess = tree.app.map((pid) => ({
        pid,
        name: procs.name(pid),
        cpuMs: (((after.get(pid) ?? 0) - (before.get(pid) ?? 0)) * 1000) / procs.CLK_TCK,
        wakeupsPerSecond: procs.wakeups(wakeupsBefore.get(pid) ?? new Map(), procs.switches(pid)) / seconds,
        ...procs.memory(pid),
      }));
      const sample = {
        run,
        settledMs,
        seconds,
        cpuPercent: ((delta(before, after) / procs.CLK_TCK) / seconds) * 100,
        serversCpuPercent: ((delta(serversBefore, serversAfter) / procs.CLK_TCK) / seconds) * 100,
        wakeupsPerSecond: perProcess.reduce((s, p) => s + p.wakeupsPerSecond, 0),
        pssKb: perProcess.reduce((s, p) => s + (p.pss ?? 0), 0),
        rssKb: perProcess.reduce((s, p) => s + (p.rss ?? 0), 0),
        servers: tree.servers.length,
        processes: perProcess,
      };
      samples[a.key].push(sample);
      say(
        `idle run ${run}: ${a.key} ${fmt(sample.cpuPercent, 3)}% of a core over ${fmt(seconds, 1)} s, ` +
          `PSS ${fmt(sample.pssKb / 1024, 1)} MiB, RSS ${fmt(sample.rssKb / 1024, 1)} MiB ` +
          `(${perProcess.map((p) => `${p.name} ${fmt(p.cpuMs)} ms, ${fmt(p.wakeupsPerSecond, 1)} wake-ups/s`).join('; ')}; ` +
          `${tree.servers.length} server processes; settled after ${fmt(settledMs / 1000, 1)} s)`,
      );
      // SIGTERM ends the app; its servers see stdin close and exit.
      child.kill('SIGTERM');
      await waitForExit([...tree.app, ...tree.servers]);
    }
  }
  results.idle = apps.map((a) => ({
    key: a.key,
    label: a.label,
    cpuPercent: median(samples[a.key].map((s) => s.cpuPercent)),
    cpuPercentMax: max(samples[a.key].map((s) => s.cpuPercent)),
    wakeupsPerSecond: median(samples[a.key].map((s) => s.wakeupsPerSecond)),
    pssMiB: median(samples[a.key].map((s) => s.pssKb)) / 1024,
    rssMiB: median(samples[a.key].map((s) => s.rssKb)) / 1024,
    samples: samples[a.key],
  }));
}

// ----- 3. long lists -------------------------------------------------------------

const LIST = {
  bare: '[role="list"][aria-label="Plain rows"]',
  folders: '[role="list"][aria-label="Folders"]',
  timeline: '[role="list"][aria-label^="Timeline of"]',
  activity: '[role="list"][aria-label="Activity of all servers"]',
};
const nav = (view) => `[data-testid="nav-${view}"]`;

// A plain page of 1,000 rows of text, 66 px each (as tall as a folder row),
// not virtualised, put into the bare window: what scrolling costs on this
// machine when a page does nothing but scroll.
const PLAIN_ROWS = `
  document.body.innerHTML = '';
  document.body.style.setProperty('margin', '0');
  const list = document.createElement('div');
  list.setAttribute('role', 'list');
  list.setAttribute('aria-label', 'Plain rows');
  for (const [k, v] of [['height', '560px'], ['overflow-y', 'auto'], ['margin', '150px 30px 0 250px'], ['--row-h', '66px']]) list.style.setProperty(k, v);
  for (let i = 0; i < 1000; i++) {
    const row = document.createElement('div');
    row.setAttribute('role', 'listitem');
    row.setAttribute('aria-posinset', String(i + 1));
    row.setAttribute('aria-setsize', '1000');
    row.style.setProperty('height', '66px');
    row.style.setProperty('border-bottom', '1px solid #ddd');
    row.style.setProperty('box-sizing', 'border-box');
    row.textContent = 'folder-' + i + '  /home/me/projects/folder-' + i;
    list.appendChild(row);
  }
  document.body.appendChild(list);
`;

/**
 * Runs one step in the page (page.mjs) and records its time in the page,
 * and the CPU time of the app's own processes over it (and WebDriver's
 * small share of it): what the step costs however busy the machine is.
 */
async function runStep(session, own, steps, name, spec, round) {
  const before = procs.threadCpu(own);
  const r = await session.executeAsyncScript(STEP_SCRIPT, spec);
  const after = procs.threadCpu(own);
  const cpuMs = procs.cpuMsBetween(before, after);
  const mainMs = procs.cpuMsBetween(before, after, true);
  if (r.error) throw new Error(`step "${name}" failed: ${r.error} (after ${fmt(r.ms)} ms)`);
  // A step that also waited for rows loading in the background: its CPU
  // time is the whole load's, reported with the load, not as the step's.
  if (r.then) r.then.cpuMs = cpuMs;
  steps.push({ name, round, ms: r.ms, cpuMs: r.then ? NaN : cpuMs, mainMs: r.then ? NaN : mainMs, frames: r.frames, shown: r.shown, phases: r.phases });
  if (process.env.BENCH_VERBOSE) {
    const then = r.then ? `; all in after ${fmt(r.then.ms)} ms, longest frame gap ${fmt(r.then.longestFrameGapMs, 1)} ms` : '';
    say(`  ${name}: ${fmt(r.ms, 1)} ms, CPU ${fmt(cpuMs, 1)} ms (main threads ${fmt(mainMs, 1)})${then}`);
  }
  return r;
}

/** The same scrolls in every list: wheel, page down and up, jumps. */
async function scrollSteps(session, own, steps, list, items, round, label) {
  const v = LIST[list];
  const run = (name, spec) => runStep(session, own, steps, `${label}: ${name}`, { action: 'scroll', viewport: v, minItems: items, ...spec }, round);
  await run('to the top', { to: 'top' });
  for (let i = 0; i < 10; i++) await run('wheel down (120 px)', { by: 120 });
  for (let i = 0; i < 10; i++) await run('page down', { pages: 1 });
  await run('jump to the middle', { to: 'middle' });
  for (let i = 0; i < 10; i++) await run('page up', { pages: -1 });
  await run('jump to the end', { to: 'end' });
  await run('jump to the top', { to: 'top' });
}

async function lists() {
  const folders = makeFolders('lists', cfg.folders);
  const done = path.join(work, 'lists', 'flood.done');
  const flood = {
    id: 'srv-bench-flood',
    name: 'Flood',
    command: cfg.python,
    args: [path.join(repo, 'scripts/bench-app/flood_server.py'), '--count', String(cfg.timeline), '--done', done],
  };
  // The flood server sees one folder: every answer it gets names it.
  const { home } = configHome('lists', { folders, servers: [flood], grants: [[flood.id, folders[0].id]] });
  const steps = [];
  const bareDriver = await startDriver(configHome('lists-bare', {}).home, 'lists-bare');
  try {
    const { session } = await wdLaunch(bareDriver, cfg.bare);
    await session.manage().setTimeouts({ script: 300_000 });
    const pid = await findApp(cfg.bare, path.join(work, 'lists-bare', 'config'));
    await waitUntil('the bare window', () => session.executeScript(READY_SCRIPT), { timeout: 60_000 });
    await session.executeScript(PLAIN_ROWS);
    await sleep(1_000);
    const own = procs.appTree(pid).app;
    for (let round = 0; round < cfg.listRuns; round++) {
      await scrollSteps(session, own, steps, 'bare', 1000, round, 'bare window, plain 1,000-row page');
    }
    const { app } = procs.appTree(pid);
    await wdQuit(session, app);
  } finally {
    bareDriver.child.kill();
  }
  const driver = await startDriver(home, 'lists');
  const memory = {};
  const timelineLoads = [];
  try {
    const { session, t0 } = await wdLaunch(driver, cfg.rootgate);
    // A step that loads 100,000 entries may take long on a busy machine.
    await session.manage().setTimeouts({ script: 300_000 });
    const pid = await findApp(cfg.rootgate, home);
    const ready = await waitUntil('app-ready', () => session.executeScript(READY_SCRIPT), { timeout: 60_000, interval: 20 });
    results.listsStartupMs = ready.origin + ready.ready - t0;
    const own = procs.appTree(pid).app;
    const run = (name, spec, round) => runStep(session, own, steps, name, spec, round);
    const scrolls = (list, items, round, label) => scrollSteps(session, own, steps, list, items, round, label);
    const memNow = () => {
      const { app } = procs.appTree(pid);
      return Object.fromEntries(app.map((p) => [`${procs.name(p)} ${p}`, procs.memory(p)]));
    };

    memory.atStart = memNow();
    say(`lists: ${cfg.folders} folders shown; waiting for the flood server's ${cfg.timeline} roots/list requests`);
    const floodStarted = Date.now();
    await waitUntil('the flood server to be answered', () => fs.existsSync(done), { timeout: 600_000, interval: 200 });
    results.floodSeconds = JSON.parse(fs.readFileSync(done, 'utf8').split('\n')[0]).seconds;
    results.floodWallSeconds = (Date.now() - floodStarted) / 1000;
    say(`lists: the flood server was answered ${cfg.timeline} times in ${fmt(results.floodSeconds, 1)} s`);
    await sleep(3_000); // let the last event batches reach the window
    memory.afterFlood = memNow();

    for (let round = 0; round < cfg.listRuns; round++) {
      say(`lists round ${round}`);
      // Folders: opened from another view, then scrolled.
      await session.executeScript(`document.querySelector('${nav('servers')}').click()`);
      await sleep(500);
      await run(`open Folders view (${cfg.folders} folders)`, { action: 'click', selector: nav('folders'), viewport: LIST.folders, minItems: cfg.folders }, round);
      await scrolls('folders', cfg.folders, round, 'folders');
      // One server's timeline.
      await session.executeScript(`document.querySelector('${nav('servers')}').click()`);
      await waitUntil('the server list', () => session.executeScript(`return document.querySelector('[data-server-id="${flood.id}"] [data-testid="server-name-label"]') !== null`));
      const detail = await run(
        `open a server's timeline (${cfg.timeline} entries): newest rows shown`,
        {
          action: 'click',
          selector: `[data-server-id="${flood.id}"] [data-testid="server-name-label"]`,
          viewport: LIST.timeline,
          untilItems: cfg.timelineKept,
          timeoutMs: 120_000,
        },
        round,
      );
      results.timelineShown = detail.then.size;
      timelineLoads.push(detail.then);
      await scrolls('timeline', cfg.timelineKept, round, 'timeline');
      // Everything every server did, merged.
      const activity = await run('open Activity view', { action: 'click', selector: nav('activity'), viewport: LIST.activity, minItems: 1, timeoutMs: 60_000 }, round);
      results.activityShown = activity.shown.size;
      await scrolls('activity', 1, round, 'activity');
    }
    memory.afterViews = memNow();
    const { app, servers } = procs.appTree(pid);
    await wdQuit(session, [...app, ...servers]);
  } finally {
    driver.child.kill();
  }
  const names = [...new Set(steps.map((s) => s.name))];
  results.lists = names.map((name) => {
    const mine = steps.filter((s) => s.name === name);
    const ms = mine.map((s) => s.ms);
    const cpu = mine.map((s) => s.cpuMs);
    const main = mine.map((s) => s.mainMs);
    return {
      name,
      count: ms.length,
      medianMs: median(ms),
      maxMs: max(ms),
      cpuMedianMs: median(cpu),
      cpuMaxMs: max(cpu),
      mainMedianMs: median(main),
      mainMaxMs: max(main),
      phases: phaseMedians(mine),
    };
  });
  results.listSteps = steps;
  results.timelineLoads = timelineLoads;
  results.listMemory = memory;
}

/**
 * Medians of the parts of a step's time (page.mjs): the page's script, the
 * wait for the frame after it, styling and laying out that frame, and the
 * rest of it up to a task after it. Only steps shown in one frame, whose
 * parts add up to the whole; null when there are none.
 */
function phaseMedians(steps) {
  const one = steps.filter((s) => s.frames === 1 && s.phases);
  if (one.length === 0) return null;
  const script = one.map((s) => s.phases.scriptMs ?? 0);
  return {
    count: one.length,
    scriptMs: median(script),
    waitMs: median(one.map((s, i) => s.phases.frameAtMs - script[i])),
    layoutMs: median(one.map((s) => s.phases.layoutMs)),
    restMs: median(one.map((s) => s.phases.restMs)),
  };
}

// ----- report ---------------------------------------------------------------------

function summary() {
  const lines = [];
  lines.push(`Machine load at start: ${results.uptime}; at end: ${results.uptimeEnd}.`);
  if (results.startup) {
    lines.push('', `### Start-up (launch to the window showing its content; median of ${cfg.runs} runs, interleaved)`, '');
    lines.push('| app | median ms | min–max ms | ratio to bare (median) | run-by-run ratios | CPU ms until shown (ratio) | page starts loading (ms) | all servers told their folders (ms) | servers shown at ready |');
    lines.push('|---|---:|---:|---:|---|---:|---:|---:|---|');
    for (const s of results.startup) {
      lines.push(
        `| ${s.label} | ${fmt(s.medianMs)} | ${fmt(s.minMs)}–${fmt(s.maxMs)} | ${fmt(s.ratio, 2)}× | ${s.runRatios.map((r) => fmt(r, 2)).join(' ')} | ${fmt(s.cpuMs)} (${fmt(s.cpuRatio, 2)}×) | ${fmt(s.navigationStartMs)} | ${s.serversToldMs === null ? '–' : fmt(s.serversToldMs)} | ${[...new Set(s.serverCountAtReady)].join(', ') || '–'} |`,
      );
    }
  }
  if (results.idle) {
    lines.push('', `### Idle cost and memory (${cfg.idleSeconds} s idle per run; median of ${cfg.idleRuns} runs)`, '');
    lines.push('| app | CPU, % of one core (median; max) | wake-ups/s | PSS MiB | RSS MiB | processes counted | servers\' own CPU % |');
    lines.push('|---|---:|---:|---:|---:|---|---:|');
    for (const a of results.idle) {
      const procNames = a.samples[0]?.processes.map((p) => p.name).join(', ');
      lines.push(
        `| ${a.label} | ${fmt(a.cpuPercent, 3)}; ${fmt(a.cpuPercentMax, 3)} | ${fmt(a.wakeupsPerSecond, 1)} | ${fmt(a.pssMiB, 1)} | ${fmt(a.rssMiB, 1)} | ${procNames} | ${a.key === 'bare' ? '–' : fmt(median(a.samples.map((s) => s.serversCpuPercent)), 3)} |`,
      );
    }
    const [bare, rg] = results.idle;
    if (bare && rg) lines.push('', `Rootgate / bare: PSS ${fmt(rg.pssMiB / bare.pssMiB, 2)}×, RSS ${fmt(rg.rssMiB / bare.rssMiB, 2)}×.`);
  }
  if (results.lists) {
    lines.push('', `### Long lists (${cfg.folders} folders, a timeline of ${cfg.timeline} entries; ${cfg.listRuns} rounds)`, '');
    lines.push(`Start-up with ${cfg.folders} folders: ${fmt(results.listsStartupMs)} ms. The flood server's ${cfg.timeline} roots/list requests were answered in ${fmt(results.floodSeconds, 1)} s. Rows in the timeline: ${results.timelineShown}; in Activity: ${results.activityShown}.`, '');
    const loads = results.timelineLoads ?? [];
    if (loads.length > 0) {
      lines.push(
        `All ${cfg.timelineKept} timeline entries were in after ${loads.map((l) => fmt(l.ms)).join(', ')} ms (each round), ` +
          `using ${loads.map((l) => fmt(l.cpuMs)).join(', ')} ms of CPU; ` +
          `the longest gap between two frames while they loaded: ${loads.map((l) => fmt(l.longestFrameGapMs, 1)).join(', ')} ms.`,
        '',
      );
    }
    lines.push('| step | times | wall ms, median | wall ms, max | CPU ms, median (max) | main threads\' CPU ms, median (max) |');
    lines.push('|---|---:|---:|---:|---:|---:|');
    for (const s of results.lists) {
      lines.push(
        `| ${s.name} | ${s.count} | ${fmt(s.medianMs, 1)} | ${fmt(s.maxMs, 1)} | ${fmt(s.cpuMedianMs, 1)} (${fmt(s.cpuMaxMs, 1)}) | ${fmt(s.mainMedianMs, 1)} (${fmt(s.mainMaxMs, 1)}) |`,
      );
    }
    const split = results.lists.filter((s) => s.phases && s.name.startsWith('open'));
    if (split.length > 0) {
      lines.push(
        '',
        'Where opening a view spends its time (medians over the openings shown in one frame): the page\'s script (the click and the view it renders), ' +
          'the wait for the next frame, WebKit styling and laying out that frame, and the rest of the frame (resize observers, the updates they cause, painting).',
        '',
        '| step | times | script ms | wait ms | style and layout ms | rest of the frame ms |',
        '|---|---:|---:|---:|---:|---:|',
      );
      for (const s of split) {
        const p = s.phases;
        lines.push(`| ${s.name} | ${p.count} | ${fmt(p.scriptMs, 1)} | ${fmt(p.waitMs, 1)} | ${fmt(p.layoutMs, 1)} | ${fmt(p.restMs, 1)} |`);
      }
    }
    const mem = (m) => Object.entries(m ?? {}).map(([k, v]) => `${k.split(' ')[0]} ${fmt((v?.rss ?? 0) / 1024, 1)}`).join(', ');
    lines.push('', `RSS MiB at start: ${mem(results.listMemory.atStart)}; after the flood: ${mem(results.listMemory.afterFlood)}; after opening the views: ${mem(results.listMemory.afterViews)}.`);
  }
  return lines.join('\n');
}

async function main() {
  for (const bin of [cfg.rootgate, cfg.bare, cfg.driver]) {
    if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run scripts/bench-app.sh, which builds it`);
  }
  say(`work dir ${work}; ${results.uptime}`);
  if (cfg.only.includes('startup')) await startup();
  if (cfg.only.includes('idle')) await idle();
  if (cfg.only.includes('lists')) await lists();
  results.uptimeEnd = uptime();
  results.finished = new Date().toISOString();
  fs.writeFileSync(path.join(cfg.out, 'results.json'), JSON.stringify(results, null, 2));
  const text = summary();
  fs.writeFileSync(path.join(cfg.out, 'summary.md'), text + '\n');
  console.log(text);
}

try {
  await main();
} finally {
  for (const c of cleanups) {
    try {
      c();
    } catch {
      // already gone
    }
  }
  if (!process.env.BENCH_KEEP) fs.rmSync(work, { recursive: true, force: true });
}
