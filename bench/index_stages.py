"""Where a cold one-shot index's CPU goes, stage by stage (issue 17: ≤ 8 CPU-s for Django, indexer and workers).

`--side indexer` runs `fourfold index ROOT --backend none` in this process into a fresh index folder, with the
indexer's stages timed by `time.process_time` around the functions that do them (each stage's own time, its
inner stages taken out; the pool's result thread unpickles while the first stage runs, so it is counted
there), and the workers' CPU from RUSAGE_CHILDREN. `--side workers` runs a worker's steps for every file of
ROOT in this process, one after another, each timed apart. Run both on a quiet machine: under load every
figure moves by a fifth from run to run, so compare medians of interleaved runs.

    .venv/bin/python bench/index_stages.py bench/corpora/django-5.1.4 --side indexer
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import pickle
import resource
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

_times: defaultdict[str, float] = defaultdict(float)
_running: list[str] = []


def _timed(owner: Any, name: str, label: str) -> None:
    function: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        _running.append(label)
        try:
            return function(*args, **kwargs)
        finally:
            _running.pop()
            spent = time.process_time() - started
            _times[label] += spent
            if _running:
                _times[_running[-1]] -= spent

    setattr(owner, name, timed)


def indexer(root: Path) -> dict[str, Any]:
    started = time.process_time()
    from fourfold.engine.graph import graph
    from fourfold.engine.index import symbols
    from fourfold.engine.service import workspace
    from fourfold.lsp.cli import main

    _times["imports"] = time.process_time() - started
    space = workspace.Workspace
    for owner, name, label in (
        (space, "_index_paths", "receiving the workers' results"), (space, "_write_batch", "SQLite rows"),
        (space, "_rebuilt", "snapshot, other"), (workspace, "first_postings", "trigram postings"),
        (symbols.SymbolTable, "__init__", "symbol table"), (symbols.SymbolTable, "stored", "symbol table as arrays"),
        (graph.CodeGraph, "build", "graph build"), (graph.CodeGraph, "refresh_centrality", "PageRank"),
        (space, "_store_rank", "graph.rank and graph.edges"), (space, "_store_saved", "index.saved"),
    ):
        _timed(owner, name, label)
    folder = tempfile.mkdtemp(prefix="fourfold-stages-")
    try:
        main(["index", str(root), "--backend", "none", "--no-progress", "--index-dir", folder])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    indexer_cpu = time.process_time() - started
    _times["the rest"] = indexer_cpu - sum(_times.values())
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {**{label: round(spent, 2) for label, spent in _times.items()}, "indexer": round(indexer_cpu, 2),
            "workers": round(workers.ru_utime + workers.ru_stime, 2)}


def workers(root: Path) -> dict[str, Any]:
    from fourfold.engine.index.discovery import UnreadableFile, Walker, read_file
    from fourfold.engine.index.indexjob import Indexed
    from fourfold.engine.index.store import StoredFile, encode_parsed, pickle_parsed
    from fourfold.engine.index.structure import parse_file
    from fourfold.engine.index.trigram import file_trigrams, pack
    from fourfold.engine.model.settings import Settings

    settings = Settings()
    walker = Walker(root, settings.exclude, settings.max_file_size, settings.parent_ignores)
    spent = dict.fromkeys(("read", "parse", "trigrams", "pack", "pickle", "row", "trip"), 0.0)
    clock = time.process_time
    for candidate in walker.walk():
        at = clock()
        try:
            record, text = read_file(root, candidate.path, settings.max_file_size)
        except UnreadableFile:
            spent["read"] += clock() - at
            continue
        marks = [at, clock()]
        parsed = parse_file(record.path, text, record.language)
        marks.append(clock())
        grams = file_trigrams(text)
        marks.append(clock())
        packed = pack(grams)
        marks.append(clock())
        pickled = pickle_parsed(replace(parsed, chunks=()))
        marks.append(clock())
        encoded = encode_parsed(parsed, pickled)
        marks.append(clock())
        entry = Indexed(StoredFile(record, packed, parsed, encoded), "", grams, pickled=pickled,
                        chunks=len(parsed.chunks))
        pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
        marks.append(clock())
        for stage, (start, end) in zip(spent, itertools.pairwise(marks), strict=True):
            spent[stage] += end - start
    return {stage: round(value, 2) for stage, value in spent.items()} | {"all": round(sum(spent.values()), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--side", choices=("indexer", "workers"), default="indexer")
    args = parser.parse_args()
    figures = indexer(args.root) if args.side == "indexer" else workers(args.root)
    print(json.dumps(figures | {"load": [round(value, 1) for value in os.getloadavg()]}))


if __name__ == "__main__":
    main()
