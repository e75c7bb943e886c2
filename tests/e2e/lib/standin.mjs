// An AI app for the end-to-end tests: the official TypeScript SDK client
// stand-in (tests/peers/apps/ts_app.mjs), started by the test as Claude
// Desktop or Cursor would start a server, with `rootgate connect NAME` as
// its server's command. It reads one JSON request per line on stdin and
// answers one JSON object per line on stdout, tied to the request by `tag`
// (see the header of ts_app.mjs); what the server sends on its own comes as
// events. Nothing here knows the window; the tests check it.

import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

import { env, TIMEOUT, waitUntil } from './app.mjs';

export class StandIn {
  /**
   * Starts the stand-in with `args` before `--` (e.g. --roots URI, --name
   * NAME) and `command` after it, in `environment` (by default this
   * process's, with the test file's XDG_CONFIG_HOME, so a bridge finds the
   * app's settings and its socket). Waits for the SDK's handshake to end.
   */
  static async start({ args = [], command, environment }) {
    const script = path.join(env.repo, 'tests/peers/apps/ts_app.mjs');
    const child = spawn('node', [script, ...args, '--', ...command], {
      env: environment ?? { ...process.env, XDG_CONFIG_HOME: env.configHome },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const app = new StandIn(child);
    const connected = await app.event((e) => e.event === 'connected' || e.event === 'connectFailed', {
      timeout: TIMEOUT.server,
      message: 'the stand-in AI app to connect to its server',
    });
    if (connected.event !== 'connected') {
      throw new Error(`the stand-in AI app could not connect: ${connected.error}\n${app.stderr()}`);
    }
    app.connected = connected;
    return app;
  }

  constructor(child) {
    this.child = child;
    this.events = [];
    this.answers = new Map();
    this.nextTag = 1;
    this.stderrLines = [];
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    this.exit = null;
    this.exited.then((e) => (this.exit = e));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        this.stderrLines.push(`(not JSON on stdout) ${line}`);
        return;
      }
      if (msg.tag !== undefined) this.answers.set(msg.tag, msg);
      else this.events.push(msg);
    });
    readline.createInterface({ input: child.stderr }).on('line', (line) => {
      // The bridge's and the server's own words; kept short for failures.
      this.stderrLines.push(line);
      if (this.stderrLines.length > 200) this.stderrLines.shift();
    });
  }

  /** What the stand-in, its bridge and the server wrote on stderr. */
  stderr() {
    return this.stderrLines.join('\n');
  }

  /** Waits for an event (a JSON line without a tag) that `matches`. */
  async event(matches, { timeout = TIMEOUT.ui, message = 'an event from the stand-in' } = {}) {
    return waitUntil(
      () => {
        if (this.exit) throw new Error(`the stand-in exited (${JSON.stringify(this.exit)}): ${this.stderr()}`);
        return this.events.find(matches);
      },
      { timeout, message, interval: 20 },
    );
  }

  /** Sends `{op, ...fields}` and returns its `ok`; an `error` answer throws. */
  async request(op, fields = {}, { timeout = TIMEOUT.server } = {}) {
    const tag = this.nextTag++;
    this.child.stdin.write(`${JSON.stringify({ op, ...fields, tag })}\n`);
    const answer = await waitUntil(
      () => {
        const a = this.answers.get(tag);
        if (!a && this.exit) throw new Error(`the stand-in exited (${JSON.stringify(this.exit)}): ${this.stderr()}`);
        return a;
      },
      { timeout, message: `the stand-in's answer to ${op} (tag ${tag})`, interval: 20 },
    );
    this.answers.delete(tag);
    if (answer.error !== undefined) throw new Error(`${op} failed in the stand-in: ${answer.error}`);
    return answer.ok;
  }

  /** Calls one of the server's tools through the app's MCP client. */
  async callTool(name, args = {}) {
    return this.request('callTool', { name, arguments: args });
  }

  /** Closes the client (the bridge then ends) and waits for the process to exit. */
  async close() {
    if (this.exit) return this.exit;
    this.child.stdin.write(`${JSON.stringify({ op: 'close', tag: this.nextTag++ })}\n`);
    return this.waitExit();
  }

  async waitExit({ timeout = TIMEOUT.exit } = {}) {
    await waitUntil(() => this.exit, { timeout, message: 'the stand-in AI app to exit' });
    return this.exit;
  }

  /** Ends it at once, if it still runs (cleanup after a failed step). */
  kill() {
    if (!this.exit) this.child.kill('SIGKILL');
  }
}

/** The URIs of the roots a fixture server's list_roots or ask_roots result names. */
export function rootUris(result) {
  return (result?.structuredContent?.roots ?? []).map((r) => r.uri);
}
