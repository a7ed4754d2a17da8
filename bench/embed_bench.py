"""Embedding throughput benchmark (issue 16): Fourfold's code model beside WordLlama, and the blend of
the two, on the same chunks.

    python bench/embed_bench.py [CORPUS] [--limit N]   # default: bench/corpora/rich-13.9.4

Chunks the corpus exactly as the index does (`parse_file`), then embeds the same chunks with each
local backend and prints chunks per wall second and per CPU second (the per-core figure: CPU time
counts every thread the backend uses). Each backend is warmed up on a few chunks first, so model
loading is not timed. A benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.languages import detect_language
from fourfold.engine.semantic.blend import BlendBackend
from fourfold.engine.semantic.embedding import Backend, CodeBackend, LocalBackend

HERE = Path(__file__).resolve().parent


def corpus_chunks(root: Path, limit: int) -> list[str]:
    """The texts the index would embed for the first `limit` chunks of the corpus."""
    texts: list[str] = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if not path.is_file() or detect_language(relative) is None or "/." in f"/{relative}":
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        texts.extend(chunk.text for chunk in parse_file(relative, text, detect_language(relative)).chunks)
        if len(texts) >= limit:
            break
    return texts[:limit]


def measure(backend: Backend, texts: list[str]) -> tuple[float, float]:
    """(chunks per wall second, chunks per CPU second) for embedding `texts` once."""
    backend.embed_documents(texts[:32])
    wall, cpu = time.perf_counter(), time.process_time()
    backend.embed_documents(texts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return len(texts) / wall, len(texts) / max(cpu, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?", type=Path, default=HERE / "corpora" / "rich-13.9.4")
    parser.add_argument("--limit", type=int, default=10_000)
    args = parser.parse_args()
    texts = corpus_chunks(args.corpus, args.limit)
    mean_chars = sum(map(len, texts)) / max(len(texts), 1)
    print(f"{len(texts)} chunks from {args.corpus} (mean {mean_chars:.0f} characters)")
    print("| backend | model | chunks/s (wall) | chunks/s per core (CPU) |")
    print("|---|---|---|---|")
    for backend in (CodeBackend(), LocalBackend(), BlendBackend()):
        wall, cpu = measure(backend, texts)
        print(f"| {backend.name} | {backend.model} | {wall:,.0f} | {cpu:,.0f} |")


if __name__ == "__main__":
    main()
