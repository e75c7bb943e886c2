"""A hostile MCP server: it tries, from wherever it runs, every way out of a
held server's sandbox that issue #39 found open under Landlock alone.

It speaks MCP over stdio with the standard library only (newline-delimited
JSON-RPC, the 2025-11-25 `initialize`), so it needs nothing a sandbox might
hide. Its tool `escapes` tries each escape now and returns a JSON object:
for each escape's name, `{"reached": bool, "said": "..."}`, where `said` is
what it got, in its own words (what it read, or the error). Its tool
`read` tries one file an app names (`{"path": ...}`), whatever folders the
server was given, and answers the same way: a held server shared by the
sessions of one project must not read another project's files.

What it aims at comes from its environment, as a hostile program would find
it on a desktop (the test sets these to things it made):
  HOSTILE_BUS       the session bus address (unix:path=...)
  HOSTILE_AGENT     an ssh-agent socket path
  HOSTILE_WINDOW    a listening Unix socket path (Rootgate's window's)
  HOSTILE_ABSTRACT  the name of a listening abstract Unix socket
  HOSTILE_VICTIM    a process id outside its own (signal 0 is sent)
  HOSTILE_MARKER    a word on another process's command line
  HOSTILE_PORT      a TCP port listening on 127.0.0.1
  HOSTILE_SETTINGS  Rootgate's settings file
  HOME              where `~/.ssh/id_rsa` is read from
Arguments: `--look DIR` reads DIR/.ssh/id_rsa (a folder named on its own
command line); the working folder is tried as `./.ssh/id_rsa`.
"""
import json
import os
import socket
import struct
import sys


def _env(name):
    return os.environ.get(name, "")


def _look_dir():
    if "--look" in sys.argv:
        return sys.argv[sys.argv.index("--look") + 1]
    return None


def _unix(path_or_name, abstract=False):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(("\0" + path_or_name) if abstract else path_or_name)
    return s


def _bus():
    address = _env("HOSTILE_BUS")
    path = address.split("unix:path=", 1)[-1].split(",", 1)[0]
    s = _unix(path)
    # The bus's own handshake: a NUL byte, then SASL EXTERNAL with our uid.
    uid = str(os.getuid()).encode().hex()
    s.sendall(b"\0AUTH EXTERNAL " + uid.encode() + b"\r\n")
    answer = s.recv(512).decode(errors="replace").strip()
    s.close()
    if not answer.startswith("OK"):
        raise OSError("the bus answered " + answer)
    return "authenticated to the session bus at " + path + ": " + answer


def _agent():
    s = _unix(_env("HOSTILE_AGENT"))
    # SSH2_AGENTC_REQUEST_IDENTITIES; the answer is IDENTITIES_ANSWER (12).
    s.sendall(struct.pack(">IB", 1, 11))
    head = s.recv(9)
    s.close()
    if len(head) < 9 or head[4] != 12:
        raise OSError("the agent answered %r" % head)
    count = struct.unpack(">I", head[5:9])[0]
    return "ssh-agent listed %d key(s)" % count


def _window():
    s = _unix(_env("HOSTILE_WINDOW"))
    s.close()
    return "connected to the window's socket " + _env("HOSTILE_WINDOW")


def _abstract():
    s = _unix(_env("HOSTILE_ABSTRACT"), abstract=True)
    s.close()
    return "connected to the abstract socket @" + _env("HOSTILE_ABSTRACT")


def _signal_victim():
    pid = int(_env("HOSTILE_VICTIM"))
    os.kill(pid, 0)
    return "signal 0 reached process %d" % pid


def _signal_parent():
    pid = os.getppid()
    os.kill(pid, 0)
    return "signal 0 reached my parent, process %d" % pid


def _proc():
    marker = _env("HOSTILE_MARKER").encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                line = f.read()
        except OSError:
            continue
        if marker and marker in line:
            return "read process %s's command line: %s" % (
                entry,
                line.replace(b"\0", b" ").decode(errors="replace").strip(),
            )
    raise OSError("no process with the marker on its command line is visible")


def _read(path):
    with open(path, "rb") as f:
        data = f.read()
    return "read %d bytes of %s: %r" % (len(data), path, data[:40])


def _tcp():
    s = socket.create_connection(("127.0.0.1", int(_env("HOSTILE_PORT"))), timeout=5)
    s.close()
    return "connected to 127.0.0.1:" + _env("HOSTILE_PORT")


def _via_argument():
    folder = _look_dir()
    if folder is None:
        raise OSError("no folder was named on my command line")
    return _read(os.path.join(folder, ".ssh", "id_rsa"))


ESCAPES = {
    "session_bus": _bus,
    "ssh_agent": _agent,
    "window_socket": _window,
    "abstract_socket": _abstract,
    "signal_other_process": _signal_victim,
    "signal_parent": _signal_parent,
    "other_processes_in_proc": _proc,
    "home_ssh_key": lambda: _read(os.path.join(_env("HOME"), ".ssh", "id_rsa")),
    "settings_file": lambda: _read(_env("HOSTILE_SETTINGS")),
    "via_working_folder": lambda: _read(os.path.join(".ssh", "id_rsa")),
    "via_argument": _via_argument,
    "tcp_loopback": _tcp,
}


def escapes():
    report = {}
    for name, attempt in ESCAPES.items():
        try:
            report[name] = {"reached": True, "said": attempt()}
        except Exception as e:  # Each failure is the answer, in words.
            report[name] = {"reached": False, "said": "%s: %s" % (type(e).__name__, e)}
    return report


TOOLS = [
    {
        "name": "escapes",
        "description": "Try every way out of the sandbox and say what each did.",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "read",
        "description": "Try to read any file, whatever folders it was given, and say what happened.",
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
]


def read(path):
    try:
        return {"reached": True, "said": _read(path)}
    except Exception as e:  # The failure is the answer, in words.
        return {"reached": False, "said": "%s: %s" % (type(e).__name__, e)}


def answer(message):
    method = message.get("method")
    if method == "initialize":
        return {
            "protocolVersion": message["params"].get("protocolVersion", "2025-11-25"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "rootgate-test-hostile", "version": "1"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call" and message["params"].get("name") == "escapes":
        text = json.dumps(escapes())
        return {"content": [{"type": "text", "text": text}]}
    if method == "tools/call" and message["params"].get("name") == "read":
        path = message["params"].get("arguments", {}).get("path", "")
        return {"content": [{"type": "text", "text": json.dumps(read(path))}]}
    if method == "ping":
        return {}
    return None


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue  # Notifications and answers to anything we asked.
        result = answer(message)
        if result is None:
            reply = {"jsonrpc": "2.0", "id": message["id"],
                     "error": {"code": -32601, "message": "method not found"}}
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
