"""Background embedding of chunks: what the semantic retriever searches, and how far along it is.

Embedding is the slow part of indexing, so it runs after text and structure are ready and never
blocks them. Vectors are cached by (backend, model, dims, chunk digest): an unchanged chunk is never
embedded twice, across restarts. The backend is created on first use, so a user who switched
semantic search off never loads a model.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .embedcache import EmbedCache, embed_cached
from .embedding import Backend, make_backend
from .retrievers import SemanticState
from .settings import Settings
from .snapshot import Snapshot
from .vectors import VectorIndex

log = logging.getLogger(__name__)
CACHE_FILE = "embeddings.sqlite"


class Embedder:
    """Owns the backend, the cache and the vector index of one workspace."""

    def __init__(self, settings: Settings, folder: Path) -> None:
        self.settings = settings
        self.folder = folder
        self.state = SemanticState()
        self.embedded = 0
        self.note: str | None = None
        self._backend: Backend | None = None
        self._lock = threading.Lock()

    @property
    def backend_name(self) -> str:
        return self.settings.semantic_backend

    def available(self) -> bool:
        """Semantic search takes part only when it is switched on and has vectors to search."""
        return self.settings.semantic_backend != "none" and self.embedded > 0

    def backend(self) -> Backend:
        if self._backend is None:
            self._backend = make_backend(self.settings.semantic_backend, self.settings.api_key())
            self.note = getattr(self._backend, "fallback_reason", None)
            self.state.embed_query = self._backend.embed_query
        return self._backend

    def run(
        self,
        snapshot: Snapshot,
        progress: Callable[[int, int], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> int:
        if self.settings.semantic_backend == "none":
            return 0
        with self._lock:
            backend = self.backend()
            cache = EmbedCache(self.folder / CACHE_FILE)
            try:
                return self._embed(snapshot, backend, cache, progress, cancel)
            finally:
                cache.close()
                self.note = getattr(backend, "fallback_reason", None)

    def _embed(
        self,
        snapshot: Snapshot,
        backend: Backend,
        cache: EmbedCache,
        progress: Callable[[int, int], None] | None,
        cancel: threading.Event | None,
    ) -> int:
        chunks = {chunk.digest: chunk for chunk in snapshot.chunks()}
        before = self.embedded
        backend.begin_run()
        vectors = embed_cached(
            backend, cache, {digest: chunk.text for digest, chunk in chunks.items()}, progress, cancel
        )
        keys = [digest for digest in chunks if digest in vectors]
        if keys:
            matrix = np.stack([vectors[key].astype(np.float32) for key in keys])
            self.state.vectors = VectorIndex.build(keys, matrix)
        self.state.chunks_by_digest = chunks
        self.embedded = len(keys)
        return max(self.embedded - before, 0)
