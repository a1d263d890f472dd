#!/usr/bin/env python3
"""Retry-all of 100,000 failed notes the way a user runs it: `inkling retry-failed`.

Usage: cargo build --release && scripts/measure-retry-cli.py [--notes 100000] [--runs 3]

For each run: a fresh data dir whose schema the binary makes, NOTES failed notes
written into it, the release service started (Ollama down, so nothing is enriched
meanwhile), then the wall time of the CLI command, process start to exit, including
its HTTP call and the service's transaction. The benchmark `cargo bench --bench
pipeline -- retry` measures the route itself against the raw SQL.

Python standard library only; quoted in docs/PERFORMANCE.md.
"""
import argparse
import pathlib
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from importlib import import_module  # noqa: E402

measure = import_module("measure-idle-startup")


def uuid7(ms):
    """A UUID v7 for the millisecond `ms`, as inkling makes them (time-ordered)."""
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | uuid.uuid4().int & ((1 << 76) - 1)
    value = value & ~(0x3 << 62) | 0x2 << 62  # the variant bits
    return str(uuid.UUID(int=value))


def fill_failed(data_dir, notes):
    port = measure.free_port()
    proc, _ = measure.start(data_dir, port)  # the binary makes its own schema
    measure.stop(proc)
    db = sqlite3.connect(data_dir / "inkling.db")
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    base_ms = int(time.time() * 1000) - notes * 60_000  # one note a minute, up to now
    with db:
        db.executemany(
            "INSERT INTO notes (id, body, ai_status, ai_error, created_at, updated_at) "
            "VALUES (?, ?, 'failed', 'schema: the answer did not match', ?, ?)",
            ((uuid7(base_ms + i * 60_000), f"note {i}: a thought of ordinary length", now, now)
             for i in range(notes)))
    db.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not measure.BINARY.exists():
        sys.exit("build it first: cargo build --release")
    times = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            data_dir = pathlib.Path(tmp)
            fill_failed(data_dir, args.notes)
            port = measure.free_port()
            proc, _ = measure.start(data_dir, port)
            env = measure.env_for(data_dir, port)
            started = time.perf_counter()
            done = subprocess.run([measure.BINARY, "retry-failed"], env=env,
                                  capture_output=True, text=True)
            took = time.perf_counter() - started
            measure.stop(proc)
            if done.returncode != 0:
                sys.exit(f"retry-failed failed: {done.stderr}")
            print(f"inkling retry-failed, {args.notes} failed notes: {took * 1000:.0f} ms "
                  f"({done.stdout.strip()})")
            times.append(took)
    print(f"median {statistics.median(times) * 1000:.0f} ms, best {min(times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
