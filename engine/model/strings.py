"""Stored strings read in place: one UTF-8 buffer and the offset where each string starts.

A restart maps what the indexer saved instead of rebuilding Python lists of it (the graph's node ids,
the symbol table's names, paths and docs); a string is decoded only when something reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, overload

import numpy as np

__all__ = ["Picked", "StoredStrings"]

T = TypeVar("T")


class StoredStrings(Sequence[str]):
    """String i is `data[starts[i] : starts[i + 1] - gap]`: `gap` bytes follow each (1 for newline-joined).

    Raises ValueError, saying `what` does not fit, when the offsets do not describe the buffer.
    """

    def __init__(self, data: np.ndarray, starts: np.ndarray, gap: int = 0, what: str = "stored strings") -> None:
        if not (data.dtype == np.uint8 and data.ndim == 1 and starts.dtype == np.int64 and starts.ndim == 1
                and starts.size >= 1 and int(starts[0]) == 0
                and int(starts[-1]) == data.size + (gap if starts.size > 1 else 0)
                and bool((starts[1:] - starts[:-1] >= max(gap, 0)).all())):
            raise ValueError(f"{what} do not fit their offsets")
        self._data = data.data  # read in place: a copy of the buffer is most of what opening it would cost
        self._starts = starts
        self._gap = gap

    def __len__(self) -> int:
        return self._starts.size - 1

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[at] for at in range(len(self))[index]]
        return str(self.raw(index), "utf-8", "surrogatepass")

    def raw(self, index: int) -> bytes:
        """String `index`'s UTF-8 bytes, undecoded (what a bisect over sorted UTF-8 compares)."""
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        index %= len(self)
        return bytes(self._data[self._starts[index] : self._starts[index + 1] - self._gap])


class Picked(Sequence[T]):
    """`read(ids[i])` for each saved id, in the ids' order, read only when asked: the strings of a pool
    in sorted order, which `bisect` and the fuzzy tier search without a list of them being built."""

    def __init__(self, ids: np.ndarray, read: Callable[[int], T]) -> None:
        self._ids = ids
        self._read = read

    def __len__(self) -> int:
        return self._ids.size

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...

    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        if isinstance(index, slice):
            return [self._read(at) for at in self._ids[index].tolist()]
        return self._read(int(self._ids[index]))
