"""The semantic modality: nearest chunks by cosine over the embedding model's vectors."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ..index.snapshot import Snapshot
from ..model.profiles import VECTOR_CANDIDATES
from ..model.records import Chunk, Hit
from ..query.parsedquery import ParsedQuery
from ..query.request import Ranking
from ..semantic.vectors import VectorIndex
from .retriever import Retriever, chunk_hit

__all__ = ["SemanticState", "SemanticView", "make_semantic_retriever"]


@dataclass(frozen=True)
class SemanticView:
    """One model's vectors, the chunks they embed and the function that embeds queries for them.

    Published as a whole: a query is always embedded by the model of the index it searches, even
    while the embedder swaps `local` for a slower model in the background.
    """

    vectors: VectorIndex
    chunks_by_digest: Mapping[str, Chunk]
    embed_query: Callable[[str], object]
    backend: str
    model: str


class SemanticState:
    """What the semantic retriever searches now; `view` is replaced in one assignment as embedding runs."""

    def __init__(self) -> None:
        self.view: SemanticView | None = None


def make_semantic_retriever(state: SemanticState) -> Retriever:
    """Nearest chunks by cosine: a binary shortlist rescored in float, or (ablation) every vector exactly.
    For find_similar with a seed, nearest to the seed's own stored vector instead of the query's."""

    def semantic(snapshot: Snapshot, query: ParsedQuery, features: Ranking, depth: int) -> list[Hit]:
        view = state.view
        if view is None or len(view.vectors) == 0:
            return []
        hits = []
        seed = query.classification.seed
        stored = view.vectors.vector(seed.chunk.digest) if seed is not None and seed.chunk is not None else None
        vector = stored if stored is not None else np.asarray(view.embed_query(query.raw))
        candidates = VECTOR_CANDIDATES if features.binary_vectors else len(view.vectors)
        for key, score in view.vectors.search_keys(vector, limit=depth, candidates=candidates):
            chunk = view.chunks_by_digest.get(key)
            if chunk is not None and chunk.path in snapshot.files:
                hits.append(chunk_hit(chunk, score))
        return hits

    return semantic
