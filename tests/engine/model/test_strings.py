"""Stored strings read in place: the graph's node ids (newline-joined) and the symbol table's pool."""

from __future__ import annotations

import numpy as np
import pytest

from fourfold.engine.model.strings import Picked, StoredStrings


def _buffer(texts: list[str], gap: int) -> tuple[np.ndarray, np.ndarray]:
    encoded = [text.encode("utf-8") + b"\n" * gap for text in texts]
    starts = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(data) for data in encoded], out=starts[1:])
    data = np.frombuffer(b"".join(encoded)[: max(0, int(starts[-1]) - (gap if texts else 0))], dtype=np.uint8)
    return data, starts


@pytest.mark.parametrize("gap", [0, 1])
def test_each_string_reads_back_as_written(gap: int) -> None:
    texts = ["file:a.py", "", "sym:a.py:Größe", "z"]
    strings = StoredStrings(*_buffer(texts, gap), gap=gap)
    assert list(strings) == texts and strings[-1] == "z" and strings[1:3] == texts[1:3]
    assert strings.raw(2) == "sym:a.py:Größe".encode()
    with pytest.raises(IndexError):
        strings[len(texts)]


def test_offsets_that_do_not_describe_the_buffer_are_refused() -> None:
    data, starts = _buffer(["ab", "cd"], 0)
    with pytest.raises(ValueError, match="names do not fit their offsets"):
        StoredStrings(data[:-1], starts, what="names")
    with pytest.raises(ValueError):
        StoredStrings(data, starts[::-1].copy())
    assert len(StoredStrings(*_buffer([], 1), gap=1)) == 0


def test_picked_reads_the_items_at_the_saved_ids_in_their_order() -> None:
    strings = StoredStrings(*_buffer(["b", "a", "c"], 0))
    order = np.array([1, 0, 2], dtype=np.int64)
    picked = Picked(order, strings.__getitem__)
    assert list(picked) == ["a", "b", "c"] and picked[1:] == ["b", "c"] and picked[-1] == "c"
    assert Picked(order, strings.raw)[0] == b"a"
    assert len(Picked(order[:0], strings.raw)) == 0
