"""The semantic modality: nearest chunks by cosine over the embedding model's vectors."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ..index.lexical import LexicalIndex
from ..index.snapshot import Snapshot
from ..model.profiles import SEMANTIC_WORD_SMOOTHING, VECTOR_CANDIDATES
from ..model.records import Chunk, Hit
from ..model.tokens import WORD, query_tokens
from ..query.parsedquery import ParsedQuery
from ..query.request import Ranking
from ..semantic.vectors import VectorIndex
from .retriever import Retriever, chunk_hit
from .text import LexicalCache

__all__ = ["SemanticState", "SemanticView", "make_semantic_retriever", "word_weights"]


@dataclass(frozen=True)
class SemanticView:
    """One model's vectors, the chunks they embed and the function that embeds queries for them.

    Published as a whole: a query is always embedded by the model of the index it searches, even
    while the embedder swaps `local` for a slower model in the background.
    """

    vectors: VectorIndex
    chunks_by_digest: Mapping[str, Chunk]
    # The query text and its words' weights (SEMANTIC_WORD_SMOOTHING) -> the query's vector.
    embed_query: Callable[[str, Mapping[str, float]], object]
    backend: str
    model: str


class SemanticState:
    """What the semantic retriever searches now; `view` is replaced in one assignment as embedding runs."""

    def __init__(self) -> None:
        self.view: SemanticView | None = None


def word_weights(text: str, lexical: LexicalIndex) -> dict[str, float]:
    """Each word of `text` that chunks of the workspace share, weighted a / (a + its share of the chunks)
    (SEMANTIC_WORD_SMOOTHING); words no chunk has and stop words are left out, so they weigh 1."""
    smoothing = SEMANTIC_WORD_SMOOTHING
    weights: dict[str, float] = {}
    for word in dict.fromkeys(WORD.findall(text)):
        tokens = query_tokens(word)
        share = lexical.document_share(tokens) if tokens else 0.0
        if share > 0:
            weights[word] = smoothing / (smoothing + share)
    return weights


def make_semantic_retriever(state: SemanticState, lexical: LexicalCache | None = None) -> Retriever:
    """Nearest chunks by cosine: a binary shortlist rescored in float, or (ablation) every vector exactly.
    For find_similar with a seed, nearest to the seed's own stored vector instead of the query's.

    With `lexical`, the query's words are weighted by how rare they are among the chunks (`word_weights`),
    read from the BM25 index that counts them already.
    """

    def semantic(snapshot: Snapshot, query: ParsedQuery, features: Ranking, depth: int) -> list[Hit]:
        view = state.view
        if view is None or len(view.vectors) == 0:
            return []
        hits = []
        seed = query.classification.seed
        stored = view.vectors.vector(seed.chunk.digest) if seed is not None and seed.chunk is not None else None
        if stored is not None:
            vector = stored
        else:
            weights = word_weights(query.raw, lexical.get(snapshot)[0]) \
                if lexical is not None and features.word_weights else {}
            vector = np.asarray(view.embed_query(query.raw, weights))
        candidates = VECTOR_CANDIDATES if features.binary_vectors else len(view.vectors)
        for key, score in view.vectors.search_keys(vector, limit=depth, candidates=candidates):
            chunk = view.chunks_by_digest.get(key)
            if chunk is not None and chunk.path in snapshot.files:
                hits.append(chunk_hit(chunk, score))
        return hits

    return semantic
