#!/usr/bin/env python3
"""The AI's quality on a labelled corpus, with real models (docs/PERFORMANCE.md, "AI quality").

Run `scripts/real-model-tools.sh` once (llama-server, Gemma 3 270M, SmolLM2-135M-Instruct
and the built-in embedder's model into ~/.cache/inkling-test-tools) and build inkling
(`cargo build --release`, or the debug build: the figures do not depend on inkling's
speed), then:

    scripts/measure-quality.py --chat smollm2 --embedder builtin [--label NAME] [--binary PATH]

One pass starts llama-server with the chat model (`--chat smollm2` or `gemma`; with
`--embedder server` it makes the vectors too, `--embeddings --pooling mean`) and
`inkling run` on loopback, then:

1. writes the 150 notes of benches/quality/notes.txt one at a time, in order, each after
   the last one's title and tags came back (a person writing over weeks, not a flood);
2. waits until every note has its vector, then searches each question of
   benches/quality/questions.txt (GET /api/search) and asks it (POST /api/ask).

It writes DIR/LABEL.json (every note's title, tags and summary; every question's hits and
answer), then prints the figures with the bench binary: `cargo bench --profile dev
--bench quality -- DIR/LABEL.json` (tag precision and recall against the hand-written
labels, distinct tags per 100 notes, near-duplicate pairs, tags with no support in their
note, the share of notes carrying the most common tag, schema-word tags, title
faithfulness, search recall@5 by meaning and by words, Ask's share of answers citing a
note that answers). `--notes N` and `--questions N` take the first N only (a quick look).

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
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(
    os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "inkling-test-tools"
)
NOTES = os.path.join(ROOT, "benches", "quality", "notes.txt")
QUESTIONS = os.path.join(ROOT, "benches", "quality", "questions.txt")
# A note's title takes seconds on an idle 2-core machine and minutes on a loaded one;
# a note still pending after this is waited for again at the end of the pass (the next
# notes are written meanwhile), and counted as unfinished if it still is then.
NOTE_LIMIT_S = 300
ASK_LIMIT_S = 300


def blocks(path):
    """The blocks of a corpus file: between lines holding only ---, the header skipped."""
    text = open(path, encoding="utf-8").read()
    return [b.strip("\n") for b in text.split("\n---\n")[1:] if b.strip()]


def corpus():
    notes = []
    for block in blocks(NOTES):
        head_id, head_tags, body = block.split("\n", 2)
        assert head_id.startswith("id: ") and head_tags.startswith("tags: "), block[:80]
        notes.append({"id": head_id[4:].strip(),
                      "labels": [t.strip() for t in head_tags[6:].split(",") if t.strip()],
                      "body": body.strip()})
    return notes


def questions():
    asked = []
    for block in blocks(QUESTIONS):
        lines = dict(line.split(": ", 1) for line in block.strip().split("\n"))
        asked.append({"question": lines["q"].strip(),
                      "answers": [a.strip() for a in lines["answers"].split(",")]})
    return asked


def tools(chat, embedder):
    env_file = os.path.join(CACHE, "env")
    if not os.path.exists(env_file):
        sys.exit(f"missing {env_file}: run scripts/real-model-tools.sh first")
    values = dict(line.strip().split("=", 1) for line in open(env_file) if "=" in line)
    needed = ["LLAMA_SERVER", {"gemma": "GEMMA_MODEL", "smollm2": "SMOLLM2_MODEL"}[chat]]
    if embedder == "builtin":
        needed.append("BUILTIN_EMBEDDER_DIR")
    for key in needed:
        if not os.path.exists(values.get(key, "")):
            sys.exit(f"{key} is missing: run scripts/real-model-tools.sh")
    return values


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(base, token, method, path, body=None, timeout=30):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {token}")
    if data:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=timeout) as answer:
        return json.loads(answer.read())


def ask(base, token, question):
    """POST /api/ask, its NDJSON events read to the end."""
    req = urllib.request.Request(base + "/api/ask", method="POST",
                                 data=json.dumps({"question": question}).encode())
    req.add_header("Authorization", f"Bearer {token}")
    req.add_header("Content-Type", "application/json")
    notes, text, removed, done = [], "", [], None
    with urllib.request.urlopen(req, timeout=ASK_LIMIT_S) as answer:
        for line in answer:
            if not line.strip():
                continue
            event = json.loads(line)
            if event["type"] == "notes":
                notes = [n["id"] for n in event["notes"]]
            elif event["type"] == "answer":
                text += event["text"]
            elif event["type"] == "removed":
                removed.append(event["citation"])
            elif event["type"] == "done":
                done = event
    return {"notes": notes, "answer": text, "removed": removed, "done": done}


def wait_for(check, timeout):
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


def server_command(values, chat, embedder, port):
    model = values["GEMMA_MODEL"] if chat == "gemma" else values["SMOLLM2_MODEL"]
    command = [values["LLAMA_SERVER"], "-m", model, "-c", "4096", "--parallel", "1",
               "--jinja", "--host", "127.0.0.1", "--port", str(port), "--alias", chat]
    if chat == "gemma":
        # Gemma's GGUF template needs the one the tests give it.
        command += ["--chat-template-file",
                    os.path.join(ROOT, "tests", "support", "gemma-chat-template.jinja")]
    if embedder == "server":
        command += ["--embeddings", "--pooling", "mean"]
    return command


def config_text(work, http_port, model_port, chat, embedder, values):
    embedding = ""
    if embedder == "server":
        embedding = f'embedding_model = "{chat}"\n'
    builtin = ""
    if embedder == "builtin":
        builtin = f'[embedder]\nmodel_dir = "{values["BUILTIN_EMBEDDER_DIR"]}"\n'
    elif embedder == "none":
        builtin = "[embedder]\nenabled = false\n"
    return f"""data_dir = "{work}/data"
