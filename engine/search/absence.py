"""Honest "not found": say so when a query's target is not in the workspace.

A user asking `where is FooBar defined`, `who calls FooBar` or `what depends on FooBar` for a name the
index has never seen used to get a confident list of fuzzy matches with nothing to say they were
guesses (issue 14: 100 % of such queries returned results). Now the response says
"no definition of FooBar; similar names: …" in `notes`, and every result carries `approximate: true`.
The same holds for a question naming a thing that occurs nowhere in the workspace (`how does the
Kafka consumer rebalance`) or asking about a subject no chunk holds a word of (`how does the websocket
reconnect`, `how are unpaid invoices reminded`), and for an exact string that matched nothing, whose
fused rescue can only show related code.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ..index.snapshot import Snapshot
from ..index.textsearch import candidate_plan, parse_text_query
from ..model.profiles import (
    ABSENCE_CONFIRM_FILES,
    DEFINITION_KINDS,
    EXACT_MATCH,
    EXISTS_CANDIDATES,
    FIND_DEFINITION,
    FIND_REFERENCES,
    IMPACT_ANALYSIS,
    NAMED_TIERS,
    SIMILAR_NAME_CANDIDATES,
    SIMILAR_NAMES_SHOWN,
    SYMBOL_TIERS,
)
from ..model.tokens import split_identifier
from ..query.parsedquery import ParsedQuery
from ..rank.ranking import is_test_path

__all__ = ["absence_note", "occurs", "similar_names"]

# Intents whose target must be a symbol of the index for the answer to be one.
TARGET_INTENTS = frozenset({FIND_DEFINITION, FIND_REFERENCES, IMPACT_ANALYSIS})
# Not parsedquery.QUALIFIER: a PHP `\` namespace stays whole here, as it always has.
_QUALIFIER = re.compile(r"::|\.|#|->")


def similar_names(snapshot: Snapshot, name: str) -> list[str]:
    """Distinct names of the symbols nearest to `name` by the symbol table's prefix and fuzzy tiers,
    then by its first two thirds and its longest word (`load_settingz` has no fuzzy match, but
    `load_se` and `settingz`' neighbours may); tests' own names are left out."""
    found: list[str] = []
    words = sorted(split_identifier(name), key=len, reverse=True)
    for probe in [name, name[: max(3, 2 * len(name) // 3)], *words[:1]]:
        for match in snapshot.symbols.search(probe, None, SIMILAR_NAME_CANDIDATES):
            symbol = match.symbol
            if symbol.kind in DEFINITION_KINDS and symbol.name not in found and not is_test_path(symbol.path):
                found.append(match.symbol.name)
            if len(found) >= SIMILAR_NAMES_SHOWN:
                return found
    return found


def _defined(snapshot: Snapshot, target: str) -> bool:
    name = _QUALIFIER.split(target.strip())[-1] or target
    named = tuple(tier for tier in SYMBOL_TIERS if tier in NAMED_TIERS)  # named matches outrank the others
    return bool(snapshot.symbols.search(name, None, EXISTS_CANDIDATES, named))


def occurs(snapshot: Snapshot, word: str) -> bool:
    """Whether `word` appears in any file of the workspace, with ripgrep's smart case (a name written
    with capitals, `Redux`, must appear so; `redux` in any case): trigram candidates, then the text of
    at most ABSENCE_CONFIRM_FILES of them (past that, a word that common is taken to occur)."""
    plan = candidate_plan(parse_text_query(word.lower()))
    if plan is None:
        return True
    ids = np.unique(np.concatenate([snapshot.trigrams.candidates(grams) for grams in plan]))
    exact = word != word.lower()

    def found(text: str) -> bool:
        return word in text if exact else word in text.lower()

    for checked, doc in enumerate(ids.tolist()):
        if checked >= ABSENCE_CONFIRM_FILES:
            return True
        path = snapshot.paths_by_id.get(doc)
        text = snapshot.text(path) if path is not None else None
        if text is not None and found(text):
            return True
    return any(found(text) for text in snapshot.buffers.values())


def _in_buffers(snapshot: Snapshot, word: str) -> bool:
    """An unsaved buffer's words reach BM25 only at its next build; a subject typed a moment ago is there."""
    lowered = word.lower()
    return any(lowered in text.lower() for text in snapshot.buffers.values())


def absence_note(snapshot: Snapshot, query: ParsedQuery, strategy: str,
                 holds: Callable[[str], bool] | None = None) -> str | None:
    """What the response must say when the query's target is not in the workspace, or None. `holds`
    says whether any chunk holds a word (the BM25 vocabulary, engine/index/lexical.py): a question's
    subject (`how does the websocket reconnect`) is missing when no chunk holds one of its words and
    no open buffer contains it."""
    classification = query.classification
    target = classification.target
    intent = classification.intent
    if intent in TARGET_INTENTS and target:
        if _defined(snapshot, target):
            return None
        kind = "definition of" if intent == FIND_DEFINITION else "symbol named"
        names = similar_names(snapshot, _QUALIFIER.split(target)[-1] or target)
        suggestion = f"; similar names: {', '.join(names)}" if names else ""
        return f"no {kind} {target}{suggestion}"
    if intent == EXACT_MATCH and strategy == "rescued":
        return f"no exact match for {target or query.raw!r}; showing related code"
    if intent == EXACT_MATCH or classification.seed is not None:
        return None  # a find_similar seed was found in the index: what it is like exists
    missing = [word for word in query.named_things if not occurs(snapshot, word)]
    if holds is not None:
        missing += [word for word in query.subject if not holds(word) and not _in_buffers(snapshot, word)]
    if missing:
        return f"{', '.join(missing)} occurs nowhere in this workspace; results are approximate"
    return None
