"""One workspace root kept warm for agents: opened and indexed in the background, re-checked per question.

The MCP server and the CLI daemon both answer many questions over one index, so neither may pay for
opening it per question, and neither may answer from a stale one: an agent that just edited a file
searches for what it wrote. This module opens the engine's `Workspace` in a thread, runs the first
refresh there (questions meanwhile answer from the partial index, with a note saying so), embeds new
chunks in the background, and before each answer re-checks the disk with the workspace's own
refresh, which re-reads only files whose size or mtime changed.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pathspec

from fourfold.engine import SearchRequest, Settings, Workspace, WorkspaceError
from fourfold.engine.index.discovery import IGNORE_FILES, enclosing_ignore_files

log = logging.getLogger(__name__)
# A question (not a literal), so the warm-up builds the lexical index that questions are scored on.
WARM_UP_QUESTION = "how does this project work"


@dataclass(frozen=True)
class Phase:
    """What the warm index is doing now, for progress lines: `loading`, `indexing`, `embedding`, `ready`."""

    name: str
    done: int = 0
    total: int = 0
    started: float = 0.0


class DiskState:
    """The stat of every file and folder the index was built from, so an unchanged disk costs only stats.

    The workspace's refresh walks the whole tree and matches every path against the ignore files
    (about 1 CPU-second on Django); comparing one stat per indexed or skipped file, per folder holding
    them (a created, deleted or renamed entry changes its folder's mtime) and per ignore file costs
    about 50 ms. Any difference, or any error, sends the caller to the full refresh.

    An indexed file is recorded with the size and mtime it had when it was read (its FileRecord), and
    folders with the stat taken before the refresh began, so an edit made while a refresh ran is
    seen as a change next time rather than recorded as already indexed.
    """

    def __init__(self, stats: dict[str, tuple[int, int]]) -> None:
        self.stats = stats

    @staticmethod
    def folders(workspace: Workspace) -> dict[str, tuple[int, int]]:
        """Stats of the folders and ignore files the current snapshot depends on (take it before a refresh)."""
        snapshot = workspace.snapshot()
        root = str(workspace.root)
        folders = {root, *(os.path.dirname(f"{root}/{path}") for path in (*snapshot.files, *snapshot.skipped))}
        for folder in list(folders):  # every folder between the root and a file, too
            parent = os.path.dirname(folder)
            while len(parent) > len(root) and parent not in folders:
                folders.add(parent)
                parent = os.path.dirname(parent)
        # The ignore files above the root, and their folders (creating one changes its folder's mtime).
        above = enclosing_ignore_files(workspace.root) if workspace.settings.parent_ignores else []
        return _stats([*folders, *(f"{folder}/{name}" for folder in folders for name in IGNORE_FILES),
                       *{str(path.parent) for path in above}, *map(str, above)])

    @classmethod
    def capture(cls, workspace: Workspace, before: dict[str, tuple[int, int]]) -> DiskState:
        """The state after a refresh: files as they were read, folders as they were before it (`before`)."""
        snapshot = workspace.snapshot()
        root = str(workspace.root)
        stats = {**DiskState.folders(workspace), **before}
        stats.update(_stats([f"{root}/{path}" for path in snapshot.skipped]))
        for path, record in snapshot.files.items():
            if path not in snapshot.buffers:
                stats[f"{root}/{path}"] = (record.size, record.mtime_ns)
        return cls(stats)

    def unchanged(self) -> bool:
        for path, (size, mtime_ns) in self.stats.items():
            try:
                info = os.stat(path)
            except OSError:
                return False
            if info.st_mtime_ns != mtime_ns or info.st_size != size:
                return False
        return True


def _stats(paths: list[str]) -> dict[str, tuple[int, int]]:
    found = {}
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            continue  # an ignore file that does not exist: creating one changes its folder's mtime
        found[path] = (info.st_size, info.st_mtime_ns)
    return found


class WarmIndex:
    """A root's `Workspace`, opened and indexed off the caller's thread, refreshed on demand."""

    def __init__(self, root: Path, settings: Settings, embed: bool = True) -> None:
        self.root = root
        self.settings = settings
        self.embed = embed and settings.semantic_backend != "none"
        self.phase = Phase("loading", started=time.monotonic())
        self.error: str | None = None
        self._workspace: WorkspaceError | Workspace | None = None
        self._opened = threading.Event()
        self._indexed = threading.Event()
        self._sync_lock = threading.Lock()
        self._embed_wanted = threading.Event()
        self._closing = threading.Event()
        self._embed_thread: threading.Thread | None = None
        self._embed_lock = threading.Lock()
        self._disk: DiskState | None = None
        self._thread = threading.Thread(target=self._open_and_index, name="fourfold-index", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _open_and_index(self) -> None:
        try:
            workspace = Workspace(self.root, self.settings, background=True)
        except WorkspaceError as error:
            self.error = str(error)
            self._workspace = error
            self._opened.set()
            self._indexed.set()  # nothing more will come: waiters get the error from `workspace()`
            return
        self._workspace = workspace
        self._opened.set()
        self.phase = Phase("indexing", started=time.monotonic())
        before = DiskState.folders(workspace)
        try:
            workspace.refresh(self._counter("indexing"), self._closing)
            self._disk = DiskState.capture(workspace, before)
        except Exception as error:  # a failed first index leaves the loaded one searchable; the next sync retries
            log.exception("indexing %s failed", self.root)
            self.error = f"indexing failed: {error}"
        self._want_embedding()  # before `indexed`, so a caller waiting for embeddings sees the thread
        self._indexed.set()
        self.phase = Phase("ready")
        self._warm_up(workspace)

    def _warm_up(self, workspace: Workspace) -> None:
        """Ready the first edit's parsing and graph views (`Workspace.warm_up`), then ask one question, so BM25
        over the chunks is built before the first real question waits for it."""
        try:
            workspace.warm_up()
            workspace.search(SearchRequest(WARM_UP_QUESTION, limit=1, modes=("text",)))
        except Exception:  # a failed warm-up only means the first question pays for it
            log.exception("warming up %s failed", self.root)

    def _counter(self, name: str) -> Callable[[int, int], None]:
        started = time.monotonic()

        def report(done: int, total: int) -> None:
            self.phase = Phase(name, done, total, started)

        return report

    def workspace(self, timeout: float | None = None) -> Workspace:
        """The open workspace, waiting up to `timeout` for it to load; WorkspaceError if it cannot open."""
        if not self._opened.wait(timeout):
            raise TimeoutError(f"the index of {self.root} is still loading; ask again in a few seconds")
        if isinstance(self._workspace, WorkspaceError):
            raise self._workspace
        assert self._workspace is not None
        return self._workspace

    @property
    def indexed(self) -> bool:
        return self._indexed.is_set()

    def wait_indexed(self, timeout: float | None = None) -> bool:
        return self._indexed.wait(timeout)

    def wait_embedded(self, timeout: float | None = None) -> bool:
        """True once no embedding is running (or none was wanted), waiting up to `timeout`."""
        thread = self._embed_thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def sync(self, progress: Callable[[int, int], None] | None = None) -> list[str]:
        """Re-check the disk before an answer; returns notes for the answer (partial index, files changed).

        During the first index the disk is not re-checked (that refresh holds the workspace's write lock):
        the answer comes from what is indexed so far and says so.
        """
        workspace = self.workspace()
        if not self._indexed.is_set():
            phase = self.phase
            return [f"partial index: still indexing ({phase.done:,} of {phase.total:,} files read); "
                    "results may miss files not read yet"]
        with self._sync_lock:  # concurrent questions share one re-check instead of walking twice
            if self._disk is not None and self._disk.unchanged():
                return []
            before = DiskState.folders(workspace)
            stats = workspace.refresh(progress)
            self._disk = DiskState.capture(workspace, before)
        notes = []
        if stats.indexed or stats.removed:
            notes.append(f"re-indexed {stats.indexed} changed and dropped {stats.removed} removed file(s) first")
            self._want_embedding()
        return notes

    def _want_embedding(self) -> None:
        if not self.embed or self._closing.is_set():
            return
        with self._embed_lock:  # one embedding thread; a change while it runs makes it run once more
            self._embed_wanted.set()
            if self._embed_thread is None:
                self._embed_thread = threading.Thread(target=self._embed, name="fourfold-embed", daemon=True)
                self._embed_thread.start()

    def _embed(self) -> None:
        workspace = self.workspace()
        while True:
            with self._embed_lock:
                if not self._embed_wanted.is_set() or self._closing.is_set():
                    self._embed_thread = None
                    return
                self._embed_wanted.clear()
            try:
                workspace.embed_pending(cancel=self._closing)
            except Exception:  # semantic search degrades; the other modalities still answer
                log.exception("embedding %s failed", self.root)

    def close(self) -> None:
        self._closing.set()
        for thread in (self._thread, self._embed_thread):
            if thread is not None and thread.is_alive():
                thread.join(timeout=10)
        if isinstance(self._workspace, Workspace):
            self._workspace.close()


def why_empty(workspace: Workspace, request: SearchRequest) -> str | None:
    """Why a search found nothing, when the index can tell: nothing indexable, or filters that match no file."""
    snapshot = workspace.snapshot()
    if not snapshot.files:
        skipped = len(snapshot.skipped)
        return (f"0 files are indexed under {workspace.root}" + (f" ({skipped:,} skipped: binary, too large or "
                "minified; see `fourfold status`)" if skipped else " (no source or text files found)"))
    if request.languages:
        present = {record.language for record in snapshot.files.values() if record.language}
        unknown = sorted(set(request.languages) - present)
        if unknown:
            return (f"no indexed file is in {', '.join(unknown)}; the languages here are "
                    f"{', '.join(sorted(present)) or 'none'}")
    if request.paths:
        spec = pathspec.GitIgnoreSpec.from_lines(request.paths)
        if not any(spec.match_file(path) for path in snapshot.files):
            return f"no indexed file matches paths {', '.join(request.paths)}"
    return None
