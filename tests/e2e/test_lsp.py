"""End to end over the LSP wire: lifecycle, Ctrl+T, the three commands, navigation, edits, errors.

Parametrised over recorded VS Code (UTF-16) and Neovim 0.11 (UTF-8) capabilities; one server and
one index per client, shared by the module's tests.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from conftest import CLIENTS, EMOJI_FILE, EMOJI_SOURCE, SERVER, FourfoldClient, session
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from fourfold.lsp.typescript import problems

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
REQUEST_CANCELLED = -32800


@pytest_lsp.fixture(scope="module", params=CLIENTS, config=SERVER)
async def client(lsp_client: FourfoldClient, request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory):
    async with session(lsp_client, request.param, tmp_path_factory.mktemp(request.param)):
        yield


def expected_column(line: str, points: int, encoding: str) -> int:
    prefix = line[:points]
    if encoding == "utf-8":
        return len(prefix.encode("utf-8"))
    if encoding == "utf-32":
        return points
    return len(prefix.encode("utf-16-le")) // 2


def uri_path(client: FourfoldClient, uri: str) -> str:
    return Path(uri.removeprefix("file://")).relative_to(client.root).as_posix()


async def test_progress_begins_reports_and_ends(client: FourfoldClient) -> None:
    # pytest-lsp stores the structured `value` of each $/progress (typed as ProgressParams, it is not).
    values: list[Any] = [value for reports in client.progress_reports.values() for value in reports]
    kinds = [value.kind for value in values]
    assert kinds[0] == "begin" and "end" in kinds
    reports = [value for value in values if isinstance(value, types.WorkDoneProgressReport)]
    assert reports and all(0 <= (value.percentage or 0) <= 100 for value in reports)
    assert re.fullmatch(r"Indexing [\d,]+ / [\d,]+ files", reports[-1].message or "")


async def test_file_watcher_registered_when_the_client_allows(client: FourfoldClient) -> None:
    workspace = client.capabilities.workspace if client.capabilities else None
    watched = workspace.did_change_watched_files if workspace else None
    allowed = bool(watched and watched.dynamic_registration)
    methods = [registration.method for registration in client.registrations]
    assert methods.count(types.WORKSPACE_DID_CHANGE_WATCHED_FILES) == (1 if allowed else 0)


async def test_workspace_symbol_finds_a_definition(client: FourfoldClient) -> None:
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="load_settings"))
    assert symbols, "no workspace symbols"
    first = symbols[0]
    assert first.name == "load_settings"
    assert first.kind == types.SymbolKind.Function
    assert isinstance(first.location, types.Location)
    assert uri_path(client, first.location.uri) == "inventory/config.py"
    assert first.location.range.start.line == 28


async def test_empty_query_lists_central_symbols(client: FourfoldClient) -> None:
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    assert symbols and len(symbols) <= 100
    assert all(symbol.name for symbol in symbols)


async def test_positions_use_the_client_encoding(client: FourfoldClient) -> None:
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="launchRocket"))
    match = next(s for s in symbols if uri_path(client, s.location.uri) == EMOJI_FILE)  # type: ignore[union-attr]
    line = EMOJI_SOURCE.rstrip("\n")
    points = line.index("launchRocket")
    start = match.location.range.start  # type: ignore[union-attr]
    assert start.line == 0
    assert start.character == expected_column(line, points, client.encoding)
    assert start.character != points  # the line has non-ASCII text before the name


async def test_search_command_result_shape(client: FourfoldClient) -> None:
    result = await client.search("load_settings", limit=5)
    for key in ("query", "intent", "confidence", "fusion_strategy", "preset", "k", "modalities", "results",
                "timings_ms", "index", "partial"):
        assert key in result, key
    assert result["index"]["ready"] is True and result["partial"] is False
    assert result["index"]["files"] > 10
    assert 0 < len(result["results"]) <= 5
    top = result["results"][0]
    assert top["path"] == "inventory/config.py"
    assert top["uri"].endswith("/inventory/config.py")
    assert top["folder"] == client.root.as_uri()
    assert set(top["range"]) == {"start", "end"}
    # the server's answer is the engine's contract, which vscode-client/src/answer.ts is generated from
    assert problems(result) == []
    impact = await client.search("what depends on load_settings")
    assert problems(impact) == [] and any(row["via"] for row in impact["results"])


async def test_search_command_filters_paths(client: FourfoldClient) -> None:
    result = await client.search("retry", paths=["go/**"])
    assert result["results"]
    assert all(row["path"].startswith("go/") for row in result["results"])


async def test_index_status_command(client: FourfoldClient) -> None:
    status = await client.command("fourfold.indexStatus")
    assert status["ready"] is True and status["state"] == "ready"
    assert status["files"] > 10 and status["symbols"] > 10
    assert status["progress"] == 1.0
    assert [folder["folder"] for folder in status["folders"]] == [client.root.as_uri()]


async def test_definition_jumps_from_a_call(client: FourfoldClient) -> None:
    uri = (client.root / "inventory/service.py").as_uri()
    line = 13
    column = (client.root / "inventory/service.py").read_text().splitlines()[line].index("load_settings()")
    locations = await client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, column + 2)))
    assert isinstance(locations, list) and locations
    assert any(uri_path(client, loc.uri) == "inventory/config.py" and loc.range.start.line == 28
               for loc in locations)  # type: ignore[union-attr]


async def test_references_include_the_caller(client: FourfoldClient) -> None:
    uri = (client.root / "inventory/config.py").as_uri()
    locations = await client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(28, 5),
        context=types.ReferenceContext(include_declaration=False)))
    assert locations
    assert "inventory/service.py" in {uri_path(client, loc.uri) for loc in locations}


async def test_call_hierarchy_both_ways(client: FourfoldClient) -> None:
    uri = (client.root / "inventory/service.py").as_uri()
    line = 27  # def connect(self):
    column = (client.root / "inventory/service.py").read_text().splitlines()[line].index("connect")
    items = await client.text_document_prepare_call_hierarchy_async(types.CallHierarchyPrepareParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, column)))
    assert items and items[0].name == "connect"
    outgoing = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=items[0]))
    assert "retry" in {call.to.name for call in outgoing or []}

    config = (client.root / "inventory/config.py").as_uri()
    targets = await client.text_document_prepare_call_hierarchy_async(types.CallHierarchyPrepareParams(
        text_document=types.TextDocumentIdentifier(uri=config), position=types.Position(28, 5)))
    assert targets and targets[0].name == "load_settings"
    incoming = await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=targets[0]))
    assert any(uri_path(client, call.from_.uri) == "inventory/service.py" for call in incoming or [])


async def test_file_changed_on_disk_is_found(client: FourfoldClient) -> None:
    path = client.root / "inventory" / "zanzibar.py"
    path.write_text("def zanzibar_quota_checker(limit):\n    return limit > 3\n", encoding="utf-8")
    mark = len(client.statuses)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Created)]))
    await client.wait_status(lambda s: s["phase"] == "updated", after=mark)
    result = await client.search("zanzibar_quota_checker")
    assert result["results"][0]["path"] == "inventory/zanzibar.py"

    path.unlink()
    mark = len(client.statuses)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Deleted)]))
    await client.wait_status(lambda s: s["phase"] == "updated", after=mark)
    result = await client.search("zanzibar_quota_checker")
    assert all(row["path"] != "inventory/zanzibar.py" for row in result["results"])


async def test_unsaved_buffer_is_searchable(client: FourfoldClient) -> None:
    path = client.root / "inventory" / "models.py"
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8")
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=text)))
    last = len(text.split("\n")) - 1
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(last, 0), end=types.Position(last, 0)),
            text="\ndef marmalade_unsaved_helper():\n    return 42\n")]))
    result = await client.search("marmalade_unsaved_helper")
    assert result["results"] and result["results"][0]["path"] == "inventory/models.py"
    assert "marmalade_unsaved_helper" not in path.read_text(encoding="utf-8")

    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    result = await client.search("marmalade_unsaved_helper")
    assert all("marmalade" not in (row["snippet"] or "") for row in result["results"])


async def test_invalid_settings_are_reported_and_defaults_kept(client: FourfoldClient) -> None:
    client.set_configuration({"preset": "warp-speed"}, section="fourfold")
    # The protocol's own wait registers at once, so the message cannot slip by before the await.
    shown = client.protocol.wait_for_notification_async(types.WINDOW_SHOW_MESSAGE)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    message = await shown
    assert "preset" in message.message and "default" in message.message
    client.set_configuration({}, section="fourfold")
    status = await client.command("fourfold.indexStatus")
    assert status["ready"] is True


async def change_settings(client: FourfoldClient, section: dict[str, Any]) -> None:
    """Change the `fourfold` settings as an editor does, and wait until the folder is re-opened with them."""
    client.set_configuration(section, section="fourfold")
    mark = len(client.statuses)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"fourfold": section}))
    await client.wait_status(lambda s: s["phase"] == "indexed", after=mark)


async def test_settings_change_applies_to_the_next_search(client: FourfoldClient) -> None:
    assert (await client.search("load_settings"))["preset"] == "default"
    await change_settings(client, {"preset": "quick"})
    try:
        result = await client.search("load_settings")
        assert result["preset"] == "quick" and result["index"]["ready"] is True
        assert "inventory/config.py" in {row["path"] for row in result["results"]}
    finally:
        await change_settings(client, {})
    assert (await client.search("load_settings"))["preset"] == "default"


async def test_reindex_restarts_indexing(client: FourfoldClient) -> None:
    mark = len(client.statuses)
    answer = await client.command("fourfold.reindex", {"full": False})
    assert answer["started"] is True
    status = await client.wait_status(lambda s: s["phase"] == "indexed", after=mark)
    assert status["ready"] is True


async def rpc_error(awaitable: Any) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as caught:
        await awaitable
    return caught.value


@pytest.mark.parametrize(("command", "arguments", "fragment"), [
    ("fourfold.nope", [], "fourfold.search"),
    ("fourfold.search", [], '"query" is required'),
    ("fourfold.search", [{"query": "x", "limit": "ten"}], '"limit"'),
    ("fourfold.search", [{"query": "x", "preset": "turbo"}], "preset"),
    ("fourfold.search", [{"query": "x" * 100_000}], "limit is"),
    ("fourfold.search", ["just a string"], "one object argument"),
    ("fourfold.reindex", [{"full": "yes"}], '"full"'),
])
async def test_bad_commands_get_actionable_errors(client: FourfoldClient, command: str, arguments: list[Any],
                                                  fragment: str) -> None:
    error = await rpc_error(client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=arguments)))
    assert error.code == INVALID_PARAMS
    assert fragment in error.message


async def test_protocol_errors_leave_the_server_running(client: FourfoldClient) -> None:
    error = await rpc_error(client.protocol.send_request_async("fourfold/unknownMethod", {}))
    assert error.code == METHOD_NOT_FOUND
    error = await rpc_error(client.raw_request(types.WORKSPACE_SYMBOL, {}))
    assert error.code == INVALID_PARAMS and "query" in error.message
    error = await rpc_error(client.raw_request(types.TEXT_DOCUMENT_DEFINITION, {
        "textDocument": {"uri": (client.root / "inventory/config.py").as_uri()}, "position": {"line": "x"}}))
    assert error.code == INVALID_PARAMS and "position" in error.message
    error = await rpc_error(client.workspace_symbol_async(types.WorkspaceSymbolParams(query="q" * 100_000)))
    assert error.code == INVALID_PARAMS
    status = await client.command("fourfold.indexStatus")
    assert status["ready"] is True


async def test_cancelled_search_does_not_block_the_next(client: FourfoldClient) -> None:
    msg_id = "search-to-cancel"
    pending = client.protocol.send_request_async(
        types.WORKSPACE_SYMBOL, types.WorkspaceSymbolParams(query="how does retry work"), msg_id=msg_id)
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="InventoryService"))
    assert symbols and symbols[0].name == "InventoryService"
    try:
        await pending  # answered before the cancel arrived, or cancelled: both are correct
    except JsonRpcException as error:
        assert error.code == REQUEST_CANCELLED
