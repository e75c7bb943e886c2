// Reading processes from /proc for scripts/bench-app.sh: which processes
// are the app's own (the app and its WebKit helpers, never the MCP servers
// it started), their CPU time (utime + stime) and their memory (PSS, RSS
// from smaps_rollup). Linux only; reads, never signals.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Clock ticks per second, the unit of utime and stime in /proc/PID/stat. */
export const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

export function pids() {
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map(Number);
}

/** ppid, utime + stime (ticks) and the command name of a process, or null once it is gone. */
export function stat(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces; the fields follow the last ')'.
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const f = text.slice(close + 2).split(' ');
    // f[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
    return { pid, comm, ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return null;
  }
}

export function exe(pid) {
  try {
    return fs.readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return '';
  }
}

export function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

export function environ(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

function childrenMap() {
  const kids = new Map();
  for (const pid of pids()) {
    const s = stat(pid);
    if (!s) continue;
    if (!kids.has(s.ppid)) kids.set(s.ppid, []);
    kids.get(s.ppid).push(pid);
  }
  return kids;
}

function subtree(pid, kids) {
  const out = [pid];
  for (const k of kids.get(pid) ?? []) out.push(...subtree(k, kids));
  return out;
}

/** WebKit's helper processes (and the sandbox tools it may start them with). */
const HELPER = /^(WebKit\w*Process|bwrap|xdg-dbus-proxy)$/;

/**
 * The app's own processes: the app and every helper below it whose program
 * is WebKit's (web, network, GPU process), with their subtrees. The MCP
 * servers the app started (any other child, with its subtree) are returned
 * apart, so idle cost and memory are the app's alone.
 */
export function appTree(appPid) {
  const kids = childrenMap();
  const app = [appPid];
  const servers = [];
  for (const child of kids.get(appPid) ?? []) {
    const name = path.basename(exe(child));
    (HELPER.test(name) ? app : servers).push(...subtree(child, kids));
  }
  return { app, servers };
}

/** Total CPU ticks of each process now, by pid. */
export function ticks(list) {
  const out = new Map();
  for (const pid of list) {
    const s = stat(pid);
    if (s) out.set(pid, s.ticks);
  }
  return out;
}

/** PSS and RSS of a process in kB (smaps_rollup), or null once it is gone. */
export function memory(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { pss: kb('Pss'), rss: kb('Rss') };
  } catch {
    return null;
  }
}

/** A short name for a process in reports: its program's file name. */
export function name(pid) {
  return path.basename(exe(pid)) || stat(pid)?.comm || String(pid);
}

/**
 * The pids running `binary` (not as the built-in example server) whose
 * environment holds XDG_CONFIG_HOME=configHome: how a run finds the app
 * that WebDriver started for it.
 */
export function appPids(binary, configHome) {
  const real = fs.realpathSync(binary);
  const want = `XDG_CONFIG_HOME=${configHome}`;
  return pids().filter(
    (pid) => exe(pid) === real && !cmdline(pid).includes('--example-server') && environ(pid).includes(want),
  );
}

/**
 * Voluntary context switches of each thread of a process so far, by thread
 * id: wake-ups, so a timer or poll that fires shows up even when it costs
 * almost no CPU time.
 */
export function switches(pid) {
  const out = new Map();
  let tasks = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      const text = fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      out.set(tid, Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(text)?.[1] ?? 0));
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** Wake-ups between two `switches` readings (threads that ended meanwhile are left out). */
export function wakeups(before, after) {
  let total = 0;
  for (const [tid, n] of after) total += n - (before.get(tid) ?? 0);
  return total;
}

/**
 * CPU time of each thread of these processes so far, in nanoseconds
 * (/proc/PID/task/TID/schedstat), keyed by "pid/tid": finer than utime and
 * stime (clock ticks), for timing one step of a few milliseconds.
 */
export function threadCpu(list) {
  const out = new Map();
  for (const pid of list) {
    let tasks = [];
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        out.set(`${pid}/${tid}`, Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
      } catch {
        // the thread ended
      }
    }
  }
  return out;
}

/**
 * CPU ms spent between two `threadCpu` readings (threads that ended
 * meanwhile are left out); with `mainOnly`, only each process's main thread
 * (where the page's scripts, style and layout run, and the app's event loop).
 */
export function cpuMsBetween(before, after, mainOnly = false) {
  let ns = 0;
  for (const [key, n] of after) {
    const [pid, tid] = key.split('/');
    if (!mainOnly || pid === tid) ns += n - (before.get(key) ?? 0);
  }
  return ns / 1e6;
}
