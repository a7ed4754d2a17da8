"""Background embedding of chunks: what the semantic retriever searches, and how far along it is.

Embedding is the slow part of indexing, so it runs after text and structure are ready and never
blocks them. Vectors are cached by (backend, model, dims, chunk digest): an unchanged chunk is never
embedded twice, across restarts. The backend is created on first use, so a user who switched
semantic search off never loads a model.

A slow backend (`minilm`, ~20 chunks/s against `local`'s ~2,700) is staged: the first run embeds
everything with `local` and publishes it, so semantic search answers within seconds, then embeds
with the slow model and swaps it in only once every chunk has a vector. The swap replaces one
SemanticView, so a query is always embedded by the model of the index it searches.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import numpy as np

from ..index.snapshot import Snapshot
from ..model.records import Chunk
from ..model.settings import Settings
from ..retrieve.semantic import SemanticState, SemanticView
from ..semantic.backends import make_backend
from ..semantic.embedcache import EmbedCache, embed_cached
from ..semantic.embedding import Backend, LocalBackend, query_vector
from ..semantic.vectors import VectorIndex

log = logging.getLogger(__name__)
CACHE_FILE = "embeddings.sqlite"
Progress = Callable[[int, int], None]

# Backends slow enough that `local` answers until they have embedded every chunk.
STAGED_BACKENDS = frozenset({"minilm"})


@dataclass(frozen=True)
class StageLimits:
    """How a slow backend's pass is cut up, and when an edit sends search back to `local` for a while."""

    # Chunks per step of a staged backend: cancel and progress are checked between steps, and 64
    # MiniLM chunks take ~3 s on two busy cores (closing a folder never waits longer than that).
    step: int = 64
    # More new chunks than this (~10 s of MiniLM) and a run publishes `local` first again, instead of
    # leaving the new code out of semantic search until the slow model is through.
    restage_min_chunks: int = 200


STAGE_LIMITS = StageLimits()


@dataclass(frozen=True)
class EmbedProgress:
    """How far the backend being embedded is: chunks with a vector out of all chunks."""

    backend: str
    done: int
    total: int


