#!/usr/bin/env bash
# Runs Rootgate's end-to-end tests: the real app (a debug build with the
# test-only `e2e-picker` feature, whose "Add folder…" answers from a file) in
# a real WebKit window under Xvfb, driven over WebDriver by
# tests/e2e/*.test.mjs (Node's test runner and selenium-webdriver) through
# tauri-driver and WebKitWebDriver, with real MCP servers (tests/peers).
#
# Safe to rerun; each step checks first and skips what is already there. It
# installs the Debian packages and test peers (scripts/setup.sh test), a font
# with Hangul (fonts-nanum, for readable screenshots), tauri-driver at
# .ci/tools/bin (compiled once per machine: scripts/tauri-driver.sh), the
# npm packages of ui/ and tests/e2e/ and the UI (scripts/setup.sh test, each
# skipped while up to date); builds two binaries in
# target/debug as scripts/package.sh --debug builds the packaged app (Tauri's
# custom-protocol feature on), each copied to .ci/out/e2e/bin:
# `--features e2e-picker` and, for the one test that drives the real GTK
# folder dialog, a plain one; and
# the `rootgate` command (crates/rootgate-cli), which the tests' AI apps run
# as `rootgate connect NAME`, copied to .ci/out/e2e/cli (not beside the
# app, where the app would take it for the example server's command). Then
# each test file runs on its own: a fresh XDG_CONFIG_HOME, its own tauri-driver
# on free ports (waited for, and killed on exit whatever happens), a
# `timeout` around the run. Screenshots go to .ci/out/screenshots/ (a failed
# step adds FAIL-*.png and .html), logs and TAP output to .ci/out/e2e/. The
# last lines are the summary in the Node test runner's format (`# pass N`,
# `# fail N`); the exit status is 0 only if every test passed.
#
#   scripts/e2e.sh                        every tests/e2e/*.test.mjs
#   scripts/e2e.sh tests/e2e/main.test.mjs   just these files
#
# The tests find the binaries in E2E_APP, E2E_APP_REAL and E2E_ROOTGATE_CLI.
# An AI app a test starts shares the app's environment (XDG_RUNTIME_DIR, or
# its absence: then both use /tmp/rootgate-UID for the bridges' socket)
# with its own XDG_CONFIG_HOME set to the app's, and one keyring daemon on a
# session bus of the run's own (scripts/with-keyring.sh).
#
# The files run in lanes side by side (E2E_LANES, default 3), each lane
# under an X server of its own (a screenshot is of its own screen), taking
# the next file from one queue, longest first. The tests mostly wait on
# windows and servers: one lane used a fifth of the two cores and took
# 285 s for the twenty files; BENCHMARKS.md has the lanes' time. A lane's
# whole output is in .ci/out/e2e/lane-N.log, shown when the lanes are done.
#
# Environment: E2E_TIMEOUT (seconds per test file, default 300),
# E2E_LANES (lanes side by side, default 3),
# E2E_SKIP_SETUP=1 (skip installing and building; use what is there),
# E2E_KEEP=1 (keep temp dirs and configs for a look afterwards).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD
out=$repo/.ci/out
tools=$repo/.ci/tools
bin=$out/e2e/bin
cli=$out/e2e/cli
# cargo's target folder (CARGO_TARGET_DIR if set), where the builds land.
target=${CARGO_TARGET_DIR:-target}

say() { printf '\033[1me2e:\033[0m %s\n' "$*"; }
die() { printf 'e2e: %s\n' "$*" >&2; exit 1; }