[http]
port = {http_port}
[tray]
enabled = false
[ai]
provider = "openai"
[openai]
url = "http://127.0.0.1:{model_port}/v1"
model = "{chat}"
{embedding}{builtin}"""


def run_pass(label, binary, values, args, out_dir):
    work = tempfile.mkdtemp(prefix=f"inkling-quality-{label}-")
    model_port, http_port = free_port(), free_port()
    server_log = open(os.path.join(work, "llama-server.log"), "w")
    server = subprocess.Popen(server_command(values, args.chat, args.embedder, model_port),
                              stdout=server_log, stderr=subprocess.STDOUT)
    config = os.path.join(work, "config.toml")
    with open(config, "w") as f:
        f.write(config_text(work, http_port, model_port, args.chat, args.embedder, values))
    service = subprocess.Popen(
        [binary, "--config", config, "run"], stdout=subprocess.DEVNULL,
        stderr=open(os.path.join(work, "inkling.log"), "w"),
        env={**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "info")})
    base = f"http://127.0.0.1:{http_port}"
    notes = corpus()[: args.notes]
    asked = questions()[: args.questions]
    result = {"label": label, "chat": args.chat, "embedder": args.embedder,
              "binary": binary, "notes": [], "questions": []}
    started = time.time()
    try:
        token_path = os.path.join(work, "data", "api-token")
        if not wait_for(lambda: os.path.exists(token_path), 60):
            sys.exit(f"inkling did not start: see {work}/inkling.log")
        token = open(token_path).read().strip()
        if not wait_for(lambda: request(base, token, "GET", "/api/status"), 60):
            sys.exit(f"inkling's API did not answer: see {work}/inkling.log")

        def finished(note_id):
            seen = request(base, token, "GET", f"/api/notes/{note_id}")
            return seen if seen["ai_status"] in ("done", "failed") else None

        ids = {}
        for i, note in enumerate(notes):
            stored = request(base, token, "POST", "/api/notes", {"body": note["body"]})
            ids[note["id"]] = stored["id"]
            seen = wait_for(lambda: finished(stored["id"]), NOTE_LIMIT_S) or stored
            print(f"{label} {i + 1:3}: {seen['ai_status']:7} {seen.get('title')!r} "
                  f"{seen.get('tags')}", flush=True)
        for note in notes:
            seen = wait_for(lambda: finished(ids[note["id"]]), NOTE_LIMIT_S)
            seen = seen or request(base, token, "GET", f"/api/notes/{ids[note['id']]}")
            result["notes"].append({
                "id": note["id"], "labels": note["labels"], "body": note["body"],
                "title": seen.get("title"), "tags": seen.get("tags") or [],
                "summary": seen.get("summary"), "ai_status": seen["ai_status"]})
        # Every note's vector before the questions: a search while indexing is words only.
        def indexed():
            status = request(base, token, "GET", "/api/status")
            embeddings = status.get("worker", {}).get("embeddings") or {}
            return status if embeddings.get("state") in ("up_to_date", "off", None) else None
        wait_for(indexed, 600)
        by_inkling_id = {v: k for k, v in ids.items()}
        for i, q in enumerate(asked):
            query = urllib.parse.urlencode({"q": q["question"], "limit": 10})
            found = request(base, token, "GET", f"/api/search?{query}")
            hits = [{"id": by_inkling_id.get(h["id"], h["id"]), "found_by": h["found_by"]}
                    for h in found["hits"]]
            answer = ask(base, token, q["question"])
            answer["notes"] = [by_inkling_id.get(n, n) for n in answer["notes"]]
            result["questions"].append({**q, "hits": hits,
                                        "keyword_only": found.get("keyword_only"),
                                        "ask": answer})
            print(f"{label} q{i + 1:2}: hits {[h['id'] for h in hits[:5]]} "
                  f"answer {answer['answer'][:80]!r}", flush=True)
        result["status"] = request(base, token, "GET", "/api/status")
    finally:
        service.terminate()
        server.terminate()
        service.wait(timeout=30)
        server.wait(timeout=30)
        server_log.close()
    result["seconds"] = round(time.time() - started)
    path = os.path.join(out_dir, f"{label}.json")
    write(path, result)
    print(f"{label}: {len(result['notes'])} notes, {len(result['questions'])} questions "
          f"in {result['seconds']} s, written to {path}")
    shutil.rmtree(work, ignore_errors=True)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chat", choices=["smollm2", "gemma"], default="smollm2")
    parser.add_argument("--embedder", choices=["builtin", "server", "none"], default="builtin")
    parser.add_argument("--label", default=None)
    parser.add_argument("--notes", type=int, default=None)
    parser.add_argument("--questions", type=int, default=None)
    parser.add_argument("--out", default=os.path.join(ROOT, "target", "quality"))
    parser.add_argument("--binary", default=None,
                        help="the inkling binary (default: target/release, else target/debug)")
    args = parser.parse_args()
    values = tools(args.chat, args.embedder)
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
    label = args.label or f"{args.chat}-{args.embedder}"
    path = run_pass(label, binary, values, args, args.out)
    subprocess.run(["cargo", "bench", "--profile", "dev", "--bench", "quality", "--", path],
                   cwd=ROOT, check=True)


if __name__ == "__main__":
    main()
