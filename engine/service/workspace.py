"""One workspace root: its persistent index, kept in step with the files on disk and in the editor.

`refresh` walks the root and re-indexes only files whose (size, mtime, hash) changed; `update_file`
and `set_buffer` touch one file's postings, symbols, chunks and graph edges. Every change is written
to the store in one transaction and published as a new immutable Snapshot, which searches read.
"""

from __future__ import annotations

import collections
import concurrent.futures
import concurrent.futures.process
import gc
import json
import logging
import multiprocessing
import os
import pickle
import sqlite3
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Collection, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from ..graph.centrality import DamagedRank, StoredRank
from ..graph.graph import CodeGraph
from ..graph.stored import DamagedGraph, OlderGraph, StoredGraph
from ..index.discovery import Walker
from ..index.indexjob import Indexed as _Indexed
from ..index.indexjob import index_batch as _index_batch
from ..index.indexjob import index_job as _index_job
from ..index.indexjob import index_or_reason as _index_or_reason
from ..index.indexjob import index_text as _index_text
from ..index.indexjob import warm_parsing as _warm_parsing
from ..index.indexjob import worker_started as _worker_started
from ..index.lexical import DamagedLexical, LexicalIndex
from ..index.mapped import POINTER as MAPPED_POINTER
from ..index.mapped import DamagedMapped, open_arrays, verify, write_arrays
from ..index.postings import first_postings
from ..index.saved import POINTER as SAVED_POINTER
from ..index.saved import DamagedSaved, SavedIndex
from ..index.snapshot import ContentCache, Snapshot
from ..index.store import (
    SAVED_FILE,
    EncodedRow,
    IndexStore,
    StoredParsed,
    default_index_dir,
    fingerprint,
    payload_digest,
)
from ..index.symbols import SymbolTable, forget_build_names
from ..index.textpositions import DamagedPositions, TextPositions, write_positions
from ..index.textsearch import SearchText, parse_text_query
from ..index.trigram import DamagedTrigrams, TrigramIndex, unpack
from ..model.languages import detect_language
from ..model.memory import keep_long_lived, paused_gc, return_freed
from ..model.profiles import PRESETS
from ..model.records import Chunk, FileRecord, Hit, ParsedFile, Span, Symbol
from ..model.settings import Settings
from ..query.parsedquery import ParsedQuery
from ..query.request import SearchRequest
from ..retrieve import navigation
from ..retrieve.graph import graph
from ..retrieve.semantic import make_semantic_retriever
from ..retrieve.structural import structural
from ..retrieve.text import LINE_PAGE, LexicalCache, LineMatches, every_line, make_text_retriever, path_filter
from ..search.answer import Answer, IndexState, SearchResponse, answer_of
from ..search.search import Searcher
from .buildprocess import BuildChannel, Finishing, run_build, start_build
from .embedder import Embedder

log = logging.getLogger(__name__)
Progress = Callable[[int, int], None]
# Rows are committed in batches so a killed first index keeps most of its work.
WRITE_BATCH = 400
# Past this many changed files, rebuilding the indexes in bulk beats applying one-file updates.
BULK_CHANGE = 64
# A first index publishes what it has at most this often (searches during indexing answer from it).
PUBLISH_INTERVAL_S = 4.0
# ... and only once the files waiting at least equal those it has published so far: each partial
# snapshot rebuilds the trigram and symbol indexes whole, so with the published set doubling each
# time, all partial rebuilds together cost no more than the final one (measured on Django: three
# partial rebuilds at 4 s intervals had cost more CPU than the final build).
PUBLISH_GROWTH = 1.0
# Parsing runs in worker processes when a refresh has at least this many files to read.
PARALLEL_MIN_FILES = 200
MAX_WORKERS = 4
# Files per task sent to a worker (amortises the pickling round trip).
POOL_CHUNK = 16
# Tasks given to the pool and not yet taken back: the budget of parsed results in flight. `Executor.map`
# submitted every file at once, so whenever the indexer fell behind (a partial snapshot published, a
# write, a collection) the workers' finished results piled up without bound; this keeps the workers busy
# (one running and one queued task each, plus one) and no more.
IN_FLIGHT_TASKS = 2 * MAX_WORKERS + 2
# After a worker died: files re-run one by one to find the one that killed it. Results come back in
# order and at most IN_FLIGHT_TASKS tasks are out, so the culprit is within this many files of the
# first missing result.
SUSPECT_FILES = IN_FLIGHT_TASKS * POOL_CHUNK
# Quiet time after the last edit before centrality is recomputed in the background.
CENTRALITY_DELAY_S = 0.3
# Quiet time after the last edit before new chunks are embedded and BM25 is rebuilt in the background.
CATCH_UP_DELAY_S = 0.5
# Builds of BM25 a catch-up waits through before leaving it to the next edit (one may be for an older snapshot).
LEXICAL_ATTEMPTS = 3
# The store's derived entry that keeps the graph's centrality between runs: it names a memory-mapped
# file of that name beside the index (`index.mapped`), so a restart reads only the pages of it that it
# touches (an entry written by an earlier version holds the arrays inline, as an `.npz`, and still reads).
RANK_ENTRY = "graph.rank"
# ... and the graph's edges, evidence and name tables (`graph.stored`), so a restart answers graph questions
# from them in place instead of building the graph from every row: a memory-mapped file of that name too.
GRAPH_ENTRY = "graph.edges"
INLINE_RANK = b"PK"  # how such an inline `.npz` (a zip) starts
# ... and the trigram postings and symbol table, so a restart opens them instead of building them (the
# entry names the memory-mapped file beside the index, `store.SAVED_FILE`, that holds them).
SAVED_ENTRY = "index.saved"
# ... and the positional index of the files' text (`textpositions`), so an every-line search on a common
# literal reads where it occurs instead of scanning the files that hold it: a memory-mapped file of that name.
POSITIONS_ENTRY = "text.positions"
# The positional index is built again when more than this share of the files is not in it as they are now
# (edited, added): those are scanned, and building it costs about a CPU-second per 10 MiB of text, so it is
# not paid for every saved edit; the trigram postings compact at the same share (`trigram.COMPACT_FRACTION`).
POSITIONS_STALE_SHARE = 0.05
# The folder, next to the index file, where BM25 is kept between processes (`LexicalIndex.save`).
LEXICAL_FOLDER = "bm25"
# ... and the files refused on reading (binary, minified), so a restart does not read them again.
UNREADABLE_ENTRY = "unreadable"
# A loaded index, or one built in bulk, of at least this many files is frozen out of the cycle collector
# (`keep_long_lived`): on Django (5.4k files) the collector's first passes over the loaded records cost
# 0.2-2 s, over a cold index's records and graph several seconds spread over whatever ran next; below
# this the walk costs milliseconds, and freezing would also keep whatever cyclic garbage the process
# holds at that moment (a test session opening hundreds of small workspaces) for good.
FREEZE_MIN_FILES = 1000
# A server's first index of at least this many files is built in a process of its own, then opened from
# what that process stored (`buildprocess`): the build's memory leaves with the process. Below this, the
# build holds little (tens of MiB) and the child's start (~1 s of imports) would be most of its time.
ELSEWHERE_MIN_FILES = 1000
# The rules of publishing a first index in parts, which a build process takes from the server that starts it.
PUBLISHING_RULES = ("WRITE_BATCH", "PUBLISH_INTERVAL_S", "PUBLISH_GROWTH")
# Where a first index's build process writes each partial snapshot for the server to map (replaced by the
# next, removed at the end).
PART_FILE = "index.part"
# How long a question that needs BM25 waits for that build process to store it, before building its own: the
# build takes as long in either process (~15 s at Django's size), and one built here stays in this heap.
LEXICAL_ELSEWHERE_WAIT_S = 300.0
# The text cache's budget is set in MiB (`Settings.text_cache_mb`) and counted in characters and bytes.
MIB = 1024 * 1024
# Skipped files listed by name in status (all are counted by reason).
STATUS_SKIPPED_LISTED = 50


def _edited(parsed: Mapping[str, ParsedFile], changed: Mapping[str, ParsedFile],
            removed: Sequence[str]) -> Mapping[str, ParsedFile]:
    """`parsed` without `removed` and with `changed`, as a dict edited in that order; rows a restart
    left encoded stay encoded (a re-check that changed nothing decoded all of Django's rows)."""
    if isinstance(parsed, StoredParsed):
        return parsed.with_changes(changed, removed)
    edited = {path: value for path, value in parsed.items() if path not in removed} if removed else dict(parsed)
    edited.update(changed)
    return edited


class WorkspaceError(Exception):
    """A problem with the workspace itself (missing root, unusable index folder), in actionable words."""


@dataclass(frozen=True)
class RefreshStats:
    """What one refresh did: how many files it scanned, re-indexed, removed, and how long it took."""

    scanned: int
    indexed: int
    removed: int
    unchanged: int
    seconds: float


