"""The embedding cache: an unchanged chunk is never embedded twice, not even across restarts.

Embedding is the slowest part of indexing (and, with Voyage, the part that costs money), while most
chunks survive most edits unchanged. Vectors are stored as float16 in a SQLite file inside the index
folder, keyed by (backend, model, dims, chunk digest) so that switching models never serves a stale
vector. Writes are transactions; a file that is corrupt, truncated or of another schema is deleted and
recreated (a cache can always be rebuilt), and if even that fails the cache lives in memory: the user
loses speed, never the server.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple, TypeVar

import numpy as np
import xxhash

from .embedding import Backend

__all__ = ["SCHEMA_VERSION", "CacheKey", "EmbedCache", "embed_cached"]

log = logging.getLogger(__name__)
_T = TypeVar("_T")

SCHEMA_VERSION = 1
# SQLite's default bound on host parameters in one statement is 32766 since 3.32, 999 before.
_QUERY_CHUNK = 900
# Texts handed to the backend per call: bounds memory and lets the caller report progress.
_EMBED_BATCH = 1024
# Each stored vector is followed by the xxh3-64 digest of its bytes.
CHECKSUM_BYTES = 8

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS vectors (backend TEXT NOT NULL, model TEXT NOT NULL, dims INTEGER NOT NULL,"
    " digest TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (backend, model, dims, digest)) WITHOUT ROWID",
)


class CacheKey(NamedTuple):
    """Which model produced a vector, and for which chunk text."""

    backend: str
    model: str
    dims: int
    digest: str


class EmbedCache:
    """A persistent map CacheKey -> float16 vector, safe to share between indexing threads."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.recovered: str | None = None
        # Vectors read back damaged (length or checksum wrong): left out, so they are embedded again.
        self.damaged = 0
        self._lock = threading.Lock()
        self._conn = self._open()

    def __repr__(self) -> str:
        return f"EmbedCache({str(self.path)!r})"

    def __len__(self) -> int:
        rows = self._guarded(lambda conn: conn.execute("SELECT COUNT(*) FROM vectors").fetchall(), [(0,)])
        return int(rows[0][0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def get_many(self, keys: Iterable[CacheKey]) -> dict[CacheKey, np.ndarray]:
        """Cached vectors (float16) for the keys that have one; missing keys are simply absent."""
        groups: dict[tuple[str, str, int], list[str]] = {}
        for key in keys:
            groups.setdefault((key.backend, key.model, key.dims), []).append(key.digest)
        found: dict[CacheKey, np.ndarray] = {}
        reported = self.damaged
        for (backend, model, dims), digests in groups.items():
            for start in range(0, len(digests), _QUERY_CHUNK):
                part = digests[start : start + _QUERY_CHUNK]
                for digest, blob in self._select(backend, model, dims, part):
                    vector = _vector(blob, dims)
                    if vector is None:
                        self.damaged += 1
                        continue
                    found[CacheKey(backend, model, dims, digest)] = vector
        if self.damaged > reported:
            log.warning("embedding cache %s: %d damaged vector(s) dropped (bad length or checksum); re-embedding them",
                        self.path, self.damaged - reported)
        return found

    def put_many(self, items: Iterable[tuple[CacheKey, np.ndarray]]) -> None:
        """Store vectors in one transaction (all or nothing)."""
        rows = [(*key, _blob(vector)) for key, vector in items if np.shape(vector) == (key.dims,)]
        if not rows:
            return

        def write(conn: sqlite3.Connection) -> None:
            with conn:
                conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?)", rows)

        self._guarded(write, None, retry=True)

    def _select(self, backend: str, model: str, dims: int, digests: list[str]) -> list[tuple[str, bytes]]:
        marks = ",".join("?" * len(digests))
        # CAST: a damaged row may hold text, which sqlite3 would fail to decode (and lose the whole read).
        sql = (
            "SELECT digest, CAST(vector AS BLOB) FROM vectors"
            f" WHERE backend=? AND model=? AND dims=? AND digest IN ({marks})"
        )

        def read(conn: sqlite3.Connection) -> list[tuple[str, bytes]]:
            return conn.execute(sql, (backend, model, dims, *digests)).fetchall()

        return self._guarded(read, [])

    def _guarded(self, action: Callable[[sqlite3.Connection], _T], default: _T, *, retry: bool = False) -> _T:
        """Run `action`; on a damaged database recreate it and, for writes, try once more."""
        with self._lock:
            try:
                return action(self._conn)
            except sqlite3.DatabaseError as error:
                self._conn = self._recreate(f"{type(error).__name__}: {error}")
                if not retry:
                    return default
                try:
                    return action(self._conn)
                except sqlite3.DatabaseError:
                    return default

    def _open(self) -> sqlite3.Connection:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return self._fresh()
        conn: sqlite3.Connection | None = None
        try:
            conn = self._connect(self.path)
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is not None and row[0] == str(SCHEMA_VERSION):
                return conn
            reason = f"schema version {row[0] if row else 'missing'}, expected {SCHEMA_VERSION}"
        except sqlite3.DatabaseError as error:
            reason = f"{type(error).__name__}: {error}"
        if conn is not None:
            conn.close()
        return self._recreate(reason)

    def _recreate(self, reason: str) -> sqlite3.Connection:
        """Throw the file away and start empty (a cache can always be refilled)."""
        self.recovered = reason
        log.warning("embedding cache %s was unusable (%s); starting a new one", self.path, reason)
        with contextlib.suppress(AttributeError, sqlite3.Error):
            self._conn.close()
        with contextlib.suppress(OSError):
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        return self._fresh()

    def _fresh(self) -> sqlite3.Connection:
        """A new, empty cache file; in memory if the folder cannot hold one."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return self._initialised(self._connect(self.path))
        except (OSError, sqlite3.DatabaseError) as error:
            log.warning("embedding cache %s kept in memory: %s", self.path, error)
            return self._initialised(self._connect(":memory:"))

    @staticmethod
    def _connect(target: Path | str) -> sqlite3.Connection:
        conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        # A lost write only costs a re-embed, so trading fsyncs for speed is safe here.
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    @staticmethod
    def _initialised(conn: sqlite3.Connection) -> sqlite3.Connection:
        with conn:
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        return conn


def _blob(vector: np.ndarray) -> bytes:
    """A vector as stored: float16 bytes, then their 64-bit xxhash, so a garbled row is never served."""
    data = np.ascontiguousarray(vector, dtype=np.float16).tobytes()
    return data + xxhash.xxh3_64_digest(data)


def _vector(blob: object, dims: int) -> np.ndarray | None:
    """The stored vector, or None when the row is damaged.

    Rows written before checksums (exactly `dims` float16 values) are still read, when finite.
    """
    if not isinstance(blob, bytes):
        return None
    size = dims * 2
    if len(blob) == size + CHECKSUM_BYTES:
        data = blob[:size]
        if xxhash.xxh3_64_digest(data) != blob[size:]:
            return None
    elif len(blob) == size:
        data = blob
    else:
        return None
    vector = np.frombuffer(data, dtype=np.float16)
    return vector if np.isfinite(vector).all() else None


def embed_cached(
    backend: Backend,
    cache: EmbedCache,
    texts: Mapping[str, str],
    on_progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
) -> dict[str, np.ndarray]:
    """Vectors (float16) for {digest: text}: cached ones read, the rest embedded once and stored.

    `cancel` is checked between batches; a cancelled pass returns what it has (all of it cached).

    If the backend changes identity mid-way (Voyage fell back to local), the pass is redone under the
    new identity, so every returned vector comes from the same model: read `backend.name/model/dims`
    afterwards to know which.
    """
    for _ in range(2):
        identity = (backend.name, backend.model, backend.dims)
        vectors = _embed_pass(backend, cache, texts, on_progress, cancel)
        if (backend.name, backend.model, backend.dims) == identity:
            return vectors
    return _embed_pass(backend, cache, texts, on_progress, cancel)


def _embed_pass(
    backend: Backend,
    cache: EmbedCache,
    texts: Mapping[str, str],
    on_progress: Callable[[int, int], None] | None,
    cancel: threading.Event | None,
) -> dict[str, np.ndarray]:
    name, model, dims = backend.name, backend.model, backend.dims
    cached = cache.get_many(CacheKey(name, model, dims, digest) for digest in texts)
    vectors = {key.digest: vector for key, vector in cached.items()}
    missing = [digest for digest in texts if digest not in vectors]
    done = len(vectors)
    for start in range(0, len(missing), _EMBED_BATCH):
        if cancel is not None and cancel.is_set():
            break
        batch = missing[start : start + _EMBED_BATCH]
        embedded = backend.embed_documents([texts[digest] for digest in batch]).astype(np.float16)
        if (backend.name, backend.model, backend.dims) != (name, model, dims):
            return vectors
        pairs = list(zip(batch, embedded, strict=True))
        cache.put_many((CacheKey(name, model, dims, digest), row) for digest, row in pairs)
        vectors.update(pairs)
        done += len(batch)
        if on_progress is not None:
            on_progress(done, len(texts))
    return vectors
