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
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(
    os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "inkling-test-tools"
)

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


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tools():
    env_file = os.path.join(CACHE, "env")
    if not os.path.exists(env_file):
        sys.exit(f"missing {env_file}: run scripts/real-model-tools.sh first")
    values = dict(
        line.strip().split("=", 1) for line in open(env_file) if "=" in line
    )
    for key in ("LLAMA_SERVER", "GEMMA_MODEL"):
        if not os.path.exists(values.get(key, "")):
            sys.exit(f"{key} is missing: run scripts/real-model-tools.sh")
    return values


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
            if check():
                return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit(f"timed out waiting for {what}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=40)
    parser.add_argument("--every", type=float, default=6.0)
    args = parser.parse_args()
    values = tools()
    binary = os.path.join(ROOT, "target", "release", "inkling")
    if not os.path.exists(binary):
        sys.exit("missing target/release/inkling: run cargo build --release")

    work = tempfile.mkdtemp(prefix="inkling-day-")
    model_port, http_port = free_port(), free_port()
    server_log = open(os.path.join(work, "llama-server.log"), "w")
    server = subprocess.Popen(
        [values["LLAMA_SERVER"], "-m", values["GEMMA_MODEL"], "-c", "2048", "--parallel", "1",
         "--jinja", "--chat-template-file",
         os.path.join(ROOT, "tests", "support", "gemma-chat-template.jinja"),
         "--host", "127.0.0.1", "--port", str(model_port), "--alias", "gemma-3-270m"],
        stdout=server_log, stderr=subprocess.STDOUT)
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
model = "gemma-3-270m"
""")
    service = subprocess.Popen([binary, "--config", config, "run"],
                               stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "inkling.log"), "w"))
    base = f"http://127.0.0.1:{http_port}"
    try:
        token_path = os.path.join(work, "data", "api-token")
        wait_for("the service", lambda: os.path.exists(token_path), 30)
        token = open(token_path).read().strip()
        wait_for("the API", lambda: request(base, token, "GET", "/api/status"), 30)

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
            note = request(base, token, "POST", "/api/notes", {"body": body})
            captured.append((note["id"], kind, time.time()))
            time.sleep(args.every)

        done = {}
        deadline = time.time() + 1800
        while len(done) < len(captured) and time.time() < deadline:
            for note_id, kind, at in captured:
                if note_id in done:
                    continue
                note = request(base, token, "GET", f"/api/notes/{note_id}")
                if note["ai_status"] in ("done", "failed"):
                    # The service's own times: stored, then enriched (nothing else
                    # writes to the note meanwhile), whenever this loop looks.
                    took = stamp(note["updated_at"]) - stamp(note["created_at"])
                    done[note_id] = (note, took)
            time.sleep(0.5)
        wall = time.time() - started
        status = request(base, token, "GET", "/api/status")
    finally:
        service.terminate()
        server.terminate()
        service.wait(timeout=10)
        server.wait(timeout=10)
        server_log.close()

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