class Workspace:
    """The index of one root and the only writer of its snapshots."""

    # What a worker process runs per file (a module-level function: workers import it by name).
    index_job: Callable[[tuple[Path, str, int]], _Indexed | str] = staticmethod(_index_job)

    def __init__(self, root: Path, settings: Settings | None = None, background: bool = True) -> None:
        """`background`: recompute centrality in a thread after edits (a server wants this; a one-shot CLI
        does not). Only such a workspace publishes partial snapshots during a first index: in a one-shot
        CLI no search can run until the refresh returns, and each partial snapshot rebuilds the trigram
        and symbol indexes whole (on Django, 5 partial builds of 74k symbols in all beside the final 56k)."""
        if not root.is_dir():
            raise WorkspaceError(f"workspace root {root} does not exist or is not a folder")
        self.root = root.resolve()
        self.settings = settings or Settings()
        folder = Path(self.settings.index_dir) if self.settings.index_dir else default_index_dir(self.root)
        try:
            self.store = IndexStore(folder)
        except OSError as error:
            raise WorkspaceError(f"cannot use index folder {folder}: {error.strerror or error}") from error
        self._write_lock = threading.RLock()
        self._next_id = 0
        self._background = background
        self._centrality_timer: threading.Timer | None = None
        self._catch_up_timer: threading.Timer | None = None
        self._catch_up_lock = threading.Lock()
        self._closing = threading.Event()
        self._embedding_started = False
        self._embed_failure: str | None = None
        self._semantic_cache: tuple[tuple[int, int], tuple[int, int]] | None = None
        self._graph_behind = False
        self._elsewhere_failed = False  # a first index's build process failed: this one indexes itself
        self._lexical_elsewhere_failed = False  # ... a BM25 one did: this one builds BM25 itself
        self._lexical_elsewhere_lock = threading.Lock()
        # A first index's build process storing BM25 after its result, and the fingerprint of the rows it indexed.
        self._finishing: tuple[Finishing, str] | None = None
        # While a first index publishes partial snapshots: the last one's generation and the records its
        # bulk build read (released files' without chunks), which the next build reads again.
        self._partial_structure: tuple[int, dict[str, ParsedFile]] | None = None
        # The fingerprint of the rows the stored centrality was computed from (None: nothing stored).
        self._stored_fingerprint: str | None = None
        self._graph_fingerprint: str | None = None  # ... and of the stored graph (GRAPH_ENTRY)
        # ... and of the rows the saved trigram postings and symbol table were built from.
        self._saved_fingerprint: str | None = None
        self._positions_fingerprint: str | None = None  # ... and the stored text positions (POSITIONS_ENTRY)
        # Files refused on reading, by path: (size, mtime_ns, reason), so an unchanged one is not re-read.
        self._unreadable: dict[str, tuple[int, int, str]] = {}
        self.state = "loading"
        self.last_error: str | None = self.store.rebuilt_reason
        self.failure: str | None = None  # why the last refresh failed, until one succeeds
        self.progress = 0.0
        with paused_gc():  # the loaded records are frozen out of the collector before it runs again
            self._snapshot = self._load()
            if len(self._snapshot.files) >= FREEZE_MIN_FILES:
                keep_long_lived()
        self._unreadable = self._stored_unreadable()
        self._embedder = Embedder(self.settings, self.store.folder)
        # The fingerprint of the rows the stored BM25 was built from, and the newest index not stored yet.
        self._lexical_fingerprint: str | None = None
        self._lexical_pending: tuple[str, LexicalIndex] | None = None
        self._lexical_lock = threading.Lock()
        self._lexical = LexicalCache(self._open_lexical, self._lexical_built, self._lexical_goes_elsewhere)
        retrievers = {
            "text": make_text_retriever(self._lexical),
            "structural": structural,
            "graph": graph,
            "semantic": make_semantic_retriever(self._embedder.state, self._lexical),
        }
        self._searcher = Searcher(
            retrievers, self.settings.preset, self._embedder.available, self.settings.demote_factor,
            holds_word=lambda snapshot, word: self._lexical.get(snapshot)[0].holds(word),
        )

    # --- reading -------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        return self._snapshot

    @property
    def ready(self) -> bool:
        return self.state == "ready"

    # --- building ------------------------------------------------------------------------
    def _load(self) -> Snapshot:
        """The stored index as a snapshot: opened from the saved indexes when they were built from exactly
        these rows (`index.saved`), else built from the decoded rows, dropping (and re-indexing) damaged ones."""
        rows = self.store.rows()
        self.state = "indexing"
        files = {row.record.path: row.record for row in rows}
        current = fingerprint(files.values()) if files else ""
        contents = ContentCache(self.settings.text_cache_mb * MIB)
        saved = self._saved_index(rows, files, current)
        if saved is not None:
            parsed = StoredParsed({row.record.path: row.parsed for row in rows}, saved.chunk_counts)
            self._next_id = max(saved.doc_ids.values(), default=0)
            return Snapshot(
                root=self.root, generation=1, files=files, parsed=parsed, doc_ids=saved.doc_ids,
                paths_by_id={doc: path for path, doc in saved.doc_ids.items()}, trigrams=saved.trigrams,
                symbols=saved.symbols,
                graph=self._stored_graph(current, parsed.unkept()) or self._built_graph(parsed.unkept()),
                buffers={}, contents=contents, max_file_size=self.settings.max_file_size,
                positions=self._stored_positions(),
            )
        empty = Snapshot(
            root=self.root, generation=0, files={}, parsed={}, doc_ids={}, paths_by_id={},
            trigrams=TrigramIndex.build({}), symbols=SymbolTable(), graph=CodeGraph.build({}), buffers={},
            contents=contents, max_file_size=self.settings.max_file_size,
            positions=self._stored_positions() if rows else None,
        )
        files, decoded = {}, {}
        grams: dict[str, np.ndarray] = {}
        damaged: list[tuple[object, str]] = []
        for stored in self.store.decoded(rows):
            path = stored.record.path
            try:
                grams[path] = unpack(stored.trigrams)
            except DamagedTrigrams as error:
                damaged.append((path, str(error)))
                continue
            files[path], decoded[path] = stored.record, stored.parsed
        if damaged:
            self.store.drop_damaged(damaged)
        graph = self._stored_graph(fingerprint(files.values()) if files else "", decoded)
        return self._rebuilt(empty, files, decoded, grams, graph=graph)

    def _serve_stored(self) -> None:
        """Once a server's bulk build is stored whole, serve it from the stored copy, as a restart does,
        and let the built one go: the graph's dicts, every file's decoded records, the texts the build
        cached, and their memory. Its postings, symbol table and text positions are mapped already
        (`_rebuilt`); the rows' ParsedFiles are decoded when asked for (`StoredParsed`) and the graph is
        read in place (`StoredGraph`). Answers do not change: a restart answers as the build it opens
        (tests/engine/service/test_saved_index.py). A one-shot CLI keeps the built one: it exits after
        its answer. Nothing changes unless every part is stored as built."""
        snapshot = self._snapshot
        if not self._background or snapshot.buffers or not snapshot.files or not snapshot.graph.built:
            return
        current = snapshot.fingerprint
        stored = (self._saved_fingerprint, self._positions_fingerprint, self._stored_fingerprint,
                  self._graph_fingerprint)
        if any(fingerprint != current for fingerprint in stored) or snapshot.positions is None:
            return
        try:
            encoded, versions = self.store.encoded_parsed()
        except sqlite3.DatabaseError as error:  # the built snapshot keeps serving; a restart finds the damage
            log.warning("%s: the stored rows do not read (%s)", self.store.path, error)
            return
        if versions != {path: record.digest for path, record in snapshot.files.items()}:
            return  # the rows are not the snapshot's (a write is pending)
        parsed = StoredParsed({path: encoded[path] for path in snapshot.files}, snapshot.chunk_counts)
        del encoded
        graph = self._stored_graph(current, parsed.unkept(), check=False)  # the bytes this process just wrote
        if graph is None or not graph.mapped:
            return  # the stored graph did not open: keep the built one rather than build it again
        self._snapshot = replace(snapshot, generation=snapshot.generation + 1, parsed=parsed, graph=graph,
                                 contents=ContentCache(self.settings.text_cache_mb * MIB))
        del snapshot
        gc.collect()  # the built graph's records hold cycles: they go now, not at the next collection
        return_freed()

    def _entry_of(self, name: str, current: str) -> tuple[str | None, bytes | None]:
        """A derived entry's fingerprint (what it was built from, to know when to store it again) and its
        blob when it was built from exactly the rows whose fingerprint is `current` ("": no rows); (None,
        None) when there is none to read."""
        stored = self.store.read_derived(name)
        if stored is None or not current:
            return None, None
        return stored[0], stored[1] if stored[0] == current else None

    def _saved_index(self, rows: Sequence[EncodedRow], files: dict[str, FileRecord],
                     current: str) -> SavedIndex | None:
        """The saved indexes when they were built from these very rows (`current`: their fingerprint);
        None (build them) otherwise."""
        self._saved_fingerprint, blob = self._entry_of(SAVED_ENTRY, current)
        if blob is None:
            return None
        try:
            with paused_gc():
                if blob.startswith(SAVED_POINTER):
                    saved = SavedIndex.open(self.store.folder, blob)
                else:  # kept inline by an earlier version
                    saved = SavedIndex.decode(blob)
        except DamagedSaved as error:
            if error.damaged:
                log.warning("%s: %s; the indexes are built again", self.store.path, error)
                self.store.repairs.append(f"saved indexes were damaged ({error}); rebuilt")
            else:
                log.info("%s: %s; the indexes are built again", self.store.path, error)
            self._saved_fingerprint = None
            return None
        if saved.rows != payload_digest(rows) or saved.doc_ids.keys() != files.keys():
            # Same file versions, other bytes: a row was garbled since; the eager load finds which.
            log.warning("%s: the rows changed since the indexes were saved; they are built again", self.store.path)
            self._saved_fingerprint = None
            return None
        return saved

    def _store_saved(self) -> None:
        """Keep the built trigram postings and symbol table with the rows they were built from, so a restart
        opens them instead of decoding every row and building them again."""
        self._write_saved(self._snapshot)

    def _write_saved(self, snapshot: Snapshot) -> bytes | None:
        """`_store_saved` for `snapshot`: what the store's entry now names, or None when nothing was written
        (stored already, or not storable now)."""
        if snapshot.buffers or not snapshot.files:
            return None  # an unsaved buffer's postings and symbols are not in the rows
        current = snapshot.fingerprint
        if current == self._saved_fingerprint:
            return None
        rows, versions = self.store.stored_digest()
        if versions != {path: record.digest for path, record in snapshot.files.items()}:
            return None  # the rows are not the snapshot's (a write is pending); the next refresh or close stores it
        doc_ids = {path: snapshot.doc_ids[path] for path in snapshot.files}
        saved = SavedIndex(rows, doc_ids, snapshot.trigrams, snapshot.symbols,
                           {path: snapshot.chunk_counts[path] for path in snapshot.files})
        try:
            pointer = saved.write(self.store.folder / SAVED_FILE)
        except (ValueError, OSError) as error:  # a symbol the table cannot hold, a full disk: rows are decoded
            log.warning("%s: the indexes are not saved (%s)", self.store.path, error)
            return None
        self.store.write_derived(SAVED_ENTRY, current, pointer)
        self._saved_fingerprint = current
        return pointer

    def _saved(self, snapshot: Snapshot) -> Snapshot:
        """`snapshot` reading the trigram postings and symbol table it has just stored, mapped, as a restart
        reads them, instead of its own copies: a bulk build stores them before its graph, whose build then
        reuses their memory (4x Django: ~150 MB). `snapshot` itself when nothing was stored, or the file
        will not open."""
        pointer = self._write_saved(snapshot)
        if pointer is None:
            return snapshot
        try:
            saved = SavedIndex.open(self.store.folder, pointer, check=False)  # the bytes this process just wrote
        except DamagedSaved as error:  # deleted or cut since by someone else: keep serving the built copies
            log.warning("%s: the saved indexes do not reopen (%s)", self.store.path, error)
            return snapshot
        return replace(snapshot, trigrams=saved.trigrams, symbols=saved.symbols)

    def _stored_positions(self) -> TextPositions | None:
        """The stored positional index, mapped, whatever rows it was built from: it serves a file only while
        the file's digest is the one it stored (`Snapshot.as_stored`). Its bytes are hashed when a search
        first reads it (`_positions_sound`), not here. None when there is none, or it is damaged (said in
        `repairs`; built again at the end of the next refresh)."""
        stored = self.store.read_derived(POSITIONS_ENTRY)
        if stored is None:
            return None
        try:
            arrays = open_arrays(self.store.folder, stored[1], check=False)
            positions = TextPositions.from_arrays(arrays, partial(self._positions_sound, arrays, stored[1]))
        except (DamagedPositions, DamagedMapped) as error:
            self._positions_damaged(str(error))
            return None
        self._positions_fingerprint = stored[0]
        return positions

    def _positions_sound(self, arrays: Mapping[str, np.ndarray], pointer: bytes) -> bool:
        """The postponed check of the stored positions: when the file is not the one its entry names, the
        search that asked scans instead, and the next refresh builds them again."""
        if verify(arrays, pointer):
            return True
        self._positions_damaged(f"file {POSITIONS_ENTRY} does not match its entry's digest")
        self._positions_fingerprint = None
        return False

    def _positions_damaged(self, error: str) -> None:
        log.warning("%s: %s; the text positions are built again", self.store.path, error)
        self.store.repairs.append(f"stored text positions were damaged ({error}); rebuilt")

    def _store_positions(self) -> None:
        self._snapshot = self._positioned(self._snapshot)

    def _positioned(self, snapshot: Snapshot) -> Snapshot:
        """`snapshot` reading its positional index mapped, built and kept first when there is none or when
        more than POSITIONS_STALE_SHARE of the files are not in it as they are; `snapshot` itself otherwise."""
        if snapshot.buffers or not snapshot.files or snapshot.fingerprint == self._positions_fingerprint:
            return snapshot
        if snapshot.positions is not None and snapshot.positions.sound:
            stale = len(snapshot.files) - len(snapshot.as_stored)
            if stale <= POSITIONS_STALE_SHARE * len(snapshot.files):
                return snapshot
        current = snapshot.fingerprint
        texts = ((path, snapshot.files[path].digest, SearchText(text)) for path in sorted(snapshot.files)
                 if (text := snapshot.text(path, keep=False)) is not None)
        try:
            pointer = write_positions(self.store.folder / POSITIONS_ENTRY, texts)
            positions = TextPositions.from_arrays(open_arrays(self.store.folder, pointer, check=False))
        except (OSError, DamagedMapped, DamagedPositions) as error:  # a full disk: searches scan
            log.warning("%s: text positions not stored (%s)", self.store.path, error)
            return snapshot
        self.store.write_derived(POSITIONS_ENTRY, current, pointer)
        self._positions_fingerprint = current
        return replace(snapshot, positions=positions)

    def _stored_graph(self, current: str, parsed: Mapping[str, ParsedFile], check: bool = True) -> CodeGraph | None:
        """The graph of the loaded rows (`current`: their fingerprint), deferred on their stored centrality;
        None (build it) when the centrality stored is missing, damaged or was computed from other rows.
        `check` False: the files are not hashed (`open_arrays`)."""
        self._stored_fingerprint, blob = self._entry_of(RANK_ENTRY, current)
        if blob is None:
            return None
        try:
            if blob.startswith(MAPPED_POINTER):
                rank = StoredRank.from_arrays(open_arrays(self.store.folder, blob, check))
            elif blob.startswith(INLINE_RANK):  # an `.npz` kept inline by an earlier version
                rank = StoredRank.decode(blob)
            else:
                raise DamagedRank("its entry names no file and holds no ranking")
        except (DamagedRank, DamagedMapped) as error:
            log.warning("%s: %s; the graph is built again", self.store.path, error)
            self.store.repairs.append(f"stored centrality was damaged ({error}); recomputed")
            self._stored_fingerprint = None
            return None
        if rank.order is None or not blob.startswith(MAPPED_POINTER):
            self._stored_fingerprint = None  # written by an earlier version: stored again, mapped, at close
        stored = self._stored_edges(current, check)
        graph = CodeGraph.deferred(parsed, rank) if stored is None else CodeGraph.opened(parsed, rank, stored)
        graph.rank_on_query = not self._background
        return graph

    def _stored_edges(self, current: str, check: bool = True) -> StoredGraph | None:
        """The stored graph of the loaded rows (`current`: their fingerprint), mapped; None (the graph is
        built from the rows when a question or an edit needs it, and stored again) when it is missing,
        damaged or was stored from other rows."""
        self._graph_fingerprint, blob = self._entry_of(GRAPH_ENTRY, current)
        if blob is None:
            return None
        try:
            if not blob.startswith(MAPPED_POINTER):
                raise DamagedGraph("its entry names no file")
            return StoredGraph(open_arrays(self.store.folder, blob, check))
        except OlderGraph as error:
            log.info("%s: %s; the graph is built again", self.store.path, error)
            self.store.repairs.append(f"{error}; rebuilt")
            self._graph_fingerprint = None
            return None
        except (DamagedGraph, DamagedMapped) as error:
            log.warning("%s: %s; the graph is built again", self.store.path, error)
            self.store.repairs.append(f"stored graph was damaged ({error}); rebuilt")
            self._graph_fingerprint = None
            return None

    def _store_rank(self) -> None:
        """Keep the current centrality with the rows it was computed from, so a restart need not build the graph."""
        snapshot = self._snapshot
        if snapshot.buffers or not snapshot.files:
            return  # an unsaved buffer's symbols are not in the rows: a restart would rank other files
        current = snapshot.fingerprint
        # the graph is stored with the ranking it was ranked by (it keeps each node's place in that ranking)
        if current != self._stored_fingerprint or (current != self._graph_fingerprint and snapshot.graph.built):
            rank = snapshot.graph.stored_rank()
            if rank is None:
                return
            try:
                pointer = write_arrays(self.store.folder / RANK_ENTRY, rank.arrays())
            except OSError as error:  # a full disk: the next start builds the graph and ranks it again
                log.warning("%s: centrality not stored (%s)", self.store.path, error)
                return
            self.store.write_derived(RANK_ENTRY, current, pointer)
            self._stored_fingerprint = current
        if current != self._graph_fingerprint:
            try:
                edges = snapshot.graph.stored(partial(write_arrays, self.store.folder / GRAPH_ENTRY))
                if edges is None:
                    return  # not built in memory: not asked for since this start, or what is stored already
            except (OSError, OverflowError) as error:  # a full disk, a span past 2**31: built on first use
                log.warning("%s: graph not stored (%s)", self.store.path, error)
                return
            self.store.write_derived(GRAPH_ENTRY, current, edges)
            self._graph_fingerprint = current

    def _open_lexical(self, snapshot: Snapshot, chunks: Sequence[Chunk]) -> LexicalIndex | None:
        """The stored BM25 when it was built from exactly these rows; None (build it) otherwise."""
        if snapshot.buffers or not snapshot.files:
            return None  # an unsaved buffer's chunks are not in the rows
        current = snapshot.fingerprint
        finishing = self._finishing
        if finishing is not None and finishing[1] == current:
            finishing[0].wait(LEXICAL_ELSEWHERE_WAIT_S)  # the first index's build process is storing it
        try:
            index = LexicalIndex.load(self.store.folder / LEXICAL_FOLDER, current, chunks)
        except DamagedLexical as error:
            log.warning("%s: stored BM25 is damaged (%s); it is built again", self.store.folder, error)
            self.store.repairs.append(f"stored BM25 index was damaged ({error}); rebuilt")
            return None
        if index is not None:
            with self._lexical_lock:
                self._lexical_fingerprint = current
        return index

    def _lexical_built(self, snapshot: Snapshot, index: LexicalIndex) -> bool:
        """Store a built BM25 at once when nothing stored fits (a restart then opens it); later builds,
        one per burst of edits, are stored when the workspace closes rather than each time. Whether it
        was stored now."""
        if snapshot.buffers or not snapshot.files or self._closing.is_set():
            return False
        current = snapshot.fingerprint
        with self._lexical_lock:
            if current == self._lexical_fingerprint:
                return False
            self._lexical_pending = (current, index)
            if self._lexical_fingerprint is None:
                self._store_lexical()
            return self._lexical_fingerprint == current

    def _store_lexical(self) -> None:
        """Write the pending BM25 (callers hold `_lexical_lock`); a failure only costs the next start a build."""
        if self._lexical_pending is None:
            return
        current, index = self._lexical_pending
        self._lexical_pending = None
        try:
            index.save(self.store.folder / LEXICAL_FOLDER, current)
        except (OSError, ValueError, TypeError) as error:
            log.warning("%s: BM25 not stored: %s", self.store.folder, error)
            return
        self._lexical_fingerprint = current

    def _rebuilt(self, base: Snapshot, files: dict[str, FileRecord], parsed: Mapping[str, ParsedFile],
                 changed: dict[str, np.ndarray], with_graph: bool = True,
                 graph: CodeGraph | None = None, structure: Mapping[str, ParsedFile] | None = None,
                 uses: Mapping[str, ParsedFile] | None = None, positions_first: bool = False,
                 **changes: Any) -> Snapshot:
        """A snapshot whose indexes are built in bulk: cheaper than many one-file updates after a big change.
        `graph`, when given, is used as it is (a deferred graph opened from the stored centrality);
        `structure`, when given, is what the symbol table and graph are built from instead of `parsed`
        (the same files, in the same order, with the same symbols, references and imports); `uses`, when
        given, is where the graph reads each file's references instead (`CodeGraph.build`).

        `changed` holds the trigram sets of the files that are new or replaced since `base`; the
        postings of the others are carried over from `base`'s index, never decompressed again. It is
        emptied once the postings are built: the sets are not needed for the rest of the build.
        A partial snapshot published during a first index leaves the graph (the slowest part) for the end.
        `positions_first`: a whole build that makes its graph stores the text positions, the trigram postings
        and the symbol table before it, when they are due (`_positioned`, `_saved`), instead of leaving them to
        the end of the refresh, and serves the last two from what it stored, as a restart does.
        The cycle collector is paused throughout: it would otherwise walk every new record repeatedly.
        """
        doc_ids = {path: base.doc_ids.get(path) or self._new_id() for path in files}
        gone = {doc for path, doc in base.doc_ids.items() if path not in files}
        source = parsed if structure is None else structure
        with paused_gc():
            added = {doc_ids[path]: grams for path, grams in changed.items()}
            # A first index builds its postings by counting (`postings`: no sort of every posting at once).
            trigrams = base.trigrams.replaced(gone, added) if base.trigrams.doc_ids().size else first_postings(added)
            changed.clear()
            del added
            symbols = SymbolTable(symbol for item in source.values() for symbol in item.symbols)
            if with_graph:  # a whole build (not a partial one): the table as the saved index keeps it
                symbols = symbols.stored()
            return_freed()  # the trigram sets and the table's records: the graph does not reuse their pages
            built = replace(
                base, generation=base.generation + 1, files=files, parsed=parsed, doc_ids=doc_ids,
                paths_by_id={doc: path for path, doc in doc_ids.items()}, trigrams=trigrams, symbols=symbols,
                graph=graph or base.graph, **changes,
            )
            del trigrams, symbols  # the snapshot's own from here: `_saved` may replace them by their stored copies
            if not with_graph or graph is not None:
                return built
            if positions_first:
                # Their block sorts then add to a smaller heap than the graph's: after it, they were 4x
                # Django's cold-index peak (1,369 MiB, over the 1,254 held once the graph was stored).
                built = self._positioned(built)
                # The postings and the table too: the graph then reuses the memory of their built copies.
                built = self._saved(built)
                return_freed()
            return replace(built, graph=self._built_graph(source, uses))

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def warm_up(self) -> None:
        """Ready what the first one-file update after opening a saved index would pay for on the user's
        keystroke, when it could have been paid while they read: the parsing module with the grammar and
        queries of each language the index holds, and a mapped graph's edit views (`CodeGraph.prepare_edits`).
        Unwarmed, the first edit after a restart took 50 CPU-ms at Django's size and 140 at 4x, against ~3
        and ~10 warmed (bench/edit_bench.py). A server calls it in the background after opening; answers do
        not change."""
        snapshot = self._snapshot
        _warm_parsing({record.language for record in snapshot.files.values() if record.language})
        snapshot.graph.prepare_edits()

    def refresh(
        self, progress: Progress | None = None, cancel: threading.Event | None = None, full: bool = False
    ) -> RefreshStats:
        """Bring the index in line with the disk: re-index what changed (everything if `full`), drop what vanished."""
        with self._write_lock:
            try:
                stats = self._refresh(progress, cancel, full)
            except Exception as error:
                # Said in status (never "indexing" forever); the last good snapshot keeps answering.
                self.state, self.failure = "error", f"indexing failed: {type(error).__name__}: {error}"
                log.exception("indexing %s failed", self.root)
                raise
            try:
                self._serve_stored()
            except Exception:  # the index is built and stored: the built snapshot keeps serving it
                log.exception("%s: serving the stored index failed; the built one serves", self.root)
            return stats

    def _refresh(self, progress: Progress | None, cancel: threading.Event | None, full: bool) -> RefreshStats:
        started = time.perf_counter()
        self.state = "indexing" if not self.ready else self.state
        walker = Walker(self.root, self.settings.exclude, self.settings.max_file_size, self.settings.parent_ignores)
        current = self._snapshot
        candidates = list(walker.walk())
        skipped = {item.path: item.reason for item in walker.skipped}
        present = {candidate.path for candidate in candidates}
        versions = {c.path: (c.size, c.mtime_ns) for c in candidates}
        # A file refused on reading (binary, minified) stays refused until its size or mtime changes:
        # without this, every refresh re-read Django's ~1,400 such files.
        for path, (size, mtime_ns, reason) in self._unreadable.items():
            if not full and versions.get(path) == (size, mtime_ns):
                skipped[path] = reason
        stale = [
            c.path
            for c in candidates
            if c.path not in current.buffers and c.path not in skipped
            and (full or self._changed(current.files.get(c.path), c.size, c.mtime_ns))
        ]
        removed = [path for path in current.files if path not in present]
        if self._builds_elsewhere(current, stale):
            del candidates, skipped, present, versions, stale, removed  # the walk's, kept here for hours otherwise
            built = self._refresh_elsewhere(progress, cancel)
            if built is not None:
                return replace(built, seconds=time.perf_counter() - started)
            return self._refresh(progress, cancel, full)  # what the child stored is loaded: the rest is read here
        # One pause from the first file received to the snapshot built: the records arrive, then the bulk
        # build frees them from the collector (`_apply`) before it walks them once.
        with paused_gc():
            count, pending = self._index_paths(stale, skipped, progress, cancel)
            unreadable_before = self._unreadable
            self._unreadable = {path: (*versions[path], reason) for path, reason in skipped.items()
                                if path in versions}
            if self._unreadable != unreadable_before:
                self._store_unreadable()
            unreadable = [path for path in stale if path in skipped and path in current.files]
            self._apply(pending, removed + unreadable, skipped)
            del pending  # each file's trigram set and records: built into the snapshot, not needed to save it
        cancelled = cancel is not None and cancel.is_set()
        if not cancelled:
            self._snapshot.graph.refresh_centrality()  # part of indexing, not of the first search
            self._store_rank()
            self._store_saved()
            self._store_positions()
            self.state, self.progress, self.failure = "ready", 1.0, None
            self._build_graph_behind()
        return RefreshStats(
            len(candidates),
            count,
            len(removed) + len(unreadable),
            len(candidates) - len(stale),
            time.perf_counter() - started,
        )

    def _builds_elsewhere(self, current: Snapshot, stale: Sequence[str]) -> bool:
        """Whether this refresh is a server's first index, large enough to build in a process of its own."""
        return (self._background and not self._elsewhere_failed and not current.files and not current.buffers
                and len(stale) >= ELSEWHERE_MIN_FILES)

    def _refresh_elsewhere(self, progress: Progress | None, cancel: threading.Event | None) -> RefreshStats | None:
        """A server's first index, built and stored whole by a child process (`buildprocess`: the build's memory
        leaves with it), then opened from the store as a restart opens it. While it runs, the partial snapshots
        it publishes (by the rules of a first index built here) are served from the files it writes them to,
        mapped, so searches answer from them (flagged partial). None when the child failed: what it stored is
        opened, and the caller indexes the rest here. A cancelled build keeps what it stored and the last
        partial snapshot, as a cancelled refresh here does."""

        def relayed(done: int, total: int) -> None:
            self.progress = done / max(total, 1)
            if progress is not None:
                progress(done, total)

        rules = {name: globals()[name] for name in PUBLISHING_RULES}
        outcome = run_build(_build_first_index, (self.root, self.settings, rules, os.getpid()), relayed, cancel,
                            self._publish_part)
        if outcome.failure is not None:
            log.warning("%s: the first index's build process failed (%s); indexing in this process",
                        self.root, outcome.failure)
            self._elsewhere_failed = True
            self._open_stored(b"")
            return None
        if cancel is None or not cancel.is_set():
            self._open_stored(outcome.result)
            self.state, self.progress, self.failure = "ready", 1.0, None
            # BM25 too, in a process of its own: built in the first one, it had added to what that build left.
            lexical = start_build(_build_lexical, (self.root, self.settings, os.getpid()))
            self._finishing = (lexical, self._snapshot.fingerprint)
        stats: RefreshStats = pickle.loads(outcome.result)[0]
        return stats

    def _open_stored(self, result: bytes) -> None:
        """Serve what a build process stored, as a restart serves it. The last partial snapshot, and the caches
        of names filled meanwhile, go first: loaded while they lived, the new records would be spread over the
        arenas theirs are then freed from, and keep them (measured while parts were built in this process:
        89 arenas of small objects and 133 MiB of heap when ready on Django, against 47 and 87). Searches in
        between (the load: 0.3 s at Django's size) answer from nothing, flagged partial. `result`: the
        process's pickled RefreshStats and the files it skipped."""
        generation = self._snapshot.generation + 1
        self._snapshot = replace(self._snapshot, generation=generation, files={}, parsed={}, doc_ids={},
                                 paths_by_id={}, trigrams=TrigramIndex.build({}), symbols=SymbolTable())
        self._partial_structure, self._graph_behind = None, False
        forget_build_names()
        gc.collect()
        return_freed()
        with paused_gc():
            loaded = self._load()
            skipped: dict[str, str] = pickle.loads(result)[1] if result else {}
            self._snapshot = replace(loaded, generation=generation + 1, skipped=skipped)
            del loaded
        self._unreadable = self._stored_unreadable()
        if len(self._snapshot.files) >= FREEZE_MIN_FILES:
            keep_long_lived()
        return_freed()

    def _publish_part(self, pointer: bytes) -> None:
        """Serve the partial snapshot a build process wrote to PART_FILE (`pointer`: its entry), mapped: its
        postings and symbol table are read in place, and only its files' records and encoded rows are held
        here. Not published when the file was replaced or removed since (a later part, or the whole index,
        follows), or its rows do not read now."""
        try:
            saved = SavedIndex.open(self.store.folder, pointer, check=False)
            files, encoded = self.store.records_of(saved.doc_ids)
        except (DamagedSaved, sqlite3.DatabaseError) as error:
            log.info("%s: a part of the first index is not served (%s)", self.root, error)
            return
        if files.keys() != saved.doc_ids.keys():
            return
        old = self._snapshot
        files = {path: files[path] for path in saved.doc_ids}  # in the part's order, as its build had them
        self._snapshot = replace(
            old, generation=old.generation + 1, files=files, parsed=StoredParsed(encoded, saved.chunk_counts),
            doc_ids=saved.doc_ids, paths_by_id={doc: path for path, doc in saved.doc_ids.items()},
            trigrams=saved.trigrams, symbols=saved.symbols,
        )
        self._graph_behind = True

    @property
    def _publishes_parts(self) -> bool:
        """Whether a first index publishes what it has now and then (a server's; a build process's for one)."""
        return self._background

    def _part_published(self) -> None:
        """After a partial snapshot is published: nothing here (a build process passes it on)."""

    @staticmethod
    def _changed(record: FileRecord | None, size: int, mtime_ns: int) -> bool:
        return record is None or record.size != size or record.mtime_ns != mtime_ns

    @paused_gc()
    def _index_paths(self, paths: list[str], skipped: dict[str, str], progress: Progress | None,
                     cancel: threading.Event | None) -> tuple[int, list[_Indexed]]:
        """Parse and store `paths`; returns how many were indexed and those not yet published.

        While a long first index runs in a server (`background`), what is done so far is published now
        and then, so searches answer from it (flagged partial) instead of from nothing.

        The cycle collector is paused throughout: the workers' records arrive here by the hundred
        thousand (unpickled in the pool's thread) and form no cycles, yet with it running, Django's
        records took 2.8 CPU-s to unpickle instead of 0.7 (the parsing itself happens in the workers).
        """
        count = 0
        pending: list[_Indexed] = []
        unwritten = 0
        published_at, publish_cost, published = time.perf_counter(), 0.0, 0
        for position, (path, item) in enumerate(self._parse_all(paths), 1):
            if cancel is not None and cancel.is_set():
                break
            if isinstance(item, str):
                skipped[path] = item
                continue
            pending.append(item)
            count, unwritten = count + 1, unwritten + 1
            if unwritten >= WRITE_BATCH:
                self._write_batch(pending, unwritten)
                unwritten = 0
                due = time.perf_counter() - published_at > max(PUBLISH_INTERVAL_S, 3 * publish_cost)
                if self._publishes_parts and due and len(pending) >= PUBLISH_GROWTH * published:
                    started = time.perf_counter()
                    self._apply(pending, (), partial=True)
                    self._part_published()
                    published += len(pending)
                    pending, published_at = [], time.perf_counter()
                    publish_cost = published_at - started
            self.progress = position / max(len(paths), 1)
            if progress is not None:
                progress(position, len(paths))
        self._write_batch(pending, unwritten)
        return count, pending

    def _write_batch(self, pending: list[_Indexed], count: int) -> None:
        """Store the rows of the last `count` entries, then keep of each only what the bulk build needs
        (`Indexed.written`): at most WRITE_BATCH encoded rows and texts are held at any time.

        A server hands each text to the content cache (its searches read them; the cache's budget bounds
        them); a one-shot CLI does not: no search runs before the index is built, and its first search
        reads only its hits' files.
        """
        start = len(pending) - count
        self.store.write(entry.stored for entry in pending[start:])
        contents = self._snapshot.contents
        for index in range(start, len(pending)):
            entry = pending[index]
            if self._background:
                contents.put(entry.stored.record.path, entry.stored.record.digest, entry.text)
            pending[index] = entry.written()

    def _built_graph(self, parsed: Mapping[str, ParsedFile],
                     uses: Mapping[str, ParsedFile] | None = None) -> CodeGraph:
        """The graph of `parsed`; `uses`: where it reads a file's references again (`CodeGraph.build`)."""
        graph = CodeGraph.build(parsed, uses)
        graph.rank_on_query = not self._background  # a server refreshes centrality after edits itself
        return graph

    def _parse_all(self, paths: list[str]) -> Iterator[tuple[str, _Indexed | str]]:
        """Read and parse files in order, on every core when there are enough to pay for the processes.

        A file that kills its worker process (a crash in a grammar, say) costs that file only: the
        files that may have been in flight are re-run one by one in a worker of their own until the
        one that crashes it is found and skipped, then the rest go back to the pool.
        """
        jobs = [(self.root, path, self.settings.max_file_size) for path in paths]
        workers = min(os.cpu_count() or 1, MAX_WORKERS)
        if workers < 2 or len(jobs) < PARALLEL_MIN_FILES:
            for path, item in zip(paths, map(self.index_job, jobs), strict=True):
                # in this process the bytes meant for the trip from a worker would only take memory
                yield path, item if isinstance(item, str) or not item.pickled else replace(item, pickled=b"")
            return
        done = 0
        while done < len(jobs):
            done = yield from self._parse_pooled(paths, jobs, done, workers)
            if done < len(jobs):
                done = yield from self._parse_suspects(paths, jobs, done)

    def _pool(self, workers: int) -> concurrent.futures.ProcessPoolExecutor:
        # spawn, not fork: the language server has threads, and a forked lock can deadlock the child
        return concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                                      initializer=_worker_started, initargs=(os.getpid(),))

    def _parse_pooled(self, paths: list[str], jobs: list[tuple[Path, str, int]], start: int,
                      workers: int) -> Generator[tuple[str, _Indexed | str], None, int]:
        """Files from `start` on, in the pool; returns where it got to (short of the end if a worker died)."""
        position = start
        tasks = [jobs[at:at + POOL_CHUNK] for at in range(start, len(jobs), POOL_CHUNK)]
        with self._pool(workers) as pool:
            try:
                out: collections.deque[concurrent.futures.Future[list[_Indexed | str]]] = collections.deque()
                for number, task in enumerate(tasks, 1):
                    out.append(pool.submit(_index_batch, self.index_job, task, self._background))
                    while out and (len(out) >= IN_FLIGHT_TASKS or number == len(tasks)):
                        for item in out.popleft().result():
                            yield paths[position], item
                            position += 1
            except concurrent.futures.process.BrokenProcessPool:
                log.warning("an indexing worker died near %s; finding the file that killed it", paths[position])
            finally:
                pool.shutdown(wait=False, cancel_futures=True)
        return position

    def _parse_suspects(self, paths: list[str], jobs: list[tuple[Path, str, int]],
                        start: int) -> Generator[tuple[str, _Indexed | str], None, int]:
        """The files that may have been in flight when a worker died, one at a time, until one kills its
        worker again (skipped with a reason) or none does; returns where it got to."""
        end = min(start + SUSPECT_FILES, len(jobs))
        position = start
        with self._pool(1) as pool:
            try:
                while position < end:
                    item = pool.submit(self.index_job, jobs[position]).result()
                    yield paths[position], item
                    position += 1
            except concurrent.futures.process.BrokenProcessPool:
                log.warning("%s crashed its indexing worker; skipped", paths[position])
                yield paths[position], "crashed the indexing worker process"
                position += 1
        return position

    def _apply(self, indexed: Sequence[_Indexed], removed: Sequence[str], skipped: Mapping[str, str] | None = None,
               buffers: dict[str, str] | None = None, partial: bool = False) -> None:
        """Publish a new snapshot with these files replaced and those removed (rows already written).

        A bulk build takes the entries: `indexed`, when a list, is emptied once read, and each file's
        trigram set is let go as soon as the postings are built (`_rebuilt`), before the graph is built
        (held through it, Django 4x's sets were 76 MB of a cold index's peak).
        """
        old = self._snapshot
        self.store.write((), removed)
        changes: dict[str, Any] = {
            "buffers": old.buffers if buffers is None else buffers,
            "skipped": old.skipped if skipped is None else skipped,
        }
        for path in removed:
            old.contents.drop(path)
        for item in indexed:
            if not item.released:
                old.contents.put(item.stored.record.path, item.stored.record.digest, item.text)
        if partial or self._graph_behind or len(indexed) + len(removed) > BULK_CHANGE:
            gone = set(removed)
            files = {p: r for p, r in old.files.items() if p not in gone}
            # The snapshot keeps a released entry's encoded row (its records here have no chunks).
            added: list[tuple[str, ParsedFile | tuple[bytes, int]]] = []
            changed: dict[str, np.ndarray] = {}
            for item in indexed:
                path = item.stored.record.path
                files[path] = item.stored.record
                added.append((path, item.entry))
                changed[path] = item.grams
            if isinstance(indexed, list):
                indexed.clear()
            parsed = StoredParsed.merged(old.parsed, gone, added)
            structure, uses = self._structure(old, parsed, changed.keys(), partial)
            with paused_gc():
                self._snapshot = self._rebuilt(old, files, parsed, changed, with_graph=not partial,
                                               structure=structure, uses=uses, positions_first=True, **changes)
                if partial:
                    self._partial_structure = (self._snapshot.generation, structure)
                del structure
                if not partial and len(files) >= FREEZE_MIN_FILES:
                    keep_long_lived()  # as after a load: these records live as long as the snapshot
            self._graph_behind = partial
            if not partial:
                self._schedule_catch_up()
            return
        self._snapshot = self._updated(old, indexed, removed, changes)
        self._schedule_centrality()
        self._schedule_catch_up()

    def _structure(self, old: Snapshot, parsed: StoredParsed, changed: Collection[str],
                   partial: bool) -> tuple[dict[str, ParsedFile], Mapping[str, ParsedFile] | None]:
        """What a bulk build reads: the files' symbols and imports, and where the graph reads their uses
        (None for a part, which builds no graph). The rows are read without their chunks, each file's
        references left to the graph, which reads them from the rows again as it resolves each file
        (`CodeGraph.build`), so no file's references outlive the pass that reads them (`Indexed`).

        Only a server's first index, published in parts, holds every file's records decoded from one part
        to the next (a dict in the same order): each part's build reads every file, and the files of
        earlier parts are not decoded again. Those too are held without their references, which no part
        reads (a part builds no graph): held through the last build, Django's raised that server's peak from
        600 to 689 MiB (a one-shot index of it peaks at ~530)."""
        kept, self._partial_structure = self._partial_structure, None
        earlier = kept[1] if kept is not None and kept[0] == old.generation else {}
        rows = parsed.unkept(chunks=False)
        structure = {path: earlier[path] if path in earlier and path not in changed
                     else replace(rows[path], references=()) for path in parsed}
        return structure, None if partial else rows

    def _schedule_catch_up(self) -> None:
        """After edits, bring the slower modalities up to the new snapshot in the background: embed the
        new chunks (cached by content hash, so an unchanged chunk costs nothing) and rebuild BM25.

        Debounced: a burst of saves is one pass. It starts only once the first embedding pass has
        run (`embed_pending`, called by the server after the first index), so the two never race
        for the first vectors.
        """
        if not self._background or self._closing.is_set():
            return
        with self._catch_up_lock:
            if self._catch_up_timer is not None:
                self._catch_up_timer.cancel()
            self._catch_up_timer = threading.Timer(CATCH_UP_DELAY_S, self._catch_up)
            self._catch_up_timer.daemon = True
            self._catch_up_timer.name = "catch-up"
            self._catch_up_timer.start()

    def _catch_up(self) -> None:
        snapshot = self._snapshot
        self._catch_up_lexical(snapshot)
        if not self._embedding_started or self.settings.semantic_backend == "none":
            return
        try:
            self._embedder.run(snapshot, None, self._closing)
            self._embed_failure = None
        except Exception as error:  # semantic search stays on its last vectors; status says why
            self._embed_failure = f"embedding failed: {type(error).__name__}: {error}"
            log.exception("background embedding of %s failed", self.root)
            return
        if self._snapshot.generation != snapshot.generation:
            self._schedule_catch_up()  # edits landed while this pass ran

    def _catch_up_lexical(self, snapshot: Snapshot) -> None:
        """Rebuild BM25 for `snapshot` now, in this thread: a build already under way may be for an older
        snapshot (LexicalCache.warm then starts none), so wait for it and warm again."""
        for _ in range(LEXICAL_ATTEMPTS):
            if not self._lexical_behind(snapshot):
                return
            if self._lexical_goes_elsewhere(snapshot):
                if self._lexical_built_elsewhere(snapshot) or self._snapshot.generation != snapshot.generation:
                    return  # served; or edits landed meanwhile, and the catch-up they scheduled builds for them
                self._lexical_elsewhere_failed = True  # the process failed: this one builds BM25 from now on
            self._lexical.warm(snapshot)
            building: threading.Thread | None = getattr(self._lexical, "_building", None)
            if building is None:
                return
            building.join()

    def _lexical_goes_elsewhere(self, snapshot: Snapshot) -> bool:
        """Whether BM25 for `snapshot` is rebuilt by a process of its own (`_lexical_built_elsewhere`): a server's,
        over a repository of at least ELSEWHERE_MIN_FILES files, with no unsaved buffer (their chunks are not
        in the rows that process reads). A rebuild here held the GIL for seconds after every edit (25 CPU-s at
        4x Django), and `workspace/symbol` beside it answered in 177 ms at p95 instead of a few."""
        return (self._background and not self._lexical_elsewhere_failed and not snapshot.buffers
                and len(snapshot.files) >= ELSEWHERE_MIN_FILES)

    def _lexical_built_elsewhere(self, snapshot: Snapshot) -> bool:
        """Build BM25 over the stored rows in a process of its own, which stores it, and serve it when it was
        built from `snapshot`'s rows; one such process at a time. Whether it is served (False when the process
        failed, or read rows that edits since `snapshot` had changed)."""
        with self._lexical_elsewhere_lock:
            if not self._lexical_behind(snapshot):
                return True  # the one before this caught up
            if self._closing.is_set():
                return False
            finishing = start_build(_build_lexical, (self.root, self.settings, os.getpid()))
            self._finishing = (finishing, snapshot.fingerprint)
            finishing.wait(LEXICAL_ELSEWHERE_WAIT_S)
            if not self._lexical.adopt(snapshot):
                return False
            with self._lexical_lock:
                self._lexical_pending = None  # an older build of this process's, never to be stored now
            return True

    def _lexical_behind(self, snapshot: Snapshot) -> bool:
        """Whether BM25 was built once and is older than `snapshot` (never built: the first question builds it)."""
        generation: int = getattr(self._lexical, "_generation", -1)
        return generation >= 0 and generation < snapshot.generation

    def _stored_unreadable(self) -> dict[str, tuple[int, int, str]]:
        """The files refused on reading at the last refresh, with the (size, mtime) they were refused at:
        without them a restart re-read Django's ~1,400 binary and minified files (1.7 s in a worker pool)."""
        stored = self.store.read_derived(UNREADABLE_ENTRY)
        if stored is None:
            return {}
        try:
            entries = json.loads(zlib.decompress(stored[1]))
            return {str(path): (int(size), int(mtime_ns), str(reason)) for path, size, mtime_ns, reason in entries}
        except (zlib.error, ValueError, TypeError) as error:  # re-reading them is the safe answer
            log.warning("%s: stored list of unreadable files is damaged (%s); they are read again",
                        self.store.path, error)
            self.store.repairs.append(f"stored list of unreadable files was damaged ({error}); they were read again")
            return {}

    def _store_unreadable(self) -> None:
        entries = [[path, *entry] for path, entry in sorted(self._unreadable.items())]
        self.store.write_derived(UNREADABLE_ENTRY, "", zlib.compress(json.dumps(entries).encode(), 1))

    def _build_graph_behind(self) -> None:
        """A server builds a deferred graph's edges in the background, so the first graph question
        (who calls, impact) does not wait for them; a one-shot CLI builds them only if asked. A mapped
        graph answers from its stored edges, and is built only when an edit needs it."""
        graph = self._snapshot.graph
        if self._background and not graph.built and not graph.mapped:
            threading.Thread(target=graph.ensure_built, daemon=True, name="graph-build").start()

    def _schedule_centrality(self) -> None:
        """Recompute PageRank shortly after a burst of edits, in the background, so the next search does
        not pay for it (a one-shot CLI run skips this: its searches recompute on demand)."""
        if not self._background:
            return
        if self._centrality_timer is not None:
            self._centrality_timer.cancel()
        self._centrality_timer = threading.Timer(CENTRALITY_DELAY_S, self._snapshot.graph.refresh_centrality)
        self._centrality_timer.daemon = True
        self._centrality_timer.name = "centrality"
        self._centrality_timer.start()

    def _updated(self, old: Snapshot, indexed: Sequence[_Indexed], removed: Sequence[str],
                 changes: dict[str, Any]) -> Snapshot:
        """A snapshot that shares everything with `old` but the few files that changed (copy-on-write)."""
        files = dict(old.files)
        gone: list[str] = []
        changed: dict[str, ParsedFile] = {}
        doc_ids, paths_by_id = dict(old.doc_ids), dict(old.paths_by_id)
        trigrams, symbols, graph = old.trigrams, old.symbols, old.graph
        for path in removed:
            if path in files:
                doc = doc_ids.pop(path)
                paths_by_id.pop(doc, None)
                del files[path]
                gone.append(path)
                trigrams, symbols = trigrams.without_doc(doc), symbols.without_file(path)
                graph = graph.without_file(path)
        for item in indexed:
            record = item.stored.record
            doc = doc_ids.get(record.path) or self._new_id()
            doc_ids[record.path], paths_by_id[doc] = doc, record.path
            records = item.records()
            files[record.path], changed[record.path] = record, records
            trigrams = trigrams.with_doc(doc, item.grams)
            symbols = symbols.with_file(record.path, records.symbols)
            graph = graph.with_file(record.path, records)
        parsed: Mapping[str, ParsedFile]
        if any(item.released for item in indexed):  # their records here have no chunks: keep their rows
            parsed = StoredParsed.merged(old.parsed, gone, [(item.stored.record.path, item.entry) for item in indexed])
        else:
            parsed = _edited(old.parsed, changed, gone)
        return replace(old, generation=old.generation + 1, files=files, parsed=parsed,
                       doc_ids=doc_ids, paths_by_id=paths_by_id, trigrams=trigrams, symbols=symbols,
                       graph=graph, **changes)

    # --- one-file updates ----------------------------------------------------------------
    def update_file(self, path: Path | str) -> None:
        """Re-read one file from disk after it was created, changed or deleted."""
        relative = self.relative(path)
        if relative is None:
            return
        with self._write_lock:
            if relative in self._snapshot.buffers:
                return  # the editor's buffer wins until it is closed
            item = _index_or_reason(self.root, relative, self.settings.max_file_size)
            skipped = self._snapshot.skipped  # shared unless this file's entry changes (a copy per edit)
            if relative in skipped:
                skipped = {path: reason for path, reason in skipped.items() if path != relative}
            if isinstance(item, str):
                if (self.root / relative).exists():
                    skipped = {**skipped, relative: item}
                self._apply((), [relative], skipped)
                return
            self.store.write([item.stored])
            self._apply([item], (), skipped)

    def rename_file(self, old: Path | str, new: Path | str) -> None:
        self.update_file(old)
        self.update_file(new)

    def set_buffer(self, path: Path | str, text: str) -> None:
        """Make unsaved editor content searchable as it is on screen (not written to the store)."""
        relative = self.relative(path)
        if relative is None:
            return
        with self._write_lock:
            buffers = {**self._snapshot.buffers, relative: text}
            record = FileRecord(
                relative,
                len(text.encode()),
                time.time_ns(),
                f"buffer:{hash(text)}",
                detect_language(relative, text),
            )
            self._apply([_index_text(record, text)], (), buffers=buffers)

    def clear_buffer(self, path: Path | str) -> None:
        """The editor closed the buffer: go back to what is on disk."""
        relative = self.relative(path)
        if relative is None or relative not in self._snapshot.buffers:
            return
        with self._write_lock:
            buffers = {k: v for k, v in self._snapshot.buffers.items() if k != relative}
            self._apply((), (), buffers=buffers)
            self.update_file(relative)

    def relative(self, path: Path | str) -> str | None:
        """The root-relative POSIX path of a file inside this root, or None for a file elsewhere."""
        candidate = Path(path)
        if not candidate.is_absolute():
            return candidate.as_posix()
        try:
            return candidate.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None

    # --- searching -----------------------------------------------------------------------
    def _prepare(self, snapshot: Snapshot, request: SearchRequest) -> ParsedQuery:
        """Read the query once (the searcher uses this reading), and build BM25 first if it is a question
        and none is built yet, outside the retriever's time budget (literal, identifier and regex
        searches never wait for it)."""
        parsed = self._searcher.parse(snapshot, request)
        if parsed.lexical or (request.intent is None and parsed.pasted):
            self._lexical.ensure(snapshot)
        return parsed

    def search(self, request: SearchRequest) -> SearchResponse:
        snapshot = self._snapshot
        return self._searcher.search(snapshot, request, self._prepare(snapshot, request))

    def search_answer(self, request: SearchRequest, folder: str | None = None) -> Answer:
        """The `fourfold.search` answer (DESIGN §7), with the index state it was answered from.

        The answer keeps the snapshot it read, so a client converts its positions on that text;
        `folder` names this root in the answer's results (the client's URI for it, else the root's).
        """
        snapshot = self._snapshot
        response = self._searcher.search(snapshot, request, self._prepare(snapshot, request))
        index = IndexState(ready=self.ready, state=self.state, files=len(snapshot.files))
        return answer_of(response, snapshot, index, partial=not self.ready,
                         notes=self._behind_notes(response, request), folder=folder)

    def search_dict(self, request: SearchRequest) -> dict[str, Any]:
        """`search_answer` as the protocol's JSON (engine columns: code points)."""
        return self.search_answer(request).to_dict()

    def every_line(self, query: str, page: int = LINE_PAGE, paths: Sequence[str] | None = None,
                   languages: Sequence[str] | None = None) -> LineMatches:
        """Every line matching a literal, identifier or regex query (`parse_text_query`'s syntax), as grep
        lists them: the first `page` as full hits, the rest as (path, line); only in files matching the
        `paths` globs and `languages` ids when given. Raises QueryError."""
        snapshot = self._snapshot
        return every_line(snapshot, parse_text_query(query), page, allowed=path_filter(snapshot, paths, languages))

    def _behind_notes(self, response: SearchResponse, request: SearchRequest) -> list[str]:
        """What a search answered before a modality it used caught up with the latest edits should say.

        Semantic counts as used also when the preset has it but it was left out for want of vectors.
        """
        used = {name for name, report in response.modalities.items() if report.ran}
        preset = PRESETS.get(response.preset)
        wanted = preset is not None and request.modes is None and "semantic" in preset.modalities
        if wanted and not self._embedder.available():
            used.add("semantic")
        status = self.modality_status()
        notes = []
        semantic = status["semantic"]
        if "semantic" in used and semantic["state"] not in ("ready", "off"):
            notes.append(f"semantic is not current: {semantic['done']} of {semantic['total']} chunks embedded")
        if "text" in used and status["lexical"] != "ready":
            notes.append("text: BM25 is being rebuilt after recent edits; questions may miss them")
        if "graph" in used and status["graph"] != "ready":
            notes.append("graph: centrality is being recomputed after recent edits")
        return notes

    def status(self) -> dict[str, Any]:
        """`fourfold.indexStatus` (DESIGN §7) plus what a user needs to trust it: skips, backend, size."""
        snapshot = self._snapshot
        pending = self._embedder.pending  # chunks done / all of the backend still being embedded
        return {
            "ready": self.ready,
            "state": self.state,
            "root": str(self.root),
            "files": len(snapshot.files),
            "symbols": snapshot.symbol_count,
            "chunks": snapshot.chunk_count,
            "embedded": self._embedder.embedded,
            "backend": self._embedder.backend_name,
            "backend_note": self._embedder.note,
            "semantic_model": self._embedder.active_model,
            "semantic_progress": None if pending is None else {
                "backend": pending.backend, "done": pending.done, "total": pending.total,
            },
            "progress": round(self.progress, 4),
            **self.modality_status(),
            "last_error": self.failure or self.last_error,
            "repairs": list(self.store.repairs) + ([self._embedder.repair] if self._embedder.repair else []),
            "skipped": len(snapshot.skipped),
            "skipped_by_reason": dict(Counter(snapshot.skipped.values()).most_common()),
            "skipped_files": [{"path": path, "reason": reason}
                              for path, reason in sorted(snapshot.skipped.items())[:STATUS_SKIPPED_LISTED]],
            "index_dir": str(self.store.folder),
        }

    def embed_pending(self, progress: Progress | None = None, cancel: threading.Event | None = None) -> int:
        """Embed every chunk not in the cache yet (in the caller's thread); returns how many were embedded.

        From then on, edits are embedded in the background as they land (`_schedule_catch_up`).
        """
        snapshot = self._snapshot
        self._embedding_started = True
        count = self._embedder.run(snapshot, progress, cancel)
        if self._snapshot.generation != snapshot.generation:
            self._schedule_catch_up()  # edits landed during the first pass
        return count

    def modality_status(self) -> dict[str, Any]:
        """How current each modality is against the snapshot searches read now.

        `text` and `structural` are updated with every change (`ready` says they are built); BM25
        for questions, the vectors and graph centrality catch up in the background, so each says
        "ready" or "updating" ("embedding" for vectors), and `current` is true when all are.
        """
        snapshot = self._snapshot
        semantic = self._semantic_status(snapshot)
        lexical = "updating" if self._lexical_behind(snapshot) else "ready"
        timer = self._centrality_timer
        graph = "updating" if self._graph_behind or (timer is not None and timer.is_alive()) else "ready"
        current = self.ready and lexical == "ready" and graph == "ready" and semantic["state"] in ("ready", "off")
        return {"semantic": semantic, "lexical": lexical, "graph": graph, "current": current}

    def _semantic_status(self, snapshot: Snapshot) -> dict[str, Any]:
        if self.settings.semantic_backend == "none":
            return {"state": "off", "done": 0, "total": 0}
        view = self._embedder.state.view
        key = (snapshot.generation, id(view))
        if self._semantic_cache is not None and self._semantic_cache[0] == key:
            done, total = self._semantic_cache[1]
        else:
            digests = {chunk.digest for parsed in snapshot.parsed.values() for chunk in parsed.chunks}
            done = sum(1 for digest in digests if digest in view.vectors) if view is not None else 0
            total = len(digests)
            self._semantic_cache = (key, (done, total))
        state = "ready" if done == total else "error" if self._embed_failure else "embedding"
        status: dict[str, Any] = {"state": state, "done": done, "total": total}
        if self._embed_failure and done < total:
            status["error"] = self._embed_failure
        return status

    # --- navigation ----------------------------------------------------------------------
    # Each takes the snapshot to answer from (the latest by default): a client that converts the
    # positions it gets back passes the one it converts on, so both read the same text.
    def symbol_at(self, path: str, line: int, col: int, snapshot: Snapshot | None = None) -> Symbol | None:
        """The definition whose name is at this position, else the innermost definition around it."""
        return navigation.symbol_at(snapshot or self._snapshot, path, line, col)

    def definitions_at(self, path: str, line: int, col: int, snapshot: Snapshot | None = None) -> list[Hit]:
        return navigation.definitions_at(snapshot or self._snapshot, path, line, col)

    def references_at(self, path: str, line: int, col: int, snapshot: Snapshot | None = None) -> list[Hit]:
        return navigation.references_at(snapshot or self._snapshot, path, line, col)

    def incoming_calls(self, symbol: Symbol, snapshot: Snapshot | None = None) -> list[tuple[Symbol, list[Span]]]:
        return navigation.incoming_calls(snapshot or self._snapshot, symbol)

    def outgoing_calls(self, symbol: Symbol, snapshot: Snapshot | None = None) -> list[tuple[Symbol, list[Span]]]:
        return navigation.outgoing_calls(snapshot or self._snapshot, symbol)

    def central_symbols(self, limit: int = 50, snapshot: Snapshot | None = None) -> list[Symbol]:
        return navigation.central_symbols(snapshot or self._snapshot, limit)

    def close(self) -> None:
        self._closing.set()
        if self._finishing is not None:
            self._finishing[0].stop()  # a BM25 not stored yet is built by the next start that needs it
        with self._catch_up_lock:
            if self._catch_up_timer is not None:
                self._catch_up_timer.cancel()
        with self._write_lock:
            try:
                self._store_rank()
            except (OSError, sqlite3.Error) as error:  # the next start ranks again; closing must not fail
                log.warning("%s: centrality not stored: %s", self.store.path, error)
            try:
                self._store_saved()
                self._store_positions()
            except (OSError, sqlite3.Error) as error:  # the next start builds them; closing must not fail
                log.warning("%s: indexes not saved: %s", self.store.path, error)
            with self._lexical_lock:
                self._store_lexical()
            self.store.close()
        self._searcher.close()


