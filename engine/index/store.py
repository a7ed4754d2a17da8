"""The index on disk: one SQLite file per workspace root, outside the workspace by default.

SQLite gives what a code index needs from its storage: a per-file row that can be replaced alone
(incremental updates touch one row), and transactions, so a process killed mid-write leaves the
previous consistent state. The schema version lives in `PRAGMA user_version`; an old, truncated or
corrupted file is detected on open and rebuilt from the workspace, never trusted and never a crash.

A row's parsed payload is the pickled `ParsedFile`, compressed. A start that opens the saved indexes
decodes a row only when something asks for that file (`StoredParsed`), and a first index keeps the
rows it wrote encoded too, so decoding speed is what a search pays per file it shows: unpickling
restores the records in C without running their constructors, and with the cycle collector paused
Django's rows decode in about 1 s of CPU instead of 2.7 s (JSON rows and `from_row`). Encoded, a
Django row is a tenth of its records' memory (19 MB for all rows against ~200 MB decoded). Pickle is
only safe for data we wrote ourselves: the index lives in the user's own cache folder, and the schema
version guards against rows pickled from records of another layout.

Next to the rows, a `derived` table keeps what is computed from all of them and costly to compute
again: today the graph's centrality (`graph.centrality.StoredRank`, an `.npz` of compact arrays). Each entry
carries the fingerprint of the rows it was computed from (`fingerprint`), so an entry that does not
match the rows, or does not decode, is simply computed again. The table is additive: the rows'
layout (and SCHEMA_VERSION) is unchanged, and an older index without it just lacks the entries.
BM25, arrays best opened memory-mapped rather than read out of a blob, is kept the same way in a
folder next to this file (`lexical.LexicalIndex.save`, keyed by the same fingerprint).

SQLite's own checks pass on a row whose blob was garbled, so every row is checked as it is decoded:
one that fails is deleted, its cause logged and listed in `repairs`, and its file re-indexed by the
next refresh; damage SQLite reports itself rebuilds the whole file with a message that says so.
"""

from __future__ import annotations

import contextlib
import io
import logging
import pickle
import sqlite3
import threading
import zlib
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import platformdirs
import xxhash

from ..model.memory import paused_gc
from ..model.records import FileRecord, ParsedFile
from ..model.tokens import TOKENIZING

# Bump whenever the row layout, a record's fields, or anything derived from parsing changes meaning,
# and when the graph resolves names differently: the stored centrality is keyed by this number too.
# 11: the records live in `fourfold.engine.model.records` (rows are pickled under their module's name).
# 12: a C++ namespace's using-declarations (`using std::string_view;`) are definitions.
# 13: the same re-export after a macro line (`ABSL_NAMESPACE_BEGIN`), which the grammar misreads.
# 14: R, Erlang, Clojure, Elm, Nim, D, Gleam, Vue, Svelte and the pack's other languages are parsed (were
#     text only); a Rust file's `pub use other_crate::Name;` re-exports are symbols (`Symbol.reexport_of`);
#     C/C++ macro lines the grammar misreads as a declaration's type are blanked before parsing.
# 15: Haskell's infix operands, Terraform's `var.`/`local.` uses and SQL's tables are references (their
#     patterns captured a bare `@reference`, which was never read).
# 16: docs above a Rust attribute or a TypeScript decorator, and above a Ruby body's first definition, are
#     the item's doc (a blank line after a Rust `//!` parts it from the item's); Erlang definitions are
#     qualified by their module and `m:f(…)` calls are `m.f` (the graph no longer reads `ets:lookup` in
#     `lookup` as a self-call); Nim `##` docs, Vue/Svelte template names and script state, Lisp parameter
#     lists are read as they are meant.
# 17: C/C++ specifier and attribute macros (`FMT_CONSTEXPR void f()`, `void f() FMT_NOEXCEPT`) are blanked
#     where that mends the parse, and macro-opened namespaces (`FMT_BEGIN_NAMESPACE`) are read as namespaces;
#     C/C++ struct members are fields and file-scope values variables or constants; PHP's statement
#     `namespace A\B;` qualifies the definitions after it; Elixir `@type`/`@typep`/`@opaque` are types and
#     `@callback`/`@macrocallback` functions.
# 18: comment lines of Erlang, MATLAB, R, the Lisps, Elm, PureScript, Gleam, Nim, Tcl, GDScript, Ada,
#     Fortran and Pascal right above a definition are part of its chunk, as other languages' were; a
#     backquoted name (R's `%>%`, Kotlin's fun `parses a header`) is stored without its quotes.
SCHEMA_VERSION = 18
INDEX_FILE = "index.sqlite"
# Beside it: the saved trigram postings and symbol table (`saved.SavedIndex.write`), memory-mapped by a
# restart; the `derived` entry `index.saved` names it with its size and digest, so a file that is not the
# one the entry was written with is never read.
SAVED_FILE = "index.saved"
log = logging.getLogger(__name__)
_DERIVED_TABLE = ("CREATE TABLE IF NOT EXISTS derived ("
                  "name TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, blob BLOB NOT NULL)")


