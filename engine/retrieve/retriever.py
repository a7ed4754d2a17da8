"""What every retriever is: one signature for the four modalities, so the searcher runs them side by side
and fuses only their ranks.

Each modality lives in a module of its own (text.py, structural.py, semantic.py, graph.py) and decides
what part of the query it understands: the text retriever searches a quoted string or identifier
literally and a question lexically; the structural one looks the named symbol up; the semantic one
embeds; the graph one answers references and impact from edges.
"""

from __future__ import annotations

from collections.abc import Callable

from ..index.snapshot import Snapshot
from ..model.records import Chunk, Hit
from ..query.parsedquery import ParsedQuery
from ..query.request import Ranking

__all__ = ["Retriever", "chunk_hit"]

# What every retriever is: the snapshot, the query read once, the request's ranking switches (an
# ablation's, or all on) and how many hits to return. None of them reads the raw string again.
Retriever = Callable[[Snapshot, ParsedQuery, Ranking, int], list[Hit]]


def chunk_hit(chunk: Chunk, score: float) -> Hit:
    """A chunk as a hit, with its first line of code (past the path, kind and name lines) as the snippet."""
    first = next((line.strip() for line in chunk.text.splitlines()[3:] if line.strip()), "")
    return Hit(chunk.path, chunk.span, score, chunk.symbol, chunk.kind, first[:200], chunk.language)
