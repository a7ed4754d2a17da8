"""The structural modality: the symbols a query names, looked up in the symbol table."""

from __future__ import annotations

import math

from ..index.snapshot import Snapshot
from ..model.profiles import (
    DEFINITION_KINDS,
    NAMED_TIERS,
    SYMBOL_TIERS,
    WORDED_NAME_MAX_FILES,
    WORDED_NAME_MIN_SHARE,
    WORDED_NAME_MIN_WORDS,
)
from ..model.records import Hit, Symbol
from ..model.tokens import name_stems
from ..query.intent import is_product_name
from ..query.parsedquery import ParsedQuery, named_file
from ..query.request import Ranking
from ..rank.ranking import defining_paths, generic_names
from .similar import structural_siblings

__all__ = ["structural"]


def _symbol_hit(symbol: Symbol, score: float) -> Hit:
    return Hit(
        symbol.path, symbol.span, score, symbol.qualified, symbol.kind, symbol.signature, symbol.language
    )


def structural(snapshot: Snapshot, query: ParsedQuery, features: Ranking, depth: int) -> list[Hit]:
    """Symbols named by the query: its target, the whole query, or each identifier a question states.

    For find_similar with a seed, the definitions shaped like the seed (engine/retrieve/similar.py).
    A question's plain words are not looked up (`how does routing work` is not about a symbol called
    `routing`; measured on semble's set, looking them up cost 0.02 NDCG@10): only the names it writes
    in code style or capitalised (`why does safeParse throw`, `how the Router matches`).
    """
    if query.classification.seed is not None:
        return structural_siblings(snapshot, query.classification.seed, depth)
    name, kinds = query.symbol.name, query.symbol.kinds
    if query.target or len(name.split()) <= 1:
        return [_symbol_hit(m.symbol, m.score) for m in snapshot.symbols.search(name, kinds, depth)]
    merged: dict[tuple[str, str], Hit] = {}
    words = query.symbol.words
    generic = generic_names(words, lambda word: defining_paths(snapshot, word))
    for word in sorted(words):
        if is_product_name(word) and not snapshot.symbols.definitions(word):
            continue  # `tRPC` in "how are tRPC links composed" names a product, not the `TRPC` classes
        for match in snapshot.symbols.search(word, kinds, depth):
            if match.tier not in NAMED_TIERS or match.symbol.kind not in DEFINITION_KINDS:
                continue  # a name matched by prefix, or naming a field, is noise, not evidence
            if word in generic and not named_file(match.symbol.path, word):
                continue  # `Dapper`, the namespace every file opens, names no one of them
            key = (match.symbol.path, match.symbol.qualified)
            if key not in merged or merged[key].score < match.score:
                merged[key] = _symbol_hit(match.symbol, match.score)
    if features.worded_names:
        _add_worded(snapshot, query, merged, depth)
    return sorted(merged.values(), key=lambda hit: -hit.score)[:depth]


def _add_worded(snapshot: Snapshot, query: ParsedQuery, merged: dict[tuple[str, str], Hit], depth: int) -> None:
    """The definitions a question names in plain words, ranked below the names it writes as code."""
    asked = set(query.tokens)
    least = max(WORDED_NAME_MIN_WORDS, math.ceil(WORDED_NAME_MIN_SHARE * len(asked)))
    for symbol in snapshot.symbols.worded(asked, least)[:depth]:
        key = (symbol.path, symbol.qualified)
        if symbol.kind not in DEFINITION_KINDS or key in merged:
            continue
        if len({found.path for found in snapshot.symbols.definitions(symbol.name)}) > WORDED_NAME_MAX_FILES:
            continue  # every session backend's `SessionStore`: a role the question describes, not one place
        merged[key] = _symbol_hit(symbol, SYMBOL_TIERS["prefix"] + len(name_stems(symbol.name)) / 10)