# ----- inside Xvfb: run each test file ---------------------------------------
# ----- the lanes: each an X server running files from one queue ---------------
if [ "${1:-}" = --lanes ]; then
  shift
  lanes=$1 queue=$2
  # A display number per lane, chosen here so that lanes starting together
  # do not race for the same one (`xvfb-run -a` looks, then takes).
  displays=() n=99
  while [ "${#displays[@]}" -lt "$lanes" ]; do
    [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ] || displays+=("$n")
    n=$((n + 1))
  done
  pids=()
  for lane in $(seq "$lanes"); do
    log=$out/e2e/lane-$lane.log
    xvfb-run -n "${displays[$((lane - 1))]}" -s "-screen 0 1280x800x24" \
      bash "$repo/scripts/e2e.sh" --under-xvfb --queue "$queue" --lane "$lane" 3>&1 >"$log" 2>&1 &
    pids+=($!)
  done
  status=0
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  declare -A total=([tests]=0 [suites]=0 [pass]=0 [fail]=0 [cancelled]=0 [skipped]=0 [todo]=0)
  for lane in $(seq "$lanes"); do
    log=$out/e2e/lane-$lane.log
    printf '\n\033[1me2e: lane %s\033[0m\n' "$lane"
    cat "$log"
    # A lane that died before its summary counts as one failure.
    grep -q '^# duration_ms ' "$log" || { total[fail]=$(( ${total[fail]} + 1 )); status=1; }
    for key in "${!total[@]}"; do
      n=$(sed -n "s/^# $key \([0-9]*\)$/\1/p" "$log" | tail -1)
      total[$key]=$(( ${total[$key]} + ${n:-0} ))
    done
  done
  echo
  for key in tests suites pass fail cancelled skipped todo; do echo "# $key ${total[$key]}"; done
  [ "${total[fail]}" = 0 ] && [ "${total[cancelled]}" = 0 ] || status=1
  exit "$status"
fi

if [ "${1:-}" = --under-xvfb ]; then
  shift
  # With --queue FILE --lane N: the files are taken one at a time from the
  # queue shared with the other lanes (under a lock), not from the arguments.
  queue= lane=
  if [ "${1:-}" = --queue ]; then queue=$2 lane=$4; shift 4; fi
  next_file() {
    exec 9>>"$queue.lock"
    flock 9
    file=$(head -n 1 "$queue")
    [ -n "$file" ] && sed -i 1d "$queue"
    flock -u 9
    [ -n "$file" ]
  }
  work=$(mktemp -d "${TMPDIR:-/tmp}/rootgate-e2e.XXXXXX")
  driver_pid=
  stop_driver() {
    if [ -n "$driver_pid" ]; then
      kill "$driver_pid" 2>/dev/null || true
      wait "$driver_pid" 2>/dev/null || true
      driver_pid=
    fi
  }
  finish() {
    stop_driver
    [ -n "${E2E_KEEP:-}" ] || rm -rf "$work"
  }
  trap finish EXIT
  trap 'exit 130' INT TERM

  free_port() {
    node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
  }
  port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

  declare -A total=([tests]=0 [suites]=0 [pass]=0 [fail]=0 [cancelled]=0 [skipped]=0 [todo]=0)
  started=$(date +%s%N)
  files=("$@")
  while :; do
    if [ -n "$queue" ]; then
      next_file || break
    else
      [ "${#files[@]}" -gt 0 ] || break
      file=${files[0]} files=("${files[@]:1}")
    fi
    name=$(basename "$file" .test.mjs)
    config=$work/$name/config
    # Its own data and cache folders too: bundles are unpacked under the
    # data folder and the registry's answers kept in the cache.
    data=$work/$name/data
    cache=$work/$name/cache
    # The test's own temp dirs (folders to share, picks and report files)
    # live under $work too, so that even a run killed by `timeout` leaves
    # nothing behind.
    tmp=$work/$name/tmp
    mkdir -p "$config" "$tmp" "$data" "$cache"
    port=$(free_port)
    native=$(free_port)
    while [ "$native" = "$port" ]; do native=$(free_port); done
    log=$out/e2e/$name.tauri-driver.log
    # The app inherits tauri-driver's environment: this file's own settings.
    XDG_CONFIG_HOME=$config XDG_DATA_HOME=$data XDG_CACHE_HOME=$cache RUST_LOG=${RUST_LOG:-warn,rootgate=info} \
      "$tools/bin/tauri-driver" --port "$port" --native-port "$native" >"$log" 2>&1 &
    driver_pid=$!
    for _ in $(seq 100); do
      port_open "$port" && break
      kill -0 "$driver_pid" 2>/dev/null || break
      sleep 0.1
    done
    if ! port_open "$port"; then
      cat "$log" >&2
      say "tauri-driver did not listen on :$port; $file counts as failed"
      stop_driver
      total[tests]=$(( ${total[tests]} + 1 ))
      total[fail]=$(( ${total[fail]} + 1 ))
      continue
    fi

    say "running $file${lane:+ (lane $lane)}"
    # The console hears which file each lane is on; its output is the lane's log.
    [ -z "$lane" ] || printf 'e2e: lane %s: %s\n' "$lane" "$file" >&3 || true
    tap=$out/e2e/$name.tap
    rc=0
    TMPDIR=$tmp E2E_WEBDRIVER_URL=http://127.0.0.1:$port E2E_CONFIG_HOME=$config \
      XDG_DATA_HOME=$data XDG_CACHE_HOME=$cache \
      timeout --kill-after=15 "${E2E_TIMEOUT:-300}" \
      node --test --test-reporter=spec --test-reporter-destination=stdout \
      --test-reporter=tap --test-reporter-destination="$tap" "$file" || rc=$?
    stop_driver
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
      say "$file timed out after ${E2E_TIMEOUT:-300} s"
    fi
    # Count what the file's run reported; a run that died before its summary is one failure.
    if grep -q '^# pass ' "$tap" 2>/dev/null; then
      for key in "${!total[@]}"; do
        n=$(sed -n "s/^# $key \([0-9]*\)$/\1/p" "$tap" | tail -1)
        total[$key]=$(( ${total[$key]} + ${n:-0} ))
      done
      [ "$rc" = 0 ] || grep -q '^# fail [1-9]' "$tap" || total[fail]=$(( ${total[fail]} + 1 ))
    else
      total[tests]=$(( ${total[tests]} + 1 ))
      total[fail]=$(( ${total[fail]} + 1 ))
    fi
  done
  ms=$(( ($(date +%s%N) - started) / 1000000 ))
  echo
  for key in tests suites pass fail cancelled skipped todo; do echo "# $key ${total[$key]}"; done
  echo "# duration_ms $ms"
  if [ "${total[fail]}" = 0 ] && [ "${total[cancelled]}" = 0 ]; then exit 0; else exit 1; fi
