"""Held-out retrieval of shipped model folders through the engine's own embedding path:

    python train/heldout.py engine/semantic/models/code /tmp/other-model [--wordllama]

For every task of train/pairs.py (`doc`, `name`, `similar`), the first `--pool` held-out pairs (the
`holdout` packages of the source list, shuffled as build_model.py shuffles them) are embedded with
`CodeBackend` (float16 vectors, the out-of-vocabulary fallback included), and each query's own code
is looked for among the pool's codes: recall@1 and @10. This is how candidate models and ablations
are compared; the benchmark query sets are never used to choose anything. Needs the mined pairs
cache (a build_model.py run), numpy only.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from fetch import read_sources
from pairs import Pair, mine

from fourfold.engine.semantic.embedding import CodeBackend, LocalBackend

TASKS = ("doc", "name", "similar")


def held_out_pairs(sources: Path, corpus: Path, seed: int) -> list[Pair]:
    """The held-out packages' pairs in build_model.py's order (already mined: nothing is fetched)."""
    listed = read_sources(sources)
    held_out = {s.name for s in listed if s.holdout}
    folders = {s.name: corpus / "src" / s.name for s in listed if (corpus / "src" / s.name / ".complete").exists()}
    by_package = mine(folders, corpus / "pairs", seed)
    pairs = [p for name, found in by_package.items() if name in held_out for p in found]
    random.Random(seed + 1).shuffle(pairs)
    return pairs


def recall(queries: np.ndarray, codes: np.ndarray) -> tuple[float, float]:
    """Recall@1 and @10 of each query's own code (same row) among all codes."""
    scores = queries @ codes.T
    ranks = (scores > scores.diagonal()[:, None]).sum(1)
    return float((ranks < 1).mean()), float((ranks < 10).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", type=Path, help="model folders (vectors.npy, vocab.txt, config.json)")
    parser.add_argument("--wordllama", action="store_true", help="also measure WordLlama (the `wordllama` backend)")
    parser.add_argument("--sources", type=Path, default=Path("train/sources.txt"))
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpora/train"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pool", type=int, default=2000)
    args = parser.parse_args()
    pairs = held_out_pairs(args.sources, args.corpus, args.seed)
    pools = {task: [p for p in pairs if p.task == task][: args.pool] for task in TASKS}
    backends: list[tuple[str, CodeBackend | LocalBackend]] = [(str(f), CodeBackend(f)) for f in args.models]
    if args.wordllama:
        backends.append(("wordllama", LocalBackend()))
    print("| model | " + " | ".join(f"{task} R@1 | {task} R@10" for task in TASKS) + " | mean R@10 |")
    print("|---|" + "---|---|" * len(TASKS) + "---|")
    for label, backend in backends:
        cells: list[str] = []
        at10s: list[float] = []
        for task in TASKS:
            pool = pools[task]
            queries = backend.embed_documents([p.description for p in pool])
            codes = backend.embed_documents([p.code for p in pool])
            at1, at10 = recall(queries, codes)
            cells += [f"{at1:.3f}", f"{at10:.3f}"]
            at10s.append(at10)
        print(f"| {label} | " + " | ".join(cells) + f" | {sum(at10s) / len(at10s):.3f} |", flush=True)
    print("pool sizes: " + ", ".join(f"{task} {len(pools[task])}" for task in TASKS))


if __name__ == "__main__":
    main()