def fingerprint(records: Iterable[FileRecord]) -> str:
    """Names the exact set of file versions an index holds, and the tokenizing it was read with:
    whatever is derived from all the rows is valid for another index only if its fingerprint is the same."""
    digest = xxhash.xxh3_128()
    for path, file_digest in sorted((record.path, record.digest) for record in records):
        digest.update(f"{path}\0{file_digest}\n".encode("utf-8", "surrogatepass"))
    return f"{SCHEMA_VERSION}:{TOKENIZING}:{digest.hexdigest()}"


def payload_digest(rows: Iterable[EncodedRow]) -> str:
    """Names the exact bytes of the rows (paths, packed trigrams, parsed payloads): what is derived from
    rows that decoded once is valid for rows read later only when these bytes are the same."""
    return _digest_sorted((row.record.path, row.trigrams, row.parsed)
                          for row in sorted(rows, key=lambda row: row.record.path))


def _digest_sorted(rows: Iterable[tuple[str, bytes, bytes]]) -> str:
    digest = xxhash.xxh3_128()
    for path, trigrams, parsed in rows:
        for part in (path.encode("utf-8", "surrogatepass"), trigrams, parsed):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
    return f"{SCHEMA_VERSION}:{TOKENIZING}:{digest.hexdigest()}"


def default_index_dir(root: Path) -> Path:
    """The platform's user cache dir, one folder per root (named so a person can tell which)."""
    resolved = root.resolve()
    tag = xxhash.xxh3_64_hexdigest(str(resolved).encode())[:12]
    return Path(platformdirs.user_cache_dir("fourfold")) / f"{resolved.name or 'root'}-{tag}"


@dataclass(frozen=True)
class StoredFile:
    """One row: the file's identity, its packed trigrams and everything the structural pass found."""

    record: FileRecord
    trigrams: bytes
    parsed: ParsedFile
    encoded: bytes = b""

    def with_encoding(self, pickled: bytes | None = None) -> StoredFile:
        """The same row with its parsed payload serialised now (in a worker process, off the main thread);
        `pickled`: the records without their chunks as `pickle_parsed` gave them, when the caller has them."""
        return StoredFile(self.record, self.trigrams, self.parsed, encode_parsed(self.parsed, pickled))


@dataclass(frozen=True)
class EncodedRow:
    """One row as stored, not decoded yet: the file's identity, its packed trigrams, its parsed payload."""

    record: FileRecord
    trigrams: bytes
    parsed: bytes


# What a damaged row can raise while it is decompressed and unpickled.
DECODE_ERRORS = (
    zlib.error,
    pickle.UnpicklingError,
    EOFError,
    ValueError,
    TypeError,
    AttributeError,
    IndexError,
    KeyError,
    ImportError,
    MemoryError,
)


def cause(error: BaseException) -> str:
    """An error as a log line names it: `zlib.error: ...`, not a bare `error: ...`."""
    kind = type(error)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    return f"{name}: {error}"


class CorruptRow(ValueError):
    """A row whose payload is not a pickled ParsedFile, or whose columns have the wrong types."""


def _check_columns(path: object, size: object, mtime_ns: object, digest: object, language: object,
                   trigrams: object, parsed: object) -> None:
    """SQLite keeps whatever type was written: a damaged row can hold text where a blob belongs."""
    if not (isinstance(path, str) and isinstance(size, int) and isinstance(mtime_ns, int)
            and isinstance(digest, str) and (language is None or isinstance(language, str))
            and isinstance(trigrams, bytes) and isinstance(parsed, bytes)):
        raise CorruptRow("a column holds a value of the wrong type")


def pickle_parsed(parsed: ParsedFile) -> bytes:
    return pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)


