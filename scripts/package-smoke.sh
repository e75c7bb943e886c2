#!/usr/bin/env bash
# Installs a Rootgate Debian package (scripts/package.sh makes one), checks
# what it installed from where it installed it, and removes it again:
#
#   - the files: /usr/bin/rootgate (on PATH), rootgate-desktop and
#     rootgate-launcher beside it, the desktop entry (desktop-file-validate,
#     when installed) and its icon;
#   - /usr/bin/rootgate --version (the package's version), --help, apps,
#     and servers --json (which reads the settings below as approved);
#   - `rootgate connect` as an AI app runs it, with settings (in a temporary
#     home) that share one folder with the built-in example server: raw
#     JSON-RPC on pipes (initialize, initialized, tools/list, and the
#     example's ask_roots tool, which must answer exactly the shared folder),
#     then the same through the official TypeScript SDK client
#     (tests/peers/apps/ts_app.mjs, when scripts/setup.sh test installed it);
#   - under a virtual X display (when xvfb-run is installed), plain
#     `rootgate` opens the installed desktop app found beside it, which
#     shows its window and starts the example server through the launcher;
#   - held servers: the package depends on bubblewrap, and `rootgate connect`
#     starts the example server with enforced roots, held in its sandbox by
#     /usr/bin/rootgate-launcher, told exactly the shared folder;
#   - apt-get remove: every file is gone, the settings folder is untouched.
#
#   scripts/package-smoke.sh PATH/TO/Rootgate_VERSION_ARCH.deb
#
# Runs as root or with sudo (apt-get only; the checks run as you). Safe to
# rerun: an installed Rootgate package is replaced, and whatever happens the
# package is removed at the end and the temporary home deleted. Nothing it
# runs can reach your own settings or a running Rootgate window: HOME,
# XDG_CONFIG_HOME and XDG_RUNTIME_DIR point into the temporary folder, and
# DISPLAY and WAYLAND_DISPLAY are unset but for the desktop app's start.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD

say() { printf '\033[1mpackage-smoke:\033[0m %s\n' "$*"; }
ok() { printf '  ok   %s\n' "$*"; }
skip() { printf '  skip %s\n' "$*"; }
die() { printf 'package-smoke: FAIL: %s\n' "$*" >&2; exit 1; }

[ $# = 1 ] || die "usage: scripts/package-smoke.sh PATH/TO/PACKAGE.deb"
deb=$(realpath -e "$1" 2>/dev/null) || die "no such file: $1"
name=$(dpkg-deb -f "$deb" Package 2>/dev/null) && [ -n "$name" ] || die "$deb is not a Debian package"
version=$(dpkg-deb -f "$deb" Version)

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "need root to run: $* (install sudo or run as root)"
  fi
}
# apt-get's and dpkg's output goes to a log, shown when it fails.
apt_get() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -y -q "$@" > "$work/apt.log" 2>&1 ||
    { cat "$work/apt.log" >&2; die "apt-get $* failed"; }
}
is_installed() { [ "$(dpkg-query -W -f '${db:Status-Status}' "$name" 2>/dev/null)" = installed ]; }

work=$(mktemp -d "${TMPDIR:-/tmp}/rootgate-package-smoke.XXXXXX")
home=$work/home
# On any failure or interruption: remove the package if it is still there,
# delete the temporary folder.
cleanup() {
  local status=$?
  trap - EXIT
  if [ $status != 0 ] && is_installed; then
    echo "package-smoke: removing $name after the failure" >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -y -q remove "$name" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The installed commands, run as an AI app or a person would run them, but
# in the temporary home and never with a display.
isolated() {
  env -u DISPLAY -u WAYLAND_DISPLAY HOME="$home" XDG_CONFIG_HOME="$home/.config" \
    XDG_RUNTIME_DIR="$work/run" "$@"
}
rg() { isolated timeout 60 /usr/bin/rootgate "$@"; }
now() { date +%s%N; }
since() { local ms=$((($(now) - $1) / 1000000)); printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100)); }

