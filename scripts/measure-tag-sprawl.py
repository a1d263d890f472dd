#!/usr/bin/env python3
"""Tag sprawl with a real model, before and after the neighbours' tags in the prompt
(docs/PERFORMANCE.md, "Tag sprawl"; issue #26 point 4).

Run `scripts/real-model-tools.sh` once (llama-server and Gemma 3 270M into
~/.cache/inkling-test-tools) and build inkling (`cargo build`; the figures do not
depend on inkling's speed, so the debug build does), then:

    scripts/measure-tag-sprawl.py [--pass before|after|both] [--out DIR] [--binary PATH]

Each pass starts llama-server (`--embeddings --pooling mean`, as the real-model tests
do: one server makes chat and vectors) and `inkling run` on loopback, and writes the
notes of benches/corpus/weeks-of-notes.txt one at a time, in order, each after the
last one's title and tags came back (a person writing over weeks, not a flood).
"before" configures no embedding model: the prompt carries the vocabulary alone, as
before point 4. "after" configures the server's model for the vectors too: each note is
embedded first and its prompt carries its neighbours' tags. Each pass writes
DIR/<pass>.json (every note's body, title and tags). With both files there, the figures
are printed by the bench binary (`cargo bench --profile dev --bench tag_sprawl --
DIR/before.json DIR/after.json`; a pass stopped early leaves DIR/<pass>.partial.json,
as far as it got, which the bench reads as well): distinct tags per 100 notes and the pairs of near-duplicate tags,
defined and unit-tested in tests/support/sprawl.rs.

Nothing leaves this machine.
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(
    os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "inkling-test-tools"
)
CORPUS = os.path.join(ROOT, "benches", "corpus", "weeks-of-notes.txt")
MODEL = "gemma-3-270m"
# A note's title takes seconds on an idle 2-core machine and minutes on a loaded one;
# a note still pending after this is waited for again at the end of the pass (the
# next notes are written meanwhile), and counted as unfinished if it is still then.
NOTE_LIMIT_S = 300


def corpus():
    """The notes of the corpus, in order: blocks between lines holding only ---."""
    text = open(CORPUS, encoding="utf-8").read()
    blocks = text.split("\n---\n")[1:]  # the first block is the header
    return [b.strip() for b in blocks if b.strip()]


def tools():
    env_file = os.path.join(CACHE, "env")
    if not os.path.exists(env_file):
        sys.exit(f"missing {env_file}: run scripts/real-model-tools.sh first")
    values = dict(line.strip().split("=", 1) for line in open(env_file) if "=" in line)
    for key in ("LLAMA_SERVER", "GEMMA_MODEL"):
        if not os.path.exists(values.get(key, "")):
            sys.exit(f"{key} is missing: run scripts/real-model-tools.sh")
    return values


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(base, token, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {token}")
    if data:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=30) as answer:
        return json.loads(answer.read())


def wait_for(what, check, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            result = check()
            if result:
                return result
        except OSError:
            pass
        time.sleep(0.3)
    return None


def write(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, indent=1)


def run_pass(name, binary, values, out_dir):
    work = tempfile.mkdtemp(prefix=f"inkling-sprawl-{name}-")
    model_port, http_port = free_port(), free_port()
    server_log = open(os.path.join(work, "llama-server.log"), "w")
    server = subprocess.Popen(
        [values["LLAMA_SERVER"], "-m", values["GEMMA_MODEL"], "-c", "2048", "--parallel", "1",
         "--jinja", "--chat-template-file",
         os.path.join(ROOT, "tests", "support", "gemma-chat-template.jinja"),
         "--host", "127.0.0.1", "--port", str(model_port), "--alias", MODEL,
         "--embeddings", "--pooling", "mean"],
        stdout=server_log, stderr=subprocess.STDOUT)
    embedding = f'embedding_model = "{MODEL}"\n' if name == "after" else ""
    config = os.path.join(work, "config.toml")
    with open(config, "w") as f:
        f.write(f"""data_dir = "{work}/data"
