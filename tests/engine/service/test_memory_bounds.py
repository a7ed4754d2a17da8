"""Indexing holds a fixed budget, not the repository: at most one write batch of encoded rows and texts,
at most IN_FLIGHT_TASKS tasks of parsed results from the workers, texts in a cache bounded by its budget."""

from __future__ import annotations

import multiprocessing
import os
import weakref
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from fourfold.engine import Settings, Workspace
from fourfold.engine.index.indexjob import Indexed, worker_started
from fourfold.engine.index.snapshot import ContentCache
from fourfold.engine.index.store import StoredFile
from fourfold.engine.service import workspace as workspace_module
from fourfold.engine.service.workspace import IN_FLIGHT_TASKS, POOL_CHUNK, _index_job


def make_tree(root: Path, files: int) -> Path:
    root.mkdir()
    for number in range(files):
        (root / f"mod_{number}.py").write_text(f"def handler_{number}(value):\n    return value + {number}\n")
    return root


def test_a_first_index_holds_at_most_one_write_batch_of_encoded_rows(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows are counted alive (by weak reference) each time a batch is written: the entries of earlier
    batches keep their records for the bulk build, but no longer their encoded rows."""
    monkeypatch.setattr(workspace_module, "WRITE_BATCH", 10)
    root = make_tree(tmp_path / "repo", 60)
    rows: list[weakref.ref[StoredFile]] = []
    alive_at_writes: list[int] = []

    def tracked(job: tuple[Path, str, int]) -> Indexed | str:
        item = _index_job(job)
        if isinstance(item, Indexed):
            rows.append(weakref.ref(item.stored))
        return item

    workspace = Workspace(root, Settings(index_dir=str(tmp_path / "ix"), semantic_backend="none"), background=False)
    workspace.index_job = tracked  # type: ignore[method-assign]
    write = workspace.store.write

    def counted(*args: Any, **kwargs: Any) -> None:
        alive_at_writes.append(sum(1 for row in rows if row() is not None and row().encoded))  # type: ignore[union-attr]
        write(*args, **kwargs)

    workspace.store.write = counted  # type: ignore[method-assign]
    try:
        stats = workspace.refresh()
        assert stats.indexed == 60
        assert max(alive_at_writes) <= 10 + 2  # the batch, plus the entry each generator still names
        assert sum(1 for row in rows if row() is not None) == 0
        assert len(workspace.snapshot().symbols) == 60
    finally:
        workspace.close()


def test_a_one_shot_index_keeps_no_text_and_a_server_keeps_them_within_budget(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "repo", 30)
    one_shot = Workspace(root, Settings(index_dir=str(tmp_path / "a"), semantic_backend="none"), background=False)
    try:
        one_shot.refresh()
        snapshot = one_shot.snapshot()
        assert snapshot.contents.held == 0
        assert snapshot.line("mod_7.py", 1) == "    return value + 7"  # read from disk when asked
    finally:
        one_shot.close()
    size = len((root / "mod_3.py").read_text())
    server = Workspace(root, Settings(index_dir=str(tmp_path / "b"), semantic_backend="none", text_cache_mb=0))
    try:
        server.refresh()
        assert server.snapshot().contents.held == 0
        assert server.snapshot().text("mod_3.py") == (root / "mod_3.py").read_text()
    finally:
        server.close()
    held = ContentCache(10 * size)
    for number in range(30):
        held.put(f"mod_{number}.py", str(number), (root / f"mod_{number}.py").read_text())
        assert held.held <= 10 * size
    assert held.get("mod_29.py", "29") is not None and held.get("mod_0.py", "0") is None


def test_the_content_cache_counts_scan_bytes_and_drops_the_oldest_first() -> None:
    cache = ContentCache(100)
    cache.put("a", "1", "x" * 40)
    cache.put("b", "1", "y" * 40)
    assert cache.held == 80
    scan = cache.searchable("b", "1")  # 40 scan bytes more: "a", the oldest, makes room
    assert scan is not None and scan.data == b"y" * 40
    assert cache.held == 80 and cache.get("a", "1") is None and cache.searchable("b", "1") is scan
    cache.put("c", "1", "z" * 101)  # larger than the whole budget: not kept, nothing dropped for it
    assert cache.get("c", "1") is None and cache.get("b", "1") == "y" * 40
    cache.put("b", "2", "w" * 10)  # a new version replaces the old one and its scan bytes
    assert cache.held == 10 and cache.searchable("b", "1") is None
    cache.drop("b")
    assert cache.held == 0


class _CountingPool(ProcessPoolExecutor):
    """A real pool that counts the tasks handed to it."""

    submitted = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        _CountingPool.submitted += 1
        return super().submit(fn, *args, **kwargs)


class _Counted(Workspace):
    def _pool(self, workers: int) -> ProcessPoolExecutor:
        return _CountingPool(workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=worker_started, initargs=(os.getpid(),))


def test_the_workers_results_in_flight_stay_within_the_task_budget(tmp_path: Path) -> None:
    """`Executor.map` handed every file to the pool at once; now at most IN_FLIGHT_TASKS tasks are out
    whatever the pace of the reader, and the results still come back in order."""
    files = IN_FLIGHT_TASKS * POOL_CHUNK + 90
    root = make_tree(tmp_path / "repo", files)
    paths = sorted(f"mod_{number}.py" for number in range(files))
    workspace = _Counted(root, Settings(index_dir=str(tmp_path / "ix"), semantic_backend="none"), background=False)
    _CountingPool.submitted = 0
    outstanding: list[int] = []
    received: list[str] = []
    try:
        results: Iterator[tuple[str, Indexed | str]] = workspace._parse_pooled(
            paths, [(workspace.root, path, 1 << 20) for path in paths], 0, 2)
        for path, item in results:
            assert isinstance(item, Indexed) and item.stored.record.path == path
            received.append(path)
            outstanding.append(_CountingPool.submitted - len(received) // POOL_CHUNK)
    finally:
        workspace.close()
    assert received == paths
    assert max(outstanding) <= IN_FLIGHT_TASKS