fi

# ----- outside: install, build, then run under Xvfb ----------------------------
if [ $# -gt 0 ]; then files=("$@"); else files=(tests/e2e/*.test.mjs); fi
for f in "${files[@]}"; do [ -f "$f" ] || die "no such test file: $f"; done
mkdir -p "$out/e2e" "$out/screenshots" "$bin" "$cli"
rm -f "$out"/screenshots/* "$out"/e2e/*.tap

if [ -z "${E2E_SKIP_SETUP:-}" ]; then
  # Debian packages, test peers, the npm packages of ui/ and tests/e2e/, and
  # the UI, built: each skipped while it is there and up to date.
  bash scripts/setup.sh test
  # A font with Hangul, so that the Korean folder name in the screenshots is
  # letters, not boxes (scripts/setup.sh test does not install one).
  if ! dpkg -s fonts-nanum >/dev/null 2>&1; then
    say "installing fonts-nanum"
    sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fonts-nanum >/dev/null
  fi
  # tauri-driver at .ci/tools/bin, compiled once per machine (a cache
  # outside the clone: scripts/tauri-driver.sh).
  bash scripts/tauri-driver.sh
  for cmd in xvfb-run xauth WebKitWebDriver xdotool import; do
    command -v "$cmd" >/dev/null || die "$cmd is missing: scripts/setup.sh test should have installed it"
  done
  # The app is built as the package is (scripts/package.sh --debug): the
  # same packages, the same profile and Tauri's custom-protocol feature, so
  # the tests drive the app a person installs, and the package step after
  # them (scripts/test.sh) compiles nothing again. Two builds in one target
  # folder: the picker feature changes only the rootgate crate, so the second
  # compiles that crate and links, nothing below it. Each binary is copied
  # out at once, so that another build cannot swap it under the tests; the
  # plain build goes last and stays in the target folder.
  # (`--features e2e-picker` turns it on in the selected package that has
  # it; cargo reads `rootgate/e2e-picker` as a feature of a dependency.)
  ship=(--locked -p rootgate -p rootgate-cli -p rootgate-core --features tauri/custom-protocol)
  say "building the app with the e2e-picker feature"
  cargo build "${ship[@]}" --features e2e-picker
  cp "$target"/debug/rootgate-desktop "$bin/rootgate-e2e-picker.tmp"
  mv "$bin/rootgate-e2e-picker.tmp" "$bin/rootgate-e2e-picker"
  say "building the app without it, for the real GTK dialog, and the rootgate command, for AI apps' \`rootgate connect\`"
  cargo build "${ship[@]}"
  cp "$target"/debug/rootgate-desktop "$bin/rootgate-real.tmp"
  mv "$bin/rootgate-real.tmp" "$bin/rootgate-real"
  # `rootgate install` runs rootgate-installer beside it.
  for program in rootgate rootgate-installer; do
    cp "$target/debug/$program" "$cli/$program.tmp"
    mv "$cli/$program.tmp" "$cli/$program"
  done
fi
# The picker build takes --e2e-picks; a plain build calls it an unknown option.
for app in "$bin/rootgate-e2e-picker" "$bin/rootgate-real" "$cli/rootgate" "$cli/rootgate-installer"; do
  [ -x "$app" ] || die "no build at $app: run without E2E_SKIP_SETUP"
done
usage=$("$bin/rootgate-e2e-picker" --e2e-picks /dev/null --help 2>&1 || true)
grep -q '^Usage' <<<"$usage" || die "$bin/rootgate-e2e-picker was not built with --features e2e-picker"
usage=$("$bin/rootgate-real" --e2e-picks /dev/null --help 2>&1 || true)
grep -q 'unknown option --e2e-picks' <<<"$usage" || die "$bin/rootgate-real was built with --features e2e-picker"

export E2E_REPO=$repo
export E2E_APP=$bin/rootgate-e2e-picker
export E2E_APP_REAL=$bin/rootgate-real
export E2E_ROOTGATE_CLI=$cli/rootgate
export E2E_SCREENSHOTS=$out/screenshots
say "running ${#files[@]} test file(s) under Xvfb, with a keyring daemon of their own"
# The app keeps secrets in the desktop keyring, and an AI app's
# `rootgate connect` reads them from it, so both get one: a private session
# bus with GNOME Keyring on it (scripts/with-keyring.sh), never the
# person's own.
# An AI app's `rootgate connect` is started with little of the app's
# environment (the TypeScript SDK passes HOME, PATH and a few more, not
# DBUS_SESSION_BUS_ADDRESS), so it finds the keyring where a systemd
# desktop keeps the session bus: /run/user/UID/bus. Where that is free (a
# CI machine), the run's bus is put there, as a desktop has it; where a
# desktop's own bus is there, the run's stays private, and a bridge would
# look in the desktop's keyring.
user_bus=/run/user/$(id -u)/bus
# A socket left by a run that was killed answers nothing; it is not a
# desktop's bus, and is cleared.
if [ -S "$user_bus" ] && ! DBUS_SESSION_BUS_ADDRESS=unix:path=$user_bus dbus-send --session \
  --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.GetId \
  >/dev/null 2>&1; then
  rm -f "$user_bus"
fi
if [ ! -e "$user_bus" ] && mkdir -p -m 700 "$(dirname "$user_bus")" 2>/dev/null; then
  export ROOTGATE_KEYRING_ADDRESS=unix:path=$user_bus
fi
lanes=${E2E_LANES:-3}
[ "$lanes" -ge 1 ] 2>/dev/null || die "E2E_LANES must be a number of lanes, 1 or more"
[ "$lanes" -le "${#files[@]}" ] || lanes=${#files[@]}
if [ "$lanes" = 1 ]; then
  exec bash "$repo/scripts/with-keyring.sh" xvfb-run -a -s "-screen 0 1280x800x24" bash "$repo/scripts/e2e.sh" --under-xvfb "${files[@]}"
fi
# The queue: longest first, so that no long file starts last. A file's size
# stands for its time, but for a few that mostly wait: in three lanes
# (2026-12-07) trust took 79 s, main 56, offers 43, everyday 35 and
# suggestion-view 31 (a small file, which by size started last and ended
# its lane 25 s after the others). Those go first, the rest by size.
queue=$out/e2e/queue
long=(trust main offers everyday suggestion-view)
{
  for name in "${long[@]}"; do
    for f in "${files[@]}"; do
      if [ "$(basename "$f" .test.mjs)" = "$name" ]; then echo "$f"; fi
    done
  done
  ls -S "${files[@]}" | while read -r f; do
    if [[ " ${long[*]} " != *" $(basename "$f" .test.mjs) "* ]]; then echo "$f"; fi
  done
} >"$queue"
rm -f "$queue.lock"
exec bash "$repo/scripts/with-keyring.sh" bash "$repo/scripts/e2e.sh" --lanes "$lanes" "$queue"
