"""Measure the weights of the decomposition (engine/search/decompose.py) on a localisation set, honestly.

`collect` runs every part of every issue once against its corpus and keeps each part's file ranking;
`fit` then re-fuses those rankings under alternative weights, RRF k and non-code prior (no search
runs again), choosing on the tuning half of the repositories (eval_localise.TUNE_REPOS) and printing
the held-out half's figures beside it, so a setting that only fits the tuning half shows as such.

    python bench/tune_decompose.py collect ../shared/bench/swebench-lite/instances.jsonl \
        --root bench/corpora/swebench --index-dir /tmp/ff/swebench --out /tmp/parts.json
    python bench/tune_decompose.py fit /tmp/parts.json

`functions` and `functions-fit` do the same for the function ranking (engine/rank/localisation.py): each
issue is searched once, the features of every function of its first files are kept, and the
feature weights are chosen offline on the tuning half, the held-out half printed beside them.

    python bench/tune_decompose.py functions INSTANCES --root R --index-dir D --out /tmp/functions.json
    python bench/tune_decompose.py functions-fit /tmp/functions.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from fourfold.engine import SearchRequest, Settings, Snapshot, Workspace
from fourfold.engine.model.languages import detect_language
from fourfold.engine.model.profiles import FUNCTION_FILE_POWER, FUNCTION_FLOOR, FUNCTION_WEIGHTS, MAX_QUERY_LENGTH
from fourfold.engine.model.records import Span, Symbol
from fourfold.engine.rank import localisation
from fourfold.engine.rank.fusion import FusedResult
from fourfold.engine.rank.ranking import path_prior
from fourfold.engine.search import decompose
from fourfold.engine.search.decompose import Part, PartResult, fuse_files, plan, run_part
from fourfold.lsp.eval_localise import CUTOFF, TUNE_REPOS, Instance, load_instances, select

SPAN = Span(0, 0, 0, 0)


def _corpora(instances: Sequence[Instance], root: Path,
             index_dir: Path) -> Iterator[tuple[Workspace, Snapshot, list[Instance]]]:
    """Each corpus with an unpacked folder: its refreshed workspace (closed after), snapshot and issues."""
    by_corpus: dict[str, list[Instance]] = defaultdict(list)
    for instance in instances:
        by_corpus[instance.corpus].append(instance)
    for name, group in sorted(by_corpus.items()):
        folder = root / name
        if not folder.is_dir():
            continue
        workspace = Workspace(folder, Settings(index_dir=str(index_dir / name), semantic_backend="none"),
                              background=False)
        try:
            workspace.refresh()
            yield workspace, workspace.snapshot(), group
            print(f"{name}: {len(group)}", file=sys.stderr, flush=True)
        finally:
            workspace.close()


def collect(instances: Sequence[Instance], root: Path, index_dir: Path) -> list[dict[str, Any]]:
    rows = []
    for workspace, snapshot, group in _corpora(instances, root, index_dir):
        defined = partial(decompose.defining_files, snapshot)
        for instance in group:
            parts = plan(instance.text, snapshot.files, defined)
            request = SearchRequest(instance.text[:MAX_QUERY_LENGTH])
            answered = []
            for part in parts:
                found = run_part(part, request, workspace.search, lambda path: True, "default", False)
                answered.append({"source": part.source, "query": part.query[:200],
                                 "files": [result.path for result in found.results]})
            rows.append({"id": instance.id, "repo": instance.repo, "gold": list(instance.gold_files),
                         "parts": answered})
    return rows


def _fused(row: Mapping[str, Any], weights: Mapping[str, float], k: int, non_code: float,
           other_language: float = decompose.OTHER_LANGUAGE_PRIOR) -> list[str]:
    answered = []
    question = next((item["query"] for item in row["parts"] if item["source"] == decompose.PROSE), "")
    for item in row["parts"]:
        weight = weights.get(item["source"], 0.0)
        files = item["files"]
        if item["source"] == decompose.IDENTIFIER:  # as plan() keeps them (a collect may predate the rule)
            files = [path for path in files if path_prior(path, question) >= decompose.MIN_DEFINER_PRIOR]
        if weight <= 0 or not files:
            continue
        named = item["source"] in (decompose.FILE, decompose.MODULE)
        part = Part(item["source"], item["query"], "", weight, tuple(files) if named else (),
                    tuple(files) if item["source"] == decompose.IDENTIFIER else ())
        results = tuple(FusedResult(path, SPAN, None, None, None, "", 1.0, {}, {}, 1.0, False) for path in files)
        answered.append(PartResult(part, results))
    languages = {path: detect_language(path) for item in row["parts"] for path in item["files"]}
    language = decompose.issue_language(answered, languages) if other_language < 1 else None
    prior = decompose.issue_prior(question, language, non_code, other_language)
    return [result.path for result in fuse_files(answered, k=k, prior=prior)]


def _figures(rows: Sequence[Mapping[str, Any]], weights: Mapping[str, float], k: int, non_code: float,
             other_language: float = decompose.OTHER_LANGUAGE_PRIOR) -> dict[str, float]:
    hits = {1: 0, 5: 0, 10: 0}
    for row in rows:
        files = _fused(row, weights, k, non_code, other_language)
        for cut in hits:
            hits[cut] += bool(set(row["gold"]) & set(files[:cut]))
    return {f"hit@{cut}": round(100 * count / max(len(rows), 1), 1) for cut, count in hits.items()}


def fit(rows: Sequence[Mapping[str, Any]]) -> None:
    tune = [row for row in rows if row["repo"] in TUNE_REPOS]
    held = [row for row in rows if row["repo"] not in TUNE_REPOS]
    base = dict(decompose.PART_WEIGHTS)
    print(f"tune {len(tune)}, held-out {len(held)}")
    print("shipped:", base, decompose.FILE_K, decompose.NON_CODE_PRIOR,
          _figures(tune, base, decompose.FILE_K, decompose.NON_CODE_PRIOR),
          _figures(held, base, decompose.FILE_K, decompose.NON_CODE_PRIOR))

    def objective(figures: Mapping[str, float]) -> float:
        return figures["hit@1"] + figures["hit@5"] + figures["hit@10"]

    best = (base, decompose.FILE_K, decompose.NON_CODE_PRIOR)
    best_value = objective(_figures(tune, *best))
    grid = (0.0, 0.25, 0.5, 1.0, 1.5)
    for _ in range(2):  # coordinate descent: one weight at a time, twice round
        for source in base:
            for value in grid:
                weights = {**best[0], source: value}
                figures = _figures(tune, weights, best[1], best[2])
                if objective(figures) > best_value:
                    best, best_value = (weights, best[1], best[2]), objective(figures)
        for k, non_code in itertools.product((5, 10, 20, 40), (0.1, 0.3, 0.5, 1.0)):
            figures = _figures(tune, best[0], k, non_code)
            if objective(figures) > best_value:
                best, best_value = (best[0], k, non_code), objective(figures)
    print("best on tune:", best, _figures(tune, *best), "held-out:", _figures(held, *best))
    for other in (1.0, 0.5, 0.3):
        print(f"  other-language prior {other}: tune {_figures(tune, *best, other)} "
              f"held-out {_figures(held, *best, other)}")
    for source in base:  # what each part is worth, on both halves: that part switched off
        without = {**best[0], source: 0.0}
        print(f"  without {source}: tune {_figures(tune, without, best[1], best[2])} "
              f"held-out {_figures(held, without, best[1], best[2])}")


def collect_functions(instances: Sequence[Instance], root: Path, index_dir: Path) -> list[dict[str, Any]]:
    """Per issue: its gold functions and every candidate function's file share and features, as the
    engine's own decomposed search (engine/decompose.search_decomposed) leaves them."""
    rows = []
    for workspace, snapshot, group in _corpora(instances, root, index_dir):
        languages = {path: record.language for path, record in snapshot.files.items()}
        for instance in group:
            text = instance.text[:MAX_QUERY_LENGTH]
            answer = decompose.search_decomposed(
                SearchRequest(text, limit=CUTOFF), languages, partial(decompose.defining_files, snapshot),
                workspace.search, "default", False, snapshot.parsed.get, snapshot.text)
            found = localisation.candidates(answer.results, decompose.part_places(answer.parts),
                                            snapshot.parsed.get, snapshot.text,
                                            decompose.evidence_of(text, languages))
            rows.append({"id": instance.id, "repo": instance.repo,
                         "gold": [f"{path}::{span}" for path, span in instance.gold_functions],
                         "candidates": [{"path": c.path, "symbol": c.symbol.qualified or c.symbol.name,
                                         "share": c.file_share, "test": c.test, "features": dict(c.features)}
                                        for c in found]})
    return rows


