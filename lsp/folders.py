"""The workspace folders an editor has open, each with its own index and its own queue of edits.

A user sees every folder of a multi-root workspace indexed and searchable, and what they type in
an unsaved buffer found on the next keystroke. This module keeps one engine `Workspace` per folder
and funnels file events and buffer edits into it off the event loop: events for the same file
coalesce (a burst of saves becomes one update), and a search can wait until edits already sent
are applied, so it reads what is on screen.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fourfold.engine import Workspace

log = logging.getLogger(__name__)
# Status fields that add up across the folders of a multi-root workspace.
COUNTS = ("files", "symbols", "chunks", "embedded")


@dataclass(frozen=True)
class Change:
    """What happened to a file: "disk" (created/changed/deleted), "open" / "buffer" (editor text), "close"."""

    kind: str
    text: str | None = None


def apply_change(workspace: Workspace, path: str, change: Change) -> None:
    """One change into the engine (blocking; runs in a worker thread). A vanished file is not an error."""
    try:
        if change.kind == "open" and change.text is not None:
            # Opening a file does not change it: re-parse only when the editor shows other text.
            if workspace.snapshot().text(path) != change.text:
                workspace.set_buffer(path, change.text)
        elif change.kind == "buffer" and change.text is not None:
            workspace.set_buffer(path, change.text)
        elif change.kind == "close":
            workspace.clear_buffer(path)
        else:
            workspace.update_file(path)
    except OSError as error:
        log.info("skipped an update of %s: %s", path, error)


class Updates:
    """Coalescing queue of one folder's changes, drained by one task at a time (writers never race)."""

    def __init__(self, apply: Callable[[dict[str, Change]], None], applied: Callable[[int], None]) -> None:
        self._apply = apply
        self._applied = applied
        self._pending: dict[str, Change] = {}
        self._task: asyncio.Task[None] | None = None

    def put(self, path: str, change: Change) -> None:
        self._pending[path] = change
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, {}
            started = time.perf_counter()
            try:
                await asyncio.to_thread(self._apply, batch)
            except Exception:  # a failed update must not stop later ones
                log.exception("applying %d change(s) failed", len(batch))
            log.debug("applied %d change(s) in %.1f ms", len(batch), 1000 * (time.perf_counter() - started))
            self._applied(len(batch))

    async def settled(self) -> None:
        """Return once every change put so far is applied."""
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)

    @property
    def busy(self) -> bool:
        return bool(self._pending) or (self._task is not None and not self._task.done())


@dataclass(eq=False)
class Folder:
    """One workspace folder: where it is, its engine workspace once opened, its indexing state."""

    uri: str
    name: str
    path: Path
    workspace: Workspace | None = None
    error: str | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    indexing: asyncio.Task[None] | None = None
    updates: Updates | None = None
    # Open buffers left out of the index (too large), by root-relative path, with the reason.
    skipped_buffers: dict[str, str] = field(default_factory=dict)

    def contains(self, path: Path) -> bool:
        return path == self.path or self.path in path.parents

    def status(self) -> dict[str, Any]:
        """`fourfold.indexStatus` of this folder, also before its index is open or when it failed."""
        if self.workspace is not None:
            status = dict(self.workspace.status())
        else:
            status = {"ready": False, "state": "error" if self.error else "indexing", "files": 0,
                      "symbols": 0, "chunks": 0, "embedded": 0, "backend": None, "semantic_model": None,
                      "semantic_progress": None, "progress": 0.0, "last_error": self.error}
        skipped = [{"path": path, "reason": reason} for path, reason in sorted(self.skipped_buffers.items())]
        return {**status, "skipped_buffers": skipped, "folder": self.uri, "name": self.name}


def merged_status(folders: list[Folder]) -> dict[str, Any]:
    """One `fourfold.indexStatus` for all folders: ready when all are, counts summed, each folder listed."""
    each = [folder.status() for folder in folders]
    if not each:
        return {"ready": False, "state": "error", "files": 0, "symbols": 0, "chunks": 0, "embedded": 0,
                "backend": None, "progress": 0.0, "last_error": "no workspace folder is open",
                "skipped_buffers": [], "folders": []}
    states = {item["state"] for item in each}
    state = "error" if "error" in states else "ready" if states == {"ready"} else "indexing"
    errors = [f"{item['name']}: {item['last_error']}" for item in each if item.get("last_error")]
    return {
        "ready": all(item["ready"] for item in each),
        "state": state,
        **{key: sum(int(item.get(key) or 0) for item in each) for key in COUNTS},
        "backend": each[0].get("backend"),
        "progress": round(sum(float(item.get("progress") or 0.0) for item in each) / len(each), 4),
        "last_error": "; ".join(errors) or None,
        "skipped_buffers": [{**entry, "folder": item["folder"]} for item in each for entry in item["skipped_buffers"]],
        "semantic": _merged_semantic([item.get("semantic") or {} for item in each]),
        "current": all(item.get("current", False) for item in each),
        "folders": each,
    }


def _merged_semantic(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The vectors of all folders: chunks summed; ready only when every folder's are (off when all are)."""
    states = {part.get("state", "embedding") for part in parts}
    state = "off" if states == {"off"} else "ready" if states <= {"ready", "off"} else (
        "error" if "error" in states else "embedding")
    return {"state": state, "done": sum(int(part.get("done") or 0) for part in parts),
            "total": sum(int(part.get("total") or 0) for part in parts)}


def folder_of(folders: list[Folder], path: Path) -> Folder | None:
    """The innermost folder holding `path` (nested folders are allowed in multi-root workspaces)."""
    holders = [folder for folder in folders if folder.contains(path)]
    return max(holders, key=lambda folder: len(folder.path.parts), default=None)
