"""Index and text-search benchmark (issue 2): Fourfold's text + structural index against rg and ctags.

    python bench/index_bench.py [CORPUS]        # default: bench/corpora/django-5.1.4 (bench/fetch_django.sh)
    python bench/index_bench.py --index-dir DIR --text-only --cpu   # the text-search table alone, on a
                                                # kept index, in CPU time (a loaded machine distorts it less)

Prints, in one run on one corpus: full index time, index size vs corpus size, one-file update
latency, literal / identifier / regex query latency side by side with `rg` on the same tree and with
one core scanning every indexed file's bytes already in memory with RE2 (what an index must beat to
earn its keep, issue 17; all matching lines, and the first 100 as an editor asks for them; plus the
agreement of the full (path, line) sets), symbol query latency, and definitions found vs `ctags -R`.
A benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import re2

from fourfold.engine import Settings, Workspace
from fourfold.engine.index.textsearch import parse_text_query
from fourfold.engine.retrieve.text import literal_hits
from fourfold.engine.service.workspace import CENTRALITY_DELAY_S
from fourfold.lsp.evaluation import percentile

HERE = Path(__file__).resolve().parent
LITERALS = ["ValidationError", "get_queryset", "DEFAULT_AUTO_FIELD", "select_related", "HttpResponseRedirect",
            "csrf_token", "def __init__(self", "raise NotImplementedError", "The joined field", "on_delete",
            "content_type", "is_authenticated", "TIME_ZONE", "reverse_lazy", "QuerySet.filter"]
IDENTIFIERS = ["get_object_or_404", "ModelAdmin", "url_has_allowed_host_and_scheme", "cached_property",
               "Paginator", "force_str", "CharField", "ForeignKey", "render_to_string", "transaction"]
REGEXES = [r"def test_\w+_raises", r"class \w+Mixin\b", r"raise \w+Error\(", r"import (json|pickle)",
           r"@(property|cached_property)", r"TODO|FIXME", r"self\.assertEqual\(\w+, None\)"]
# What an editor asks for: the first results, in path order (the full enumeration is timed too).
TOP = 100


def settle_background_work() -> None:
    """Wait for background work (a BM25 build, the PageRank refresh after edits): it would compete for the GIL."""
    time.sleep(CENTRALITY_DELAY_S + 0.1)
    for thread in threading.enumerate():
        if thread.name in ("bm25-build", "centrality"):
            thread.join()


# What `timed` reads: wall time, or with --cpu this thread's CPU time, which a loaded machine distorts
# less (the engine's text search and the one-core scan both run on the calling thread).
CLOCK = {"wall": time.perf_counter, "cpu": time.thread_time}
clock = CLOCK["wall"]


def children_cpu() -> float:
    """CPU seconds of the finished child processes (rg, all its threads), for --cpu."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(fn, repeat: int = 5) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    best, result = float("inf"), None
    for _ in range(repeat):
        start = clock()
        result = fn()
        best = min(best, clock() - start)
    return best * 1000, result


def rg_lines(corpus: Path, pattern: str, fixed: bool) -> set[tuple[str, int]]:
    flags = ["-F"] if fixed else []
    args = ["rg", "--no-heading", "-n", "-S", "--no-messages", "--max-filesize", "1M", *flags, "-e", pattern, "."]
    out = subprocess.run(args, cwd=corpus, capture_output=True, text=True, errors="replace").stdout
    found = set()
    for line in out.splitlines():
        path, number, _ = line.split(":", 2)
        found.add((path.removeprefix("./"), int(number)))
    return found


def rg_timed(corpus: Path, pattern: str, fixed: bool, repeat: int = 3) -> tuple[float, set[tuple[str, int]]]:
    """rg's best time of `repeat` runs: wall time, or under --cpu its CPU time (children's rusage)."""
    if clock is not time.thread_time:
        ms, found = timed(lambda: rg_lines(corpus, pattern, fixed), repeat)
        return ms, found  # type: ignore[return-value]
    best, found = float("inf"), set()
    for _ in range(repeat):
        before = children_cpu()
        found = rg_lines(corpus, pattern, fixed)
        best = min(best, children_cpu() - before)
    return best * 1000, found


