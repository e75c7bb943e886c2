#!/usr/bin/env python3
"""Shared server lives (issue #42): N app sessions (N = 1, 5, 20), each
with three servers (the npm filesystem server, the npm everything server
and the PyPI git server), run three ways side by side in one run:

- direct: each session starts its three servers itself, as an app does
  without Rootgate;
- bridges: each session's three servers through `rootgate connect --alone`
  (a bridge process per server per session, each starting its server);
- gate: each through `rootgate connect` (a door per server per session, one
  gate, and one process per server that the sessions share).

Each "session" is this script holding three connections, each initialized
and asked `tools/list`. Counted once all are up, apps excluded: server
processes (node or python), and the total RSS of everything that runs for
the sessions (servers, and Rootgate's doors, gate, bridges and launchers).

With `--workspace`: the npm filesystem server alone, set to Workspace, with
two projects (`a` and `b`) shared; session i works in project a or b in
turn (its working folder, as Claude Code starts its servers), so through
the gate the sessions of one project share a process, one per project.
Directly, each is given its project as the server's argument.

Usage: scripts/bench-shared.py [--bin target/release/rootgate] [--workspace]
Needs tests/peers set up (scripts/setup.sh test). Each run makes its own
settings and folder in a temporary home; nothing of the person's is read.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "tests/peers"
FS = PEERS / "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
EVERYTHING = PEERS / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
GIT = PEERS / ".venv/bin/mcp-server-git"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench-shared", "version": "1"}}}


def servers(work: Path):
    """The three servers: name and command line (run directly, the folder
    as the filesystem and git servers' own argument; through Rootgate, the
    folder is shared with each and given as roots)."""
    return [
        ("files", ["node", str(FS)], [str(work)]),
        ("everything", ["node", str(EVERYTHING), "stdio"], []),
        ("git", [str(GIT)], ["--repository", str(work)]),
    ]


def send(proc, message):
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def answer(proc, id_):
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the connection ended before answering {id_}")
        message = json.loads(line)
        if message.get("id") == id_ and "method" not in message:
            return message


def open_connection(cmd, env, cwd=None):
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=cwd)
    send(proc, INIT)
    reply = answer(proc, 1)
    if "result" not in reply:
        raise RuntimeError(f"{cmd}: {reply}")
    send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tools = answer(proc, 2)
    if "result" not in tools:
        raise RuntimeError(f"{cmd}: {tools}")
    return proc


def processes():
    """Every process: pid -> (ppid, exe name, cmdline bytes)."""
    table = {}
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            ppid = int(Path(p, "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmd = Path(p, "cmdline").read_bytes()
            exe = os.path.basename(os.readlink(p / "exe"))
        except (OSError, IndexError, ValueError):
            continue
        table[int(p.name)] = (ppid, exe, cmd)
    return table


def descendants(table, roots):
    out = set(roots)
    grew = True
    while grew:
        grew = False
        for pid, (ppid, _, _) in table.items():
            if ppid in out and pid not in out:
                out.add(pid)
                grew = True
    return out


def rss_kib(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def is_server(exe, cmd):
    return exe.startswith("node") or exe.startswith("python")


def gates(table, program, settings):
    want = [str(program).encode(), b"gate", b"--settings", str(settings).encode()]
    return [pid for pid, (_, _, cmd) in table.items() if cmd.split(b"\0")[:4] == want]


def run(mode, n, program, env, work, settings, projects=None):
    procs = []
    for i in range(n):
        # A Workspace run: each session works in a project in turn, and
        # the filesystem server alone.
        here = projects[i % len(projects)] if projects else work
        chosen = servers(here)[:1] if projects else servers(work)
        for name, command, own_args in chosen:
            if mode == "direct":
                cmd = command + own_args
            elif mode == "bridges":
                cmd = [str(program), "connect", "--alone", name]
            else:
                cmd = [str(program), "connect", name]
            procs.append(open_connection(cmd, env, cwd=here if projects else None))
    table = processes()
    ours = [p.pid for p in procs]
    if mode == "gate":
        ours += gates(table, program, settings)
    family = descendants(table, ours)
    server_pids = [p for p in family if is_server(table[p][1], table[p][2])]
    total = sum(rss_kib(p) for p in family)
    for p in procs:
        p.stdin.close()
    for p in procs:
        p.wait()
    if mode == "gate":
        # Each N starts from no gate: the servers it kept end with it.
        for pid in gates(processes(), program, settings):
            os.kill(pid, signal.SIGTERM)
        while gates(processes(), program, settings):
            time.sleep(0.05)
    return len(server_pids), total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/rootgate")
    ap.add_argument("--workspace", action="store_true")
    args = ap.parse_args()
    program = Path(args.bin).resolve()
    made = program.parent / "approved-settings"
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        work = home / "work"
        work.mkdir()
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        settings = home / ".config/rootgate/settings.json"
        projects = None
        if args.workspace:
            projects = [work / "a", work / "b"]
            shares = []
            for project in projects:
                project.mkdir()
                shares += ["--share", str(project)]
            name, command, _ = servers(work)[0]
            subprocess.run([str(made), str(settings), name] + shares + ["--workspace"] + command,
                           check=True)
        else:
            for name, command, _ in servers(work):
                subprocess.run([str(made), str(settings), name, "--share", str(work)] + command,
                               check=True)
        env = dict(os.environ, XDG_CONFIG_HOME=str(home / ".config"), HOME=str(home))
        print("| sessions | mode | server processes | total RSS, apps excluded (MiB) | against direct |")
        print("|---|---|---|---|---|")
        for n in (1, 5, 20):
            direct = None
            for mode in ("direct", "bridges", "gate"):
                count, kib = run(mode, n, program, env, work, settings, projects)
                direct = direct or kib
                print(f"| {n} | {mode} | {count} | {kib / 1024:.1f} | {100 * kib / direct:.0f} % |",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
