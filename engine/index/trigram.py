"""Case-folded trigram postings: which files could contain a literal.

A user who types `connection refused` or `/retry\\(.*\\)/` expects an answer in milliseconds on a
large repository. Scanning every file would cost a second or more, so the text retriever first
asks this index for the *candidate* files that contain every trigram of the query's literals; a
real matcher then confirms (or rejects) each candidate. A candidate list may contain false
positives, never false negatives.

Trigrams are taken over the UTF-8 bytes of the case-folded text, so one index serves both
case-sensitive and case-insensitive queries. A trigram is packed into the low 24 bits of a uint32.

The index is immutable: `with_doc` / `without_doc` return a new index that shares the big base
arrays and only records the change in a small overlay (changed documents) plus tombstones
(documents removed from the base). When the overlay grows past a fraction of the base, the next
change compacts everything into a fresh base, so a long editing session never degrades lookups.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

# Compaction policy: fold the overlay into the base once it holds more than this many documents
# *and* more than this fraction of the base (small repositories compact rarely, big ones at ~5%).
COMPACT_MIN_DOCS = 64
COMPACT_FRACTION = 0.05
# zlib level for packed trigram sets: 6 is zlib's default trade-off; higher levels gain <3% here.
PACK_LEVEL = 6

_EMPTY_GRAMS = np.zeros(0, dtype=np.uint32)
_EMPTY_DOCS = np.zeros(0, dtype=np.int64)


def file_trigrams(text: str) -> np.ndarray:
    """The sorted unique trigram codes of the case-folded UTF-8 bytes of `text`."""
    data = np.frombuffer(text.casefold().encode("utf-8"), dtype=np.uint8)
    if data.size < 3:
        return _EMPTY_GRAMS
    codes = data[:-2].astype(np.uint32)
    codes <<= 8
    codes |= data[1:-1]
    codes <<= 8
    codes |= data[2:]
    codes.sort()
    return codes[np.r_[True, codes[1:] != codes[:-1]]]


def pack(grams: np.ndarray) -> bytes:
    """Compact bytes for a sorted trigram set: deltas, byte-shuffled (high bytes are mostly 0), zlib."""
    grams = np.asarray(grams, dtype=np.uint32)
    deltas = np.diff(grams, prepend=np.uint32(0)).astype("<u4")
    shuffled = deltas.view(np.uint8).reshape(-1, 4).T.tobytes()
    return zlib.compress(shuffled, PACK_LEVEL)


class DamagedTrigrams(ValueError):
    """A stored trigram set that does not decode to what `pack` wrote (the file is re-indexed)."""


def unpack(blob: bytes) -> np.ndarray:
    """The trigram set stored by `pack`; a damaged blob raises DamagedTrigrams, never a wrong set.

    zlib's checksum catches garbled bytes; the checks after it catch a blob that decompresses but
    cannot be a set `pack` wrote (a wrong length, codes out of order or beyond 24 bits), which would
    otherwise hide files from every literal search.
    """
    try:
        raw = np.frombuffer(zlib.decompress(blob), dtype=np.uint8)
    except (zlib.error, TypeError) as error:
        raise DamagedTrigrams(f"trigram blob does not decompress: {error}") from None
    if raw.size % 4:
        raise DamagedTrigrams(f"trigram blob holds {raw.size} bytes, not a multiple of 4")
    deltas = raw.reshape(4, -1).T.copy().view("<u4").reshape(-1)
    grams = np.cumsum(deltas, dtype=np.uint64)
    if grams.size and (grams[-1] >= 1 << 24 or (grams.size > 1 and not (deltas[1:] > 0).all())):
        raise DamagedTrigrams("trigram blob is not a sorted set of 24-bit codes")
    return grams.astype(np.uint32)


@dataclass(frozen=True)
class _Postings:
    """CSR postings: docs containing grams[i] are docs[offsets[i]:offsets[i + 1]], sorted."""

    grams: np.ndarray
    offsets: np.ndarray
    docs: np.ndarray
    doc_set: np.ndarray


def _postings_from_keys(keys: np.ndarray, doc_set: np.ndarray) -> _Postings:
    """CSR postings from (gram << 32 | doc) keys, sorted in place: one vectorised sort instead of a dict
    of lists. The keys are the only array as long as every posting that exists at once besides the
    two halves read out of them (grams and doc ids, 4 bytes each): building from the concatenated
    (gram, doc) columns first had held 28 bytes per posting, a third of a cold index's peak on Django."""
    keys.sort()
    halves = keys.view("<u4").reshape(-1, 2)  # little-endian keys: column 0 the doc id, column 1 the gram
    sorted_grams = halves[:, 1].copy()
    sorted_docs = halves[:, 0].copy()
    del halves
    starts = np.flatnonzero(np.r_[True, sorted_grams[1:] != sorted_grams[:-1]]) if keys.size else _EMPTY_DOCS
    offsets = np.append(starts, keys.size).astype(np.int64)
    return _Postings(sorted_grams[starts], offsets, sorted_docs, doc_set)


