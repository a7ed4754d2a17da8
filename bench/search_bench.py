"""Fused search benchmark (issue 3): index time with all four modalities, embedding throughput, and
query latency per intent through the engine's Searcher.

    python bench/search_bench.py [CORPUS] [--backend local|none]   # default corpus: bench/corpora/django-5.1.4

A benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from fourfold.engine import SearchRequest, Settings, Workspace, classify
from fourfold.lsp.evaluation import percentile

HERE = Path(__file__).resolve().parent
QUERIES = {
    "find_definition": ["where is get_object_or_404 defined", "class ModelAdmin", "def render_to_string",
                        "QuerySet.select_related", "url_has_allowed_host_and_scheme", "dove è definito Paginator"],
    "find_references": ["who calls force_str", "usages of cached_property", "callers of get_user_model",
                        "references to reverse_lazy", "chi chiama slugify", "ai gọi escape"],
    "impact_analysis": ["what depends on force_str", "impact of Signal.send", "blast radius of get_connection",
                        "what breaks if timezone.now changes", "cosa dipende da smart_str"],
    "exact_match": ['"CSRF verification failed"', "ImproperlyConfigured", '"Enter a valid email address."',
                    "re:raise \\w+Error\\(", "DoesNotExist", '"The joined field"'],
    "understand_code": ["how are database migrations applied", "how does the template engine cache compiled templates",
                        "explain password hashing", "why are signals disconnected with weak references",
                        "come vengono gestite le sessioni", "phân trang hoạt động như thế nào"],
    "find_similar": ["code similar to slugify", "functions like get_object_or_404", "duplicates of escape"],
}




def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(HERE / "corpora" / "django-5.1.4"))
    parser.add_argument("--backend", default="local", choices=("local", "none"))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    corpus = Path(args.corpus).resolve()
    if not corpus.is_dir():
        print(f"no corpus at {corpus}: run bench/fetch_django.sh first", file=sys.stderr)
        return 2
    index_dir = Path(tempfile.mkdtemp(prefix="fourfold-search-bench-"))
    try:
        workspace = Workspace(corpus, Settings(index_dir=str(index_dir), semantic_backend=args.backend))
        started = time.perf_counter()
        workspace.refresh()
        indexed = time.perf_counter() - started
        started = time.perf_counter()
        workspace.embed_pending()
        embedded = time.perf_counter() - started
        status = workspace.status()
        print(f"corpus {corpus.name}: {status['files']:,} files, {status['symbols']:,} symbols, "
              f"{status['chunks']:,} chunks; backend {args.backend}\n")
        print("| measure | value |\n|---|---|")
        print(f"| text + structural + graph index (cold) | {indexed:.1f} s |")
        if args.backend != "none":
            print(f"| embedding ({status['embedded']:,} chunks, cold cache) | {embedded:.1f} s = "
                  f"{status['embedded'] / max(embedded, 1e-9):,.0f} chunks/s |")
            print(f"| full four-modality index | {indexed + embedded:.1f} s |")
        all_queries = [q for group in QUERIES.values() for q in group]
        classify_us = []
        for _ in range(200):
            for query in all_queries:
                start = time.perf_counter()
                classify(query)
                classify_us.append((time.perf_counter() - start) * 1e6)
        print(f"| classifier, p50 / p95 | {percentile(classify_us, .5):.1f} / {percentile(classify_us, .95):.1f} µs |")
        print("\n| intent (labelled) | queries | classified as | strategies | p50 ms | p95 ms |")
        print("|---|---|---|---|---|---|")
        for intent, queries in QUERIES.items():
            latencies: list[float] = []
            seen: dict[str, int] = defaultdict(int)
            strategies: dict[str, int] = defaultdict(int)
            workspace.search(SearchRequest(queries[0]))  # warm the lazy BM25 build outside the figures
            for _ in range(args.rounds):
                for query in queries:
                    response = workspace.search(SearchRequest(query))
                    latencies.append(response.timings_ms["total"])
                    seen[response.intent] += 1
                    strategies[response.fusion_strategy] += 1
            mix = ", ".join(f"{k} {v // args.rounds}" for k, v in sorted(seen.items()))
            ways = ", ".join(f"{k} {v // args.rounds}" for k, v in sorted(strategies.items()))
            print(f"| {intent} | {len(queries)} | {mix} | {ways} | {percentile(latencies, .5):.1f} | "
                  f"{percentile(latencies, .95):.1f} |")
        workspace.close()
    finally:
        shutil.rmtree(index_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
