"""The cycle collector paused while bulk builds allocate: one switch shared by every layer that builds."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

__all__ = ["IdentityCache", "keep_long_lived", "paused_gc", "return_freed"]

K = TypeVar("K")
V = TypeVar("V")


class _GcPause:
    """How many bulk builds are running, in any thread; the collector is off while there is one.

    A count, not a flag: builds nest (loading a snapshot builds a graph) and may overlap in several
    threads, and the first to finish must not switch the collector back on under another.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.restore = False


_GC_PAUSE = _GcPause()


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cycle collector while a bulk build or load allocates hundreds of thousands of objects.

    None of them form cycles, yet the collector would walk them all repeatedly: about a quarter of
    a Django-sized graph build, and over half of decoding its stored rows.
    """
    with _GC_PAUSE.lock:
        if _GC_PAUSE.depth == 0:
            _GC_PAUSE.restore = gc.isenabled()
            gc.disable()
        _GC_PAUSE.depth += 1
    try:
        yield
    finally:
        with _GC_PAUSE.lock:
            _GC_PAUSE.depth -= 1
            if _GC_PAUSE.depth == 0 and _GC_PAUSE.restore:
                gc.enable()


def keep_long_lived() -> None:
    """Move every object alive now out of the cycle collector's sight, for good (`gc.freeze`).

    Called once a stored index is open: its records live as long as the snapshot, and without this
    the first collections after the load walk them all again, generation by generation (0.2 s after
    opening Django's saved indexes, 1-2 s after decoding all its rows: a collection that showed up
    inside whatever allocated next). Records that are replaced later are still freed by reference
    counting; only a cycle among objects alive now would never be collected.
    """
    gc.freeze()


def _malloc_trim() -> object:
    """glibc's `malloc_trim`, or None where there is none (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None).malloc_trim
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _malloc_trim()


def return_freed() -> None:
    """Give the pages of memory freed so far back to the system, between the phases of a bulk build.

    The C heap keeps what it freed for the next allocation, and the next phase does not take it: a
    cold index frees a trigram set per file (small arrays of the C heap) before building the graph,
    whose records come from Python's own arenas; without this, Django 4x's peak held the freed sets
    too. glibc's `malloc_trim` hands back every whole free page (a few ms); elsewhere this does nothing.
    """
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)  # type: ignore[operator]


class IdentityCache(Generic[K, V]):
    """Values computed from an object, kept while the object lives and at most `size` of them (oldest
    dropped first), looked up by identity.

    An entry holds its object weakly: a cache that held it (as the identity caches here once did, so
    its id could not be reused) kept every decoded row a search had touched alive after its workspace
    closed, about 150 MB per astropy release of a localisation run. A weak reference cannot outlive
    its object's id, and its callback drops the entry when the object goes.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: dict[int, tuple[weakref.ref[K], V]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        entry = self._entries.get(id(key))
        if entry is not None and entry[0]() is key:
            return entry[1]
        return None

    def put(self, key: K, value: V) -> None:
        ident, entries = id(key), self._entries

        def drop(ref: weakref.ref[K]) -> None:  # runs as the object is freed, maybe inside `put`: no lock
            entry = entries.get(ident)
            if entry is not None and entry[0] is ref:
                entries.pop(ident, None)

        with self._lock:
            if ident not in entries and len(entries) >= self.size:
                entries.pop(next(iter(entries)), None)
            entries[ident] = (weakref.ref(key, drop), value)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