def _keys(size: int) -> np.ndarray:
    return np.empty(size, dtype="<u8")


def _fill_keys(keys: np.ndarray, at: int, grams: np.ndarray, docs: np.ndarray | int) -> int:
    """Write the keys of (grams[i], docs[i]) (or of one doc id) into keys[at:]; returns where they end."""
    end = at + grams.size
    part = keys[at:end]
    part[:] = grams
    part <<= np.uint64(32)
    part |= np.asarray(docs).astype("<u8", copy=False)
    return end


def _overlay_keys(keys: np.ndarray, at: int, docs: Mapping[int, np.ndarray]) -> int:
    for doc, grams in docs.items():
        at = _fill_keys(keys, at, np.asarray(grams, dtype=np.uint32), doc)
    return at


def _has_all(doc_grams: np.ndarray, wanted: np.ndarray) -> bool:
    at = np.searchsorted(doc_grams, wanted)
    inside = at < doc_grams.size
    return bool(inside.all() and (doc_grams[at[inside]] == wanted).all())


@dataclass(frozen=True)
class TrigramIndex:
    """Immutable trigram postings over integer doc ids, with cheap copy-on-write updates."""

    base: _Postings
    overlay: Mapping[int, np.ndarray] = field(default_factory=dict)
    tombstones: frozenset[int] = frozenset()

    @classmethod
    def build(cls, docs: Mapping[int, np.ndarray]) -> TrigramIndex:
        """An index over `docs` (doc id -> sorted unique trigram codes, as `file_trigrams` returns)."""
        doc_set = np.unique(np.fromiter(docs.keys(), dtype=np.int64, count=len(docs)))
        keys = _keys(sum(np.asarray(grams).size for grams in docs.values()))
        _overlay_keys(keys, 0, docs)
        return cls(_postings_from_keys(keys, doc_set))

    def arrays(self) -> dict[str, np.ndarray]:
        """The postings as four flat arrays (compacted first), for a restart to open without building them.

        Doc ids are kept as uint32: half the bytes of int64, and the index searches them as they are.
        """
        base = (self if not self.overlay and not self.tombstones else self.compacted()).base
        return {"grams": base.grams, "offsets": base.offsets, "docs": base.docs.astype("<u4", copy=False),
                "doc_set": base.doc_set}

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> TrigramIndex:
        """The index `arrays` described; raises DamagedTrigrams when the arrays do not fit together."""
        grams, offsets, docs, doc_set = (arrays[name] for name in ("grams", "offsets", "docs", "doc_set"))
        if not (grams.dtype == np.uint32 and offsets.dtype == np.int64 and docs.dtype == np.uint32
                and doc_set.dtype == np.int64 and offsets.shape == (grams.size + 1,)
                and int(offsets[0]) == 0 and int(offsets[-1]) == docs.size
                and bool((offsets[1:] > offsets[:-1]).all()) and bool((grams[1:] > grams[:-1]).all())):
            raise DamagedTrigrams("stored postings do not fit together")
        # The doc ids stay uint32: widening Django's 5M postings to int64 was 0.1 s of every restart, and
        # what a search returns is int64 either way (`candidates` unions them with int64 arrays).
        return cls(_Postings(grams, offsets, docs, doc_set))

    def with_doc(self, doc_id: int, grams: np.ndarray) -> TrigramIndex:
        """A new index where `doc_id` has exactly `grams` (added or replaced)."""
        overlay = dict(self.overlay)
        overlay[doc_id] = np.asarray(grams, dtype=np.uint32)
        return TrigramIndex(self.base, overlay, self._tomb(doc_id))._maybe_compacted()

    def replaced(self, removed: Iterable[int], added: Mapping[int, np.ndarray]) -> TrigramIndex:
        """A compacted index without the `removed` docs and with `added` (new, or replacing a doc's set).

        One sort over every posting: a bulk change costs what a build does, without unpacking the
        sets of the documents that did not change.
        """
        if not self.base.doc_set.size and not self.overlay:
            return TrigramIndex.build(added)
        dropped = set(removed) | set(added)
        overlay = {doc: grams for doc, grams in self.overlay.items() if doc not in dropped}
        overlay.update({doc: np.asarray(grams, dtype=np.uint32) for doc, grams in added.items()})
        candidates = np.fromiter(dropped, dtype=np.int64, count=len(dropped))
        in_base = candidates[np.isin(candidates, self.base.doc_set)]
        return TrigramIndex(self.base, overlay, self.tombstones | frozenset(in_base.tolist())).compacted()

    def without_doc(self, doc_id: int) -> TrigramIndex:
        """A new index where `doc_id` no longer exists."""
        overlay = {doc: grams for doc, grams in self.overlay.items() if doc != doc_id}
        return TrigramIndex(self.base, overlay, self._tomb(doc_id))._maybe_compacted()

    def doc_ids(self) -> np.ndarray:
        """Every live doc id, sorted."""
        live = self._live_base(self.base.doc_set)
        extra = np.fromiter(self.overlay.keys(), dtype=np.int64, count=len(self.overlay))
        return np.union1d(live, extra)

    def candidates(self, grams: np.ndarray | Sequence[int]) -> np.ndarray:
        """Docs containing every trigram in `grams` (all docs when `grams` is empty), sorted."""
        wanted = np.unique(np.asarray(grams, dtype=np.uint32))
        if wanted.size == 0:
            return self.doc_ids()
        base_hits = self._live_base(self._intersect(wanted))
        overlay_hits = [doc for doc, doc_grams in self.overlay.items() if _has_all(doc_grams, wanted)]
        return np.union1d(base_hits, np.asarray(overlay_hits, dtype=np.int64))

    def candidates_for_plan(self, plan: Iterable[Iterable[str]] | None) -> np.ndarray:
        """Docs that may satisfy a plan: an OR of ANDs of literals (None: every doc)."""
        if plan is None:
            return self.doc_ids()
        found = _EMPTY_DOCS
        for clause in plan:
            grams = [file_trigrams(literal) for literal in clause]
            wanted = np.unique(np.concatenate(grams)) if grams else _EMPTY_GRAMS
            found = np.union1d(found, self.candidates(wanted))
        return found

    def _intersect(self, wanted: np.ndarray) -> np.ndarray:
        # One vectorised lookup for every trigram, then rarest first: the running intersection only
        # shrinks, so each later list is probed by binary search for the few survivors instead of
        # being merged (and sorted) whole, and an absent trigram ends the search at once.
        base = self.base
        at = np.searchsorted(base.grams, wanted)
        if at.size == 0 or at[-1] >= base.grams.size or not (base.grams[at] == wanted).all():
            return _EMPTY_DOCS
        starts, ends = base.offsets[at], base.offsets[at + 1]
        order = np.argsort(ends - starts, kind="stable")
        result = base.docs[starts[order[0]] : ends[order[0]]]
        for index in order[1:]:
            postings = base.docs[starts[index] : ends[index]]
            found = np.minimum(np.searchsorted(postings, result), postings.size - 1)
            result = result[postings[found] == result]
            if result.size == 0:
                break
        return result

    def _live_base(self, docs: np.ndarray) -> np.ndarray:
        if not self.tombstones:
            return docs
        dead = np.fromiter(self.tombstones, dtype=np.int64, count=len(self.tombstones))
        return docs[~np.isin(docs, dead)]

    def _tomb(self, doc_id: int) -> frozenset[int]:
        if doc_id in self.tombstones or not np.isin(doc_id, self.base.doc_set).item():
            return self.tombstones
        return self.tombstones | {doc_id}

    def _maybe_compacted(self) -> TrigramIndex:
        pending = len(self.overlay) + len(self.tombstones)
        if pending <= max(COMPACT_MIN_DOCS, COMPACT_FRACTION * self.base.doc_set.size):
            return self
        return self.compacted()

    def compacted(self) -> TrigramIndex:
        """The same contents folded into a fresh base with no overlay."""
        base = self.base
        docs = base.docs
        keep = None
        if self.tombstones:
            dead = np.fromiter(self.tombstones, dtype=np.int64, count=len(self.tombstones))
            keep = ~np.isin(docs, dead)
        kept = docs.size if keep is None else int(np.count_nonzero(keep))
        keys = _keys(kept + sum(grams.size for grams in self.overlay.values()))
        grams = np.repeat(base.grams, np.diff(base.offsets))
        at = _fill_keys(keys, 0, grams if keep is None else grams[keep], docs if keep is None else docs[keep])
        del grams
        _overlay_keys(keys, at, self.overlay)
        return TrigramIndex(_postings_from_keys(keys, self.doc_ids()))
