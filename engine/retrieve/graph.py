"""The graph modality: call sites, the reverse closure of an impact question, a seed's siblings, or
personalized PageRank from the query's words."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from ..index.snapshot import Snapshot
from ..model.profiles import FIND_REFERENCES, IMPACT_ANALYSIS, IMPACT_DEPTH
from ..model.records import Hit, Span
from ..query.parsedquery import ParsedQuery
from ..query.request import Ranking

__all__ = ["graph"]


def graph(snapshot: Snapshot, query: ParsedQuery, features: Ranking, depth: int) -> list[Hit]:
    """Call sites for references, the reverse closure for impact, a seed's siblings for find_similar,
    personalized PageRank otherwise."""
    target = query.target
    seed = query.classification.seed
    if seed is not None:
        return snapshot.graph.siblings(seed.path, seed.symbol, limit=depth)
    if query.intent == FIND_REFERENCES and target:
        return snapshot.graph.callers(target, limit=depth)
    if query.intent == IMPACT_ANALYSIS and target:
        impact = snapshot.graph.impact(target, depth=IMPACT_DEPTH, limit=depth)
        return [_at_import_line(snapshot, hit, target) for hit in impact]
    words = [target] if target else list(query.tokens)
    return snapshot.graph.related(words, limit=depth)


# A line that imports: Python, JS/TS, Go, Rust, Java/Kotlin/Scala, C#, PHP, Ruby, C/C++.
_IMPORT_LINE = re.compile(r"^\s*(?:from\s|import\s|import\(|export\s.*\sfrom\s|use\s|using\s|require|#\s*include)"
                          r"|\brequire(?:_relative)?\s*\(?['\"]|\bimport\s*\(")


def _at_import_line(snapshot: Snapshot, hit: Hit, target: str) -> Hit:
    """An importing file without a recorded use is shown at the line that imports the target (its
    name, else its module's), not at line 1."""
    if hit.span != Span(0, 0, 0, 0) or hit.symbol is not None:
        return hit
    text = snapshot.text(hit.path)
    if text is None:
        return hit
    name = re.split(r"::|\.|#|->", target)[-1]
    defined = snapshot.symbols.definitions(name)
    modules = {PurePosixPath(symbol.path).stem for symbol in defined} - {"__init__", "index", "mod"}
    fallback: Span | None = None
    for number, line in enumerate(text.splitlines()):
        if not _IMPORT_LINE.search(line):
            continue
        found = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line)
        if found:
            span = Span(number, found.start(), number, found.end())
            return Hit(hit.path, span, hit.score, hit.symbol, hit.kind, line.strip()[:200], hit.language, hit.via)
        if fallback is None and any(re.search(rf"\b{re.escape(m)}\b", line) for m in modules):
            fallback = Span(number, 0, number, len(line))
    if fallback is None:
        return hit
    return Hit(hit.path, fallback, hit.score, hit.symbol, hit.kind, hit.snippet, hit.language, hit.via)