mkdir -p "$home/.config" "$work/run"
chmod 700 "$work/run"

# ----- install ---------------------------------------------------------------
if is_installed; then
  say "$name $(dpkg-query -W -f '${Version}' "$name") is installed already: it is replaced, then removed"
fi
say "installing $deb"
t=$(now)
apt_get install --reinstall "$deb"
is_installed || die "$name is not installed after apt-get install"
ok "installed $name $version ($(since "$t"))"

# ----- files -----------------------------------------------------------------
for bin in rootgate rootgate-desktop rootgate-installer rootgate-launcher rootgate-door; do
  [ -x "/usr/bin/$bin" ] || die "/usr/bin/$bin is missing or not executable"
  [ "$(dpkg-query -S "/usr/bin/$bin" 2>/dev/null | cut -d: -f1)" = "$name" ] ||
    die "/usr/bin/$bin is not $name's"
done
ok "/usr/bin/rootgate, rootgate-desktop, rootgate-installer, rootgate-launcher and rootgate-door, from $name"
# `rootgate install` runs /usr/bin/rootgate-installer: a file that is not a
# bundle is refused by the bundle reader there, in words.
printf 'not a zip\n' > "$home/not-a-bundle.mcpb"
said=$(rg install --dry-run "$home/not-a-bundle.mcpb" 2>&1 || true)
grep -q 'it is not a zip file, which an MCP bundle is' <<<"$said" ||
  die "rootgate install did not reach the bundle reader: $said"
ok "rootgate install runs rootgate-installer, which refused a file that is not a bundle"
[ "$(PATH=/usr/local/bin:/usr/bin:/bin command -v rootgate)" = /usr/bin/rootgate ] ||
  die "rootgate on a default PATH is not /usr/bin/rootgate"
ok "rootgate on a default PATH is /usr/bin/rootgate"
desktop=$(dpkg-query -L "$name" | grep -E '^/usr/share/applications/[^/]+\.desktop$' || true)
[ "$(printf '%s\n' "$desktop" | grep -c .)" = 1 ] || die "expected one desktop entry, found: ${desktop:-none}"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$desktop" || die "$desktop is not a valid desktop entry"
  ok "$desktop is valid (desktop-file-validate)"
else
  skip "desktop-file-validate (apt package desktop-file-utils) is not installed"
fi
exec_bin=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$desktop")
[ "$(command -v "$exec_bin")" = /usr/bin/rootgate-desktop ] ||
  die "the desktop entry runs $exec_bin, not /usr/bin/rootgate-desktop"
icon=$(sed -n 's/^Icon=//p' "$desktop")
icons=$(dpkg-query -L "$name" | grep -cE "^/usr/share/icons/hicolor/[0-9]+x[0-9]+/apps/$icon\.png$" || true)
[ "$icons" -ge 1 ] || die "no icon $icon in the package"
ok "the desktop entry runs $exec_bin, with icon $icon in $icons sizes"
grep -qx 'MimeType=application/x-mcpb;' "$desktop" ||
  die "the desktop entry does not open MCP bundles (MimeType=application/x-mcpb;)"
mime=/usr/share/mime/packages/rootgate.xml
[ "$(dpkg-query -S "$mime" 2>/dev/null | cut -d: -f1)" = "$name" ] || die "$mime is not $name's"
# shared-mime-info's dpkg trigger compiles the type into the database; a
# file manager then knows a .mcpb file, and opens it with the entry above.
if command -v update-mime-database >/dev/null; then
  [ -f /usr/share/mime/application/x-mcpb.xml ] ||
    die "the MIME database does not know application/x-mcpb after installing"
  ok "a .mcpb file is application/x-mcpb, opened with $desktop"
else
  skip "the MIME database (apt package shared-mime-info) is not installed"
fi