class _BuildWorkspace(Workspace):
    """The one-shot workspace of a build process: it publishes partial snapshots as a server's first index
    does, each as a saved index in PART_FILE that the server maps (`Workspace._publish_part`)."""

    def __init__(self, root: Path, settings: Settings, channel: BuildChannel) -> None:
        super().__init__(root, settings, background=False)
        self._channel = channel

    @property
    def _publishes_parts(self) -> bool:
        return True

    def _part_published(self) -> None:
        snapshot = self._snapshot
        saved = SavedIndex("", dict(snapshot.doc_ids), snapshot.trigrams, snapshot.symbols,
                           {path: snapshot.chunk_counts[path] for path in snapshot.doc_ids})
        try:
            self._channel.part(saved.write(self.store.folder / PART_FILE))
        except (ValueError, OSError) as error:  # the server answers from its last part a while longer
            log.warning("%s: a part of the first index is not written (%s)", self.store.path, error)

    def remove_part(self) -> None:
        (self.store.folder / PART_FILE).unlink(missing_ok=True)


def _build_first_index(root: Path, settings: Settings, rules: Mapping[str, float], parent: int,
                       connection: Connection) -> None:
    """The build process of `Workspace._refresh_elsewhere`: a one-shot workspace indexes `root` whole, stores
    what a restart opens (BM25 is left to `_build_lexical`), and sends back its RefreshStats and the files it
    skipped. The partial snapshots it publishes on the way, by the server's `rules` (PUBLISHING_RULES), are
    passed on as they are written. It dies with the server (`worker_started`): killed mid-write, it leaves
    whole batches, as an indexer killed in the server's own process does; its run_build waits for it."""
    _worker_started(parent)
    globals().update({name: rules[name] for name in PUBLISHING_RULES})
    channel = BuildChannel(connection)
    try:
        workspace = _BuildWorkspace(root, settings, channel)
        try:
            stats = workspace.refresh(channel.progress, channel.cancel)
            # As one bytes object: unpickled once the parent has let its partial snapshots go (`_open_stored`),
            # so the skipped paths' strings are not scattered among the arenas those are freed from.
            result = pickle.dumps((stats, dict(workspace.snapshot().skipped)))
        finally:
            workspace.close()
            workspace.remove_part()
        channel.result(result)
    except Exception as error:  # said to the parent, which indexes in its own process instead
        log.exception("building the first index of %s failed", root)
        channel.fail(f"{type(error).__name__}: {error}")


def _build_lexical(root: Path, settings: Settings, parent: int, connection: Connection) -> None:
    """The second build process of `Workspace._refresh_elsewhere`: BM25 over the index the first one stored,
    opened as a restart opens it, and stored for the server to open (`_open_lexical` waits for it). It exits
    once the server has gone (the thread that started it may end first: no signal)."""
    _worker_started(parent, signalled=False)
    channel = BuildChannel(connection)
    try:
        opened = Workspace(root, settings, background=False)
        try:
            opened._lexical.get(opened.snapshot())  # stored at once (`_lexical_built`)
        finally:
            opened.close()
    except Exception as error:  # the server's first question that needs BM25 builds it
        log.exception("building BM25 for %s failed", root)
        channel.fail(f"{type(error).__name__}: {error}")
        return
    channel.finish()