def scan_lines(texts: dict[str, bytes], pattern: str, fixed: bool) -> set[tuple[str, int]]:
    """Every matching line by one pass of RE2 over every text in memory, smart case as rg's `-S`."""
    source = re.escape(pattern) if fixed else pattern
    options = re2.Options()
    options.case_sensitive = pattern != pattern.lower()
    compiled = re2.compile(source.encode(), options)
    found = set()
    for path, data in texts.items():
        for match in compiled.finditer(data):
            found.add((path, data.count(b"\n", 0, match.start()) + 1))
    return found


def engine_lines(workspace: Workspace, query: str) -> set[tuple[str, int]]:
    """Every matching line through the engine's API, the first TOP of them as full hits (what a client shows)."""
    found = workspace.every_line(query, TOP)
    return {(path, line + 1) for path, line in found.lines}


def engine_top(workspace: Workspace, query: str) -> set[tuple[str, int]]:
    """The first TOP matching lines as full hits with their definitions: what the text retriever gives a search."""
    hits = literal_hits(workspace.snapshot(), parse_text_query(query), limit=TOP)
    return {(hit.path, hit.span.start_line + 1) for hit in hits}


def query_rows(workspace: Workspace, corpus: Path, texts: dict[str, bytes], queries: list[str],
               kind: str) -> list[str]:
    rows, ours_ms, top_ms, rg_ms, scan_ms = [], [], [], [], []
    for query in queries:
        text = f"re:{query}" if kind == "regex" else query
        ours, found = timed(lambda text=text: engine_lines(workspace, text))
        top, _ = timed(lambda text=text: engine_top(workspace, text))
        theirs, expected = rg_timed(corpus, query, kind != "regex")
        scan, _ = timed(lambda query=query: scan_lines(texts, query, kind != "regex"), repeat=3)
        ours_ms.append(ours)
        top_ms.append(top)
        rg_ms.append(theirs)
        scan_ms.append(scan)
        agree = len(found & expected) / max(len(found | expected), 1)  # type: ignore[operator]
        rows.append(f"| {kind} | `{query}` | {len(found):,} | {len(expected):,} | {agree:.3f} "  # type: ignore[arg-type]
                    f"| {ours:.2f} | {top:.2f} | {theirs:.1f} | {scan:.1f} | {theirs / max(ours, 1e-6):.0f}× "
                    f"| {scan / max(ours, 1e-6):.1f}× |")
    rg50, ours50, top50, scan50 = (percentile(v, .5) for v in (rg_ms, ours_ms, top_ms, scan_ms))
    ours95, scan95 = percentile(ours_ms, .95), percentile(scan_ms, .95)
    rows.append(f"| **{kind} p50 / p95** | | | | | {ours50:.2f} / {ours95:.2f} "
                f"| {top50:.2f} / {percentile(top_ms, .95):.2f} "
                f"| {rg50:.1f} / {percentile(rg_ms, .95):.1f} | {scan50:.1f} / {scan95:.1f} "
                f"| {rg50 / ours50:.0f}× | {scan50 / ours50:.1f}× / {scan95 / ours95:.1f}× |")
    return rows


def update_latency(workspace: Workspace, corpus: Path, edits: int = 50) -> list[float]:
    python_files = sorted(p for p in workspace.snapshot().files if p.endswith(".py"))
    rng = random.Random(7)
    latencies = []
    for number in range(edits):
        path = rng.choice(python_files)
        full = corpus / path
        original = full.read_bytes()
        try:
            full.write_bytes(original + f"\n# fourfold bench edit {number}\n".encode())
            start = time.perf_counter()
            workspace.update_file(full)
            latencies.append((time.perf_counter() - start) * 1000)
            assert engine_lines(workspace, f"fourfold bench edit {number}")
        finally:
            full.write_bytes(original)
            workspace.update_file(full)
    return latencies


def ctags_definitions(corpus: Path) -> int:
    out = subprocess.run(["ctags", "-R", "--languages=Python", "--kinds-Python=-iIxzl", "-f", "-", "."],
                         cwd=corpus, capture_output=True, text=True, errors="replace").stdout
    return sum(1 for line in out.splitlines() if line and not line.startswith("!"))


