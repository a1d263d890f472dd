#!/usr/bin/env python3
"""Start-up time and idle cost of the release binary with a big database.

Usage: cargo build --release && scripts/measure-idle-startup.py [--idle-seconds 60]

1. Fills a fresh data dir with 100,000 notes, 10,000 of them pending (jobs due), the
   schema made by the binary itself.
2. Start-up: time from spawning `inkling run` to the first 200 on /api/status, best and
   median of 5 starts.
3. Idle: with Ollama down (nothing listens on its port), RSS and wake-ups (context
   switches of all the process's threads) over the idle window, after a 5 s settle.

Python standard library only; quoted in docs/PERFORMANCE.md.
"""
import argparse
import http.client
import json
import os
import pathlib
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = pathlib.Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "inkling"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env_for(data_dir, port):
    env = {k: v for k, v in os.environ.items() if not k.startswith("INKLING_")}
    env.update(
        INKLING_DATA_DIR=str(data_dir),
        INKLING_HTTP__PORT=str(port),
        INKLING_TRAY__ENABLED="false",
        INKLING_LOG__LEVEL="warn",
        INKLING_OLLAMA__URL="http://127.0.0.1:9",
    )
    return env


def status_ok(port, token):
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
        conn.request("GET", "/api/status", headers={"Authorization": f"Bearer {token}"})
        return conn.getresponse().status == 200
    except OSError:
        return False


def start(data_dir, port):
    proc = subprocess.Popen([BINARY, "run"], env=env_for(data_dir, port),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started = time.perf_counter()
    token_file = data_dir / "api-token"
    while True:
        if token_file.exists() and status_ok(port, token_file.read_text().strip()):
            return proc, time.perf_counter() - started
        if proc.poll() is not None:
            sys.exit("inkling exited during start-up")
        time.sleep(0.002)


def stop(proc):
    proc.terminate()
    proc.wait(timeout=30)


def fill(data_dir, notes, pending):
    port = free_port()
    proc, _ = start(data_dir, port)  # the binary makes its own schema
    stop(proc)
    db = sqlite3.connect(data_dir / "inkling.db")
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    rows = []
    jobs = []
    for i in range(notes):
        note_id = str(uuid.uuid4())
        status = "pending" if i < pending else "done"
        rows.append((note_id, f"note {i}: a thought of ordinary length", status, now, now))
        if status == "pending":
            jobs.append((note_id, now))
    with db:
        db.executemany("INSERT INTO notes (id, body, ai_status, created_at, updated_at) "
                       "VALUES (?, ?, ?, ?, ?)", rows)
        db.executemany("INSERT INTO pending_jobs (note_id, attempts, next_run_at) "
                       "VALUES (?, 0, ?)", jobs)
    db.close()


def threads_switches(pid):
    total = 0
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                total += int(line.split()[1])
    return total


def rss_kib(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--idle-seconds", type=int, default=60)
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--pending", type=int, default=10_000)
    args = parser.parse_args()
    if not BINARY.exists():
        sys.exit("build it first: cargo build --release")
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = pathlib.Path(tmp)
        fill(data_dir, args.notes, args.pending)
        times = []
        for _ in range(5):
            proc, took = start(data_dir, free_port())
            times.append(took)
            stop(proc)
        print(f"start-up with {args.notes} notes, {args.pending} pending: "
              f"best {min(times) * 1000:.0f} ms, median {statistics.median(times) * 1000:.0f} ms")

        proc, _ = start(data_dir, free_port())
        time.sleep(5)
        before = threads_switches(proc.pid)
        time.sleep(args.idle_seconds)
        after = threads_switches(proc.pid)
        rss = rss_kib(proc.pid)
        threads = len(list(pathlib.Path(f"/proc/{proc.pid}/task").iterdir()))
        stop(proc)
        print(f"idle {args.idle_seconds} s, Ollama down: RSS {rss / 1024:.1f} MiB, "
              f"{(after - before) / args.idle_seconds:.1f} wake-ups/s over {threads} threads")
        print(json.dumps({"startup_ms": [round(t * 1000) for t in times],
                          "rss_mib": round(rss / 1024, 1),
                          "wakeups_per_s": round((after - before) / args.idle_seconds, 2)}))


if __name__ == "__main__":
    main()
