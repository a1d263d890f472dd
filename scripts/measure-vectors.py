#!/usr/bin/env python3
"""The running service with and without the notes' vectors (issue #26 point 5).

Usage: cargo build --release && scripts/measure-vectors.py [--notes 100000]

1. Fills a fresh data dir with N done notes (as scripts/measure-idle-startup.py does).
2. Without vectors: start-up to a served /api/status (median of 5), the first capture's
   time right after it, then related notes asked for 100 notes, and the process's RSS.
3. The same notes, each given a 768-dimension vector of the default embedding model
   (embeddinggemma; clustered: 2,000 centres with noise of their own, so notes have
   neighbours), and the same measures: the vector index is built after the service is
   up, in slices on the repository's thread, so the first capture is timed while it
   builds; related notes go through it once it is built (after a 5 s settle).

Ollama is down throughout (nothing embeds, nothing calls a model). Python standard
library only; quoted in docs/PERFORMANCE.md, "Related notes at scale".
"""
import argparse
import http.client
import importlib.util
import json
import math
import pathlib
import random
import sqlite3
import statistics
import struct
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
spec = importlib.util.spec_from_file_location("idle", HERE / "measure-idle-startup.py")
idle = importlib.util.module_from_spec(spec)
spec.loader.exec_module(idle)

DIMS = 768
CENTRES = 2_000


def request(port, token, method, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Bearer {token}"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    started = time.perf_counter()
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    response.read()
    took = time.perf_counter() - started
    conn.close()
    return response.status, took


def unit(values):
    length = math.sqrt(sum(v * v for v in values))
    return [v / length for v in values]


def add_vectors(data_dir, seed=7):
    rng = random.Random(seed)
    centres = [[rng.uniform(-1, 1) for _ in range(DIMS)] for _ in range(CENTRES)]
    db = sqlite3.connect(data_dir / "inkling.db")
    ids = [row[0] for row in db.execute("SELECT id FROM notes ORDER BY id")]
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    # A few hundred noise vectors, reused: each note's vector is its centre plus one
    # of them at a strength of its own (the notes differ; Python stays quick).
    noises = [[rng.uniform(-1, 1) for _ in range(DIMS)] for _ in range(257)]
    rows = []
    for n, note_id in enumerate(ids):
        centre, noise = centres[n % CENTRES], noises[n % len(noises)]
        spread = rng.uniform(0.4, 1.1)
        vector = unit([c + spread * e for c, e in zip(centre, noise)])
        rows.append((note_id, "embeddinggemma", DIMS, struct.pack(f"<{DIMS}f", *vector), now))
    with db:
        db.executemany("INSERT INTO note_vectors (note_id, model, dims, vector, embedded_at) "
                       "VALUES (?, ?, ?, ?, ?)", rows)
    db.close()
    return ids


def measure(data_dir, ids, label):
    times = []
    for _ in range(5):
        proc, took = idle.start(data_dir, idle.free_port())
        times.append(took)
        idle.stop(proc)
    port = idle.free_port()
    proc, _ = idle.start(data_dir, port)
    token = (data_dir / "api-token").read_text().strip()
    status, capture = request(port, token, "POST", "/api/notes",
                              json.dumps({"body": "a capture right after start"}))
    assert status == 201, status
    time.sleep(5)
    related = []
    for n in range(100):
        note_id = ids[(n * 7919) % len(ids)]
        status, took = request(port, token, "GET", f"/api/notes/{note_id}/related")
        assert status == 200, status
        related.append(took)
    time.sleep(1)
    rss = idle.rss_kib(proc.pid) / 1024
    idle.stop(proc)
    related.sort()
    result = {
        "startup_ms_median": round(statistics.median(times) * 1000, 1),
        "first_capture_ms": round(capture * 1000, 1),
        "related_p50_ms": round(related[49] * 1000, 2),
        "related_p99_ms": round(related[98] * 1000, 2),
        "rss_mib": round(rss, 1),
    }
    print(f"{label}: {result}")
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=100_000)
    args = parser.parse_args()
    if not idle.BINARY.exists():
        sys.exit("build it first: cargo build --release")
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = pathlib.Path(tmp)
        idle.fill(data_dir, args.notes, 0)
        db = sqlite3.connect(data_dir / "inkling.db")
        ids = [row[0] for row in db.execute("SELECT id FROM notes ORDER BY id")]
        db.close()
        without = measure(data_dir, ids, f"{args.notes} notes, no vectors")
        filled = time.perf_counter()
        add_vectors(data_dir)
        print(f"vectors added in {time.perf_counter() - filled:.0f} s")
        with_vectors = measure(data_dir, ids, f"{args.notes} notes of {DIMS} dimensions")
        print(json.dumps({"without": without, "with": with_vectors,
                          "rss_added_mib": round(with_vectors["rss_mib"] - without["rss_mib"], 1)}))


if __name__ == "__main__":
    main()
