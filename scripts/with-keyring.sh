#!/usr/bin/env bash
# Runs a command with a real keyring: a D-Bus session bus of its own, with
# GNOME Keyring's Secret Service on it, unlocked, keeping its keyrings in a
# temporary folder (never the person's own). Tests that need the keyring
# (crates/rootgate-core/tests/it/keyring.rs) run only under it, and say so when
# they are run without it; it sets ROOTGATE_TEST_KEYRING=1 for them.
#
#   scripts/with-keyring.sh cargo nextest run --workspace
#
# ROOTGATE_KEYRING_ADDRESS=unix:path=… puts the bus at that address rather
# than a random one.
#
# Needs dbus-run-session (dbus-daemon) and gnome-keyring-daemon
# (gnome-keyring): scripts/setup.sh test installs them.
set -euo pipefail
if [ $# -eq 0 ]; then
  echo "usage: scripts/with-keyring.sh COMMAND [ARG...]" >&2
  exit 2
fi
if [ -z "${ROOTGATE_KEYRING_BUS:-}" ]; then
  for tool in dbus-run-session dbus-daemon dbus-send gnome-keyring-daemon; do
    if ! command -v "$tool" >/dev/null; then
      echo "with-keyring: $tool is missing; run scripts/setup.sh test" >&2
      exit 1
    fi
  done
  if [ -z "${ROOTGATE_KEYRING_ADDRESS:-}" ]; then
    # Again, inside a session bus of its own, which ends with the command.
    ROOTGATE_KEYRING_BUS=1 exec dbus-run-session -- bash "$0" "$@"
  fi
  # A bus at the address asked for (scripts/e2e.sh asks for the one a
  # desktop's systemd user bus has, which a process told nothing about its
  # session finds), stopped when the command ends.
  dbus-daemon --session --nofork --nopidfile --address="$ROOTGATE_KEYRING_ADDRESS" &
  bus=$!
  trap 'kill "$bus" 2>/dev/null || true; wait "$bus" 2>/dev/null || true' EXIT
  export DBUS_SESSION_BUS_ADDRESS=$ROOTGATE_KEYRING_ADDRESS
  for _ in $(seq 100); do
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus.GetId >/dev/null 2>&1 && break
    sleep 0.1
  done
  status=0
  ROOTGATE_KEYRING_BUS=1 bash "$0" "$@" || status=$?
  exit "$status"
fi

# Inside the private bus: a keyring daemon whose login keyring lives in a
# folder of its own, created and unlocked with a password only this run
# knows, before anything can ask the bus to start another.
keyrings=$(mktemp -d)
trap 'rm -rf "$keyrings"' EXIT
printf '%s' "rootgate-test-$$" |
  XDG_DATA_HOME="$keyrings" gnome-keyring-daemon --unlock --components=secrets >/dev/null
owned() {
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null |
    grep -q 'boolean true'
}
for _ in $(seq 100); do
  owned && break
  sleep 0.1
done
if ! owned; then
  echo "with-keyring: the keyring daemon did not come up on the session bus" >&2
  exit 1
fi
export ROOTGATE_TEST_KEYRING=1
status=0
"$@" || status=$?
exit "$status"