# ----- the command -----------------------------------------------------------
got=$(rg --version) || die "rootgate --version failed"
[ "$got" = "rootgate $version" ] || die "rootgate --version says \"$got\", the package is $version"
ok "rootgate --version: $got"
rg --help > "$work/help" || die "rootgate --help failed"
grep -q 'rootgate connect NAME' "$work/help" || die "rootgate --help does not mention connect"
ok "rootgate --help"
rg apps > "$work/apps" 2>&1 || { cat "$work/apps" >&2; die "rootgate apps failed"; }
ok "rootgate apps: $(head -1 "$work/apps")"

# Settings as the window writes them: the example server, approved, shares
# one folder; a second folder is kept but shared with nobody. A held copy of
# the example (enforced roots) shares it too, started through a probe that
# says, in the shared folder, whether it sees Rootgate's settings file.
mkdir -p "$work/shared folder" "$work/not shared"
report=$(realpath "$work/shared folder")/held-report
cat > "$work/probe.sh" <<PROBE
#!/bin/sh
if [ -e "\$HOME/.config/rootgate/settings.json" ]; then
  echo "not held: the settings file is visible" > "$report"
else
  echo "held: neither the settings file nor the home folder is there" > "$report"
fi
exec "\$1" --example-server
PROBE
python3 - "$home/.config/rootgate/settings.json" "$work" <<'PY'
import json, os, sys
path, work = sys.argv[1], sys.argv[2]
probe = os.path.join(work, "probe.sh")
os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
def root(i, folder):
    real = os.path.realpath(os.path.join(work, folder))
    return {"id": f"root-{i:016x}", "name": folder, "chosenPath": real,
            "realPath": real, "addedAtMs": 1_700_000_000_000}
shared, kept = root(1, "shared folder"), root(2, "not shared")
settings = {
    "version": 1,
    "roots": [shared, kept],
    "grants": [{"server": "srv-00000000000000e1", "root": shared["id"],
                "realPath": shared["realPath"], "grantedAtMs": 1_700_000_000_001}],
    "servers": [{"id": "srv-00000000000000e1", "name": "example",
                 "command": "/usr/bin/rootgate", "args": ["--example-server"],
                 "env": {}, "cwd": None, "enabled": True, "withdrawal": "notify",
                 "approvedCommand": "/usr/bin/rootgate --example-server"},
                {"id": "srv-00000000000000e2", "name": "held",
                 "command": "/bin/sh", "args": [probe, "/usr/bin/rootgate"],
                 "env": {}, "cwd": None, "enabled": False, "withdrawal": "notify",
                 "enforceRoots": True,
                 "approvedCommand": f"/bin/sh {probe} /usr/bin/rootgate"}],
}
# The held copy of the example shares the same folder.
settings["grants"].append(dict(settings["grants"][0], server="srv-00000000000000e2"))
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
with os.fdopen(fd, "w") as f:
    json.dump(settings, f, indent=2)
PY
shared=$(realpath "$work/shared folder")
rg servers --json > "$work/servers.json" || die "rootgate servers failed"
python3 - "$work/servers.json" "$shared" <<'PY' || die "rootgate servers does not list the example server as set up"
import json, sys
rows = json.load(open(sys.argv[1]))
assert [(r["name"], r["approved"], r["enabled"], r["folders"]) for r in rows] == \
    [("example", True, True, [sys.argv[2]]), ("held", True, False, [sys.argv[2]])], rows
PY
ok "rootgate servers --json: example and its held copy, approved, sharing one folder"

# ----- rootgate connect --------------------------------------------------------
# One MCP client session, as an AI app has it, checked in Python: raw
# JSON-RPC on pipes (`raw`), or through the TypeScript SDK app stand-in
# (`sdk`), whose driver protocol is one JSON object a line each way.
cat > "$work/connect.py" <<'PY'
import json, os, select, subprocess, sys, time, urllib.parse
mode, shared, *command = sys.argv[1:]
child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
buffer = b""
def send(message):
    child.stdin.write((json.dumps(message) + "\n").encode())
    child.stdin.flush()
