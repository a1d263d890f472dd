#!/usr/bin/env python3
"""A compressed day against a real model: inkling's release build with
`ai.provider = "openai"`, llama.cpp's llama-server running Gemma 3 270M
(docs/PERFORMANCE.md, "A day with a real model").

Run `scripts/real-model-tools.sh` once (it builds llama-server and assembles the
model into ~/.cache/inkling-test-tools), `cargo build --release`, then:

    scripts/real-model-day.py [--notes 40] [--every 6]

It captures a note every `--every` seconds (ordinary English and Korean notes,
one-word notes, a checklist, and two articles longer than the server's context),
waits until every note is done or failed, and prints: capture -> enriched p50/p95
for the ordinary notes, where the model's time went (inkling's own count), the
server's prompt and output tokens per second (its log), and ten titles as the
model wrote them. Nothing leaves this machine; everything runs on loopback.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from real_model import ROOT, llama_server, service_with_model, tools  # noqa: E402

ORDINARY = [
    "Call the plumber about the leaking kitchen tap before Friday",
    "Meeting notes: ship the beta on the 14th, docs first, then the blog post",
    "회의 메모: 다음 주 화요일까지 예산안을 다시 확인하기",
    "Book a table for four at the Thai place on Saturday evening",
    "The garden needs mulch before the first frost",
    "Podcast idea: interviews with people who repair old radios",
    "Return the two overdue library books and pay the fine",
    "Recipe: lentil soup with cumin, lemon and a lot of garlic",
    "장보기: 두부, 대파, 계란, 우유 사기",
    "Bug: the export button does nothing on the settings page",
    "Compare the two phone plans before the contract ends in March",
    "Read the chapter on indexes before Thursday's study group",
    "주말에 부모님께 전화하기",
    "Ask IT for a second monitor and a docking station",
]
ONE_WORD = ["milk", "dentist", "우유", "stamps"]
CHECKLIST = "Packing list\n\n- [ ] passport\n- [ ] charger\n- [x] tickets\n- [ ] sunscreen"
PARAGRAPH = (
    "The engineers found cracks in the east pier during the spring survey, and the council "
    "heard their report on Monday. Traffic will move to the ferry until the repairs are done; "
    "the cost is shared between the city and the region. "
)


def article(chars):
    text = "Why the bridge closed: the council's report on the river crossing\n\n"
    while len(text) < chars:
        text += PARAGRAPH + "\n"
    return text


def stamp(text):
    """Seconds since the epoch of an RFC 3339 time with milliseconds and a Z."""
    from datetime import datetime
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=40)
    parser.add_argument("--every", type=float, default=6.0)
    args = parser.parse_args()
    values = tools("LLAMA_SERVER", "GEMMA_MODEL")
    binary = os.path.join(ROOT, "target", "release", "inkling")
    if not os.path.exists(binary):
        sys.exit("missing target/release/inkling: run cargo build --release")

    server = llama_server(values, "GEMMA_MODEL", "gemma-3-270m")
    with service_with_model(binary, server, "gemma-3-270m", "inkling-day-") as service:
        work = service.work
        plan = []
        for i in range(args.notes):
            if i == 5:
                plan.append(("article", article(12_000)))
            elif i == args.notes // 2:
                plan.append(("article", article(40_000)))
            elif i % 9 == 4:
                plan.append(("one word", ONE_WORD[i % len(ONE_WORD)]))
            elif i == 7:
                plan.append(("checklist", CHECKLIST))
            else:
                plan.append(("ordinary", f"{ORDINARY[i % len(ORDINARY)]} ({i + 1})"))

        captured = []
        started = time.time()
        for kind, body in plan:
            note = service.request("POST", "/api/notes", {"body": body})
            captured.append((note["id"], kind, time.time()))
            time.sleep(args.every)

        done = {}
        deadline = time.time() + 1800
        while len(done) < len(captured) and time.time() < deadline:
            for note_id, kind, at in captured:
                if note_id in done:
                    continue
                note = service.request("GET", f"/api/notes/{note_id}")
                if note["ai_status"] in ("done", "failed"):
                    # The service's own times: stored, then enriched (nothing else
                    # writes to the note meanwhile), whenever this loop looks.
                    took = stamp(note["updated_at"]) - stamp(note["created_at"])
                    done[note_id] = (note, took)
            time.sleep(0.5)
        wall = time.time() - started
        status = service.request("GET", "/api/status")

    ordinary = sorted(s for (i, k, _) in captured if k == "ordinary" and i in done
                      for s in [done[i][1]])
    failed = [i for i, (n, _) in done.items() if n["ai_status"] == "failed"]
    p95 = ordinary[max(0, round(0.95 * len(ordinary)) - 1)] if ordinary else float("nan")
    log = open(os.path.join(work, "llama-server.log"), errors="replace").read()
    prompt_rates = [float(r) for r in re.findall(r"prompt eval time =.*?([\d.]+) tokens per second", log)]
    output_rates = [float(r) for r in re.findall(r"(?<!prompt )\beval time =.*?([\d.]+) tokens per second", log)
                    if r]
    time_spent = status["worker"]["model_time"]

    print(f"| figure | {args.notes} notes, one every {args.every:g} s |")
    print("|---|---|")
    print(f"| notes done / failed / not finished | {len(done) - len(failed)} / {len(failed)} / {len(captured) - len(done)} |")
    print(f"| an ordinary note, capture → enriched | median {statistics.median(ordinary):.1f} s, p95 {p95:.1f} s ({len(ordinary)} notes) |")
    print(f"| the model's time (inkling's count) | {json.dumps(time_spent)} |")
    if prompt_rates:
        print(f"| prompt tokens a second (server log) | median {statistics.median(prompt_rates):.0f} |")
    if output_rates:
        print(f"| output tokens a second (server log) | median {statistics.median(output_rates):.0f} |")
    print(f"| the run | {wall:.0f} s |")
    print()
    print("Ten titles, unedited:")
    print()
    print("| note | title | tags |")
    print("|---|---|---|")
    for note_id, kind, _ in captured[:12]:
        if note_id not in done:
            continue
        note = done[note_id][0]
        head = note["body"].splitlines()[0][:50]
        read = f" (read {note['ai_read_chars']} chars)" if note.get("ai_read_chars") else ""
        print(f"| {head}{read} | {note.get('title') or ''} | {', '.join(note.get('tags') or [])} |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
