#!/usr/bin/env python3
"""The guard (issue #30 point 4): the last release and this tree, measured in one run.

Builds `benches/guard.rs` twice, release profile, in one target directory (the
dependencies are built once): from a git worktree at the last release's commit (this
tree's copy of the bench file put into it) and from this tree. Then runs the two
binaries alternately, `--rounds` times each, and prints a Markdown table: each figure
for both builds, the current one's ratio to the release's, and SQLite's own floor
(durable commit, bare FTS5) measured in the same runs, with the issue's goals.

    scripts/bench-guard.py                      # the release docs/PERFORMANCE.md names
    scripts/bench-guard.py --release 635c937 --rounds 3

The commit defaults to the one on the line `<!-- guard-release: COMMIT -->` of
docs/PERFORMANCE.md ("The guard"). The worktree, the target directory and the binaries
stay under --work (default /tmp/inkling-guard), so a second run builds only what
changed; remove them with `git worktree remove` and `rm -r` when done.
Standard library only.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = "guard"


def fail(message):
    print(f"bench-guard: {message}", file=sys.stderr)
    sys.exit(1)


def release_from_docs():
    text = (ROOT / "docs" / "PERFORMANCE.md").read_text()
    found = re.search(r"<!-- guard-release: ([0-9a-f]{7,40}) -->", text)
    if not found:
        fail("docs/PERFORMANCE.md names no release (<!-- guard-release: COMMIT -->); pass --release")
    return found.group(1)


def worktree_at(commit, work):
    tree = work / f"src-{commit}"
    if not tree.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit],
                       check=True, stdout=subprocess.DEVNULL)
    # This tree's bench, so that both builds measure the same things the same way.
    shutil.copy(ROOT / "benches" / f"{BENCH}.rs", tree / "benches" / f"{BENCH}.rs")
    manifest = tree / "Cargo.toml"
    if f'name = "{BENCH}"' not in manifest.read_text():
        with manifest.open("a") as out:
            out.write(f'\n[[bench]]\nname = "{BENCH}"\nharness = false\n')
    return tree


def build(tree, work, label):
    env = dict(os.environ, CARGO_TARGET_DIR=str(work / "target"))
    # Both trees are the same package to cargo, so in one target directory they share
    # artifact names, and cargo's freshness check (file times against the last build,
    # whichever tree that was) can take one tree's binary for the other's: the sources
    # are touched so that each build compiles its own tree.
    for source in [tree / "src" / "lib.rs", tree / "benches" / f"{BENCH}.rs"]:
        os.utime(source)
    print(f"building {label} ({tree}) …", file=sys.stderr, flush=True)
    result = subprocess.run(
        ["cargo", "build", "--release", "--bench", BENCH, "--message-format=json"],
        cwd=tree, env=env, stdout=subprocess.PIPE, text=True)
    if result.returncode != 0:
        fail(f"the build of {label} failed (run the same cargo command in {tree} to see why)")
    executable = None
    for line in result.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message["target"]["name"] == BENCH:
            executable = message.get("executable") or executable
    if not executable:
        fail(f"cargo built no {BENCH} binary for {label}")
    (work / "bin").mkdir(exist_ok=True)
    kept = work / "bin" / f"{BENCH}-{label}"
    shutil.copy(executable, kept)
    return kept


def run(binary):
    result = subprocess.run([str(binary), "--bench"], stdout=subprocess.PIPE, text=True, check=True)
    figures = {}
    for line in result.stdout.splitlines():
        if line.startswith("GUARD "):
            _, name, value = line.split()
            figures[name] = float(value)
    return figures


# (figure, what it is, better when higher)
ROWS = [
    ("capture_p50_ms", "capture p50, 8 clients, durable (ms)", False),
    ("capture_p99_ms", "capture p99 (ms)", False),
    ("capture_per_s", "capture throughput (notes/s)", True),
    ("save_p50_ms", "an answer's save at 100,000 notes, durable, p50 (ms)", False),
    ("save_no_fsync_p50_ms", "the same without the fsync: the save's own work, p50 (ms)", False),
    ("search_p99_ms", "search p99, every query, end to end at 100,000 notes (ms)", False),
]
FLOORS = [
    ("raw_commit_p50_ms", "raw SQLite durable commit p50 (ms)"),
    ("raw_commit_p99_ms", "raw SQLite durable commit p99 (ms)"),
    ("raw_commit_per_s", "raw SQLite durable commits/s, one writer"),
    ("raw_fts_bm25_p99_ms", "raw FTS5, BM25 top 50 of the bodies, p99 (ms)"),
]


def spread(values):
    if not values:
        return "–"
    if len(values) == 1:
        return f"{values[0]:,.2f}"
    return f"{min(values):,.2f}–{max(values):,.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", help="the commit to compare with (default: docs/PERFORMANCE.md's)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", default="/tmp/inkling-guard")
    args = parser.parse_args()
    commit = args.release or release_from_docs()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    binaries = {
        "release": build(worktree_at(commit, work), work, f"release-{commit}"),
        "current": build(ROOT, work, "current"),
    }
    runs = {"release": [], "current": []}
    for round_ in range(args.rounds):
        for label in ("release", "current"):
            print(f"round {round_ + 1}/{args.rounds}: {label} …", file=sys.stderr, flush=True)
            runs[label].append(run(binaries[label]))

    def values(label, name):
        return [figures[name] for figures in runs[label] if name in figures]

    print(f"\n| figure | release `{commit}` | this tree | ratio (medians) |")
    print("|---|---|---|---|")
    for name, what, higher in ROWS:
        before, after = values("release", name), values("current", name)
        ratio = "–"
        if before and after:
            ratio = f"{statistics.median(after) / statistics.median(before):.2f}×"
            better = (statistics.median(after) > statistics.median(before)) == higher
            ratio += " (better)" if better else " (worse)"
        print(f"| {what} | {spread(before)} | {spread(after)} | {ratio} |")
    for name, what in FLOORS:
        print(f"| {what} | {spread(values('release', name))} | {spread(values('current', name))} | floor |")

    print("\nGoals (issue #30), this tree, each run against its own floor:")
    for figures in runs["current"]:
        share = figures["capture_per_s"] / figures["raw_commit_per_s"]
        # The p99 goal holds only while the disk's own commit is quick (raw p99 < 0.5 ms).
        if figures["raw_commit_p99_ms"] >= 0.5:
            p99_verdict = "no goal this run: raw p99 ≥ 0.5 ms"
        else:
            p99_verdict = "met" if figures["capture_p99_ms"] <= 5.0 else "not met"
        print(f"  capture {share:.2f}× the raw commit rate (goal ≥ 0.6), "
              f"p99 {figures['capture_p99_ms']:.2f} ms with raw p99 {figures['raw_commit_p99_ms']:.2f} ms "
              f"({p99_verdict}; goal ≤ 5 ms while raw p99 < 0.5 ms); "
              f"save p50 {figures['save_p50_ms']:.2f} ms (≤ 1); search p99 {figures['search_p99_ms']:.2f} ms (≤ 16)")
    queries = sorted({name for figures in runs["current"] for name in figures if name.startswith("search_p99_ms[")})
    print("\nSearch p99 per query (ms), release | this tree:")
    for name in queries:
        query = name[len("search_p99_ms["):-1].replace("+", " ")
        print(f"  {query:<16} {spread(values('release', name)):>16} | {spread(values('current', name))}")


if __name__ == "__main__":
    main()