def receive(deadline):
    """The next line from the child, as JSON."""
    global buffer
    while b"\n" not in buffer:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([child.stdout], [], [], left)[0]:
            sys.exit(f"{mode}: no answer in time")
        chunk = os.read(child.stdout.fileno(), 65536)
        if not chunk:
            sys.exit(f"{mode}: the connection closed; exit status {child.wait()}")
        buffer += chunk
    line, buffer = buffer.split(b"\n", 1)
    return json.loads(line)
def wait_for(match):
    deadline = time.monotonic() + 30
    while True:
        message = receive(deadline)
        if match(message):
            return message
        if mode == "raw" and "method" in message and "id" in message:
            # A request to the app (none is expected): answered, not ignored.
            send({"jsonrpc": "2.0", "id": message["id"],
                  "error": {"code": -32601, "message": "not supported here"}})
def check_roots(result):
    roots = result["structuredContent"]["roots"]
    paths = [urllib.parse.unquote(urllib.parse.urlparse(r["uri"]).path) for r in roots]
    assert paths == [shared], f"the example server was told {roots}, not just {shared}"
def tool_names(result):
    return sorted(t["name"] for t in result["tools"])

if mode == "raw":
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "package-smoke", "version": "1"}}})
    init = wait_for(lambda m: m.get("id") == 1)
    assert "result" in init, init
    server = init["result"]["serverInfo"]["name"]
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tools = tool_names(wait_for(lambda m: m.get("id") == 2)["result"])
    send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
          "params": {"name": "ask_roots", "arguments": {}}})
    check_roots(wait_for(lambda m: m.get("id") == 3)["result"])
    child.stdin.close()
else:
    connected = wait_for(lambda m: "event" in m)
    assert connected["event"] == "connected", connected
    server = connected["server"]["name"]
    send({"op": "listTools", "tag": "tools"})
    answer = wait_for(lambda m: m.get("tag") == "tools")
    tools = tool_names(answer["ok"])
    send({"op": "callTool", "name": "ask_roots", "tag": "roots"})
    answer = wait_for(lambda m: m.get("tag") == "roots")
    assert "ok" in answer, answer
    check_roots(answer["ok"])
    send({"op": "close"})
assert {"list_roots", "ask_roots"} <= set(tools), tools
try:
    status = child.wait(timeout=15)
except subprocess.TimeoutExpired:
    child.kill()
    sys.exit(f"{mode}: still running 15 s after the client closed")
assert status == 0, f"{mode}: exit status {status}"
print(f"server {server}, tools {', '.join(tools)}, told exactly the shared folder, exit 0")
PY
t=$(now)
result=$(isolated timeout 90 python3 "$work/connect.py" raw "$shared" /usr/bin/rootgate connect example) ||
  die "rootgate connect example, raw JSON-RPC: ${result:-see above}"
ok "rootgate connect example, raw JSON-RPC on pipes: $result ($(since "$t"))"
# The held copy: the package brings bubblewrap, and the installed launcher
# holds the server in its sandbox (its log says so), which still gets
# exactly its folder.
dpkg-deb -f "$deb" Depends | grep -qw bubblewrap || die "the package does not depend on bubblewrap"
t=$(now)
result=$(isolated timeout 90 python3 "$work/connect.py" raw "$shared" /usr/bin/rootgate connect held 2> "$work/held.log") ||
  { cat "$work/held.log" >&2; die "rootgate connect held, raw JSON-RPC: ${result:-see above}"; }
grep -q '^held:' "$shared/held-report" || die "the enforced server was not held: $(cat "$shared/held-report" 2>&1)"
ok "rootgate connect held (enforced roots, bubblewrap from the package's Depends): $result; $(cat "$shared/held-report") ($(since "$t"))"
if [ -f "$repo/tests/peers/node_modules/@modelcontextprotocol/sdk/package.json" ] && command -v node >/dev/null; then
  t=$(now)
  result=$(isolated timeout 90 python3 "$work/connect.py" sdk "$shared" \
    node "$repo/tests/peers/apps/ts_app.mjs" -- /usr/bin/rootgate connect example) ||
    die "rootgate connect example, TypeScript SDK client: ${result:-see above}"
  ok "rootgate connect example, TypeScript SDK client: $result ($(since "$t"))"
