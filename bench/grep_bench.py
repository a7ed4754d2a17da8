"""Every-matching-line text search (issue 17): Fourfold's `Workspace.every_line` on a warm index beside
one core scanning every file's text with bytes.find / RE2 and beside `rg`, per query class.

    nice -n 10 python bench/grep_bench.py [CORPUS] [--index-dir DIR] [--rounds N] [--cpu]

The scan holds every file's bytes in memory (its load is not timed) and finds each matching line
with bytes.find (literals) or RE2 (regexes, case-insensitive), recording (path, line) of each; the
listed line sets of Fourfold and of the scan are compared, so a figure is only printed for identical
results. Fourfold is timed twice: "found" is `every_line` alone (every matching line found, kept as
arrays, as `fourfold grep --count` or a page of them needs), "listed" is `every_line` and its `lines`,
a (path, line) tuple for each as the scan makes; the scan/Fourfold ratio is taken on "listed". rg runs as a subprocess
(process start included, as a user pays it). A benchmark, not a test: it prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

import re2

from fourfold.engine import Settings, Workspace
from fourfold.engine.index.textsearch import parse_text_query
from fourfold.lsp.evaluation import percentile

T = TypeVar("T")
HERE = Path(__file__).resolve().parent
# Query classes as a user types them (Fourfold syntax, smart case), each with its rg arguments.
QUERIES: dict[str, list[str]] = {
    "rare literal": ['"CSRF verification failed"', '"The joined field"', '"Enter a valid email address."'],
    "many-hit literal": ['"Error"', '"self.assertEqual("', '"return "', '"import"'],
    "identifier": ["ImproperlyConfigured", "DoesNotExist", "force_str", "cached_property"],
    "regex": ["re:raise \\w+Error\\(", "re:def test_\\w+\\(self", "re:^class \\w+\\(models\\.Model\\)"],
}


def rg_args(text: str) -> list[str]:
    query = parse_text_query(text)
    args = ["rg", "-n", "--no-heading", "--no-config"]
    if query.kind != "regex":
        args.append("-F")
    args.append("-s" if query.case_sensitive else "-i")
    return [*args, "-e", query.pattern]


def scan(texts: dict[str, bytes], text: str) -> set[tuple[str, int]]:
    """Every (path, 0-based line) that matches, by one pass over each file's bytes."""
    query = parse_text_query(text)
    found: set[tuple[str, int]] = set()
    if query.kind != "regex" and query.case_sensitive:
        needle = query.pattern.encode()
        for path, data in texts.items():
            at = data.find(needle)
            while at != -1:
                line = data.count(b"\n", 0, at)
                found.add((path, line))
                end = data.find(b"\n", at)
                if end == -1:
                    break
                at = data.find(needle, end + 1)
        return found
    options = re2.Options()
    options.case_sensitive = query.case_sensitive
    options.never_nl = True
    options.literal = query.kind != "regex"
    pattern = query.pattern if query.kind != "regex" else "(?m)" + query.pattern
    matcher = re2.compile(pattern.encode(), options)
    for path, data in texts.items():
        last, line = 0, 0
        for match in matcher.finditer(data):
            line += data.count(b"\n", last, match.start())
            last = match.start()
            found.add((path, line))
    return found


def listed(workspace: Workspace, text: str) -> list[tuple[str, int]]:
    """Every matching line as (path, 0-based line), as a client that lists them all pays for it."""
    return workspace.every_line(text, page=0).lines


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have exited (`rg`)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(call: Callable[[], T], rounds: int, cpu: bool = False) -> tuple[list[float], T]:
    """Milliseconds per call after a first, untimed one: wall time, or with `cpu` CPU time (on shared,
    loaded cores a short call's wall time at p95 is mostly the scheduler's, not the call's)."""
    clock = cpu_seconds if cpu else time.perf_counter
    result = call()
    times = []
    for _ in range(rounds):
        start = clock()
        result = call()
        times.append((clock() - start) * 1000)
    return times, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(HERE / "corpora" / "django-5.1.4"))
    parser.add_argument("--index-dir", help="a warm index to copy (else one is built cold)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu", action="store_true", help="time by CPU time (rg's included) instead of wall time")
    args = parser.parse_args()
    corpus = Path(args.corpus).resolve()
    index_dir = Path(tempfile.mkdtemp(prefix="fourfold-grep-bench-"))
    try:
        if args.index_dir:
            shutil.copytree(args.index_dir, index_dir, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("daemon.*", "*.lock"))
        workspace = Workspace(corpus, Settings(index_dir=str(index_dir), semantic_backend="none"))
        workspace.refresh()
        snapshot = workspace.snapshot()
        texts = {}
        for path in sorted(snapshot.files):
            text = snapshot.text(path)
            if text is not None:
                data = text.encode("utf-8", "replace")
                texts[path] = data.replace(b"\r\n", b"\n")
        total = sum(map(len, texts.values()))
        print(f"corpus {corpus.name}: {len(texts):,} files, {total / 2**20:.1f} MiB scanned by the baseline\n")
        print("| class | query | lines | found p50/p95 ms | listed p50/p95 ms | scan p50/p95 ms | rg p50/p95 ms "
              "| same |")
        print("|---|---|---|---|---|---|---|---|")
        per_class: dict[str, dict[str, list[float]]] = {}
        for kind, queries in QUERIES.items():
            bucket = per_class.setdefault(kind, {"found": [], "fourfold": [], "scan": [], "rg": []})
            for text in queries:
                bare, _ = timed(partial(workspace.every_line, text, page=0), args.rounds, args.cpu)
                ours, found = timed(partial(listed, workspace, text), args.rounds, args.cpu)
                base, expected = timed(partial(scan, texts, text), args.rounds, args.cpu)
                rg, _ = timed(partial(subprocess.run, [*rg_args(text), "."], cwd=corpus, capture_output=True,
                                      check=False), args.rounds, args.cpu)
                got = set(found)
                same = "yes" if got == expected else f"NO (+{len(got - expected)} -{len(expected - got)})"
                bucket["found"] += bare
                bucket["fourfold"] += ours
                bucket["scan"] += base
                bucket["rg"] += rg
                cells = " | ".join(f"{percentile(times, .5):.1f} / {percentile(times, .95):.1f}"
                                   for times in (bare, ours, base, rg))
                print(f"| {kind} | `{text}` | {len(got):,} | {cells} | {same} |")
        print("\n| class | found p50/p95 ms | listed p50/p95 ms | scan p50/p95 ms | rg p50/p95 ms "
              "| scan/listed at p95 |")
        print("|---|---|---|---|---|---|")
        for kind, bucket in per_class.items():
            columns = [f"{percentile(bucket[name], .5):.1f} / {percentile(bucket[name], .95):.1f}"
                     for name in ("found", "fourfold", "scan", "rg")]
            ratio = percentile(bucket["scan"], .95) / max(percentile(bucket["fourfold"], .95), 1e-9)
            print(f"| {kind} | {' | '.join(columns)} | {ratio:.1f}x |")
        workspace.close()
    finally:
        shutil.rmtree(index_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
