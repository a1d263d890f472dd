#!/usr/bin/env bash
# Runs every check and test of inkling on a fresh machine.
#
# It installs what is missing first (Debian packages the test suites need), then:
# rustfmt check, clippy with warnings as errors, and all tests (unit, integration,
# process-level). Safe to run again: installed things are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/install-missing.sh

# --- what the test suites need from the system -------------------------------------
# Debian packages, by the command that shows they are there: Chromium and its
# WebDriver for the inbox page's tests (tests/browser), a D-Bus daemon for the tray's
# (tests/tray.rs), mount for the disk-full tests' small tmpfs (tests/support/small_disk.rs).
# (The real-model tests' tools come below, from scripts/real-model-tools.sh.)
declare -A needed=(
  [kill]=procps
  [mount]=mount
  [chromium]=chromium
  [chromedriver]=chromium-driver
  # The web clipper is tested in Firefox too (tests/browser/clipper_firefox.rs).
  [firefox-esr]=firefox-esr
  [dbus-daemon]=dbus-daemon
  [curl]=curl
  # The tests of what another real user cannot do (tests/api/other_users.rs) make the
  # user inkling-test-other.
  [useradd]=passwd
  # `inkling capture --clipboard` is tested on a real X server with a real copy
  # (tests/api/capture_from.rs).
  [Xvfb]=xvfb
  [xclip]=xclip
)
# Fonts for the inbox page's Korean strings and emoji in the browser tests.
fonts=(fonts-noto-cjk fonts-noto-color-emoji)
missing=()
for command in "${!needed[@]}"; do
  command -v "$command" >/dev/null 2>&1 || missing+=("${needed[$command]}")
done
for package in "${fonts[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
# ...and run its programs with the system's Python (another user cannot run one under
# root's home, such as pyenv's), so by its path.
[ -x /usr/bin/python3 ] || missing+=(python3)
install_missing "${missing[@]}"

# axe-core, the accessibility scan the browser tests run in the page
# (tests/browser/harness.rs), from npm's registry, pinned and checked against
# the sha512 the registry publishes for it. Kept in target/, so a clean build gets it again.
axe_version=4.10.3
axe_sha512=5e6edba515e70d25f6604d9815f064d859c5d1ea7ab661bbc4f87c88779ef0c21cae0abbeb636471ef39e9d62d2582e4b88a1866f19f4ecfcf6d986275e4dc12
axe=target/test-tools/axe.min.js
if [ ! -f "$axe" ] || ! grep -q "axe v$axe_version" "$axe"; then
  echo "==> fetching axe-core $axe_version"
  mkdir -p target/test-tools
  tarball=$(mktemp)
  curl -fsSL "https://registry.npmjs.org/axe-core/-/axe-core-$axe_version.tgz" -o "$tarball"
  echo "$axe_sha512  $tarball" | sha512sum --check --quiet
  tar -xzf "$tarball" -O package/axe.min.js > "$axe.partial"
  mv "$axe.partial" "$axe"
  rm -f "$tarball"
fi

# The disk-full tests mount a small tmpfs, which needs root or CAP_SYS_ADMIN: they fail
# saying so where they cannot (tests/support/small_disk.rs). Say it here too, first.
probe=$(mktemp -d)
if mount -t tmpfs -o size=64k tmpfs "$probe" 2>/dev/null; then
  umount "$probe"
else
  echo "==> warning: cannot mount a tmpfs here; the disk-full tests (tests/*/disk.rs) will fail: run as root"
fi
rmdir "$probe"

# The real-model tests (tests/real_model) run llama.cpp's llama-server with
# SmolLM2-135M-Instruct (the task) and Gemma 3 270M (outages, vectors), and whisper.cpp's
# whisper-server with Whisper base on recordings espeak-ng speaks and sox converts
# (speech to text; scripts/whisper-test-tools.sh, run by real-model-tools.sh, installs both).
# scripts/real-model-tools.sh builds and fetches them once into a cache outside the
# clone (installing cmake and a compiler first); when they are there it only checks and
# says so. It writes their paths to the cache's env file, exported here for the test
# binaries (LLAMA_SERVER, SMOLLM2_MODEL, GEMMA_MODEL, GEMMA_CHAT_TEMPLATE, WHISPER_SERVER,
# WHISPER_MODEL): without them
# those tests fail saying what is missing.
scripts/real-model-tools.sh
set -a
. "${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools/env"
set +a

# geckodriver, Firefox's WebDriver, for the clipper's Firefox test: not a Debian
# package, so built once from its crates.io sources (`cargo install --locked`: the
# crate and every dependency checked against the checksums crates.io publishes) into
# the same cache outside the clone, and exported as GECKODRIVER; without it that test
# fails saying what is missing.
gecko_version=0.36.0
gecko_root="${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools/geckodriver-$gecko_version"
if [ ! -x "$gecko_root/bin/geckodriver" ]; then
  echo "==> building geckodriver $gecko_version (once, ~5 min; cached in $gecko_root)"
  rm -rf "$gecko_root.partial"
  CARGO_TARGET_DIR="$gecko_root.build" cargo install --quiet --locked \
    --version "$gecko_version" --root "$gecko_root.partial" geckodriver
  rm -rf "$gecko_root.build"
  mv "$gecko_root.partial" "$gecko_root"
fi
export GECKODRIVER="$gecko_root/bin/geckodriver"

# The MCP tests (tests/mcp) drive `inkling mcp` with the official MCP Python SDK (PyPI
# `mcp`): scripts/mcp-test-tools.sh installs it once into a venv of the same cache and
# writes its Python to mcp.env (MCP_PYTHON), exported here; without it those tests fail
# saying what is missing.
scripts/mcp-test-tools.sh
set -a
. "${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools/mcp.env"
set +a

# --- checks and tests ----------------------------------------------------------------
# No incremental build: a clean run gains nothing from it, and its caches are a third
# of the target dir (a CI machine ran out of disk compiling the test binaries).
export CARGO_INCREMENTAL=0
# The build needs room: say so plainly rather than fail in the linker.
need_gib=5
free_gib=$(df -P -BG target 2>/dev/null | awk 'NR == 2 {sub("G", "", $4); print $4}')
if [ -n "$free_gib" ] && [ "$free_gib" -lt "$need_gib" ]; then
  echo "==> warning: only ${free_gib} GiB free where target/ is; the build and tests need about ${need_gib} GiB"
fi
echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "==> cargo test"
# Benches are compiled by clippy above and run with `cargo bench` (docs/PERFORMANCE.md).
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
# --no-fail-fast: every test binary runs, so one run shows every failure.
cargo test --workspace --locked --no-fail-fast --lib --bins --tests 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
passed=$(grep -oE '^test result: [a-zA-Z]+\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
failed=$(grep -oE '[0-9]+ failed;' "$log" | awk '{s += $1} END {print s + 0}')
echo "tests: $passed passed, $failed failed"
exit "$status"