def encode_parsed(parsed: ParsedFile, pickled: bytes | None = None) -> bytes:
    """The row payload: the records without their chunks pickled (`pickled`, when given, is
    `pickle_parsed` of them), then the chunks pickled after them (none when there are none), compressed.

    Two pickles, not one of the whole: a worker pickles the records without chunks anyway for the trip
    to the indexer (`indexjob.Indexed`), and pickling the whole file again for its row had cost Django's
    cold index 0.7 CPU-s of its workers. A row written before, one pickle of the whole, still decodes.
    Level 1: five times faster than the default and within a few percent of its size on code;
    uncompressed, Django's payloads would take 90 MB instead of 20.
    """
    head = pickle_parsed(replace(parsed, chunks=()) if parsed.chunks else parsed) if pickled is None else pickled
    if not parsed.chunks:
        return zlib.compress(head, 1)
    return zlib.compress(head + pickle.dumps(parsed.chunks, protocol=pickle.HIGHEST_PROTOCOL), 1)


def decode_parsed(blob: bytes, chunks: bool = True) -> ParsedFile:
    """A row's payload; without `chunks`, only its records without their chunks (the first pickle: the
    chunks, most of a row, are not unpickled; an older row of one pickle keeps its chunks)."""
    data = zlib.decompress(blob)
    stream = io.BytesIO(data)
    parsed = pickle.Unpickler(stream).load()
    if not isinstance(parsed, ParsedFile):
        raise CorruptRow(f"row holds a {type(parsed).__name__}, not a ParsedFile")
    if stream.tell() == len(data) or not chunks:
        return parsed
    chunks = pickle.Unpickler(stream).load()
    if parsed.chunks or not isinstance(chunks, tuple) or stream.tell() != len(data):
        raise CorruptRow("row holds chunks in two places, chunks that are not a tuple, or bytes after them")
    return replace(parsed, chunks=chunks)


class _EncodedRows:
    """The payloads of the rows a restart opened, each decoded once and then kept decoded (shared by
    every snapshot derived from that restart's), with each row's chunk count when the saved indexes
    kept them (`counts`), so counting or listing chunks decodes nothing."""

    def __init__(self, encoded: Mapping[str, bytes], counts: Mapping[str, int] | None = None) -> None:
        self.encoded = dict(encoded)
        self.decoded: dict[str, ParsedFile] = {}
        self.counts: dict[str, int] = dict(counts) if counts is not None else {}
        self.decodes = 0  # rows decoded so far, kept or not
        self.lock = threading.Lock()

    def count(self, path: str) -> int:
        """How many chunks the row of `path` holds (decoded to count them only when no count was kept)."""
        found = self.counts.get(path)
        return found if found is not None else len(self.get(path).chunks)

    def get(self, path: str, keep: bool = True, chunks: bool = True) -> ParsedFile:
        """The row of `path` decoded; kept decoded from then on unless `keep` is False (and not kept yet).
        Without `chunks` (only with `keep` False) a row not kept decoded is read without its chunks."""
        found = self.decoded.get(path)
        if found is not None:
            return found
        if not keep:
            return self._decoded(path, self.encoded.get(path), chunks)
        with self.lock:
            found = self.decoded.get(path)
            if found is not None:
                return found
            found = self._decoded(path, self.encoded[path])
            self.decoded[path] = found
            del self.encoded[path]  # each file is held once: encoded or decoded
            return found

    def _decoded(self, path: str, blob: bytes | None, chunks: bool = True) -> ParsedFile:
        if blob is None:  # decoded and kept since the caller looked
            return self.decoded[path]
        self.decodes += 1
        try:
            return decode_parsed(blob, chunks)
        except DECODE_ERRORS as error:
            log.error("row for %r does not decode (%s); it reads as empty until re-indexed", path, cause(error))
            return ParsedFile()


