#!/usr/bin/env python3
"""Start-up time and idle cost of the release binary with a big database.

Usage: cargo build --release && scripts/measure-idle-startup.py [--idle-seconds 60]

1. Fills a fresh data dir with 100,000 notes, 10,000 of them pending (jobs due), the
   schema made by the binary itself.
2. Start-up: time from spawning `inkling run` to the first 200 on /api/status, best and
   median of 5 starts.
3. Idle: RSS and wake-ups (context switches of each of the process's threads) over the
   idle window, after a 5 s settle and one API request (so the HTTP service has been
   built and dropped once): first with Ollama down (nothing listens on its port), then
   with a stub Ollama that answers the health check and every note already enriched
   (nothing to do).

Python standard library only; quoted in docs/PERFORMANCE.md.
"""
import argparse
import http.client
import json
import os
import pathlib
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import stub_ollama  # noqa: E402
from stub_ollama import free_port  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "inkling"



def env_for(data_dir, port, ollama_url="http://127.0.0.1:9"):
    env = {k: v for k, v in os.environ.items() if not k.startswith("INKLING_")}
    env.update(
        INKLING_DATA_DIR=str(data_dir),
        INKLING_HTTP__PORT=str(port),
        INKLING_TRAY__ENABLED="false",
        INKLING_LOG__LEVEL="warn",
        INKLING_OLLAMA__URL=ollama_url,
    )
    return env


def status_ok(port, token):
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
        conn.request("GET", "/api/status", headers={"Authorization": f"Bearer {token}"})
        return conn.getresponse().status == 200
    except OSError:
        return False


def start(data_dir, port, ollama_url="http://127.0.0.1:9"):
    proc = subprocess.Popen([BINARY, "run"], env=env_for(data_dir, port, ollama_url),
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
    """Context switches so far, per thread ("tid name" -> count)."""
    counts = {}
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        name = (task / "comm").read_text().strip()
        total = 0
        for line in (task / "status").read_text().splitlines():
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                total += int(line.split()[1])
        counts[f"{task.name} {name}"] = total
    return counts


def measure_idle(data_dir, seconds, ollama_url, label):
    port = free_port()
    proc, _ = start(data_dir, port, ollama_url)
    status_ok(port, (data_dir / "api-token").read_text().strip())
    time.sleep(5)
    before = threads_switches(proc.pid)
    time.sleep(seconds)
    after = threads_switches(proc.pid)
    rss = rss_kib(proc.pid)
    stop(proc)
    per_thread = {k: (after[k] - before.get(k, 0)) / seconds for k in after}
    total = sum(per_thread.values())
    print(f"idle {seconds} s, {label}: RSS {rss / 1024:.1f} MiB, "
          f"{total:.2f} wake-ups/s over {len(after)} threads")
    for thread, rate in sorted(per_thread.items()):
        print(f"    {thread:<28} {rate:.2f}/s")
    return rss, total


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

        rss, down = measure_idle(data_dir, args.idle_seconds, "http://127.0.0.1:9", "Ollama down")
        # Nothing to do: the same notes, all enriched (the stub answers no chat).
        db = sqlite3.connect(data_dir / "inkling.db")
        with db:
            db.execute("DELETE FROM pending_jobs")
            db.execute("UPDATE notes SET ai_status = 'done' WHERE ai_status = 'pending'")
        db.close()
        stub, _ = stub_ollama.serve()
        _, up = measure_idle(data_dir, args.idle_seconds,
                             f"http://127.0.0.1:{stub.server_address[1]}", "Ollama up, nothing to do")
        stub.shutdown()
        print(json.dumps({"startup_ms": [round(t * 1000) for t in times],
                          "rss_mib": round(rss / 1024, 1),
                          "wakeups_per_s_ollama_down": round(down, 2),
                          "wakeups_per_s_ollama_up": round(up, 2)}))


if __name__ == "__main__":
    main()
