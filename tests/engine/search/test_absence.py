"""Honest "not found" (issue 14): a target the workspace lacks is said to be missing, and every result is a guess."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.search.absence import occurs, similar_names

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "polyglot"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    root = tmp_path_factory.mktemp("absence") / "polyglot"
    shutil.copytree(FIXTURE, root)
    opened = Workspace(root, Settings(index_dir=str(tmp_path_factory.mktemp("index")), semantic_backend="none"),
                       background=False)
    opened.refresh()
    yield opened
    opened.close()


@pytest.mark.parametrize(
    ("query", "note"),
    [
        ("where is load_settingz defined", "no definition of load_settingz"),
        ("class KubernetesDeploymentOperator", "no definition of KubernetesDeploymentOperator"),
        ("who calls render_react_sidebar", "no symbol named render_react_sidebar"),
        ("what depends on TensorflowModelLoader", "no symbol named TensorflowModelLoader"),
        ("how does the Kafka consumer rebalance partitions", "Kafka occurs nowhere in this workspace"),
        ("how does the websocket reconnect after a dropped connection", "websocket occurs nowhere in this workspace"),
        ("how are unpaid invoices reminded by email", "unpaid occurs nowhere in this workspace"),
    ],
)
def test_a_missing_target_is_said_to_be_missing_and_results_are_guesses(workspace: Workspace, query: str,
                                                                       note: str) -> None:
    response = workspace.search(SearchRequest(query))
    assert any(n.startswith(note) for n in response.notes), response.notes
    rows = workspace.search_dict(SearchRequest(query))["results"]
    assert all(row["approximate"] is True for row in rows)


def test_similar_names_are_offered_for_a_misspelt_name(workspace: Workspace) -> None:
    response = workspace.search(SearchRequest("where is load_settingz defined"))
    (note,) = [n for n in response.notes if n.startswith("no definition")]
    assert "similar names: " in note and "load_settings" in note
    assert "load_settings" in similar_names(workspace.snapshot(), "load_settingz")


@pytest.mark.parametrize("query", ["where is load_settings defined", "who calls retry", "how does retry work",
                                   "what depends on InventoryService", "how are the settings loaded",
                                   "how does backoff grow between attempts"])
def test_a_present_target_gets_no_note_and_no_guesses(workspace: Workspace, query: str) -> None:
    response = workspace.search(SearchRequest(query))
    assert not [n for n in response.notes if n.startswith("no ") or "occurs nowhere" in n]
    assert response.results and not any(result.approximate for result in response.results)


def test_occurs_reads_the_files_not_only_the_symbols(workspace: Workspace) -> None:
    snapshot = workspace.snapshot()
    assert occurs(snapshot, "backoff") and occurs(snapshot, "backoff_delay")
    assert not occurs(snapshot, "kafka")
    assert not occurs(snapshot, "BACKOFF")  # smart case: a name written with capitals must appear so


def test_a_subject_typed_into_an_unsaved_buffer_is_not_missing(tmp_path: Path) -> None:
    """BM25 reads a buffer at its next build; until then the buffer itself says the subject exists."""
    root = tmp_path / "src"
    root.mkdir()
    (root / "app.py").write_text("def retry(times):\n    return times\n")
    settings = Settings(index_dir=str(tmp_path / "index"), semantic_backend="none")
    workspace = Workspace(root, settings, background=False)
    try:
        workspace.refresh()
        query = "how does the websocket reconnect"
        assert any("websocket occurs nowhere" in n for n in workspace.search(SearchRequest(query)).notes)
        workspace.set_buffer("app.py", "def websocket_reconnect(socket):\n    return socket.open()\n")
        assert not any("occurs nowhere" in n for n in workspace.search(SearchRequest(query)).notes)
    finally:
        workspace.close()