class StoredParsed(Mapping[str, ParsedFile]):
    """Each file's ParsedFile, decoded from its row the first time something asks for it (and kept: what
    the searches of a session read); one pass over every file that keeps its own copy of what it needs
    reads them through `unkept` instead, so the pass does not leave every row decoded.

    A restart that opens the saved indexes (`index.saved`) needs no file's references or chunks to
    answer its first question; decoding all of Django's rows up front was about 1.5 CPU-s. An edit
    (`with_changes`) keeps the others encoded: it shares the rows and holds only what changed. The
    rows' bytes were checked against the digest of rows that decoded before, so a decode failure
    here is not expected; if one happens anyway it is logged and the file reads as empty, never a crash.
    """

    def __init__(self, encoded: Mapping[str, bytes], counts: Mapping[str, int] | None = None) -> None:
        """`counts`: each row's chunk count as the saved indexes kept it (`SavedIndex.chunk_counts`)."""
        self._rows = _EncodedRows(encoded, counts)
        self._order: dict[str, None] = dict.fromkeys(encoded)
        self._own: dict[str, ParsedFile] = {}

    def with_changes(self, changed: Mapping[str, ParsedFile], removed: Iterable[str]) -> StoredParsed:
        """A new mapping without `removed` and with `changed` (new or replaced), ordered as a dict
        edited the same way would be; this one is unchanged."""
        gone = set(removed)
        if gone or any(path not in self._order for path in changed):
            order = dict.fromkeys(path for path in self._order if path not in gone)
            for path in changed:
                order.setdefault(path)
        else:  # the same paths in the same order: shared, never written (a copy is 7 ms at 4x Django)
            order = self._order
        derived = StoredParsed.__new__(StoredParsed)
        derived._rows = self._rows
        derived._order = order
        derived._own = {path: parsed for path, parsed in self._own.items() if path not in gone}
        derived._own.update(changed)
        return derived

    @classmethod
    def merged(cls, old: Mapping[str, ParsedFile], removed: Iterable[str],
               added: Iterable[tuple[str, ParsedFile | tuple[bytes, int]]]) -> StoredParsed:
        """`old` without `removed` and with `added`, in the order a dict edited so would have: each added
        file as its records or as its encoded row and chunk count (the row is decoded when asked).
        Rows `old` left encoded stay encoded; what it holds decoded is carried over decoded."""
        gone = set(removed)
        encoded: dict[str, bytes] = {}
        counts: dict[str, int] = {}
        own: dict[str, ParsedFile] = {}
        if isinstance(old, StoredParsed):
            rows = old._rows
            with rows.lock:
                for path in old._order:
                    if path in gone:
                        continue
                    if path in old._own:
                        own[path] = old._own[path]
                    elif path in rows.decoded:
                        own[path] = rows.decoded[path]
                    else:
                        encoded[path] = rows.encoded[path]
                        if path in rows.counts:
                            counts[path] = rows.counts[path]
            order = [path for path in old._order if path not in gone]
        else:
            own = {path: parsed for path, parsed in old.items() if path not in gone}
            order = list(own)
        for path, value in added:
            own.pop(path, None)
            encoded.pop(path, None)
            counts.pop(path, None)
            if isinstance(value, ParsedFile):
                own[path] = value
            else:
                encoded[path], counts[path] = value
            order.append(path)
        made = cls(encoded, counts)
        made._order = dict.fromkeys(order)
        made._own = own
        return made

    def __getitem__(self, path: str) -> ParsedFile:
        return self.read(path)

    def read(self, path: str, keep: bool = True, chunks: bool = True) -> ParsedFile:
        """The file's records: its own if it changed since the restart, else its row decoded (and kept
        decoded from then on unless `keep` is False; without `chunks`, only with `keep` False, a row
        read now is decoded without its chunks)."""
        own = self._own.get(path)
        if own is not None:
            return own
        if path not in self._order:
            raise KeyError(path)
        return self._rows.get(path, keep, chunks)

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, path: object) -> bool:
        return path in self._order

    def chunk_counts(self) -> dict[str, int]:
        """Each file's number of chunks, in this mapping's order, without decoding rows whose count was kept."""
        own, rows = self._own, self._rows
        return {path: len(own[path].chunks) if path in own else rows.count(path) for path in self._order}

    def unkept(self, chunks: bool = True) -> Mapping[str, ParsedFile]:
        """The same files, read without keeping what is decoded for them: for one pass over every file
        that keeps its own copy of what it needs (the code graph keeps each file's symbols and
        references, not its chunks), so the pass does not leave every row decoded behind it (on Django
        about 200 MB, the chunks' texts most of it). A row kept decoded already is read as it is.
        Without `chunks`, a row is read without its chunks (for readers of symbols, references and
        imports only: on Django a third of a whole decode's CPU, the chunks being most of a row)."""
        return _Unkept(self, chunks)

    @property
    def decoded(self) -> int:
        """How many of the opened rows were decoded so far, kept or not (what tests and benchmarks count)."""
        return self._rows.decodes

    @property
    def kept(self) -> int:
        """How many of the opened rows are held decoded now."""
        return len(self._rows.decoded)


