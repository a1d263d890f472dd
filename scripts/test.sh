#!/usr/bin/env bash
# Runs every check and test of inkling on a fresh machine.
#
# It installs what is missing first (Debian packages the test suites need), then:
# rustfmt check, clippy with warnings as errors, and all tests (unit, integration,
# process-level). Safe to run again: installed things are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

# --- what the test suites need from the system -------------------------------------
# Debian packages, by the command that shows they are there. Later suites add theirs
# here (a browser for the inbox tests, a D-Bus daemon for the tray tests).
declare -A needed=(
  [kill]=procps
)
missing=()
for command in "${!needed[@]}"; do
  command -v "$command" >/dev/null 2>&1 || missing+=("${needed[$command]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "==> installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi

# --- checks and tests ----------------------------------------------------------------
echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy"
cargo clippy --all-targets --locked -- -D warnings
echo "==> cargo test"
cargo test --all-targets --locked
