#!/usr/bin/env python3
"""Capture load on the release binary, optionally under `perf record` (issue #30 point 1).

    cargo build --release
    scripts/capture-load.py                                # 8 clients x 250 notes
    scripts/capture-load.py --perf /tmp/capture.perf       # the same, profiled
    perf report -i /tmp/capture.perf --no-children --sort symbol

Starts `inkling run` on a fresh data dir (Ollama down: nothing listens on its URL, as
in the benchmarks), lets CLIENTS clients capture notes over kept-alive connections,
durably (the service's defaults), and prints p50/p99 and notes per second. With
--perf, `perf record --call-graph dwarf` samples the service process for the length of the load
(`apt-get install linux-perf`). Standard library only.
"""
import argparse
import http.client
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from stub_ollama import free_port  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=str(ROOT / "target" / "release" / "inkling"))
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--notes", type=int, default=250, help="per client")
    parser.add_argument("--perf", help="write a perf profile of the service here")
    args = parser.parse_args()
    if not pathlib.Path(args.binary).exists():
        sys.exit(f"capture-load: no binary at {args.binary}: run `cargo build --release` first")

    data_dir = pathlib.Path(tempfile.mkdtemp(prefix="inkling-load-"))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("INKLING_")}
    env.update(INKLING_DATA_DIR=str(data_dir), INKLING_HTTP__PORT=str(port),
               INKLING_TRAY__ENABLED="false", INKLING_LOG__LEVEL="warn",
               INKLING_OLLAMA__URL=f"http://127.0.0.1:{free_port()}")
    service = subprocess.Popen([args.binary, "run"], env=env)
    token_file = data_dir / "api-token"
    deadline = time.monotonic() + 30
    while True:
        try:
            token = token_file.read_text().strip()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/api/status", headers={"Authorization": f"Bearer {token}"})
            if conn.getresponse().status == 200:
                break
        except OSError:
            pass
        if time.monotonic() > deadline:
            service.kill()
            sys.exit("capture-load: the service did not answer within 30 s")
        time.sleep(0.05)

    profiler = None
    if args.perf:
        # DWARF call graphs: a release build keeps no frame pointers.
        profiler = subprocess.Popen(["perf", "record", "-F", "1000", "--call-graph", "dwarf,16384",
                                     "-p", str(service.pid), "-o", args.perf],
                                    stderr=subprocess.DEVNULL)
        time.sleep(0.5)

    samples = []
    lock = threading.Lock()

    def client(c):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        mine = []
        for i in range(args.notes):
            body = json.dumps({"body": f"client {c} note {i}"})
            at = time.perf_counter()
            conn.request("POST", "/api/notes", body, headers)
            response = conn.getresponse()
            response.read()
            mine.append(time.perf_counter() - at)
            assert response.status == 201, response.status
        with lock:
            samples.extend(mine)

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(c,)) for c in range(args.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    took = time.perf_counter() - started
    if profiler:
        profiler.send_signal(signal.SIGINT)
        profiler.wait()
    service.send_signal(signal.SIGTERM)
    service.wait(timeout=30)

    samples.sort()
    at = lambda q: samples[round((len(samples) - 1) * q)] * 1000  # noqa: E731
    print(f"{len(samples)} captures, {args.clients} clients: p50 {at(0.5):.2f} ms, "
          f"p99 {at(0.99):.2f} ms, {len(samples) / took:,.0f} notes/s")


if __name__ == "__main__":
    main()