def unkept(parsed: Mapping[str, ParsedFile]) -> Mapping[str, ParsedFile]:
    """`parsed` for one pass that keeps what it needs itself: rows a restart left encoded stay so
    (`StoredParsed.unkept`); any other mapping is already decoded and read as it is."""
    return parsed.unkept() if isinstance(parsed, StoredParsed) else parsed


class _Unkept(Mapping[str, ParsedFile]):
    """`StoredParsed.unkept`: the mapping's files, each decoded when read and let go after."""

    def __init__(self, stored: StoredParsed, chunks: bool = True) -> None:
        self._stored = stored
        self._chunks = chunks

    def __getitem__(self, path: str) -> ParsedFile:
        return self._stored.read(path, keep=False, chunks=self._chunks)

    def __iter__(self) -> Iterator[str]:
        return iter(self._stored)

    def __len__(self) -> int:
        return len(self._stored)

    def __contains__(self, path: object) -> bool:
        return path in self._stored


class IndexStore:
    """Reads and writes the per-file rows; every public write is one transaction."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / INDEX_FILE
        self.rebuilt_reason: str | None = None
        # What was repaired at load: damaged rows dropped (their files re-indexed), in words for status.
        self.repairs: list[str] = []
        folder.mkdir(parents=True, exist_ok=True)
        self._db = self._open_checked()

    def _open_checked(self) -> sqlite3.Connection:
        try:
            db = self._connect()
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION:
                check = db.execute("PRAGMA quick_check").fetchone()[0]
                if check == "ok":
                    db.execute(_DERIVED_TABLE)  # an index written before the table existed gains it
                    return db
                self.rebuilt_reason = f"index file is damaged ({check}); rebuilt"
            elif version:
                self.rebuilt_reason = f"index schema {version} is not the current {SCHEMA_VERSION}; rebuilt"
            db.close()
        except sqlite3.DatabaseError as error:
            self.rebuilt_reason = f"index file is damaged ({error}); rebuilt"
        if self.rebuilt_reason:
            log.warning("%s: %s", self.path, self.rebuilt_reason)
        return self._fresh()

    def _fresh(self) -> sqlite3.Connection:
        """Throw the file away and start an empty index (the workspace rebuilds it from the files)."""
        with contextlib.suppress(sqlite3.Error, AttributeError):
            self._db.close()
        self._remove_files()
        db = self._connect()
        self._create(db)
        return db

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        return db

    def _remove_files(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(self.path) + suffix).unlink(missing_ok=True)
        (self.folder / SAVED_FILE).unlink(missing_ok=True)  # it belonged to the rows thrown away

    @staticmethod
    def _create(db: sqlite3.Connection) -> None:
        db.executescript(
            """
            BEGIN;
            CREATE TABLE files (
                path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
                digest TEXT NOT NULL, language TEXT, trigrams BLOB NOT NULL, parsed BLOB NOT NULL
            );
            COMMIT;
            """
        )
        db.execute(_DERIVED_TABLE)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def load(self) -> list[StoredFile]:
        """Every stored file, decoded. A row that fails to decode is dropped, said in `repairs` and the log,
        and re-indexed from disk by the next refresh; a file SQLite itself finds damaged mid-read is rebuilt whole."""
        return self.decoded(self.rows())

    def rows(self) -> list[EncodedRow]:
        """Every stored row as it is, in the table's order, not decoded (a row whose columns have the
        wrong types is dropped as `load` drops it)."""
        try:
            return self._read_rows()
        except sqlite3.DatabaseError as error:
            self.rebuilt_reason = f"index file is damaged ({error}); rebuilt"
            log.warning("%s: %s", self.path, self.rebuilt_reason)
            self._db = self._fresh()
            return []

    def records_of(self, paths: Collection[str]) -> tuple[dict[str, FileRecord], dict[str, bytes]]:
        """The records and encoded ParsedFiles of those of `paths` stored now, read without their trigrams and
        without writing: a server serves another process's first index, part by part, while that one writes."""
        records: dict[str, FileRecord] = {}
        encoded: dict[str, bytes] = {}
        for path, size, mtime_ns, digest, language, parsed in self._db.execute(
                "SELECT path, size, mtime_ns, digest, language, parsed FROM files"):
            if path in paths:
                records[path] = FileRecord(path, size, mtime_ns, digest, language)
                encoded[path] = parsed
        return records, encoded

    def _read_rows(self) -> list[EncodedRow]:
        rows = self._db.execute("SELECT path, size, mtime_ns, digest, language, trigrams, parsed FROM files")
        read: list[EncodedRow] = []
        damaged: list[tuple[object, str]] = []
        for path, size, mtime_ns, digest, language, trigrams, parsed in rows:
            try:
                _check_columns(path, size, mtime_ns, digest, language, trigrams, parsed)
            except CorruptRow as error:
                damaged.append((path, cause(error)))
                continue
            read.append(EncodedRow(FileRecord(path, size, mtime_ns, digest, language), trigrams, parsed))
        if damaged:
            self.drop_damaged(damaged)
        return read

    def stored_digest(self) -> tuple[str, dict[str, str]]:
        """`payload_digest` of the rows as stored now, with each path's file digest, read one row at a
        time (saving the indexes after a cold index must not hold every row's bytes on top of it)."""
        versions: dict[str, str] = {}

        def rows() -> Iterator[tuple[str, bytes, bytes]]:
            # SQLite orders text by its UTF-8 bytes, which is the code point order `sorted` gives.
            for path, digest, trigrams, parsed in self._db.execute(
                    "SELECT path, digest, trigrams, parsed FROM files ORDER BY path"):
                versions[path] = digest
                yield path, trigrams, parsed

        return _digest_sorted(rows()), versions

    def encoded_parsed(self) -> tuple[dict[str, bytes], dict[str, str]]:
        """Each stored file's encoded ParsedFile and its digest, by path, read one row at a time: what a
        snapshot served from the store keeps (`StoredParsed`), without every row's trigram bytes beside it."""
        encoded: dict[str, bytes] = {}
        versions: dict[str, str] = {}
        for path, digest, parsed in self._db.execute("SELECT path, digest, parsed FROM files"):
            encoded[path], versions[path] = parsed, digest
        return encoded, versions

    def decoded(self, rows: Iterable[EncodedRow]) -> list[StoredFile]:
        """`rows` with their payloads decoded; those that fail are dropped from the store, as `load` says."""
        loaded: list[StoredFile] = []
        damaged: list[tuple[object, str]] = []
        with paused_gc():
            for row in rows:
                try:
                    parsed = decode_parsed(row.parsed)
                except DECODE_ERRORS as error:
                    damaged.append((row.record.path, cause(error)))
                    continue
                loaded.append(StoredFile(row.record, row.trigrams, parsed))
        if damaged:
            self.drop_damaged(damaged)
        return loaded

    def drop_damaged(self, rows: Iterable[tuple[object, str]]) -> None:
        """Delete rows whose payload cannot be trusted (their files are re-indexed), saying why."""
        rows = list(rows)
        for path, cause in rows:
            log.warning("%s: damaged row for %r (%s); the file is re-indexed", self.path, path, cause)
        self.repairs.append(f"{len(rows)} damaged row(s) re-indexed, first {rows[0][0]!r}: {rows[0][1]}")
        with self._transaction() as db:
            db.executemany("DELETE FROM files WHERE path = ?", [(path,) for path, _ in rows])

    def write(self, upserts: Iterable[StoredFile], deletions: Iterable[str] = ()) -> None:
        """Apply a batch atomically: either all of it lands or none of it does."""
        rows = [
            (
                item.record.path,
                item.record.size,
                item.record.mtime_ns,
                item.record.digest,
                item.record.language,
                item.trigrams,
                item.encoded or encode_parsed(item.parsed),
            )
            for item in upserts
        ]
        with self._transaction() as db:
            db.executemany("DELETE FROM files WHERE path = ?", [(path,) for path in deletions])
            db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)", rows)

    def read_derived(self, name: str) -> tuple[str, bytes] | None:
        """The stored (fingerprint, blob) of a derived entry, or None when there is none usable."""
        try:
            row = self._db.execute("SELECT fingerprint, blob FROM derived WHERE name = ?", (name,)).fetchone()
        except sqlite3.DatabaseError as error:
            log.warning("%s: derived entry %r unreadable (%s); it is computed again", self.path, name, error)
            return None
        if row is None or not isinstance(row[0], str) or not isinstance(row[1], bytes):
            return None
        return row[0], row[1]

    def write_derived(self, name: str, fingerprint: str, blob: bytes) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO derived VALUES (?, ?, ?)", (name, fingerprint, blob))

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    def size_on_disk(self) -> int:
        """Bytes of everything kept in the index folder, the stored BM25's folder included."""
        return sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())

    def close(self) -> None:
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._db.close()


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
