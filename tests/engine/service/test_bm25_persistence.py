"""A restart reuses the stored BM25 index instead of tokenising and indexing every chunk again.

Work is counted (`LexicalIndex.builds`), never timed: a restart of unchanged rows answers a question
without a build and with the same answer; an edit builds again and the new index is what the next
restart opens; a stored copy that is damaged, or was built from other rows, is never searched.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fourfold.engine import Settings, Workspace
from fourfold.engine.index import store
from fourfold.engine.index.lexical import MANIFEST, LexicalIndex
from fourfold.engine.query.request import SearchRequest
from fourfold.engine.service.workspace import LEXICAL_FOLDER

WAIT_S = 60.0
QUESTIONS = ("how does retry work", "where are items restocked in the inventory", "which job runs next")


def opened(root: Path, index: Path) -> Workspace:
    return Workspace(root, Settings(index_dir=str(index), semantic_backend="none"), background=False)


def answers(workspace: Workspace) -> list[Any]:
    """The ranked (path, symbol, range, score) of every question, text modality and fused."""
    found = []
    for question in QUESTIONS:
        for modes in (("text",), None):
            result = workspace.search_dict(SearchRequest(question, modes=modes))
            found.append([(row["path"], row["symbol"], row["range"], row["score"]) for row in result["results"]])
    return found


def caught_up(workspace: Workspace, question: str) -> dict[str, Any]:
    """The text answer once BM25 is rebuilt for the latest rows (an edit's first question starts the build)."""
    workspace.search_dict(SearchRequest(question, modes=("text",)))
    deadline = time.monotonic() + WAIT_S
    while workspace.status()["lexical"] != "ready":
        assert time.monotonic() < deadline, "BM25 was not rebuilt after the edit"
        time.sleep(0.02)
    return workspace.search_dict(SearchRequest(question, modes=("text",)))


def first_run(root: Path, index: Path) -> list[Any]:
    """Index, answer (building BM25, which is stored) and close; returns the answers."""
    workspace = opened(root, index)
    workspace.refresh()
    found = answers(workspace)
    workspace.close()
    assert any(found)
    return found


def assert_built_again_quietly(root: Path, index: Path, before: list[Any]) -> None:
    """A restart that must not trust the stored BM25: it builds it once, answers as before, and has
    nothing to report as a repair (a stale copy is not a damaged one)."""
    builds = LexicalIndex.builds
    workspace = opened(root, index)
    workspace.refresh()
    assert answers(workspace) == before
    assert LexicalIndex.builds == builds + 1
    assert workspace.status()["repairs"] == []


def test_a_restart_of_unchanged_rows_answers_without_building_bm25(tree: Path, tmp_path: Path) -> None:
    before = first_run(tree, tmp_path / "index")
    assert (tmp_path / "index" / LEXICAL_FOLDER / MANIFEST).is_file()
    builds = LexicalIndex.builds
    workspace = opened(tree, tmp_path / "index")
    workspace.refresh()
    assert answers(workspace) == before
    assert LexicalIndex.builds == builds
    assert workspace.status()["repairs"] == []


def test_an_edit_builds_bm25_again_and_the_next_restart_opens_the_new_one(tree: Path, tmp_path: Path) -> None:
    first_run(tree, tmp_path / "index")
    workspace = opened(tree, tmp_path / "index")
    workspace.refresh()
    answers(workspace)
    target = tree / "inventory" / "models.py"
    target.write_text(target.read_text() + "\n\ndef replenish_warehouse_shelves(item):\n    return item\n")
    builds = LexicalIndex.builds
    workspace.refresh()
    found = caught_up(workspace, "replenish warehouse shelves")
    assert any(row["symbol"] == "replenish_warehouse_shelves" for row in found["results"])
    assert LexicalIndex.builds == builds + 1
    after = answers(workspace)
    workspace.close()
    again = opened(tree, tmp_path / "index")
    again.refresh()
    assert answers(again) == after
    assert LexicalIndex.builds == builds + 1


def _remove(folder: Path) -> None:
    (folder / "data.csc.index.npy").unlink()


def _garble_array(folder: Path) -> None:
    path = folder / "indptr.csc.index.npy"
    blob = bytearray(path.read_bytes())
    blob[-8:] = b"\xff" * 8
    path.write_bytes(bytes(blob))


def _truncate_vocabulary(folder: Path) -> None:
    path = folder / "vocab.index.json"
    path.write_bytes(path.read_bytes()[:10])


def _garble_manifest(folder: Path) -> None:
    (folder / MANIFEST).write_text("{not json")


def _lose_manifest(folder: Path) -> None:
    (folder / MANIFEST).unlink()


@pytest.mark.parametrize("damage", [_remove, _garble_array, _truncate_vocabulary, _garble_manifest, _lose_manifest])
def test_a_damaged_stored_bm25_is_rebuilt_and_said(tree: Path, tmp_path: Path,
                                                   damage: Callable[[Path], None]) -> None:
    before = first_run(tree, tmp_path / "index")
    damage(tmp_path / "index" / LEXICAL_FOLDER)
    builds = LexicalIndex.builds
    workspace = opened(tree, tmp_path / "index")
    workspace.refresh()
    assert answers(workspace) == before
    assert LexicalIndex.builds == builds + 1
    assert any("BM25" in repair for repair in workspace.status()["repairs"])
    workspace.close()
    again = opened(tree, tmp_path / "index")
    again.refresh()
    assert answers(again) == before
    assert LexicalIndex.builds == builds + 1  # stored again, whole
    assert again.status()["repairs"] == []


def test_bm25_stored_for_other_rows_is_not_used(tree: Path, tmp_path: Path) -> None:
    first_run(tree, tmp_path / "index")
    target = tree / "inventory" / "models.py"
    target.write_text(target.read_text() + "\n\ndef replenish_warehouse_shelves(item):\n    return item\n")
    builds = LexicalIndex.builds
    workspace = opened(tree, tmp_path / "index")
    workspace.refresh()  # edited while no process ran: the rows differ from the stored copy's
    found = workspace.search_dict(SearchRequest("replenish warehouse shelves", modes=("text",)))
    assert any(row["symbol"] == "replenish_warehouse_shelves" for row in found["results"])
    assert LexicalIndex.builds == builds + 1
    assert workspace.status()["repairs"] == []


def test_a_change_of_tokenizer_rules_rebuilds_what_was_stored_from_tokens(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stemming rules that changed since the index was stored (an upgrade): the stored BM25 holds the
    old terms, so it is built again rather than searched, and without a repair to report."""
    before = first_run(tree, tmp_path / "index")
    monkeypatch.setattr(store, "TOKENIZING", "another tokenizer")
    assert_built_again_quietly(tree, tmp_path / "index", before)


def test_bm25_stored_under_other_tokenising_is_not_used(tree: Path, tmp_path: Path) -> None:
    before = first_run(tree, tmp_path / "index")
    manifest_path = tmp_path / "index" / LEXICAL_FOLDER / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest["tuning"] = "0:" + manifest["tuning"]
    manifest_path.write_text(json.dumps(manifest))
    assert_built_again_quietly(tree, tmp_path / "index", before)
