"""Is the DESIGN §3 weight table the right default? Fit an alternative and check it where it was not fitted.

The understand_code row (the intent of 190 of semble's 244 queries) is grid-searched on half of semble's
repositories (every other one, sorted by name), then the best row and the shipped table are compared on
the other half and on our own three query sets. The table changes only if the fitted row wins on every
one of those corpora (issue 7); the script prints the verdict with the figures.

    python bench/fit_weights.py --backend local
"""

from __future__ import annotations

import argparse
import itertools
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from fourfold.engine import parse_settings
from fourfold.engine.model.profiles import SEMANTIC, STRUCTURAL, TEXT, UNDERSTAND_CODE, WEIGHTS
from fourfold.engine.model.settings import Settings
from fourfold.engine.query.request import Ranking, SearchRequest
from fourfold.engine.service.workspace import Workspace
from fourfold.lsp.evaluation import (
    Corpus,
    EvalQuery,
    Ranked,
    load_queries,
    score_query,
    semble_ndcg,
    semble_roots,
)

HERE = Path(__file__).resolve().parent
# The grid for the understand_code row (graph keeps its 0.1; it runs only in `thorough`).
GRID = {SEMANTIC: (0.1, 0.3, 0.5, 0.7), TEXT: (0.1, 0.2, 0.4, 0.6), STRUCTURAL: (0.0, 0.1, 0.2)}
OWN_SETS = {"django": "django-5.1.4", "rich": "rich-13.9.4", "rxjs": "rxjs-7.8.1"}


@dataclass
class Loaded:
    """One corpus ready to query: its workspace, how to relabel paths, and its queries."""

    name: str
    workspace: Workspace
    corpus: Corpus
    queries: list[EvalQuery]


def _open(root: Path, settings: Settings, index_dir: Path) -> Workspace:
    workspace = Workspace(root, replace(settings, index_dir=str(index_dir)), background=False)
    workspace.refresh()
    if settings.semantic_backend != "none":
        workspace.embed_pending()
    return workspace


def _score(loaded: Loaded, ranking: Ranking, preset: str) -> float:
    """Mean NDCG@10 of the corpus's answerable queries (semble's metric for semble's, ours otherwise)."""
    values = []
    for query in loaded.queries:
        request = SearchRequest(query=query.query, limit=10, preset=preset, ranking=ranking)
        response = loaded.workspace.search(request)
        ranked = tuple(Ranked(loaded.corpus.label_path(r.path), r.span, tuple(r.matches)) for r in response.results)
        values.append(semble_ndcg(ranked, query.gold) if query.semble else score_query(query, ranked).ndcg)
    return statistics.fmean(values)


def _mean(corpora: Iterable[Loaded], ranking: Ranking, preset: str) -> float:
    return statistics.fmean(_score(loaded, ranking, preset) for loaded in corpora)


def _rows() -> list[Mapping[str, float]]:
    base = dict(WEIGHTS[UNDERSTAND_CODE])
    return [{**base, **dict(zip(GRID, values, strict=True))} for values in itertools.product(*GRID.values())]


def _table(row: Mapping[str, float]) -> Ranking:
    return Ranking(weights={UNDERSTAND_CODE: row})


def _load_semble(args: argparse.Namespace, settings: Settings) -> list[Loaded]:
    queries = load_queries(args.queries)
    roots = semble_roots(args.semble_root, queries, args.queries.parent / "semble_repos.json")
    loaded = []
    for repo, corpus in sorted(roots.items(), key=lambda item: item[0] or ""):
        if repo is None or not corpus.root.is_dir():
            continue
        workspace = _open(corpus.root, settings, args.index_dir / "semble" / repo)
        loaded.append(Loaded(repo, workspace, corpus, [q for q in queries if q.repo == repo]))
    return loaded


def _load_own(args: argparse.Namespace, settings: Settings) -> list[Loaded]:
    loaded = []
    for name, folder in OWN_SETS.items():
        root = args.corpora / folder
        if root.is_dir():
            workspace = _open(root, settings, args.index_dir / name)
            answerable = [q for q in load_queries(HERE / "queries" / f"{name}.jsonl") if q.answerable]
            loaded.append(Loaded(name, workspace, Corpus(root), answerable))
    return loaded


def _fmt(row: Mapping[str, float]) -> str:
    return " / ".join(f"{row[m]:.1f}" for m in (SEMANTIC, TEXT, STRUCTURAL))


def _report(fit: Sequence[Loaded], check: Sequence[Loaded], own: Sequence[Loaded], preset: str) -> None:
    shipped = Ranking()
    scored = sorted(((_mean(fit, _table(row), preset), _fmt(row), row) for row in _rows()), key=lambda x: -x[0])
    best_score, best_name, best_row = scored[0]
    print(f"understand_code row (semantic / text / structural), preset {preset}")
    print(f"fitted on {', '.join(c.name for c in fit)}: best {best_name} = {best_score:.3f}; "
          f"shipped {_fmt(WEIGHTS[UNDERSTAND_CODE])} = {_mean(fit, shipped, preset):.3f}\n")
    print("| corpus | shipped table | fitted row | Δ |\n|---|---|---|---|")
    wins = []
    for label, corpora in [("semble held-out half (mean of repos)", check), *[(c.name, [c]) for c in own]]:
        before, after = _mean(corpora, shipped, preset), _mean(corpora, _table(best_row), preset)
        wins.append(after > before)
        print(f"| {label} | {before:.3f} | {after:.3f} | {after - before:+.3f} |")
    verdict = "the fitted row wins everywhere" if all(wins) else "the fitted row does not win everywhere"
    print(f"\nVerdict: {verdict}; the shipped table {'should' if all(wins) else 'stays'} "
          f"{'change' if all(wins) else 'the default'}.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="local")
    parser.add_argument("--preset", default="default")
    parser.add_argument("--queries", type=Path, default=HERE / "queries" / "semble.jsonl")
    parser.add_argument("--semble-root", type=Path, default=HERE / "corpora" / "semble")
    parser.add_argument("--corpora", type=Path, default=HERE / "corpora")
    parser.add_argument("--index-dir", type=Path, default=HERE / "corpora" / ".fit-index")
    args = parser.parse_args()
    settings, errors = parse_settings({"semantic_backend": args.backend})
    if errors:
        raise SystemExit("; ".join(errors))
    semble = _load_semble(args, settings)
    own = _load_own(args, settings)
    _report(semble[0::2], semble[1::2], own, args.preset)


if __name__ == "__main__":
    main()
