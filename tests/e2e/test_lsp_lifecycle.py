"""End to end over the LSP wire: the sessions that are not "one healthy folder".

A request before `initialize`, a root that does not exist, folders added and removed while the
server runs, and the local semantic backend. Each test starts its own server (about a second
each), since each needs a different start.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from conftest import SERVER, SHUTDOWN_S, WAIT_S, FourfoldClient, capabilities, kill_server, session
from lsprotocol import types
from processes import many_modules
from pygls.exceptions import JsonRpcException

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]
SERVER_NOT_INITIALIZED = -32002
INVALID_REQUEST = -32600


@pytest_lsp.fixture(config=SERVER)
async def bare(lsp_client: FourfoldClient) -> AsyncIterator[None]:
    """A server process that has not been initialized; the test drives the whole session."""
    try:
        yield
        if lsp_client.capabilities is not None:
            await asyncio.wait_for(lsp_client.shutdown_session(), SHUTDOWN_S)
    finally:
        kill_server(lsp_client)


async def initialize(client: FourfoldClient, *roots: Path, index_dir: Path) -> None:
    folders = [types.WorkspaceFolder(uri=root.as_uri(), name=root.name) for root in roots]
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities("vscode"),
        root_uri=folders[0].uri if folders else None,
        workspace_folders=folders,
        initialization_options={"indexDir": str(index_dir), "semantic": {"backend": "none"}},
    ))


def small_tree(root: Path, function: str) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "tool.py").write_text(f"def {function}(value):\n    return value * 2\n", encoding="utf-8")
    return root


async def test_requests_before_initialize_are_refused(bare: FourfoldClient, tmp_path: Path) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await bare.raw_request(types.WORKSPACE_SYMBOL, {"query": "anything"})
    assert caught.value.code == SERVER_NOT_INITIALIZED
    assert "initialize" in caught.value.message

    root = small_tree(tmp_path / "late", "quadruple_value")
    await initialize(bare, root, index_dir=tmp_path / "index")
    await bare.wait_status(lambda s: s["phase"] == "indexed")
    symbols = await bare.workspace_symbol_async(types.WorkspaceSymbolParams(query="quadruple_value"))
    assert symbols and symbols[0].name == "quadruple_value"


async def test_missing_root_is_reported_and_the_server_keeps_running(bare: FourfoldClient, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"
    # The protocol's own wait registers at once, so the message cannot slip by before the await.
    shown = bare.protocol.wait_for_notification_async(types.WINDOW_SHOW_MESSAGE)
    await initialize(bare, missing, index_dir=tmp_path / "index")
    message = await asyncio.wait_for(shown, WAIT_S)
    assert message.type == types.MessageType.Error and "no-such-folder" in message.message
    await bare.wait_status(lambda s: s["phase"] == "error")

    status = await bare.command("fourfold.indexStatus")
    assert status["state"] == "error" and status["ready"] is False
    assert "does not exist" in status["last_error"]
    with pytest.raises(JsonRpcException) as caught:
        await bare.search("anything")
    assert caught.value.code == INVALID_REQUEST and "could be indexed" in caught.value.message
    assert await bare.workspace_symbol_async(types.WorkspaceSymbolParams(query="anything")) == []


async def test_folders_added_and_removed_at_run_time(bare: FourfoldClient, tmp_path: Path) -> None:
    first = small_tree(tmp_path / "first", "alpha_folder_marker")
    second = small_tree(tmp_path / "second", "beta_folder_marker")
    await initialize(bare, first, second, index_dir=tmp_path / "index")
    indexed = {first.as_uri(), second.as_uri()}
    while indexed:
        status = await bare.wait_status(lambda s: s["phase"] == "indexed" and s["folder"] in indexed)
        indexed.discard(status["folder"])
    result = await bare.search("beta_folder_marker")
    assert result["results"][0]["folder"] == second.as_uri()
    assert result["results"][0]["uri"] == (second / "pkg" / "tool.py").as_uri()

    third = small_tree(tmp_path / "third", "gamma_folder_marker")
    mark = len(bare.statuses)
    bare.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(uri=third.as_uri(), name="third")],
            removed=[types.WorkspaceFolder(uri=second.as_uri(), name="second")])))
    await bare.wait_status(lambda s: s["phase"] == "indexed" and s["folder"] == third.as_uri(), after=mark)
    status = await bare.command("fourfold.indexStatus")
    assert [folder["folder"] for folder in status["folders"]] == [first.as_uri(), third.as_uri()]
    gamma = await bare.search("gamma_folder_marker")
    assert gamma["results"][0]["folder"] == third.as_uri()
    beta = await bare.search("beta_folder_marker")
    assert all(row["folder"] != second.as_uri() for row in beta["results"])


async def test_a_first_index_large_enough_for_a_build_process_is_indexed_and_served(
        bare: FourfoldClient, tmp_path: Path) -> None:
    # Past ELSEWHERE_MIN_FILES, the real server builds in a process of its own (its parts and its end are
    # checked in tests/engine/service/test_build_process.py): here, that its progress and answers reach a client.
    root = tmp_path / "large"
    many_modules(root, 1200, 12)
    await initialize(bare, root, index_dir=tmp_path / "index")
    status = await bare.wait_status(lambda s: s["phase"] in ("indexed", "error"))
    assert status["phase"] == "indexed", status
    values = [value for reports in bare.progress_reports.values() for value in reports]
    messages = [value.message for value in values if isinstance(value, types.WorkDoneProgressReport)]
    assert "Indexing 1,200 / 1,200 files" in messages  # the build process's progress, relayed
    symbols = await bare.workspace_symbol_async(types.WorkspaceSymbolParams(query="function_1199"))
    assert symbols and symbols[0].name == "function_1199"
    assert symbols[0].location.uri == (root / "pkg11" / "mod1199.py").as_uri()  # type: ignore[union-attr]
    result = await bare.search('"marker 1199"')
    assert result["partial"] is False and result["index"]["files"] == 1200
    assert result["results"][0]["uri"] == (root / "pkg11" / "mod1199.py").as_uri()


@pytest_lsp.fixture(config=SERVER)
async def semantic(lsp_client: FourfoldClient, tmp_path: Path) -> AsyncIterator[None]:
    async with session(lsp_client, "vscode", tmp_path, backend="local"):
        yield


async def test_local_semantic_backend_embeds_and_answers(semantic: FourfoldClient) -> None:
    await semantic.wait_status(lambda s: s["phase"] == "embedded")
    status = await semantic.command("fourfold.indexStatus")
    assert status["backend"] == "local"
    assert 0 < status["embedded"] <= status["chunks"]
    result = await semantic.search("how does retry work", limit=5)
    assert result["modalities"]["semantic"]["ran"] is True
    assert any("retry" in row["path"] for row in result["results"])
