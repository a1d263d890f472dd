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
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from real_model import (ROOT, inkling_binary, llama_server, service_with_model,  # noqa: E402
                        tools, wait_for, write_json)

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


def run_pass(name, binary, values, out_dir):
    # As the real-model tests do: one server makes chat and vectors.
    server = llama_server(values, "GEMMA_MODEL", MODEL, embeddings=True)
    embedding = f'embedding_model = "{MODEL}"\n' if name == "after" else ""
    notes, ids, partial = [], [], []
    started = time.time()
    with service_with_model(binary, server, MODEL, f"inkling-sprawl-{name}-",
                            embedding) as service:
        for i, body in enumerate(corpus()):
            note = service.request("POST", "/api/notes", {"body": body})
            seen = wait_for(lambda: service.finished(note["id"]), NOTE_LIMIT_S) or note
            ids.append(note["id"])
            print(f"{name} {i + 1:3}: {seen['ai_status']:7} {seen.get('tags')}", flush=True)
            # As far as it got, for a pass stopped before its end (a loaded machine).
            partial.append({"body": body, "title": seen.get("title"),
                            "tags": seen.get("tags") or [], "ai_status": seen["ai_status"]})
            write_json(os.path.join(out_dir, f"{name}.partial.json"),
                       {"pass": name, "partial": True, "notes": partial})
        # A note that outlasted its wait (a loaded machine) is still worked on: its
        # answer is waited for here, then every note is read as it ended.
        for note_id in ids:
            seen = wait_for(lambda: service.finished(note_id), NOTE_LIMIT_S)
            seen = seen or service.request("GET", f"/api/notes/{note_id}")
            notes.append({"body": seen["body"], "title": seen.get("title"),
                          "tags": seen.get("tags") or [], "ai_status": seen["ai_status"]})
        status = service.request("GET", "/api/status")
    result = {"pass": name, "seconds": round(time.time() - started),
              "embeddings": status.get("worker", {}).get("embeddings"), "notes": notes}
    path = os.path.join(out_dir, f"{name}.json")
    write_json(path, result)
    print(f"{name}: {len(notes)} notes in {result['seconds']} s, written to {path}")
    shutil.rmtree(service.work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pass", dest="which", choices=["before", "after", "both"],
                        default="both")
    parser.add_argument("--out", default=os.path.join(ROOT, "target", "tag-sprawl"))
    parser.add_argument("--binary", default=None,
                        help="the inkling binary (default: target/release, else target/debug)")
    args = parser.parse_args()
    values = tools("LLAMA_SERVER", "GEMMA_MODEL")
    binary = inkling_binary(args.binary)
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
