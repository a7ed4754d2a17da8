"""Centrality: PageRank over one state of the graph (and personalized from seeds), and its stored
form, so a restart answers with the centrality of the index it opens without building the edges.

scipy is imported where a matrix is built, not with this module: a restart or a one-shot CLI search
answers from the stored scores alone, and importing scipy.sparse cost some 0.4 s of every such run.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .adjacency import Adjacency
from .tuning import GraphTuning

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["DamagedRank", "Rank", "StoredRank"]


@dataclass
class Rank:
    """A PageRank computation over one state of the graph, kept for lookups and personalization.

    Power iteration over a scipy sparse matrix built straight from the edge arrays: networkx's own
    pagerank spends most of its time converting the graph, which we would pay on every refresh.
    """

    nodes: list[str]
    index: dict[str, int]
    # The transposed transition matrix, or its CSR arrays (data, indices, indptr) until a
    # personalized ranking first needs it (`matrix`).
    transposed: sp.csr_array | tuple[np.ndarray, np.ndarray, np.ndarray]
    dangling: np.ndarray
    scores: np.ndarray
    computed_at: float = 0.0
    _built: sp.csr_array | None = field(default=None, repr=False, compare=False)

    @property
    def matrix(self) -> sp.csr_array:
        """The transposed transition matrix (built from the stored arrays on first use)."""
        if self._built is None:
            import scipy.sparse as sp

            if isinstance(self.transposed, tuple):
                data, indices, indptr = self.transposed
                size = len(self.nodes)
                self._built = sp.csr_array((data, indices, indptr), shape=(size, size))
            else:
                self._built = self.transposed
        return self._built

    @classmethod
    def of(cls, graph: Adjacency, tuning: GraphTuning) -> Rank:
        import scipy.sparse as sp

        nodes, rows, cols, weights = graph.arrays()
        index = {node: i for i, node in enumerate(nodes)}
        size = len(nodes)
        matrix = sp.csr_array((weights, (rows, cols)), shape=(size, size))
        out = np.asarray(matrix.sum(axis=1)).ravel()
        scale = np.divide(1.0, out, out=np.zeros(size), where=out > 0)
        transposed = sp.csr_array(sp.diags_array(scale) @ matrix).T.tocsr()
        rank = cls(nodes, index, transposed, out == 0, np.zeros(size))
        if size:
            rank.scores = rank.pagerank(np.full(size, 1.0 / size), tuning) * size
        return rank

    def score(self, node: str) -> float:
        index = self.index.get(node)
        return 0.0 if index is None else float(self.scores[index])

    def personalized(self, seeds: Mapping[str, float], tuning: GraphTuning) -> np.ndarray:
        teleport = np.zeros(len(self.nodes))
        for node, weight in seeds.items():
            if node in self.index:
                teleport[self.index[node]] = weight
        total = teleport.sum()
        return self.pagerank(teleport / total, tuning) if total > 0 else teleport

    def pagerank(self, teleport: np.ndarray, tuning: GraphTuning) -> np.ndarray:
        """Power iteration; dangling nodes hand their rank to the teleport distribution (as networkx)."""
        scores = teleport.copy()
        alpha = tuning.damping
        for _ in range(tuning.max_iterations):
            previous = scores
            leaked = float(previous[self.dangling].sum())
            scores = alpha * (self.matrix @ previous + leaked * teleport) + (1 - alpha) * teleport
            if float(np.abs(scores - previous).sum()) < len(scores) * tuning.tolerance:
                break
        return scores


class DamagedRank(ValueError):
    """Stored centrality that does not decode to a ranking (the graph is built and ranked again)."""


@dataclass(frozen=True)
class StoredRank:
    """A ranking as compact arrays: node ids (newline-joined UTF-8), the transposed transition matrix
    in CSR form, the dangling mask and the scores. `encode` writes it as an `.npz` (no pickles: a
    damaged or foreign blob can only fail to decode, never run code)."""

    nodes: list[str]
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    dangling: np.ndarray
    scores: np.ndarray

    @classmethod
    def of(cls, rank: Rank) -> StoredRank:
        if isinstance(rank.transposed, tuple):
            data, indices, indptr = rank.transposed
        else:
            data, indices, indptr = rank.transposed.data, rank.transposed.indices, rank.transposed.indptr
        return cls(list(rank.nodes), np.asarray(data), np.asarray(indices), np.asarray(indptr), rank.dangling,
                   rank.scores)

    def encode(self) -> bytes:
        buffer = io.BytesIO()
        names = np.frombuffer("\n".join(self.nodes).encode("utf-8"), dtype=np.uint8)
        np.savez(buffer, nodes=names, data=self.data, indices=self.indices, indptr=self.indptr,
                 dangling=self.dangling, scores=self.scores)
        return buffer.getvalue()

    @classmethod
    def decode(cls, blob: bytes) -> StoredRank:
        try:
            with np.load(io.BytesIO(blob), allow_pickle=False) as arrays:
                parts = {name: arrays[name] for name in ("nodes", "data", "indices", "indptr", "dangling", "scores")}
            text = parts.pop("nodes").tobytes().decode("utf-8")
        except (OSError, ValueError, KeyError, EOFError, UnicodeError, zipfile.BadZipFile) as error:
            raise DamagedRank(f"stored centrality does not decode: {type(error).__name__}: {error}") from None
        nodes = text.split("\n") if text else []
        size = len(nodes)
        indptr, indices = parts["indptr"], parts["indices"]
        if not (parts["scores"].shape == parts["dangling"].shape == (size,) and indptr.shape == (size + 1,)
                and parts["data"].shape == indices.shape and (not indices.size or int(indices.max()) < size)
                and (not indptr.size or int(indptr[-1]) == indices.size)):
            raise DamagedRank("stored centrality arrays do not fit together")
        return cls(nodes, parts["data"], indices, indptr, parts["dangling"].astype(bool), parts["scores"])

    def rank(self) -> Rank:
        return Rank(self.nodes, {node: i for i, node in enumerate(self.nodes)}, (self.data, self.indices, self.indptr),
                    self.dangling, self.scores)