def index_rows(workspace: Workspace, corpus: Path, index_dir: Path, seconds: float) -> None:
    """The index measures: size, restart, one-file update latency, symbol latency, definitions vs ctags."""
    snapshot = workspace.snapshot()
    indexed_bytes = sum(record.size for record in snapshot.files.values())
    corpus_bytes = sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())
    index_bytes = workspace.store.size_on_disk()
    print("| measure | value |\n|---|---|")
    print(f"| full index, text + structural + graph (cold, 2 cores) | {seconds:.2f} s |")
    print(f"| index size on disk | {index_bytes / 2**20:.1f} MiB = {index_bytes / indexed_bytes:.2f}× indexed "
          f"text, {index_bytes / corpus_bytes:.2f}× corpus |")
    start = time.perf_counter()
    restart = Workspace(corpus, Settings(index_dir=str(index_dir), semantic_backend="none"))
    unchanged = restart.refresh()
    print(f"| restart: load + re-check, nothing changed | {time.perf_counter() - start:.2f} s "
          f"({unchanged.indexed} re-indexed) |")
    restart.close()
    updates = update_latency(workspace, corpus)
    print(f"| one-file update, p50 / p95 over {len(updates)} edits | {percentile(updates, .5):.1f} / "
          f"{percentile(updates, .95):.1f} ms |")
    names = [s.name for s in list(snapshot.symbols.all())[::97]][:200]
    symbol_ms = [timed(lambda name=name: snapshot.symbols.search(name, None, 50), repeat=1)[0] for name in names]
    print(f"| symbol query, p50 / p95 over {len(names)} names | {percentile(symbol_ms, .5):.2f} / "
          f"{percentile(symbol_ms, .95):.2f} ms |")
    ours = sum(1 for path, parsed in snapshot.parsed.items() if path.endswith(".py") for _ in parsed.symbols)
    print(f"| Python definitions: Fourfold vs `ctags -R` | {ours:,} vs {ctags_definitions(corpus):,} |\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(HERE / "corpora" / "django-5.1.4"))
    parser.add_argument("--index-dir", help="keep the index here and reuse it (default: a fresh temporary one)")
    parser.add_argument("--text-only", action="store_true",
                        help="only the text-search table (no cold index, no edits to the corpus)")
    parser.add_argument("--cpu", action="store_true",
                        help="time CPU (this thread's; rg's from its rusage) instead of wall time")
    args = parser.parse_args()
    global clock
    clock = CLOCK["cpu" if args.cpu else "wall"]
    corpus = Path(args.corpus).resolve()
    if not corpus.is_dir():
        print(f"no corpus at {corpus}: run bench/fetch_django.sh first", file=sys.stderr)
        return 2
    index_dir = Path(args.index_dir) if args.index_dir else Path(tempfile.mkdtemp(prefix="fourfold-bench-"))
    try:
        workspace = Workspace(corpus, Settings(index_dir=str(index_dir), semantic_backend="none"))
        stats = workspace.refresh()
        snapshot = workspace.snapshot()
        indexed_bytes = sum(record.size for record in snapshot.files.values())
        print(f"corpus: {corpus.name}, {len(snapshot.files):,} files indexed ({indexed_bytes / 2**20:.1f} MiB)\n")
        print(f"timings: best of several runs, {'CPU' if args.cpu else 'wall'} time; load average "
              f"{', '.join(f'{load:.2f}' for load in os.getloadavg())}\n")
        if not args.text_only:
            index_rows(workspace, corpus, index_dir, stats.seconds)
        settle_background_work()
        texts = {path: (corpus / path).read_bytes() for path in snapshot.files}
        mib = sum(map(len, texts.values())) / 2**20
        print(f"| kind | query | Fourfold lines | rg lines | agreement (Jaccard) | Fourfold ms (all) "
              f"| Fourfold ms (top {TOP}) | rg ms | one-core RE2 scan ms ({mib:.1f} MiB) "
              f"| vs rg (all) | vs scan (all) |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for kind, queries in (("literal", LITERALS), ("identifier", IDENTIFIERS), ("regex", REGEXES)):
            print("\n".join(query_rows(workspace, corpus, texts, queries, kind)))
        workspace.close()
    finally:
        if not args.index_dir:
            shutil.rmtree(index_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
