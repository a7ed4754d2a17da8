"""A first index's postings placed by counting are the sorted build's, array for array."""

from __future__ import annotations

import numpy as np
import pytest

from fourfold.engine.index import postings
from fourfold.engine.index.postings import first_postings
from fourfold.engine.index.trigram import TrigramIndex, file_trigrams


def _sets(count: int, seed: int) -> dict[int, np.ndarray]:
    rng = np.random.default_rng(seed)
    ids = rng.permutation(np.arange(1, 3 * count))[:count]  # ids in no order, with gaps
    docs = {}
    for doc in ids.tolist():
        size = int(rng.integers(0, 400))
        docs[doc] = np.unique(rng.integers(0, 1 << 24, size=size).astype(np.uint32))
    docs[int(ids.max()) + 1] = np.zeros(0, dtype=np.uint32)  # a file too short for a trigram
    return docs


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_counted_postings_equal_the_sorted_build(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _sets(300, seed)
    docs[10_000] = file_trigrams("def handler(value):\n    return value + 1\n")
    docs[10_001] = file_trigrams("def handler(other):\n    return other - 1\n")  # shares codes with 10_000
    monkeypatch.setattr(postings, "SORT_BYTES_PER_POSTING", 1 << 40)  # the table pays at any size
    counted, built = first_postings(docs), TrigramIndex.build(docs)
    assert counted.arrays().keys() == built.arrays().keys()
    for name, array in built.arrays().items():
        mine = counted.arrays()[name]
        assert mine.dtype == array.dtype and np.array_equal(mine, array), name
    literal = file_trigrams("return value")
    assert counted.candidates(literal).tolist() == built.candidates(literal).tolist() == [10_000]


def test_a_small_index_is_sorted_as_before() -> None:
    docs = _sets(50, 3)
    small = first_postings(docs)  # far below the table's 64 MiB: the sort is used
    for name, array in TrigramIndex.build(docs).arrays().items():
        assert np.array_equal(small.arrays()[name], array), name
