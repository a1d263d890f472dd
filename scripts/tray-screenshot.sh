#!/usr/bin/env bash
# Takes docs/tray-menu.png: the tray menu in a real panel (xfce4-panel's system tray,
# a StatusNotifierItem host) on a virtual X display. Not part of the tests (those read
# the menu over D-Bus, tests/tray.rs); run it by hand after changing the menu.
#
#   scripts/tray-screenshot.sh            # needs a release build: cargo build --release
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v Xvfb >/dev/null || ! command -v xfce4-panel >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    xvfb xfce4-panel xdotool x11-apps netpbm dbus-daemon
fi

dir=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null || true; pkill -f "dbus-daemon.*$dir" || true; rm -rf "$dir"; }
trap cleanup EXIT

Xvfb :77 -screen 0 640x300x24 -nolisten tcp &
sleep 1
# Set before the bus starts: services it activates inherit its environment.
export DISPLAY=:77 NO_AT_BRIDGE=1 XDG_CONFIG_HOME=$dir/cfg XDG_CACHE_HOME=$dir/cache
DBUS_SESSION_BUS_ADDRESS=$(dbus-daemon --session --address="unix:path=$dir/bus.sock" --print-address=1 --fork)
export DBUS_SESSION_BUS_ADDRESS
xfce4-panel >/dev/null 2>&1 &
sleep 3

# No Ollama here: the menu shows "Recheck Ollama" enabled, "Process AI now" greyed.
INKLING_DATA_DIR=$dir/data INKLING_HTTP__PORT=7399 INKLING_LOG__FILE=false \
  ./target/release/inkling run >/dev/null 2>&1 &
sleep 6

# The newest tray icon is the rightmost one at the top of the panel.
# Right button: the menu (the left button opens the inbox).
if [ -z "${NO_CLICK:-}" ]; then
  xdotool mousemove "${TRAY_X:-514}" "${TRAY_Y:-12}"
  sleep 1
  xdotool click 3
fi
sleep 1
xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng > docs/tray-menu.png
echo "wrote docs/tray-menu.png"