def _function_figures(rows: Sequence[Mapping[str, Any]], weights: Mapping[str, float], floor: float,
                      power: float = FUNCTION_FILE_POWER) -> dict[str, float]:
    hits = {1: 0, 5: 0, 10: 0}
    counted = [row for row in rows if row["gold"]]
    for row in counted:
        found = [localisation.Candidate(c["path"], symbol, c["share"], c["features"], _is_test(c, symbol))
                 for c in row["candidates"] for symbol in (_symbol(c),)]
        ranked = [f"{c.path}::{c.symbol.qualified}"
                  for _, c in localisation.score_candidates(found, weights, floor, power)]
        for cut in hits:
            hits[cut] += any(_function_hit(name, gold) for name in ranked[:cut] for gold in row["gold"])
    return {f"fn@{cut}": round(100 * count / max(len(counted), 1), 1) for cut, count in hits.items()}


def _is_test(candidate: Mapping[str, Any], symbol: Symbol) -> bool:
    """As collected; a collect that predates the flag: the symbol's name or the path prior decides."""
    if "test" in candidate:
        return bool(candidate["test"])
    return localisation.is_test(symbol) or path_prior(candidate["path"], "") < 1.0


def _symbol(candidate: Mapping[str, Any]) -> Symbol:
    return Symbol(candidate["symbol"].rsplit(".", 1)[-1], "function", candidate["path"], SPAN, SPAN,
                  qualified=candidate["symbol"])