class Embedder:
    """Owns the backend, the cache and the vector index of one workspace.

    `backend` and `local` replace the models the settings would choose (the tests count real models'
    calls through subclasses).
    """

    def __init__(
        self,
        settings: Settings,
        folder: Path,
        *,
        backend: Backend | None = None,
        local: Backend | None = None,
        limits: StageLimits = STAGE_LIMITS,
    ) -> None:
        self.settings = settings
        self.folder = folder
        self.state = SemanticState()
        self.embedded = 0
        self.note: str | None = None
        # What the embedding cache repaired on the last run (recreated, damaged vectors re-embedded).
        self.repair: str | None = None
        self.phase = "off" if settings.semantic_backend == "none" else "pending"
        self.pending: EmbedProgress | None = None
        self._backend = backend
        self._local = local
        self._limits = limits
        self._lock = threading.Lock()

    @property
    def backend_name(self) -> str:
        return self.settings.semantic_backend

    @property
    def active_backend(self) -> str | None:
        """The backend whose vectors answer semantic queries now, or None before any are published."""
        view = self.state.view
        return view.backend if view is not None else None

    @property
    def active_model(self) -> str | None:
        view = self.state.view
        return view.model if view is not None else None

    def available(self) -> bool:
        """Semantic search takes part only when it is switched on and has vectors to search."""
        return self.settings.semantic_backend != "none" and self.embedded > 0

    def backend(self) -> Backend:
        if self._backend is None:
            self._backend = make_backend(self.settings.semantic_backend, self.settings.api_key())
            self.note = getattr(self._backend, "fallback_reason", None)
        return self._backend

    def run(self, snapshot: Snapshot, progress: Progress | None = None, cancel: threading.Event | None = None) -> int:
        """Embed what has no vector yet, stage by stage; returns how many more chunks semantic search covers."""
        if self.settings.semantic_backend == "none":
            return 0
        with self._lock:
            backend = self.backend()
            cache = EmbedCache(self.folder / CACHE_FILE)
            before = self.embedded
            try:
                self._run(snapshot, backend, cache, progress, cancel)
            finally:
                cache.close()
                self.note = getattr(backend, "fallback_reason", None)
                if cache.recovered or cache.damaged:
                    self.repair = (f"embedding cache rebuilt ({cache.recovered})" if cache.recovered
                                   else f"{cache.damaged} damaged cached vector(s) re-embedded")
            return max(self.embedded - before, 0)

    def _run(
        self,
        snapshot: Snapshot,
        backend: Backend,
        cache: EmbedCache,
        progress: Progress | None,
        cancel: threading.Event | None,
    ) -> None:
        chunks = {chunk.digest: chunk for chunk in snapshot.chunks()}
        texts = {digest: chunk.text for digest, chunk in chunks.items()}
        for stage in self._stages(backend, chunks):
            self.phase = stage.name
            staged = stage.name in STAGED_BACKENDS
            vectors = self._embed(stage, cache, texts, progress, cancel, staged)
            if len(vectors) == len(texts) or not staged:
                self._publish(stage, chunks, vectors)
            if cancel is not None and cancel.is_set():
                self.phase = "cancelled"
                return
        self.phase, self.pending = "ready", None

    def _stages(self, backend: Backend, chunks: Mapping[str, Chunk]) -> list[Backend]:
        """`local` first for a slow backend, unless the slow one already answers and few chunks are new."""
        if backend.name not in STAGED_BACKENDS:
            return [backend]
        view = self.state.view
        if view is not None and view.backend == backend.name:
            new = sum(1 for digest in chunks if digest not in view.vectors)
            if new <= self._limits.restage_min_chunks:
                return [backend]
        return [self._local_backend(), backend]

    def _local_backend(self) -> Backend:
        if self._local is None:
            self._local = LocalBackend()
        return self._local

    def _embed(
        self,
        backend: Backend,
        cache: EmbedCache,
        texts: Mapping[str, str],
        progress: Progress | None,
        cancel: threading.Event | None,
        staged: bool,
    ) -> dict[str, np.ndarray]:
        """Vectors of one backend for `texts`; a staged backend goes in small steps so cancel is prompt."""
        backend.begin_run()
        total = len(texts)

        def report(done: int, _total: int) -> None:
            self.pending = EmbedProgress(backend.name, done, total)
            if progress is not None:
                progress(done, total)

        self.pending = EmbedProgress(backend.name, 0, total)
        if not staged:
            return embed_cached(backend, cache, texts, report, cancel)
        vectors: dict[str, np.ndarray] = {}
        # Shortest first across the whole pass: each batch then holds texts of nearly one length,
        # so MiniLM pads (and computes) little.
        by_length = {digest: texts[digest] for digest in sorted(texts, key=lambda digest: len(texts[digest]))}
        for part in _parts(by_length, self._limits.step):
            if cancel is not None and cancel.is_set():
                break
            vectors.update(embed_cached(backend, cache, part, None, cancel))
            report(len(vectors), total)
        return vectors

    def _publish(self, backend: Backend, chunks: dict[str, Chunk], vectors: Mapping[str, np.ndarray]) -> None:
        """Replace the searched view by this backend's vectors (identity read after embedding: a fallback
        may have switched models mid-run, and embed_cached returns vectors of the model in use)."""
        keys = [digest for digest in chunks if digest in vectors]
        if not keys:
            return  # nothing embedded yet (cancelled at once, or no chunks): keep what answers now
        matrix = np.stack([vectors[key].astype(np.float32) for key in keys])
        self.state.view = SemanticView(
            VectorIndex.build(keys, matrix), chunks, functools.partial(query_vector, backend), backend.name,
            backend.model,
        )
        self.embedded = len(keys)


def _parts(texts: Mapping[str, str], size: int) -> Iterator[dict[str, str]]:
    """`texts` in consecutive pieces of at most `size` entries."""
    items = iter(texts.items())
    while part := dict(islice(items, size)):
        yield part
