"""An immutable view of one workspace's index, which every search reads from start to finish.

Writers (the indexer) build a new snapshot per applied change and swap it in; readers keep the one
they started with, so a search never sees a half-applied update. Structures are shared between
consecutive snapshots (copy-on-write), which keeps a one-file update cheap.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate
from pathlib import Path
from typing import overload

from ..graph.graph import CodeGraph
from ..model.records import Chunk, FileRecord, ParsedFile, Symbol
from .discovery import UnreadableFile, read_file
from .store import StoredParsed, unkept
from .store import fingerprint as rows_fingerprint
from .symbols import SymbolTable
from .textpositions import TextPositions
from .textsearch import SearchText
from .trigram import TrigramIndex


class ContentCache:
    """File texts by path and digest, shared by snapshots; a stale entry is never served.

    Next to each text it keeps the bytes the text matcher scans (`SearchText`), made on first use,
    so a literal search over thousands of candidate files never re-encodes them.

    What it holds is bounded by `budget`, counted in characters of text plus bytes of scan data: past
    it the oldest paths are dropped (first in, first out: no bookkeeping on the hot read path). A
    dropped text is read from disk again when a hit needs it (`Snapshot.text`, digest-checked), so the
    bound costs reads, never answers. Without it the cache grew with the repository.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.held = 0  # characters and scan bytes held, never above `budget`
        self._texts: dict[str, tuple[str, str]] = {}
        self._searchable: dict[str, tuple[str, SearchText]] = {}
        self._sizes: dict[str, int] = {}  # path -> what its text and scan bytes count
        self._lock = threading.Lock()

    def put(self, path: str, digest: str, text: str) -> None:
        with self._lock:
            self._forget(path)
            if self._make_room(len(text)):
                self._texts[path] = (digest, text)
                self._sizes[path] = len(text)
                self.held += len(text)

    def get(self, path: str, digest: str) -> str | None:
        entry = self._texts.get(path)
        return entry[1] if entry and entry[0] == digest else None

    def searchable(self, path: str, digest: str) -> SearchText | None:
        """The scan-ready bytes of the cached text of `path` at `digest`, or None when that text is not cached."""
        entry = self._searchable.get(path)
        if entry is not None and entry[0] == digest:
            return entry[1]
        text = self.get(path, digest)
        if text is None:
            return None
        made = SearchText(text)
        with self._lock:
            if self.get(path, digest) is not None and path not in self._searchable:
                size = self._sizes.pop(path)  # this path is not a candidate for the room made for it
                if self._make_room(len(made.data)):
                    self._searchable[path] = (digest, made)
                    size += len(made.data)
                    self.held += len(made.data)
                self._sizes[path] = size
        return made

    def drop(self, path: str) -> None:
        with self._lock:
            self._forget(path)

    def _forget(self, path: str) -> None:
        self._texts.pop(path, None)
        self._searchable.pop(path, None)
        self.held -= self._sizes.pop(path, 0)

    def _make_room(self, size: int) -> bool:
        """Drop the oldest paths until `size` more fits in the budget (callers hold the lock); False
        when it cannot fit at all, and then nothing is dropped."""
        if size > self.budget:
            return False
        while self.held + size > self.budget and self._sizes:
            self._forget(next(iter(self._sizes)))
        return True