def _function_hit(found: str, gold: str) -> bool:
    path, _, name = found.partition("::")
    gold_path, _, gold_name = gold.partition("::")
    return path == gold_path and (name == gold_name or name.endswith("." + gold_name))


def fit_functions(rows: Sequence[Mapping[str, Any]]) -> None:
    tune = [row for row in rows if row["repo"] in TUNE_REPOS]
    held = [row for row in rows if row["repo"] not in TUNE_REPOS]
    base = dict(FUNCTION_WEIGHTS)
    print(f"tune {len(tune)}, held-out {len(held)}")
    print("shipped:", base, FUNCTION_FLOOR, _function_figures(tune, base, FUNCTION_FLOOR),
          _function_figures(held, base, FUNCTION_FLOOR))
    for power in (1.0, 2.0, 3.0):
        print(f"  file share power {power}: tune {_function_figures(tune, base, FUNCTION_FLOOR, power)} "
              f"held-out {_function_figures(held, base, FUNCTION_FLOOR, power)}")

    def objective(figures: Mapping[str, float]) -> float:
        return figures["fn@1"] + figures["fn@5"] + 2 * figures["fn@10"]

    best, best_floor = base, FUNCTION_FLOOR
    best_value = objective(_function_figures(tune, best, best_floor))
    for _ in range(2):  # coordinate descent, twice round
        for feature in localisation.FEATURES:
            for value in (0.0, 0.25, 0.5, 1.0, 2.0, 4.0):
                weights = {**best, feature: value}
                value_of = objective(_function_figures(tune, weights, best_floor))
                if value_of > best_value:
                    best, best_value = weights, value_of
        for floor in (0.0, 0.02, 0.05, 0.1, 0.2, 0.5):
            value_of = objective(_function_figures(tune, best, floor))
            if value_of > best_value:
                best_floor, best_value = floor, value_of
    print("best on tune:", best, best_floor, _function_figures(tune, best, best_floor),
          "held-out:", _function_figures(held, best, best_floor))
    for feature in localisation.FEATURES:  # what each feature is worth, on both halves
        without = {**best, feature: 0.0}
        print(f"  without {feature}: tune {_function_figures(tune, without, best_floor)} "
              f"held-out {_function_figures(held, without, best_floor)}")
    order_only = dict.fromkeys(localisation.FEATURES, 0.0)
    print(f"  file order only: tune {_function_figures(tune, order_only, 1.0)} "
          f"held-out {_function_figures(held, order_only, 1.0)}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("collect")
    run.add_argument("instances")
    run.add_argument("--root", required=True)
    run.add_argument("--index-dir", required=True)
    run.add_argument("--out", required=True)
    run.add_argument("--repos")
    run.add_argument("--per-repo", type=int)
    tune = commands.add_parser("fit")
    tune.add_argument("parts", nargs="+", help="one or more files written by collect")
    functions = commands.add_parser("functions")
    for flag in ("--root", "--index-dir", "--out"):
        functions.add_argument(flag, required=True)
    functions.add_argument("instances")
    functions.add_argument("--repos")
    functions.add_argument("--per-repo", type=int)
    functions_fit = commands.add_parser("functions-fit")
    functions_fit.add_argument("candidates", nargs="+", help="one or more files written by functions")
    args = parser.parse_args(argv)
    if args.command == "functions":
        instances = select(load_instances(Path(args.instances)), args.repos, args.per_repo)
        rows = collect_functions(instances, Path(args.root), Path(args.index_dir))
        Path(args.out).write_text(json.dumps(rows) + "\n", encoding="utf-8")
    elif args.command == "functions-fit":
        fit_functions([row for path in args.candidates for row in json.loads(Path(path).read_text(encoding="utf-8"))])
    elif args.command == "collect":
        instances = select(load_instances(Path(args.instances)), args.repos, args.per_repo)
        rows = collect(instances, Path(args.root), Path(args.index_dir))
        Path(args.out).write_text(json.dumps(rows, indent=0) + "\n", encoding="utf-8")
    else:
        fit([row for path in args.parts for row in json.loads(Path(path).read_text(encoding="utf-8"))])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