[http]
port = {http_port}
[tray]
enabled = false
[ai]
provider = "openai"
[openai]
url = "http://127.0.0.1:{model_port}/v1"
model = "{MODEL}"
{embedding}""")
    service = subprocess.Popen(
        [binary, "--config", config, "run"], stdout=subprocess.DEVNULL,
        stderr=open(os.path.join(work, "inkling.log"), "w"),
        env={**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "info")})
    base = f"http://127.0.0.1:{http_port}"
    notes, ids, partial = [], [], []
    started = time.time()
    try:
        token_path = os.path.join(work, "data", "api-token")
        if not wait_for("the service", lambda: os.path.exists(token_path), 60):
            sys.exit(f"inkling did not start: see {work}/inkling.log")
        token = open(token_path).read().strip()
        if not wait_for("the API", lambda: request(base, token, "GET", "/api/status"), 60):
            sys.exit(f"inkling's API did not answer: see {work}/inkling.log")
        def finished(note_id):
            seen = request(base, token, "GET", f"/api/notes/{note_id}")
            return seen if seen["ai_status"] in ("done", "failed") else None

        for i, body in enumerate(corpus()):
            note = request(base, token, "POST", "/api/notes", {"body": body})
            seen = wait_for("the note's AI", lambda: finished(note["id"]), NOTE_LIMIT_S) or note
            ids.append(note["id"])
            print(f"{name} {i + 1:3}: {seen['ai_status']:7} {seen.get('tags')}", flush=True)
            # As far as it got, for a pass stopped before its end (a loaded machine).
            partial.append({"body": body, "title": seen.get("title"),
                            "tags": seen.get("tags") or [], "ai_status": seen["ai_status"]})
            write(os.path.join(out_dir, f"{name}.partial.json"),
                  {"pass": name, "partial": True, "notes": partial})
        # A note that outlasted its wait (a loaded machine) is still worked on: its
        # answer is waited for here, then every note is read as it ended.
        for note_id in ids:
            seen = wait_for("the note's AI", lambda: finished(note_id), NOTE_LIMIT_S)
            seen = seen or request(base, token, "GET", f"/api/notes/{note_id}")
            notes.append({"body": seen["body"], "title": seen.get("title"),
                          "tags": seen.get("tags") or [], "ai_status": seen["ai_status"]})
        status = request(base, token, "GET", "/api/status")
    finally:
        service.terminate()
        server.terminate()
        service.wait(timeout=30)
        server.wait(timeout=30)
        server_log.close()
    result = {"pass": name, "seconds": round(time.time() - started),
              "embeddings": status.get("worker", {}).get("embeddings"), "notes": notes}
    path = os.path.join(out_dir, f"{name}.json")
    write(path, result)
    print(f"{name}: {len(notes)} notes in {result['seconds']} s, written to {path}")
    shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pass", dest="which", choices=["before", "after", "both"],
                        default="both")
    parser.add_argument("--out", default=os.path.join(ROOT, "target", "tag-sprawl"))
    parser.add_argument("--binary", default=None,
                        help="the inkling binary (default: target/release, else target/debug)")
    args = parser.parse_args()
    values = tools()
    binary = args.binary
    if binary is None:
        for build in ("release", "debug"):
            candidate = os.path.join(ROOT, "target", build, "inkling")
            if os.path.exists(candidate):
                binary = candidate
                break
    if not binary or not os.path.exists(binary):
        sys.exit("no inkling binary: run cargo build")
    os.makedirs(args.out, exist_ok=True)
    for name in (["before", "after"] if args.which == "both" else [args.which]):
        run_pass(name, binary, values, args.out)
    before, after = (os.path.join(args.out, f"{p}.json") for p in ("before", "after"))
    if os.path.exists(before) and os.path.exists(after):
        subprocess.run(["cargo", "bench", "--profile", "dev", "--bench", "tag_sprawl", "--",
                        before, after],
                       cwd=ROOT, check=True)


if __name__ == "__main__":
    main()