else
  skip "the TypeScript SDK client (scripts/setup.sh test installs it into tests/peers)"
fi

# ----- the desktop app, opened by `rootgate` ---------------------------------
# `rootgate` replaces itself with rootgate-desktop found beside it (same
# process), which starts the enabled example server through
# rootgate-launcher beside it.
if command -v xvfb-run >/dev/null && command -v xdotool >/dev/null; then
  t=$(now)
  # shellcheck disable=SC2016 # the inner script expands its own variables
  isolated timeout 90 xvfb-run -a -s '-screen 0 1280x800x24' bash -c '
    /usr/bin/rootgate & pid=$!
    trap "kill $pid 2>/dev/null; wait $pid 2>/dev/null" EXIT
    seen() { [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = /usr/bin/rootgate-desktop ] &&
      xdotool search --onlyvisible --pid "$pid" --name "^Rootgate$" >/dev/null 2>&1 &&
      pgrep -P "$pid" -f "^/usr/bin/rootgate-launcher " >/dev/null; }
    for _ in $(seq 1 120); do
      seen && exit 0
      kill -0 "$pid" 2>/dev/null || { echo "the app exited" >&2; exit 1; }
      sleep 0.5
    done
    echo "no window, or no example server started through the launcher, in 60 s" >&2
    exit 1
  ' 2> "$work/app.log" || { tail -20 "$work/app.log" >&2; die "rootgate did not open the installed desktop app"; }
  ok "rootgate opened /usr/bin/rootgate-desktop, which showed its window and started the example server through /usr/bin/rootgate-launcher ($(since "$t"))"
else
  skip "opening the desktop app (needs xvfb-run and xdotool: scripts/setup.sh test)"
fi

# ----- remove ----------------------------------------------------------------
settings=$home/.config/rootgate
# The resident gate's user units: systemd starts `rootgate gate` on the
# first connection to %t/rootgate/gate.sock, the socket the usual settings'
# doors knock on.
for unit in rootgate-gate.socket rootgate-gate.service; do
  [ "$(dpkg-query -S "/usr/lib/systemd/user/$unit" 2>/dev/null | cut -d: -f1)" = "$name" ] ||
    die "/usr/lib/systemd/user/$unit is not $name's"
done
grep -qx 'ListenStream=%t/rootgate/gate.sock' /usr/lib/systemd/user/rootgate-gate.socket ||
  die "rootgate-gate.socket does not listen where doors knock"
grep -qx 'ExecStart=/usr/bin/rootgate gate' /usr/lib/systemd/user/rootgate-gate.service ||
  die "rootgate-gate.service does not start the installed gate"
ok "the gate's user units: rootgate-gate.socket on %t/rootgate/gate.sock, starting /usr/bin/rootgate gate"

before=$(cd "$settings" && find . -type f -exec sha256sum {} + | sort)
say "removing $name"
t=$(now)
apt_get remove "$name"
! is_installed || die "$name is still installed after apt-get remove"
for f in /usr/bin/rootgate /usr/bin/rootgate-desktop /usr/bin/rootgate-installer /usr/bin/rootgate-launcher /usr/bin/rootgate-door "$desktop" /usr/lib/systemd/user/rootgate-gate.socket; do
  [ ! -e "$f" ] || die "$f is still there after apt-get remove"
done
left=$(compgen -G "/usr/share/icons/hicolor/*/apps/$icon.png" || true)
[ -z "$left" ] || die "icons left after apt-get remove: $left"
ok "removed: no /usr/bin/rootgate*, desktop entry or icon left ($(since "$t"))"
[ -f "$settings/settings.json" ] && [ "$(stat -c %a "$settings")" = 700 ] ||
  die "the settings folder $settings did not survive"
[ "$(cd "$settings" && find . -type f -exec sha256sum {} + | sort)" = "$before" ] ||
  die "removing the package changed the settings folder"
ok "the settings folder is untouched"
say "passed"
