#!/usr/bin/env python3
"""The AI's quality on a labelled corpus, with real models (docs/PERFORMANCE.md, "AI quality").

Run `scripts/real-model-tools.sh` once (llama-server, Gemma 3 270M and SmolLM2-135M-Instruct
into ~/.cache/inkling-test-tools) and build inkling
(`cargo build --release`, or the debug build: the figures do not depend on inkling's
speed), then:

    scripts/measure-quality.py --chat smollm2 --embedder builtin|server|none [--label NAME] [--binary PATH]

One pass starts llama-server with the chat model (`--chat smollm2` or `gemma`; with
`--embedder server` it makes the vectors too, `--embeddings --pooling mean`; with
`--embedder builtin`, the default, inkling's built-in embedder makes them from the model
the test tools fetched (BUILTIN_EMBEDDER_DIR); with `--embedder none` neither, so search
is by words) and
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
note that answers). `--notes N` and `--questions N` take the first N only (a quick look; with `--notes N`
only the questions that one of those notes answers are asked).

Nothing leaves this machine.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from real_model import (ROOT, inkling_binary, llama_server, service_with_model,  # noqa: E402
                        tools, wait_for, write_json)

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


MODEL_KEY = {"gemma": "GEMMA_MODEL", "smollm2": "SMOLLM2_MODEL"}


def ask(service, question):
    """POST /api/ask, its NDJSON events read to the end."""
    req = urllib.request.Request(service.base + "/api/ask", method="POST",
                                 data=json.dumps({"question": question}).encode())
    req.add_header("Authorization", f"Bearer {service.token}")
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


def run_pass(label, binary, values, args, out_dir):
    server = llama_server(values, MODEL_KEY[args.chat], args.chat, context=4096,
                          embeddings=args.embedder == "server")
    embedding = f'embedding_model = "{args.chat}"\n' if args.embedder == "server" else ""
    # The built-in embedder reads the model the test tools fetched; `none` turns it off
    # (a binary from before the built-in embedder has neither key: pass `server`).
    if args.embedder == "builtin":
        folder = os.environ.get("BUILTIN_EMBEDDER_DIR")
        if not folder:
            sys.exit("BUILTIN_EMBEDDER_DIR is not set: run scripts/real-model-tools.sh and "
                     "source its env file")
        ai_extra = f'builtin_embedder_dir = "{folder}"'
    elif args.embedder == "none":
        ai_extra = "builtin_embedder = false"
    else:
        ai_extra = ""
    notes = corpus()[: args.notes]
    # With the first N notes only, a question is asked when a note that answers it is
    # among them (the others could only be missed).
    written = {note["id"] for note in notes}
    asked = [q for q in questions() if written.intersection(q["answers"])][: args.questions]
    result = {"label": label, "chat": args.chat, "embedder": args.embedder,
              "binary": binary, "notes": [], "questions": []}
    started = time.time()
    with service_with_model(binary, server, args.chat, f"inkling-quality-{label}-",
                            embedding, ai_extra) as service:
        ids = {}
        for i, note in enumerate(notes):
            stored = service.request("POST", "/api/notes", {"body": note["body"]})
            ids[note["id"]] = stored["id"]
            seen = wait_for(lambda: service.finished(stored["id"]), NOTE_LIMIT_S) or stored
            print(f"{label} {i + 1:3}: {seen['ai_status']:7} {seen.get('title')!r} "
                  f"{seen.get('tags')}", flush=True)
        for note in notes:
            seen = wait_for(lambda: service.finished(ids[note["id"]]), NOTE_LIMIT_S)
            seen = seen or service.request("GET", f"/api/notes/{ids[note['id']]}")
            result["notes"].append({
                "id": note["id"], "labels": note["labels"], "body": note["body"],
                "title": seen.get("title"), "tags": seen.get("tags") or [],
                "summary": seen.get("summary"), "ai_status": seen["ai_status"]})

        # Every note's vector before the questions: a search while indexing is words only.
        def indexed():
            status = service.request("GET", "/api/status")
            embeddings = status.get("worker", {}).get("embeddings") or {}
            return status if embeddings.get("state") in ("up_to_date", "off", None) else None
        wait_for(indexed, 600)
        by_inkling_id = {v: k for k, v in ids.items()}
        for i, q in enumerate(asked):
            query = urllib.parse.urlencode({"q": q["question"], "limit": 10})
            found = service.request("GET", f"/api/search?{query}")
            hits = [{"id": by_inkling_id.get(h["id"], h["id"]), "found_by": h["found_by"]}
                    for h in found["hits"]]
            answer = ask(service, q["question"])
            answer["notes"] = [by_inkling_id.get(n, n) for n in answer["notes"]]
            result["questions"].append({**q, "hits": hits,
                                        "keyword_only": found.get("keyword_only"),
                                        "ask": answer})
            print(f"{label} q{i + 1:2}: hits {[h['id'] for h in hits[:5]]} "
                  f"answer {answer['answer'][:80]!r}", flush=True)
        result["status"] = service.request("GET", "/api/status")
    result["seconds"] = round(time.time() - started)
    path = os.path.join(out_dir, f"{label}.json")
    write_json(path, result)
    print(f"{label}: {len(result['notes'])} notes, {len(result['questions'])} questions "
          f"in {result['seconds']} s, written to {path}")
    shutil.rmtree(service.work, ignore_errors=True)
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
    values = tools("LLAMA_SERVER", MODEL_KEY[args.chat])
    binary = inkling_binary(args.binary)
    os.makedirs(args.out, exist_ok=True)
    label = args.label or f"{args.chat}-{args.embedder}"
    path = run_pass(label, binary, values, args, args.out)
    subprocess.run(["cargo", "bench", "--profile", "dev", "--bench", "quality", "--", path],
                   cwd=ROOT, check=True)


if __name__ == "__main__":
    main()
