"""The cycle collector paused while bulk builds allocate: one switch shared by every layer that builds."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["keep_long_lived", "paused_gc"]


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
