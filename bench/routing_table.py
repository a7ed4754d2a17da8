"""Which DESIGN §2 rule routes how many queries of each set, and how often the intent it gives is right.

A rule that fires often and is often wrong is where routing loses answers, so this is the table
README "Routing table" shows. Two kinds of input:

- a query set (`.jsonl`, ours or semble's): each query is classified as the classifier alone sees
  it, without the index (product-shaped names like `tRPC` then never count as identifiers);
- a report of `fourfold eval --json` (`.json`): the rule and intent the engine used, with the
  symbol table in hand, for each query of the first fused system in it.

Accuracy is against the set's gold intents (ours label every query; semble's categories map to the
intent a person asking that kind of question means, lsp/evaluation.py SEMBLE_INTENTS). Run:

    python bench/routing_table.py bench/queries/*.jsonl /work/shared/bench/semble-more/queries.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from fourfold.engine.query.intent import RULES, classify
from fourfold.lsp.evaluation import load_queries


@dataclass(frozen=True)
class Routed:
    """One query as routed: the rule that fired, the intent it gave, and the set's label."""

    rule: str
    intent: str
    label: str | None


def routed_from_queries(path: Path) -> list[Routed]:
    """Classify every query of a set as the classifier sees it without an index."""
    routed = []
    for query in load_queries(path):
        verdict = classify(query.query)
        routed.append(Routed(verdict.rule, verdict.intent, query.intent))
    return routed


def routed_from_report(path: Path) -> list[Routed]:
    """The rules and intents a `fourfold eval --json` report recorded, for its first fused system."""
    rows = json.loads(path.read_text(encoding="utf-8"))["queries"]
    fused = [row for row in rows if row.get("rule")]
    if not fused:
        raise SystemExit(f"{path}: no query records a rule (a report from before rules were recorded?)")
    system = fused[0]["system"]
    return [Routed(row["rule"], row["intent"], row["label"]) for row in fused if row["system"] == system]


def table(sets: dict[str, list[Routed]]) -> list[str]:
    """Markdown: one row per rule (DESIGN order), per set `queries (accuracy)`; accuracy over labelled ones."""
    names = list(sets)
    lines = ["| rule | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    order = [rule.id for rule in RULES] + ["pinned"]
    counts: dict[tuple[str, str], list[Routed]] = defaultdict(list)
    for name, routed in sets.items():
        for item in routed:
            counts[(item.rule, name)].append(item)
    for rule in order:
        if not any((rule, name) in counts for name in names):
            continue
        cells = []
        for name in names:
            items = counts.get((rule, name), [])
            labelled = [item for item in items if item.label is not None]
            right = sum(1 for item in labelled if item.intent == item.label)
            accuracy = f" ({right / len(labelled):.0%})" if labelled else ""
            cells.append(f"{len(items)}{accuracy}" if items else "·")
        lines.append(f"| `{rule}` | " + " | ".join(cells) + " |")
    totals = []
    for name in names:
        labelled = [item for item in sets[name] if item.label is not None]
        right = sum(1 for item in labelled if item.intent == item.label)
        totals.append(f"{len(sets[name])} ({right / len(labelled):.0%})" if labelled else str(len(sets[name])))
    lines.append("| all | " + " | ".join(totals) + " |")
    return lines


def _name(path: Path) -> str:
    return path.parent.name if path.stem in ("queries", "report") else path.stem


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", type=Path, help="query sets (.jsonl) or eval reports (.json)")
    args = parser.parse_args()
    sets = {
        _name(path): routed_from_report(path) if path.suffix == ".json" else routed_from_queries(path)
        for path in args.inputs
    }
    print("\n".join(table(sets)))


if __name__ == "__main__":
    main()
