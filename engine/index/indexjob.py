"""What an indexing worker process runs per file, and what it sends back (`Indexed`).

A module of its own, below the service layer, so a spawned worker imports only what parsing needs
(tree-sitter, the index records, numpy): importing the whole workspace, with the graph, BM25 and the
search stack, cost each worker about 0.6 CPU-s before its first file.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..model.records import FileRecord, ParsedFile
from .discovery import UnreadableFile, read_file
from .store import StoredFile, decode_parsed, encode_parsed, pickle_parsed
from .trigram import file_trigrams, pack

__all__ = ["Indexed", "index_batch", "index_job", "index_or_reason", "index_text", "worker_started"]

log = logging.getLogger(__name__)
# Linux prctl option: the signal a process gets when its parent dies (<linux/prctl.h>).
PR_SET_PDEATHSIG = 1
# How often a pool worker checks that its parent is alive, where no parent-death signal exists.
PARENT_POLL_S = 1.0


@dataclass(frozen=True)
class Indexed:
    """One parsed file on its way from a worker to the index: its row, its text and its trigram set
    (sent unpacked, so the indexer does not decompress what the worker has just compressed).

    A worker's entry carries `pickled`, its records without their chunks, pickled once for its row; they
    cross to the indexer only in that row (`__reduce__`) and arrive `released` and `bare`: the records are
    not unpickled at all, they are in the encoded row (`stored.encoded`; the chunks counted in `chunks`),
    read back from it by `records` when an update needs them; a bulk build reads every row in passes
    that keep nothing of a file but what they build (`StoredParsed.unkept`). On 4x Django the records
    of every file, unpickled as they arrived and held until the bulk build, were ~500 MiB of a cold
    index's peak (issue 17); unpickling the chunks only to free them had left a third of the peak in
    half-empty arenas before. The indexer's copy does not keep the transfer bytes.
    """

    stored: StoredFile
    text: str
    grams: np.ndarray
    pickled: bytes = field(default=b"", repr=False, compare=False)
    # True when the records here have no chunks (`chunks` counts them, the encoded row holds them): as a
    # worker's entry arrives, and once the row is written (`written`).
    released: bool = False
    chunks: int = 0
    # True when `stored.parsed` is empty: the records are only in the encoded row (`records` reads them)
    bare: bool = False

    def written(self) -> Indexed:
        """The entry as the indexer keeps it once its row is in the store, until the bulk build: its
        trigram set and its encoded row (`chunks` counts the row's chunks), not its records, the text nor
        the packed trigrams (written, and the unpacked set is at hand). Held for every file of a first
        index, the texts were 44 MB on Django, the chunks 73 MB as records and the other records ~126 MiB
        against 19 MB for every encoded row: the bulk build reads the symbols, references and imports
        from the rows (`StoredParsed.unkept`), the snapshot decodes a file's chunks from its row when
        BM25 or a hit asks (`store.StoredParsed`), and a search reads a text from disk when it needs it."""
        stored = self.stored
        parsed = stored.parsed
        encoded = stored.encoded or encode_parsed(parsed)
        chunks = self.chunks if self.released else len(parsed.chunks)
        return Indexed(StoredFile(stored.record, b"", ParsedFile(), encoded), "", self.grams, released=True,
                       chunks=chunks, bare=True)

    def records(self) -> ParsedFile:
        """The file's records (without their chunks once released): as held, or read back from the row."""
        return decode_parsed(self.stored.encoded, chunks=False) if self.bare else self.stored.parsed

    @property
    def entry(self) -> ParsedFile | tuple[bytes, int]:
        """What a snapshot holds for the file (`StoredParsed.merged`): its records, or once released (its
        records here have no chunks) its encoded row and chunk count, decoded when asked."""
        return (self.stored.encoded, self.chunks) if self.released else self.stored.parsed

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        if not self.pickled:
            return Indexed, (self.stored, self.text, self.grams, b"", self.released, self.chunks, self.bare)
        stored = self.stored
        return _received, (stored.record, stored.trigrams, stored.encoded, self.chunks, self.text, self.grams)


def _received(record: FileRecord, trigrams: bytes, encoded: bytes, chunks: int, text: str,
              grams: np.ndarray) -> Indexed:
    """A worker's entry as the indexer unpickles it: released and bare, its records left in the row (see
    `Indexed`: the pickle of them that made the row is not sent)."""
    return Indexed(StoredFile(record, trigrams, ParsedFile(), encoded), text, grams, released=True, chunks=chunks,
                   bare=True)


def index_one(root: Path, path: str, max_file_size: int) -> Indexed:
    record, text = read_file(root, path, max_file_size)
    return index_text(record, text)


def index_or_reason(root: Path, path: str, max_file_size: int) -> Indexed | str:
    """One file's index entry, or why it was left out: a bad file costs that file only, never the index."""
    try:
        return index_one(root, path, max_file_size)
    except UnreadableFile as error:
        return error.reason
    except (UnicodeError, ValueError, RecursionError, MemoryError) as error:
        return f"could not be parsed: {type(error).__name__}: {error}"


def index_job(job: tuple[Path, str, int]) -> Indexed | str:
    """One file for a worker process: its index entry with the store row encoded and its records without
    their chunks pickled as its first part (set on the entry: it crosses to the indexer bare, `Indexed`),
    or why it was skipped."""
    item = index_or_reason(*job)
    if isinstance(item, str):
        return item
    parsed = item.stored.parsed
    pickled = pickle_parsed(replace(parsed, chunks=()))  # once, as the row's first part
    return replace(item, stored=item.stored.with_encoding(pickled), pickled=pickled, chunks=len(parsed.chunks))


def index_batch(job: Callable[[tuple[Path, str, int]], Indexed | str],
                jobs: Sequence[tuple[Path, str, int]], texts: bool = True) -> list[Indexed | str]:
    """Several files for one trip to a worker (`job` is `index_job` or a stand-in, sent by name):
    one task per batch amortises the pickling round trip, as `Executor.map`'s chunks did. Without
    `texts` the entries come back without their texts (an indexer that keeps none need not receive them)."""
    done = [job(item) for item in jobs]
    return done if texts else [item if isinstance(item, str) else replace(item, text="") for item in done]


def worker_started(parent: int, signalled: bool = True) -> None:
    """Pool initializer: a worker dies with the indexer that spawned it, even when that one is killed -9.

    On Linux the kernel sends SIGKILL on the parent's death (prctl PR_SET_PDEATHSIG); elsewhere, and as
    a second line, a daemon thread exits once the parent pid is gone (the worker is re-parented).
    `signalled` False: the thread only, for a process whose spawning thread may end before it does (the
    kernel's signal follows the thread that spawned the process, not its process).
    """
    if signalled and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            log.debug("prctl is unavailable; the parent watchdog alone guards this worker")
    if os.getppid() != parent:
        os._exit(1)  # the parent died before the signal was armed
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="parent-watch").start()


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != parent:
            os._exit(1)


def warm_parsing(languages: Iterable[str]) -> None:
    """Import the parsing module and ready `languages`' grammars and queries now (`structure.warm`), so
    the next `index_text` of those languages pays only for its own file."""
    from .structure import warm

    warm(languages)


def index_text(record: FileRecord, text: str) -> Indexed:
    # Imported on first use: a restart that parses nothing (and answers from the stored index) never
    # pays for the parsing module's start-up; a worker pays it with its first file, as before.
    from .structure import parse_file

    parsed = parse_file(record.path, text, record.language)
    grams = file_trigrams(text)
    return Indexed(StoredFile(record, pack(grams), parsed), text, grams)