@dataclass(frozen=True)
class Snapshot:
    """Files, postings, symbols and graph of one root, as of one generation."""

    root: Path
    generation: int
    files: Mapping[str, FileRecord]
    parsed: Mapping[str, ParsedFile]
    doc_ids: Mapping[str, int]
    paths_by_id: Mapping[int, str]
    trigrams: TrigramIndex
    symbols: SymbolTable
    graph: CodeGraph
    buffers: Mapping[str, str]
    contents: ContentCache
    max_file_size: int
    skipped: Mapping[str, str] = field(default_factory=dict)
    # The positional index of the files as last saved (`textpositions`): it serves a file only while the
    # file's digest is the one it stored, so it is carried over edits unchanged; None until one is built.
    positions: TextPositions | None = None

    @cached_property
    def as_stored(self) -> frozenset[str]:
        """The files the positional index holds as the user sees them now (no buffer, the same digest):
        the ones it serves. Worked out once per snapshot, as an edit makes a new one."""
        positions = self.positions
        if positions is None:
            return frozenset()
        files, digests = self.files, positions.digests
        return frozenset(path for path, number in positions.numbers.items()
                         if path not in self.buffers and (record := files.get(path)) is not None
                         and record.digest == digests[number])

    def text(self, path: str, keep: bool = True) -> str | None:
        """The text as the user sees it: the unsaved buffer if any, else the indexed file's content (read
        from disk when not cached, and cached then unless `keep` is False: a pass over every file)."""
        if path in self.buffers:
            return self.buffers[path]
        record = self.files.get(path)
        if record is None:
            return None
        cached = self.contents.get(path, record.digest)
        if cached is not None:
            return cached
        try:
            fresh, text = read_file(self.root, path, self.max_file_size)
        except UnreadableFile:
            return None
        if fresh.digest != record.digest:
            return None  # changed on disk since indexed; the next refresh re-indexes it
        if keep:
            self.contents.put(path, fresh.digest, text)
        return text

    def line(self, path: str, line: int) -> str:
        """One line of what the user sees in `path`, without its line break, as tree-sitter counts lines (a form
        feed or U+2028 is no line break). An indexed file's is read from its cached scan-ready bytes by their
        newline offsets: splitting the whole text for every result's line had been a twelfth of a
        `workspace/symbol` answer's time on Django, over a language server."""
        text = self.text(path) or ""
        record = self.files.get(path)
        if path not in self.buffers and record is not None:
            searchable = self.contents.searchable(path, record.digest)
            if searchable is not None:
                return searchable.line(line).rstrip("\r")
        lines = text.split("\n")
        return lines[line].rstrip("\r") if 0 <= line < len(lines) else ""

    def symbol(self, path: str, qualified: str | None) -> Symbol | None:
        """`path`'s first symbol of that qualified name, from the symbol table (no row decoded)."""
        return None if qualified is None else self.symbols.symbol(path, qualified)

    @cached_property
    def chunk_counts(self) -> Mapping[str, int]:
        """Each file's number of chunks: kept with the saved indexes for rows a restart left encoded
        (`StoredParsed.chunk_counts`), so neither status nor BM25 decodes every row to count them."""
        if isinstance(self.parsed, StoredParsed):
            return self.parsed.chunk_counts()
        return {path: len(parsed.chunks) for path, parsed in self.parsed.items()}

    @cached_property
    def chunk_count(self) -> int:
        """Counted once per snapshot: status is asked for on every editor notification."""
        return sum(self.chunk_counts.values())

    @cached_property
    def chunk_sequence(self) -> ChunkSequence:
        """`chunks()` as a sequence that reads each chunk from its file's record when asked."""
        return ChunkSequence(self.parsed, self.chunk_counts)

    @cached_property
    def fingerprint(self) -> str:
        """`store.fingerprint` of the files, the key of everything derived from all the rows: a refresh and
        a close each ask for it up to four times (centrality, saved indexes, BM25), 30 ms each at 4x Django."""
        return rows_fingerprint(self.files.values())

    @cached_property
    def symbol_count(self) -> int:
        return len(self.symbols)

    def chunks(self) -> list[Chunk]:
        return [chunk for path in sorted(self.parsed) for chunk in self.parsed[path].chunks]


class ChunkSequence(Sequence[Chunk]):
    """Every chunk of a snapshot, in the order `Snapshot.chunks` lists them (by path, then within the
    file), without holding them: position i is found by bisecting the running chunk counts and read
    from that file's record. BM25 answers in positions; listing all of Django's 46k chunks up front
    had decoded every stored row for a restart's first question (about 200 MB held for good, and
    1.5 CPU-s) where the question reads its few dozen best chunks."""

    def __init__(self, parsed: Mapping[str, ParsedFile], counts: Mapping[str, int]) -> None:
        self._parsed = parsed
        self._paths = sorted(parsed)
        self._ends = list(accumulate(counts[path] for path in self._paths))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    @overload
    def __getitem__(self, position: int) -> Chunk: ...

    @overload
    def __getitem__(self, position: slice) -> list[Chunk]: ...

    def __getitem__(self, position: int | slice) -> Chunk | list[Chunk]:
        if isinstance(position, slice):
            return [self[at] for at in range(*position.indices(len(self)))]
        size = len(self)
        if position < 0:
            position += size
        if not 0 <= position < size:
            raise IndexError("chunk position out of range")
        at = bisect_right(self._ends, position)
        start = self._ends[at - 1] if at else 0
        return self._parsed[self._paths[at]].chunks[position - start]

    def __iter__(self) -> Iterator[Chunk]:
        """Every chunk in order, each file's rows decoded for the pass and let go (a BM25 build keeps its
        own tokens; keeping every row decoded after it had been ~200 MB per Django)."""
        parsed = unkept(self._parsed)
        for path in self._paths:
            yield from parsed[path].chunks
