"""The semantic retriever's index: binary codes for a fast first pass, float vectors for the final order.

A user asking "how does retry work" expects an answer while typing; comparing a float query against
every chunk of a large repository is too slow for that. So each chunk is stored twice: its sign bits,
packed into 64-bit words, and its float16 vector. A search ranks every live row by Hamming distance of
sign bits (a popcount over a few words per row), keeps the best `candidates`, and reorders only those by
the exact dot product. Indexes are immutable snapshots: `with_vectors` and `without` return new objects
that share unchanged segments, so a search never sees a half-applied update and a one-file change costs
a small append plus a tombstone, not a rebuild.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..model.profiles import VECTOR_CANDIDATES

__all__ = ["VectorIndex"]

# Rows kept after the Hamming pass for float rescoring (profiles.VECTOR_CANDIDATES, with its reason).
# Compaction triggers: many small segments make search pay per-segment overhead; many tombstones waste
# popcounts on dead rows. Either bound is cheap to restore with one concatenation.
MAX_SEGMENTS = 16
MAX_DEAD_FRACTION = 0.25


@dataclass(frozen=True)
class _Segment:
    """An immutable block of rows appended together; shared by every snapshot that contains it."""

    keys: tuple[str, ...]
    words: np.ndarray
    vectors: np.ndarray


def _sign_words(vectors: np.ndarray) -> np.ndarray:
    """Pack the sign of every component into uint64 words (one row per vector) for popcount distance."""
    packed = np.packbits(vectors > 0, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed).view(np.uint64)


class VectorIndex:
    """An immutable set of (key, vector) rows searchable by binary candidates plus float rescoring.

    Rows are numbered in storage order; a row number is only meaningful for the snapshot that
    returned it (`key(row)` turns it back into the chunk digest).
    """

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self._segments: tuple[_Segment, ...] = ()
        self._offsets = np.zeros(1, dtype=np.int64)
        self._alive = np.zeros(0, dtype=bool)
        self._rows: dict[str, int] = {}

    @classmethod
    def build(cls, keys: Sequence[str], vectors: np.ndarray) -> VectorIndex:
        """An index of these rows; the width of `vectors` sets the dimensionality."""
        matrix = np.asarray(vectors, dtype=np.float32)
        return cls(int(matrix.shape[1]) if matrix.ndim == 2 else 0).with_vectors(keys, matrix)

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def __repr__(self) -> str:
        return f"VectorIndex(dims={self.dims}, rows={len(self)}, segments={len(self._segments)})"

    @property
    def segment_count(self) -> int:
        return len(self._segments)

    def keys(self) -> list[str]:
        """Live keys in row order."""
        return sorted(self._rows, key=self._rows.__getitem__)

    def key(self, row: int) -> str:
        """The key stored at `row` of this snapshot."""
        segment = int(np.searchsorted(self._offsets, row, side="right")) - 1
        return self._segments[segment].keys[row - int(self._offsets[segment])]

    def vector(self, key: str) -> np.ndarray | None:
        """The stored vector of `key` as float32 (for "similar to this chunk" queries), or None."""
        row = self._rows.get(key)
        if row is None:
            return None
        segment = int(np.searchsorted(self._offsets, row, side="right")) - 1
        return self._segments[segment].vectors[row - int(self._offsets[segment])].astype(np.float32)

    def with_vectors(self, keys: Sequence[str], vectors: np.ndarray) -> VectorIndex:
        """A new snapshot with these rows added; a key already present is replaced."""
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape != (len(keys), self.dims):
            raise ValueError(f"expected {len(keys)} vectors of {self.dims} dims, got shape {matrix.shape}")
        last = {key: position for position, key in enumerate(keys)}
        if not last:
            return self
        picks = np.fromiter(last.values(), dtype=np.int64, count=len(last))
        segment = _Segment(tuple(last), _sign_words(matrix[picks]), matrix[picks].astype(np.float16))
        alive = self._alive.copy()
        rows = dict(self._rows)
        for key in last:
            old = rows.pop(key, None)
            if old is not None:
                alive[old] = False
        start = int(self._offsets[-1])
        rows.update((key, start + position) for position, key in enumerate(segment.keys))
        alive = np.concatenate([alive, np.ones(len(segment.keys), dtype=bool)])
        offsets = np.append(self._offsets, start + len(segment.keys))
        return self._derive((*self._segments, segment), offsets, alive, rows)._maybe_compacted()

    def without(self, keys: Iterable[str]) -> VectorIndex:
        """A new snapshot with these keys removed (unknown keys are ignored)."""
        doomed = [key for key in keys if key in self._rows]
        if not doomed:
            return self
        alive = self._alive.copy()
        rows = dict(self._rows)
        for key in doomed:
            alive[rows.pop(key)] = False
        return self._derive(self._segments, self._offsets, alive, rows)._maybe_compacted()

    def compacted(self) -> VectorIndex:
        """The same live rows in one segment without tombstones."""
        live_keys: list[str] = []
        words: list[np.ndarray] = []
        vectors: list[np.ndarray] = []
        for index, segment in enumerate(self._segments):
            start, end = int(self._offsets[index]), int(self._offsets[index + 1])
            mask = self._alive[start:end]
            live_keys.extend(key for key, keep in zip(segment.keys, mask, strict=True) if keep)
            words.append(segment.words[mask])
            vectors.append(segment.vectors[mask])
        if not live_keys:
            return VectorIndex(self.dims)
        merged = _Segment(tuple(live_keys), np.concatenate(words), np.concatenate(vectors))
        rows = {key: position for position, key in enumerate(merged.keys)}
        offsets = np.array([0, len(merged.keys)], dtype=np.int64)
        return self._derive((merged,), offsets, np.ones(len(merged.keys), dtype=bool), rows)

    def search(
        self, query: np.ndarray, limit: int = 10, candidates: int = VECTOR_CANDIDATES
    ) -> list[tuple[int, float]]:
        """Top `limit` rows as (row, cosine score), best first.

        The Hamming pass keeps `max(candidates, limit)` rows; only those are scored exactly.
        """
        vector = np.asarray(query, dtype=np.float32).reshape(-1)
        if vector.shape[0] != self.dims:
            raise ValueError(f"query has {vector.shape[0]} dims, index has {self.dims}")
        if not self._rows or limit <= 0:
            return []
        shortlist = self._hamming_shortlist(vector, max(candidates, limit))
        scores = self._rescore(shortlist, vector)
        order = np.lexsort((shortlist, -scores))[:limit]
        return [(int(shortlist[i]), float(scores[i])) for i in order]

    def search_keys(
        self, query: np.ndarray, limit: int = 10, candidates: int = VECTOR_CANDIDATES
    ) -> list[tuple[str, float]]:
        """`search`, with each row turned into its key (chunk digest)."""
        return [(self.key(row), score) for row, score in self.search(query, limit, candidates)]

    def _hamming_shortlist(self, vector: np.ndarray, count: int) -> np.ndarray:
        """Live rows with the fewest differing sign bits, at most `count` of them, in row order."""
        query_words = _sign_words(vector[None, :])[0]
        distances = np.concatenate(
            [
                np.bitwise_count(np.bitwise_xor(segment.words, query_words)).sum(axis=1, dtype=np.int32)
                for segment in self._segments
            ]
        )
        distances[~self._alive] = np.iinfo(np.int32).max
        if count < len(self._rows):
            rows = np.argpartition(distances, count - 1)[:count]
        else:
            rows = np.flatnonzero(self._alive)
        return np.sort(rows[self._alive[rows]])

    def _rescore(self, rows: np.ndarray, vector: np.ndarray) -> np.ndarray:
        """Exact dot products of the shortlisted rows (sorted) against the float query."""
        segment_of = np.searchsorted(self._offsets, rows, side="right") - 1
        scores = np.empty(rows.shape[0], dtype=np.float32)
        for index in np.unique(segment_of):
            picked = segment_of == index
            local = rows[picked] - self._offsets[index]
            scores[picked] = self._segments[index].vectors[local].astype(np.float32) @ vector
        return scores

    def _derive(
        self,
        segments: tuple[_Segment, ...],
        offsets: np.ndarray,
        alive: np.ndarray,
        rows: dict[str, int],
    ) -> VectorIndex:
        snapshot = VectorIndex(self.dims)
        snapshot._segments = segments
        snapshot._offsets = offsets
        snapshot._alive = alive
        snapshot._rows = rows
        return snapshot

    def _maybe_compacted(self) -> VectorIndex:
        total = int(self._offsets[-1])
        dead = total - len(self._rows)
        if len(self._segments) > MAX_SEGMENTS or dead > MAX_DEAD_FRACTION * total:
            return self.compacted()
        return self
