"""The trigram postings of a first index, built with memory that does not grow with a sort.

`TrigramIndex.build` sorts one 8-byte key per posting and reads two 4-byte halves out of the sorted
keys: 16 bytes per posting at once beside the trigram sets themselves, 340 MB at 4x Django (20M
postings) and 1.3 GB at 16x, which a cold index of a large repository cannot afford at any scale.
A trigram is a 24-bit code, so the postings can instead be placed by counting: one pass counts each
code's documents in a table indexed by code (4 bytes per possible code, 64 MiB, whatever the size
of the repository), the table's running sums give each code's first position, and a second pass,
over the documents in increasing id order, writes each id at its codes' next free positions. The
result is the CSR that the sort gives, array for array (ids ascending within a code because the
documents are visited in that order), beside only the 4-byte ids written and the table.

The sort is kept where it needs less: below 4M postings (`_table_pays`) its 16 bytes a posting are
less than the table, so a small repository never pays 64 MiB for a table.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .trigram import TrigramIndex

__all__ = ["first_postings"]

# Trigram codes are the low 24 bits of a uint32 (`trigram.file_trigrams`): the counting table's size.
GRAM_SPACE = 1 << 24
# What `TrigramIndex.build` holds per posting while it sorts: the uint64 key and the two uint32 halves.
SORT_BYTES_PER_POSTING = 16


def _table_pays(postings: int, position_bytes: int) -> bool:
    return postings * SORT_BYTES_PER_POSTING > GRAM_SPACE * position_bytes


def first_postings(docs: Mapping[int, np.ndarray]) -> TrigramIndex:
    """The index `TrigramIndex.build(docs)` gives (doc id -> its sorted set of unique trigram codes),
    placed by counting when that needs less memory than the build's sort (see the module)."""
    sets = list(docs.values())
    total = sum(grams.size for grams in sets)
    # Positions fit in int32 below 2**31 postings (a 16x Django has 80M); past that, int64.
    kind = np.int32 if total < np.iinfo(np.int32).max else np.int64
    if not _table_pays(total, np.dtype(kind).itemsize):
        return TrigramIndex.build(docs)
    ids = np.fromiter(docs.keys(), dtype=np.int64, count=len(sets))
    table = np.zeros(GRAM_SPACE, dtype=kind)
    for grams in sets:
        table[grams] += 1  # each set's codes are unique: one increment each
    present = np.flatnonzero(table)
    offsets = np.zeros(present.size + 1, dtype=np.int64)
    np.cumsum(table[present], out=offsets[1:])
    table[present] = offsets[:-1]  # from counts to each code's next free position
    placed = np.empty(total, dtype=np.uint32)
    for at in np.argsort(ids, kind="stable").tolist():
        grams = sets[at]
        positions = table[grams]
        placed[positions] = ids[at]
        table[grams] = positions + 1
    del table
    return TrigramIndex.from_arrays({"grams": present.astype(np.uint32), "offsets": offsets, "docs": placed,
                                     "doc_set": np.unique(ids)})
