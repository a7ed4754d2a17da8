"""How long the intent classifier takes per query: it runs on every `workspace/symbol` keystroke.

DESIGN §2 asks for "well under a millisecond". This prints p50, p95 and max in microseconds over a
few hundred queries in English, Italian and Vietnamese covering every rule, including the worst
case (prose that falls through every rule to the fallback). A benchmark, not a test: run it with

    python bench/classifier_bench.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from fourfold.engine.query.intent import classify

NAMES = ("parseConfig", "load_settings", "Session.send", "HTTPServer", "retry", "cache", "__init__")

TEMPLATES = (
    "def {n}(self):",
    "class {n}",
    "func (s *Server) {n}",
    "who calls {n}",
    "find usages of {n}",
    "where is {n} used",
    "chi chiama {n}",
    "dove viene usato {n}",
    "ai gọi {n}",
    "các nơi sử dụng {n}",
    "what depends on {n}",
    "what breaks if I change {n}",
    "raggio d'impatto di {n}",
    "những gì phụ thuộc vào {n}",
    '"{n} failed"',
    "ECONNREFUSED while calling {n}",
    "KeyError in {n}",
    "panic: {n} nil pointer",
    "where is {n} defined",
    "definizione di {n}",
    "{n} được định nghĩa ở đâu",
    "{n}",
    "the {n} helper in the settings module",
    "similar to {n}",
    "simile a {n}",
    "tương tự như {n}",
    "how does {n} work",
    "come funziona {n}",
    "{n} hoạt động như thế nào",
    "the part of the code that loads user preferences from disk and caches them for {n}",
)


def queries() -> list[str]:
    return [template.format(n=name) for template in TEMPLATES for name in NAMES]


def measure(batch: list[str], rounds: int) -> list[float]:
    """Per-call times in microseconds; the first round warms caches and is discarded."""
    for query in batch:
        classify(query)
    samples: list[float] = []
    for _ in range(rounds):
        for query in batch:
            start = time.perf_counter_ns()
            classify(query)
            samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    batch = queries()
    samples = measure(batch, args.rounds)
    cuts = statistics.quantiles(samples, n=100)
    rules = Counter(classify(query).rule for query in batch)
    print(f"queries: {len(batch)} distinct, {len(samples)} timed calls")
    print(f"p50 {cuts[49]:.1f} µs  p95 {cuts[94]:.1f} µs  max {max(samples):.1f} µs")
    print("rules hit: " + ", ".join(f"{rule}={count}" for rule, count in sorted(rules.items())))


if __name__ == "__main__":
    main()
