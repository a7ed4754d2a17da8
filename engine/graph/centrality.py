"""Centrality: PageRank over one state of the graph (and personalized from seeds), and its stored
form, so a restart answers with the centrality of the index it opens without building the edges.

scipy is imported where a matrix is built, not with this module: a restart or a one-shot CLI search
answers from the stored scores alone, and importing scipy.sparse cost some 0.4 s of every such run.
"""

from __future__ import annotations

import bisect
import io
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..model.strings import Picked, StoredStrings
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

    nodes: Sequence[str]
    index: Mapping[str, int]
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
        nodes, rows, cols, weights = graph.arrays()
        return cls.ranked(nodes, graph.positions(), rows, cols, weights, tuning)

    @classmethod
    def ranked(cls, nodes: Sequence[str], index: Mapping[str, int], rows: np.ndarray, cols: np.ndarray,
               weights: np.ndarray, tuning: GraphTuning) -> Rank:
        """PageRank over the edges (source position, target position, weight) of `nodes`, sorted by source:
        a graph built in memory (`of`), or a mapped one with edits held over it (`delta.overlay_edges`)."""
        import scipy.sparse as sp

        size = len(nodes)
        # The edges come in source order, one per (source, target): the CSR rows are made from their counts,
        # not from a COO copy, and each row is scaled in place to its out-weight's share, not by a diagonal
        # product: two fewer copies of the edges at the peak of a cold index, and the same matrix bit for bit
        # (sorted within rows, as the COO conversion left it, so each row sums in the same order; the zeros
        # of rows without out-weight dropped, as the product dropped them).
        indptr = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=size), out=indptr[1:])
        del rows
        matrix = sp.csr_array((weights, cols, indptr), shape=(size, size))
        del weights, cols, indptr
        matrix.sort_indices()
        out = np.asarray(matrix.sum(axis=1)).ravel()
        scale = np.divide(1.0, out, out=np.zeros(size), where=out > 0)
        matrix.data *= np.repeat(scale, np.diff(matrix.indptr))
        matrix.eliminate_zeros()
        transposed = matrix.T.tocsr()
        del matrix
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
    """A ranking as compact arrays: node ids (newline-joined UTF-8, with where each starts and their
    sorted order), the transposed transition matrix in CSR form, the dangling mask and the scores.
    `arrays` gives them by name for a memory-mapped file beside the index (`index.mapped`), which a
    restart reads in place; `encode` writes them as an `.npz` (what an index kept before that holds; no
    pickles: a damaged or foreign blob can only fail to decode, never run code).

    A restart reads the node ids in place (`StoredStrings`) and finds a node by bisecting the sorted order
    (`_NameIndex`): splitting Django's 61k ids into a list and a dict was ~0.1 CPU-s of every restart,
    for the few nodes a fusion boost asks about. A blob written before `starts` and `order` existed
    is read the old way.
    """

    nodes: Sequence[str]
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    dangling: np.ndarray
    scores: np.ndarray
    order: np.ndarray | None = None

    @classmethod
    def of(cls, rank: Rank) -> StoredRank:
        if isinstance(rank.transposed, tuple):
            data, indices, indptr = rank.transposed
        else:
            data, indices, indptr = rank.transposed.data, rank.transposed.indices, rank.transposed.indptr
        return cls(list(rank.nodes), np.asarray(data), np.asarray(indices), np.asarray(indptr), rank.dangling,
                   rank.scores)

    def arrays(self) -> dict[str, np.ndarray]:
        """The ranking as the named arrays `from_arrays` reads (what `encode` and a mapped file hold)."""
        encoded = [node.encode("utf-8") for node in self.nodes]
        starts = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(name) + 1 for name in encoded], out=starts[1:])
        order = np.array(sorted(range(len(encoded)), key=encoded.__getitem__), dtype=np.int32)
        names = np.frombuffer(b"\n".join(encoded), dtype=np.uint8)
        return {"nodes": names, "starts": starts, "order": order, "data": self.data, "indices": self.indices,
                "indptr": self.indptr, "dangling": self.dangling, "scores": self.scores}

    def encode(self) -> bytes:
        buffer = io.BytesIO()
        arrays = self.arrays()
        np.savez(buffer, nodes=arrays["nodes"], starts=arrays["starts"], order=arrays["order"], data=arrays["data"],
                 indices=arrays["indices"], indptr=arrays["indptr"], dangling=arrays["dangling"],
                 scores=arrays["scores"])
        return buffer.getvalue()

    @classmethod
    def decode(cls, blob: bytes) -> StoredRank:
        try:
            with np.load(io.BytesIO(blob), allow_pickle=False) as arrays:
                parts = {name: arrays[name] for name in arrays.files}
        except (OSError, ValueError, KeyError, EOFError, UnicodeError, zipfile.BadZipFile) as error:
            raise DamagedRank(f"stored centrality does not decode: {type(error).__name__}: {error}") from None
        return cls.from_arrays(parts)

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> StoredRank:
        """The ranking `arrays` (or `encode`) wrote, read in place (node ids are not split into strings);
        raises DamagedRank when an array is missing or they do not fit together."""
        try:
            parts = {name: arrays[name] for name in ("nodes", "data", "indices", "indptr", "dangling", "scores")}
            lazy = "starts" in arrays and "order" in arrays
            starts, order = (arrays["starts"], arrays["order"]) if lazy else (None, None)
            text = parts.pop("nodes")
            nodes: Sequence[str] = (StoredStrings(text, starts, gap=1, what="stored node ids") if starts is not None
                                    else _split(text.tobytes().decode("utf-8")))
        except (ValueError, KeyError, UnicodeError) as error:
            raise DamagedRank(f"stored centrality does not decode: {type(error).__name__}: {error}") from None
        size = len(nodes)
        indptr, indices = parts["indptr"], parts["indices"]
        if not (parts["scores"].shape == parts["dangling"].shape == (size,) and indptr.shape == (size + 1,)
                and parts["data"].shape == indices.shape and (not indices.size or int(indices.max()) < size)
                and (not indptr.size or int(indptr[-1]) == indices.size)
                and (order is None or _is_permutation(order, size))):
            raise DamagedRank("stored centrality arrays do not fit together")
        return cls(nodes, parts["data"], indices, indptr, parts["dangling"].astype(bool), parts["scores"], order)

    def rank(self) -> Rank:
        index: Mapping[str, int] = (_NameIndex(self.nodes, self.order) if self.order is not None
                                    else {node: i for i, node in enumerate(self.nodes)})
        return Rank(self.nodes, index, (self.data, self.indices, self.indptr), self.dangling, self.scores)


def _is_permutation(order: np.ndarray, size: int) -> bool:
    if order.dtype != np.int32 or order.shape != (size,):
        return False
    if not size:
        return True
    return int(order.min()) >= 0 and int(order.max()) < size and bool((np.bincount(order, minlength=size) == 1).all())


def _split(text: str) -> list[str]:
    return text.split("\n") if text else []


class _NameIndex(Mapping[str, int]):
    """Node id -> position, found by bisecting the stored sorted order instead of building a dict."""

    def __init__(self, names: Sequence[str], order: np.ndarray) -> None:
        self._names = names
        self._sorted = Picked(order, names.raw) if isinstance(names, StoredStrings) else None
        self._order = order

    def __getitem__(self, node: str) -> int:
        if self._sorted is None or not isinstance(node, str):
            raise KeyError(node)
        key = node.encode("utf-8", "surrogatepass")
        at = bisect.bisect_left(self._sorted, key)
        if at < len(self._sorted) and self._sorted[at] == key:
            return int(self._order[at])
        raise KeyError(node)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)
