#!/usr/bin/env python3
"""The long version of the kill -9 tests: many rounds of SIGKILL under capture load
while the worker is in the middle of provider calls.

Usage: cargo build --release && scripts/soak-kill9.py [--rounds 30] [--clients 8]

Each round starts `inkling run` on the same data dir, with a stub Ollama whose answers
take 5-50 ms (the worker is always mid-call, so every kill lands in one), lets CLIENTS
clients capture about 20 notes a second each, and kills the service with SIGKILL at a
random moment. After every round:

- every note acknowledged with 201 is in the database;
- the invariants of SPEC 1 hold (the same queries as `Store::invariant_violations`)
  and `PRAGMA integrity_check` is ok;
- no note is `failed` and no job has a counted attempt: a kill is never a failure.

At the end the service runs once more until the queue is empty: every note `done`
(including the ones a kill caught between their commit and their 201), and SIGTERM
exits 0.

Python standard library only; quoted in docs/PERFORMANCE.md.
"""
import argparse
import http.client
import json
import os
import pathlib
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import stub_ollama  # noqa: E402
from stub_ollama import free_port  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "inkling"

INVARIANTS = {
    "pending notes without exactly one job row":
        "SELECT COUNT(*) FROM notes n WHERE n.ai_status = 'pending' "
        "AND (SELECT COUNT(*) FROM pending_jobs j WHERE j.note_id = n.id) <> 1",
    "done or failed notes with a job row":
        "SELECT COUNT(*) FROM pending_jobs j JOIN notes n ON n.id = j.note_id "
        "WHERE n.ai_status <> 'pending'",
    "job rows without a note":
        "SELECT COUNT(*) FROM pending_jobs j WHERE NOT EXISTS "
        "(SELECT 1 FROM notes n WHERE n.id = j.note_id)",
    "failed notes without an error":
        "SELECT COUNT(*) FROM notes WHERE ai_status = 'failed' AND ai_error IS NULL",
    "failed notes (a kill is never a failure)":
        "SELECT COUNT(*) FROM notes WHERE ai_status = 'failed'",
    "jobs with a counted attempt (a kill is never an attempt)":
        "SELECT COUNT(*) FROM pending_jobs WHERE attempts > 0",
}


class Service:
    def __init__(self, data_dir, ollama_url):
        self.data_dir = data_dir
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("INKLING_")}
        env.update(INKLING_DATA_DIR=str(data_dir), INKLING_HTTP__PORT=str(self.port),
                   INKLING_TRAY__ENABLED="false", INKLING_LOG__LEVEL="warn",
                   INKLING_OLLAMA__URL=ollama_url)
        self.proc = subprocess.Popen([BINARY, "run"], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not self.ready():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                sys.exit("inkling did not start")
            time.sleep(0.01)

    def token(self):
        return (self.data_dir / "api-token").read_text().strip()

    def request(self, method, path, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Authorization": f"Bearer {self.token()}", "Content-Type": "application/json"}
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")

    def ready(self):
        try:
            return self.request("GET", "/api/status")[0] == 200
        except (OSError, ValueError):
            return False


def check(db_path, acknowledged):
    db = sqlite3.connect(db_path)
    problems = []
    stored = {row[0] for row in db.execute("SELECT id FROM notes")}
    lost = [note for note in acknowledged if note not in stored]
    if lost:
        problems.append(f"{len(lost)} acknowledged notes lost, e.g. {lost[0]}")
    for what, sql in INVARIANTS.items():
        count = db.execute(sql).fetchone()[0]
        if count:
            problems.append(f"{count} {what}")
    integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
    if integrity != "ok":
        problems.append(f"integrity_check: {integrity}")
    db.close()
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    if not BINARY.exists():
        sys.exit("build it first: cargo build --release")

    ollama, stub = stub_ollama.serve(delay=(0.005, 0.05))
    ollama_url = f"http://127.0.0.1:{ollama.server_address[1]}"
    acknowledged = []
    lock = threading.Lock()
    started = time.monotonic()

    with tempfile.TemporaryDirectory() as tmp:
        data_dir = pathlib.Path(tmp)
        for round_number in range(1, args.rounds + 1):
            service = Service(data_dir, ollama_url)
            stop = threading.Event()

            def client(number):
                i = 0
                while not stop.is_set():
                    try:
                        status, note = service.request(
                            "POST", "/api/notes", {"body": f"round {round_number} client {number} note {i}"})
                    except (OSError, ValueError, http.client.HTTPException):
                        return  # the service is gone
                    if status == 201:
                        with lock:
                            acknowledged.append(note["id"])
                    i += 1
                    # A person-sized load, so the last start can drain the queue.
                    stop.wait(0.05)

            clients = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
            for thread in clients:
                thread.start()
            time.sleep(random.uniform(0.2, 1.0))
            service.proc.send_signal(signal.SIGKILL)
            service.proc.wait()
            stop.set()
            for thread in clients:
                thread.join()
            problems = check(data_dir / "inkling.db", acknowledged)
            print(f"round {round_number}: {len(acknowledged)} acknowledged so far, "
                  f"{stub.calls} provider calls, {'ok' if not problems else problems}")
            if problems:
                sys.exit(1)

        # The last run drains the queue.
        service = Service(data_dir, ollama_url)
        deadline = time.monotonic() + 600
        while True:
            _, status = service.request("GET", "/api/status")
            if status["counts"]["pending"] == 0:
                break
            if time.monotonic() > deadline:
                sys.exit(f"not drained: {status['counts']}")
            time.sleep(0.2)
        service.proc.send_signal(signal.SIGTERM)
        code = service.proc.wait(timeout=30)
        db = sqlite3.connect(data_dir / "inkling.db")
        counts = dict(db.execute("SELECT ai_status, COUNT(*) FROM notes GROUP BY ai_status").fetchall())
        db.close()
        problems = check(data_dir / "inkling.db", acknowledged)
        if code != 0:
            problems.append(f"SIGTERM exit status {code}")
        if set(counts) - {"done"}:
            problems.append(f"not all done: {counts}")
        elapsed = time.monotonic() - started
        print(f"{args.rounds} kills, {len(acknowledged)} notes acknowledged, "
              f"{counts.get('done', 0)} stored and done after the last start, "
              f"{stub.calls} provider calls, {elapsed:.0f} s: "
              f"{'ok' if not problems else problems}")
        print(json.dumps({"rounds": args.rounds, "acknowledged": len(acknowledged),
                          "stored": sum(counts.values()),
                          "provider_calls": stub.calls, "problems": problems}))
        sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
