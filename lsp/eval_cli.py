"""`fourfold eval QUERIES.jsonl --root ROOT`: measured answer quality as a Markdown table and a JSON file.

The user reads one table where every figure of the fused engine stands next to the same figure of
each single retriever, BM25, ripgrep and universal-ctags (with `--baseline`), per intent and overall;
for the semble benchmark also NDCG@10 per repository. The arithmetic lives in
`fourfold.lsp.evaluation`; this module only wires the arguments and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from fourfold.engine import parse_settings
from fourfold.engine.model.settings import BACKENDS
from fourfold.lsp.eval_localise import add_localise_arguments, cmd_localise, is_instances_file
from fourfold.lsp.evaluation import (
    FUSED_PREFIX,
    Corpus,
    EvalOptions,
    EvalReport,
    Row,
    load_queries,
    merge_reports,
    run_eval,
    semble_roots,
)

PRESETS = ("quick", "default", "thorough")
# Looked for beside a semble query file: it names each repo's benchmark_root. `X.jsonl` reads `X-repos.json`
# first, so several semble sets can share one folder.
SEMBLE_REPOS_FILES = ("{stem}-repos.json", "semble_repos.json", "repos.json")


def add_eval_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `eval` on the `fourfold` command's subparsers."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "eval", help="measure search quality on a labelled query set"
    )
    parser.add_argument("queries", help="JSONL query set (ours or semble's format)")
    parser.add_argument("--root", required=True, help="corpus folder (semble: one subfolder per repo)")
    parser.add_argument("--index-dir", help="where to keep the index (semble: one subfolder per repo)")
    parser.add_argument("--backend", default="none",
                        help=f"semantic backend, or a comma-separated list to compare ({', '.join(BACKENDS)}; "
                             "default: none)")
    parser.add_argument("--preset", default="default", help="preset, or a comma-separated list to compare")
    parser.add_argument("--baseline", action="store_true",
                        help="also run single retrievers, BM25, ripgrep and ctags on the same queries")
    parser.add_argument("--ablations", action="store_true",
                        help="also run each preset with each modality removed, each ranking feature off, "
                             "exact float vectors, and k = 40 / 60")
    parser.add_argument("--json", dest="json_out", help="write the full report (every query) here")
    parser.add_argument("--limit", type=int, default=10, help="results per query (metrics cut at 10)")
    add_localise_arguments(parser)
    parser.set_defaults(run=cmd_eval)
    return parser


def cmd_eval(args: argparse.Namespace) -> int:
    presets = _listed(args.preset)
    backends = _listed(args.backend)
    unknown = [p for p in presets if p not in PRESETS]
    if unknown or not presets:
        print(f"fourfold: --preset takes {', '.join(PRESETS)} (comma-separated), not {args.preset!r}", file=sys.stderr)
        return 2
    if not backends or any(b not in BACKENDS for b in backends):
        print(f"fourfold: --backend takes {', '.join(BACKENDS)} (comma-separated), not {args.backend!r}",
              file=sys.stderr)
        return 2
    queries_path = Path(args.queries)
    if args.localise or is_instances_file(queries_path):
        return cmd_localise(args)
    try:
        queries = load_queries(queries_path)
    except (OSError, ValueError) as error:
        print(f"fourfold: cannot read {queries_path}: {error}", file=sys.stderr)
        return 2
    root = Path(args.root)
    semble = any(query.semble for query in queries)
    roots = semble_roots(root, queries, _repos_file(queries_path)) if semble else {None: Corpus(root)}
    index_dirs = None
    if args.index_dir:
        index_dirs = {repo: str(Path(args.index_dir) / repo) if repo else args.index_dir for repo in roots}
    reports = []
    for position, backend in enumerate(backends):
        # A corpus is measured as the tree its recipe fetched, wherever the recipe put it: one under
        # bench/corpora sits in this repository, whose `build/` and `*.egg-info/` rules are not the corpus's.
        settings, errors = parse_settings({"semantic_backend": backend, "parent_ignores": False})
        for message in errors:
            print(f"fourfold: {message}", file=sys.stderr)
        options = EvalOptions(presets, args.baseline and position == 0, args.limit, args.ablations,
                              backend if len(backends) > 1 else "")
        reports.append(run_eval(queries, roots, settings, options, index_dirs))
    report = merge_reports(reports)
    print_report(report, sys.stdout)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report.to_dict(), indent=1, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
    return 0


def _listed(value: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in value.split(",") if item.strip())


def _repos_file(queries_path: Path) -> Path | None:
    names = (name.format(stem=queries_path.stem) for name in SEMBLE_REPOS_FILES)
    return next((path for name in names if (path := queries_path.parent / name).is_file()), None)


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _strategies(row: Row) -> str:
    return " ".join(f"{name} {count}" for name, count in sorted(row.strategies.items())) or "—"


COLUMNS = ("intent", "system", "n", "MRR@10", "R@10", "nDCG@10", "semble nDCG", "zero", "false", "intent acc",
           "strategies", "p50 ms", "p95 ms")


def markdown_rows(rows: list[Row]) -> list[str]:
    """The main table: one line per (intent, system), the fused engine first in each intent."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    for row in rows:
        cells = [row.group, row.system, str(row.queries), _figure(row.mrr), _figure(row.recall), _figure(row.ndcg),
                 _figure(row.semble_ndcg), _figure(row.zero_rate), _figure(row.false_rate),
                 _figure(row.intent_accuracy), _strategies(row), f"{row.p50_ms:.1f}", f"{row.p95_ms:.1f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def markdown_per_repo(per_repo: dict[str, dict[str, float]]) -> list[str]:
    """Semble's headline table: NDCG@10 per repository per system, and the mean over repositories."""
    systems = list(per_repo)
    repos = sorted({repo for values in per_repo.values() for repo in values})
    lines = ["| repo | " + " | ".join(systems) + " |", "|---|" + "|".join("---" for _ in systems) + "|"]
    for repo in repos:
        lines.append(f"| {repo} | " + " | ".join(_figure(per_repo[s].get(repo)) for s in systems) + " |")
    means = [sum(per_repo[s].values()) / len(per_repo[s]) if per_repo[s] else None for s in systems]
    lines.append("| **mean** | " + " | ".join(_figure(m) for m in means) + " |")
    return lines


def markdown_groups(per_group: dict[str, dict[str, float]], title: str) -> list[str]:
    """NDCG@10 of each system (rows) per group (columns: categories or languages), mean of queries."""
    groups = sorted({name for values in per_group.values() for name in values})
    lines = [f"| {title} | " + " | ".join(groups) + " |", "|---|" + "|".join("---" for _ in groups) + "|"]
    for system, values in per_group.items():
        lines.append(f"| {system} | " + " | ".join(_figure(values.get(name)) for name in groups) + " |")
    return lines


def markdown_ablations(report: EvalReport) -> list[str]:
    """One row per engine variant: its headline figure and the change against the full engine."""
    headline = _headline(report)
    lines = ["| system | variant | score | Δ vs full |", "|---|---|---|---|"]
    for system, value in headline.items():
        full, _, variant = _split_variant(system)
        base = headline.get(full)
        delta = "—" if not variant or base is None else f"{value - base:+.3f}"
        lines.append(f"| {full} | {variant or 'full engine'} | {value:.3f} | {delta} |")
    return lines


def _headline(report: EvalReport) -> dict[str, float]:
    """Semble's mean over repositories when the set is semble's, else overall nDCG@10; engine systems only."""
    if report.per_repo:
        return {system: sum(repos.values()) / len(repos) for system, repos in report.per_repo.items()
                if system.startswith(FUSED_PREFIX) and repos}
    return {row.system: row.ndcg for row in report.rows
            if row.group == "overall" and row.system.startswith(FUSED_PREFIX) and row.ndcg is not None}


def _split_variant(system: str) -> tuple[str, str, str]:
    """`fourfold default local -text` -> (`fourfold default local`, ` `, `-text`)."""
    for marker in (" -", " float vectors", " k="):
        if marker in system:
            full, _, rest = system.partition(marker)
            return full, " ", marker.strip() + rest
    return system, "", ""


def print_report(report: EvalReport, out: TextIO) -> None:
    main_rows = [row for row in report.rows if not _split_variant(row.system)[2]]
    out.write("\n".join(markdown_rows(main_rows)) + "\n")
    if report.per_repo:
        headline = {s: v for s, v in report.per_repo.items() if not _split_variant(s)[2]}
        out.write("\nSemble NDCG@10 per repository\n\n" + "\n".join(markdown_per_repo(headline)) + "\n")
    for title, groups in (("category", report.per_category), ("language", report.per_language)):
        shown = {s: v for s, v in groups.items() if not _split_variant(s)[2]}
        if shown:
            out.write(f"\nSemble NDCG@10 per {title} (mean over queries)\n\n"
                      + "\n".join(markdown_groups(shown, title)) + "\n")
    if any(_split_variant(system)[2] for system in _headline(report)):
        out.write("\nAblations\n\n" + "\n".join(markdown_ablations(report)) + "\n")
    if report.missing_gold:
        out.write(f"\n{len(report.missing_gold)} gold label(s) name a file the corpus lacks (counted as misses):\n")
        out.write("".join(f"  {item}\n" for item in report.missing_gold))
    if report.skipped:
        out.write(f"\n{len(report.skipped)} quer(ies) skipped: no corpus folder for their repo\n")


__all__ = ["add_eval_parser", "cmd_eval", "markdown_ablations", "markdown_groups", "markdown_per_repo", "markdown_rows",
           "print_report"]
