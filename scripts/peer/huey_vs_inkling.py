#!/usr/bin/env python3
"""The same workload through inkling and through huey (SQLite storage), side by side.

Usage: cargo build --release && pip install huey && scripts/peer/huey_vs_inkling.py

Workload: NOTES notes are captured while the model server is down; it stays down for
DOWN seconds, then comes back. Reported for each system: notes done, notes failed, and
the time from the server's return until the last note was done.

The model server is the scripts' stub Ollama (scripts/stub_ollama.py: /api/tags, /api/chat). huey runs
with its defaults (no retries) and "tuned" (retries=10, retry_delay=30 s, roughly what
a careful user would configure). Nothing of huey is in the repository: `pip install huey`.
"""
import http.client
import json
import os
import pathlib
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import stub_ollama  # noqa: E402
from stub_ollama import free_port  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
BINARY = ROOT / "target" / "release" / "inkling"
NOTES = int(os.environ.get("NOTES", "100"))
DOWN = float(os.environ.get("DOWN", "30"))
DRAIN_LIMIT = float(os.environ.get("DRAIN_LIMIT", "180"))


class Server:
    """The fake model server; `down()` closes its socket (connection refused)."""

    def __init__(self):
        self.port = free_port()
        self.httpd = None

    def up(self):
        self.httpd, _ = stub_ollama.serve(self.port)

    def down(self):
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None



def run_inkling(server):
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("INKLING_")}
        env.update(INKLING_DATA_DIR=tmp, INKLING_HTTP__PORT=str(port), INKLING_TRAY__ENABLED="false",
                   INKLING_LOG__LEVEL="warn", INKLING_OLLAMA__URL=f"http://127.0.0.1:{server.port}")
        proc = subprocess.Popen([BINARY, "run"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        token_file = pathlib.Path(tmp) / "api-token"

        def call(method, path, body=None):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            headers = {"Authorization": f"Bearer {token_file.read_text().strip()}",
                       "Content-Type": "application/json"}
            conn.request(method, path, json.dumps(body) if body is not None else None, headers)
            return json.loads(conn.getresponse().read() or b"null")

        while True:
            try:
                if token_file.exists() and call("GET", "/api/status"):
                    break
            except OSError:
                pass
            time.sleep(0.05)
        for i in range(NOTES):
            call("POST", "/api/notes", {"body": f"peer workload note {i}"})
        time.sleep(DOWN)
        server.up()
        back = time.monotonic()
        drained = None
        while time.monotonic() - back < DRAIN_LIMIT:
            counts = call("GET", "/api/status")["counts"]
            if counts["pending"] == 0:
                drained = time.monotonic() - back
                break
            time.sleep(0.1)
        done = len(call("GET", "/api/notes?status=done&limit=500"))
        failed = call("GET", "/api/inbox/failed-count")
        proc.terminate()
        proc.wait()
        server.down()
        return done, failed, drained


TASKS = '''
import json, sqlite3, urllib.request
from huey import SqliteHuey
huey = SqliteHuey(filename={queue!r})
RETRIES, DELAY = {retries}, {delay}

@huey.task(retries=RETRIES, retry_delay=DELAY)
def enrich(note_id, text):
    request = json.dumps({{"model": "llama3.2", "stream": False,
        "messages": [{{"role": "system", "content": "json"}}, {{"role": "user", "content": text}}]}}).encode()
    with urllib.request.urlopen(urllib.request.Request({url!r}, data=request,
            headers={{"Content-Type": "application/json"}}), timeout=120) as response:
        answer = json.loads(response.read())
    db = sqlite3.connect({results!r}, timeout=30)
    with db:
        db.execute("CREATE TABLE IF NOT EXISTS done (id INTEGER PRIMARY KEY)")
        db.execute("INSERT OR IGNORE INTO done VALUES (?)", (note_id,))
'''


def run_huey(server, retries, delay):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        results = str(tmp / "results.db")
        (tmp / "peer_tasks.py").write_text(TASKS.format(
            queue=str(tmp / "queue.db"), retries=retries, delay=delay, results=results,
            url=f"http://127.0.0.1:{server.port}/api/chat"))
        sys.path.insert(0, str(tmp))
        import importlib
        tasks = importlib.import_module("peer_tasks")
        importlib.reload(tasks)
        consumer = subprocess.Popen([sys.executable, "-m", "huey.bin.huey_consumer", "peer_tasks.huey",
                                     "-w", "1", "-d", "0.1", "-m", "1.0"], cwd=tmp,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for i in range(NOTES):
            tasks.enrich(i, f"peer workload note {i}")
        time.sleep(DOWN)
        server.up()
        back = time.monotonic()

        def done_count():
            try:
                db = sqlite3.connect(results, timeout=30)
                return db.execute("SELECT COUNT(*) FROM done").fetchone()[0]
            except sqlite3.OperationalError:
                return 0

        drained = None
        while time.monotonic() - back < DRAIN_LIMIT:
            if done_count() == NOTES:
                drained = time.monotonic() - back
                break
            # Nothing left to run: everything failed for good.
            if len(tasks.huey) == 0 and tasks.huey.scheduled_count() == 0 and time.monotonic() - back > 5:
                break
            time.sleep(0.1)
        done = done_count()
        consumer.terminate()
        consumer.wait()
        server.down()
        sys.path.remove(str(tmp))
        return done, NOTES - done, drained


def main():
    if not BINARY.exists():
        sys.exit("build it first: cargo build --release")
    print(f"{NOTES} notes captured while the model server is down for {DOWN:.0f} s, then up")
    rows = [("inkling (defaults)", run_inkling(Server())),
            ("huey 3.x (defaults: no retries)", run_huey(Server(), 0, 0)),
            ("huey 3.x (retries=10, retry_delay=30 s)", run_huey(Server(), 10, 30))]
    print(f"{'system':<42} {'done':>5} {'failed':>7} {'drained after return':>22}")
    for name, (done, failed, drained) in rows:
        drained = f"{drained:.1f} s" if drained is not None else "never"
        print(f"{name:<42} {done:>5} {failed:>7} {drained:>22}")


if __name__ == "__main__":
    main()
