"""A cold index does its bulk work once: no partial snapshots where no search can run, the records frozen
out of the cycle collector after a large first index, what it has stored served from the disk."""

from __future__ import annotations

import gc
import mmap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.index.store import SAVED_FILE
from fourfold.engine.index.symbols import SymbolTable
from fourfold.engine.model.records import ParsedFile
from fourfold.engine.service import workspace as workspace_module


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Sizes of the symbol tables built (one per published snapshot); publishing is due after every file,
    and the last files are applied in bulk, as a large repository's are."""
    sizes: list[int] = []

    class Counted(SymbolTable):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            sizes.append(len(self))

    monkeypatch.setattr(workspace_module, "SymbolTable", Counted)
    monkeypatch.setattr(workspace_module, "WRITE_BATCH", 1)
    monkeypatch.setattr(workspace_module, "PUBLISH_INTERVAL_S", 0.0)
    monkeypatch.setattr(workspace_module, "BULK_CHANGE", 0)
    yield sizes


def cold_index(root: Path, index: Path, background: bool,
               builds: list[int] | None = None) -> tuple[Workspace, list[str]]:
    """A first index of `root`; `builds` lists only the symbol tables its refresh built."""
    workspace = Workspace(root, Settings(index_dir=str(index), semantic_backend="none"), background=background)
    if builds is not None:
        builds.clear()
    workspace.refresh()
    names = sorted(f"{s.path}:{s.qualified}" for item in workspace.snapshot().parsed.values() for s in item.symbols)
    return workspace, names


def test_a_one_shot_cold_index_publishes_no_partial_snapshot(tree: Path, tmp_path: Path, builds: list[int]) -> None:
    served, served_names = cold_index(tree, tmp_path / "served", True, builds)
    served_symbols = len(served.snapshot().symbols)
    served.close()
    assert len(builds) > 2  # a server publishes what it has while the first index runs
    one_shot, names = cold_index(tree, tmp_path / "one-shot", False, builds)
    try:
        assert builds == [served_symbols]  # one symbol table, built once over every file
        assert names == served_names and len(one_shot.snapshot().symbols) == served_symbols
    finally:
        one_shot.close()


def test_a_large_cold_index_is_frozen_out_of_the_collector(tree: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workspace_module, "BULK_CHANGE", 0)  # the fixture's files are applied in bulk
    gc.unfreeze()
    small, _ = cold_index(tree, tmp_path / "small", background=False)
    small.close()
    assert gc.get_freeze_count() == 0  # the fixture's few files are below FREEZE_MIN_FILES
    monkeypatch.setattr(workspace_module, "FREEZE_MIN_FILES", 1)
    try:
        large, _ = cold_index(tree, tmp_path / "large", background=False)
        try:
            assert gc.get_freeze_count() > 0
            walked = {id(item) for item in gc.get_objects(generation=None)}  # what the collector still walks
            # The records the bulk build kept (the snapshot keeps the files' rows encoded: bytes, never walked).
            record = next(iter(large.snapshot().symbols.all()))
            assert id(record) not in walked and id(record.span) not in walked
        finally:
            large.close()
    finally:
        gc.unfreeze()


QUESTIONS = ("how does retry work", "BaseJob.with_retry", '"retry"', "who calls with_retry", "what depends on Item")


def test_a_first_index_published_in_parts_holds_what_a_one_shot_index_holds(tree: Path, tmp_path: Path,
                                                                            builds: list[int]) -> None:
    """Written files are kept as encoded rows plus records without chunks until the bulk build: every
    partial snapshot and the last one still read each file's chunks, symbols and graph as parsed."""

    def held(workspace: Workspace) -> tuple[object, ...]:
        snapshot = workspace.snapshot()
        found = [[(hit["path"], hit["symbol"], str(hit["range"]), hit["score"]) for hit in
                  workspace.search_dict(SearchRequest(query=question))["results"]] for question in QUESTIONS]
        return (snapshot.chunks(), dict(snapshot.parsed), sorted(map(repr, snapshot.symbols.all())),
                [symbol.qualified for symbol in workspace.central_symbols(20)], found)

    served = Workspace(tree, Settings(index_dir=str(tmp_path / "served"), semantic_backend="none"), background=True)
    partial_counts: list[tuple[int, int]] = []
    apply = served._apply

    def watched(*args: object, **kwargs: object) -> None:
        apply(*args, **kwargs)  # type: ignore[arg-type]
        snapshot = served.snapshot()
        partial_counts.append((snapshot.chunk_count, sum(len(p.chunks) for p in snapshot.parsed.values())))

    served._apply = watched  # type: ignore[method-assign]
    served.refresh()
    assert len(builds) > 2 and all(counted == listed > 0 for counted, listed in partial_counts)
    one_shot = Workspace(tree, Settings(index_dir=str(tmp_path / "one-shot"), semantic_backend="none"),
                         background=False)
    one_shot.refresh()
    try:
        assert held(served) == held(one_shot)
        stored = {row.record.path: row.parsed for row in one_shot.store.load()}  # as the workers parsed them
        assert dict(one_shot.snapshot().parsed) == stored and dict(served.snapshot().parsed) == stored
        assert sorted(map(repr, one_shot.snapshot().symbols.all())) == sorted(
            repr(symbol) for parsed in stored.values() for symbol in parsed.symbols)
    finally:
        served.close()
        one_shot.close()


def is_mapped(array: np.ndarray) -> bool:
    """Whether `array` views a memory-mapped file (not memory of its own)."""
    base: object = array
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)


def test_a_bulk_build_stores_postings_and_symbols_before_its_graph_and_serves_them_as_built(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """They are written and mapped before the graph is built, so the graph's build reuses the memory of the
    built copies; the answers are those of the built copies (`_saved` switched off)."""
    monkeypatch.setattr(workspace_module, "BULK_CHANGE", 0)
    saved_before_graph: list[bool] = []
    built_graph = Workspace._built_graph

    def watched(self: Workspace, parsed: Mapping[str, ParsedFile], *args: Any, **kwargs: Any) -> Any:
        if parsed:  # not the empty graph an index without rows opens with
            saved_before_graph.append((self.store.folder / SAVED_FILE).exists())
        return built_graph(self, parsed, *args, **kwargs)

    monkeypatch.setattr(Workspace, "_built_graph", watched)
    mapped, _ = cold_index(tree, tmp_path / "mapped", background=False)
    monkeypatch.setattr(Workspace, "_saved", lambda self, snapshot: snapshot)
    built, _ = cold_index(tree, tmp_path / "built", background=False)
    try:
        assert saved_before_graph == [True, False]
        served, kept = mapped.snapshot(), built.snapshot()
        assert all(is_mapped(array) for array in served.trigrams.arrays().values())
        assert all(is_mapped(array) for array in served.symbols.arrays().values())
        assert not any(is_mapped(array) for array in kept.trigrams.arrays().values())
        for question in (*QUESTIONS, "Item", "inventory report"):
            request = SearchRequest(query=question)
            assert [(hit["path"], hit["symbol"], str(hit["range"]), hit["score"]) for hit in
                    mapped.search_dict(request)["results"]] == [
                (hit["path"], hit["symbol"], str(hit["range"]), hit["score"]) for hit in
                built.search_dict(request)["results"]]
        assert mapped.refresh().indexed == 0 and mapped.store.repairs == []
    finally:
        mapped.close()
        built.close()
