#!/usr/bin/env bash
# Measures speech to text on this CPU (docs/PERFORMANCE.md, "Voice notes"): seconds of
# wall time whisper-server takes per minute of audio, for an English and a Korean
# recording of about a minute spoken by espeak-ng (16 kHz mono WAV, as the tests make).
#
# Needs the tools of scripts/whisper-test-tools.sh (it runs it: cached after the first
# time). Usage: scripts/measure-transcription.sh [THREADS] [RUNS]   (defaults: 2, 3)
# Prints, for each recording, every run's seconds and the median per audio minute.
set -euo pipefail
cd "$(dirname "$0")/.."
threads=${1:-2}
runs=${2:-3}

scripts/whisper-test-tools.sh >/dev/null
cache="${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools"
set -a
. "$cache/whisper.env"
set +a

work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# About a minute of speech each: a note read aloud, said twice over.
english="I need to call the dentist on Monday morning to move my appointment to the afternoon. \
After that, pick up the dry cleaning, buy milk, eggs and bread, and remember to water the tomato \
plants in the garden before the heat of the day. In the evening, finish the slides for Thursday's \
meeting with the design team, and send Sarah the notes from last week's review so she can check \
the numbers before the budget is due at the end of the month."
korean="월요일 아침에 치과에 전화해서 예약을 오후로 옮겨야 합니다. 그 다음에 세탁소에 들러 옷을 찾고, \
우유와 달걀과 빵을 사고, 더워지기 전에 정원의 토마토에 물을 주는 것을 잊지 마세요. 저녁에는 목요일 \
회의 발표 자료를 마무리하고, 지난주 검토 회의 메모를 보내야 합니다."
espeak-ng -v en-us -s 150 -w "$work/en-22k.wav" "$english $english"
espeak-ng -v ko -s 120 -w "$work/ko-22k.wav" "$korean $korean"
for name in en ko; do
  sox "$work/$name-22k.wav" -r 16000 -c 1 -b 16 "$work/$name.wav"
done

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$WHISPER_SERVER" -m "$WHISPER_MODEL" --host 127.0.0.1 --port "$port" -t "$threads" -l auto \
  --inference-path /v1/audio/transcriptions >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 240); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health")" = 200 ] && break
  sleep 0.5
done

echo "whisper.cpp $(basename "$(dirname "$WHISPER_SERVER")"), model $(basename "$WHISPER_MODEL") ($(( $(stat -c %s "$WHISPER_MODEL") / 1000000 )) MB), $threads threads"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# A first request warms the server up (its buffers, the page cache): not counted.
curl -s -o /dev/null "http://127.0.0.1:$port/v1/audio/transcriptions" -F file=@"$work/en.wav" -F duration=3000
for name in en ko; do
  language=$([ "$name" = ko ] && echo ko || echo en)
  seconds=$(soxi -D "$work/$name.wav")
  times=()
  # The server's CPU time too (user + system, from /proc): on a machine other work
  # shares, wall time says how long a person waits, CPU time what the model costs.
  cpu_before=$(awk '{print $14 + $15}' "/proc/$server_pid/stat")
  for _ in $(seq 1 "$runs"); do
    times+=("$(curl -s -o "$work/$name.json" -w '%{time_total}' \
      "http://127.0.0.1:$port/v1/audio/transcriptions" -F file=@"$work/$name.wav" -F language="$language")")
  done
  cpu_after=$(awk '{print $14 + $15}' "/proc/$server_pid/stat")
  cpu_seconds=$(python3 -c "import os, sys; print(($cpu_after - $cpu_before) / os.sysconf('SC_CLK_TCK') / $runs)")
  python3 - "$name" "$seconds" "$work/$name.json" "$cpu_seconds" "${times[@]}" <<'PY'
import json, statistics, sys
name, audio, reply, cpu, *times = sys.argv[1:]
audio, cpu = float(audio), float(cpu)
times = [float(t) for t in times]
median = statistics.median(times)
text = json.load(open(reply))["text"].strip()
print(f"{name}: {audio:.1f} s of audio; runs {', '.join(f'{t:.1f}' for t in times)} s; "
      f"median {median:.1f} s = {median * 60 / audio:.1f} s per audio minute ({audio / median:.2f}x real time)")
print(f"  server CPU time: {cpu:.1f} s a run = {cpu * 60 / audio:.1f} CPU s per audio minute")
print(f"  text: {text[:160]}{'…' if len(text) > 160 else ''}")
PY
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
