"""Go to definition, find references and the call hierarchy, from the engine's symbol table and graph.

Each handler turns the client's position into the engine's (code point column) on one snapshot,
asks the engine in a worker thread on that same snapshot, and converts the places it names back
on it: the columns in and out are read from one text, even while edits land.
"""

from __future__ import annotations

from collections.abc import Mapping

from lsprotocol import types

from fourfold.engine import Snapshot, Symbol, Workspace

from . import convert
from .positions import LineSource, from_client
from .server import FourfoldServer

IncomingCalls = list[types.CallHierarchyIncomingCall]
OutgoingCalls = list[types.CallHierarchyOutgoingCall]


def register(server: FourfoldServer) -> None:
    server.feature(types.TEXT_DOCUMENT_DEFINITION)(definition)
    server.feature(types.TEXT_DOCUMENT_REFERENCES)(references)
    server.feature(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)(prepare_call_hierarchy)
    server.feature(types.CALL_HIERARCHY_INCOMING_CALLS)(incoming_calls)
    server.feature(types.CALL_HIERARCHY_OUTGOING_CALLS)(outgoing_calls)


async def _position(ls: FourfoldServer, uri: str,
                    position: types.Position) -> tuple[Workspace, Snapshot, str, int, int] | None:
    """Engine coordinates (code point column) of a client position, after pending edits are applied,
    with the snapshot they were read on."""
    located = ls.locate(uri)
    if located is None:
        return None
    folder, workspace, relative = located
    if folder.updates is not None:
        await folder.updates.settled()
    snapshot = workspace.snapshot()
    line = LineSource(snapshot.text).line(relative, position.line)
    return workspace, snapshot, relative, position.line, from_client(line, position.character, ls.encoding)


async def definition(ls: FourfoldServer, params: types.DefinitionParams) -> list[types.Location]:
    target = await _position(ls, params.text_document.uri, params.position)
    if target is None:
        return []
    workspace, snapshot, path, line, col = target
    encoding = ls.encoding
    return await ls.off_loop(lambda: convert.hit_locations(
        snapshot, workspace.definitions_at(path, line, col, snapshot=snapshot), encoding))


async def references(ls: FourfoldServer, params: types.ReferenceParams) -> list[types.Location]:
    target = await _position(ls, params.text_document.uri, params.position)
    if target is None:
        return []
    workspace, snapshot, path, line, col = target
    encoding = ls.encoding

    def find() -> list[types.Location]:
        hits = workspace.references_at(path, line, col, snapshot=snapshot)
        if params.context.include_declaration:
            hits = workspace.definitions_at(path, line, col, snapshot=snapshot) + hits
        return convert.hit_locations(snapshot, hits, encoding)

    return await ls.off_loop(find)


async def prepare_call_hierarchy(ls: FourfoldServer,
                                 params: types.CallHierarchyPrepareParams) -> list[types.CallHierarchyItem]:
    target = await _position(ls, params.text_document.uri, params.position)
    if target is None:
        return []
    workspace, snapshot, path, line, col = target
    encoding = ls.encoding

    def prepare() -> list[types.CallHierarchyItem]:
        symbol = workspace.symbol_at(path, line, col, snapshot=snapshot)
        if symbol is None:
            return []
        return [convert.call_item(snapshot, symbol, convert.ClientColumns(encoding))]

    return await ls.off_loop(prepare)


def _item_symbol(ls: FourfoldServer, item: types.CallHierarchyItem) -> tuple[Workspace, Snapshot, Symbol] | None:
    """The symbol a call hierarchy item names, from the engine coordinates it keeps in `data`."""
    located = ls.locate(item.uri)
    data = item.data
    if located is None:
        return None
    _, workspace, relative = located
    snapshot = workspace.snapshot()
    line = getattr(data, "line", None) if not isinstance(data, Mapping) else data.get("line")
    col = getattr(data, "col", None) if not isinstance(data, Mapping) else data.get("col")
    if not isinstance(line, int) or not isinstance(col, int):
        line, col = item.selection_range.start.line, item.selection_range.start.character
        col = from_client(LineSource(snapshot.text).line(relative, line), col, ls.encoding)
    symbol = workspace.symbol_at(relative, line, col, snapshot=snapshot)
    return None if symbol is None else (workspace, snapshot, symbol)


async def incoming_calls(ls: FourfoldServer, params: types.CallHierarchyIncomingCallsParams) -> IncomingCalls:
    encoding = ls.encoding

    def calls() -> IncomingCalls:
        found = _item_symbol(ls, params.item)
        if found is None:
            return []
        workspace, snapshot, symbol = found
        return convert.incoming(snapshot, workspace.incoming_calls(symbol, snapshot=snapshot), encoding)

    return await ls.off_loop(calls)


async def outgoing_calls(ls: FourfoldServer, params: types.CallHierarchyOutgoingCallsParams) -> OutgoingCalls:
    encoding = ls.encoding

    def calls() -> OutgoingCalls:
        found = _item_symbol(ls, params.item)
        if found is None:
            return []
        workspace, snapshot, symbol = found
        return convert.outgoing(snapshot, symbol, workspace.outgoing_calls(symbol, snapshot=snapshot), encoding)

    return await ls.off_loop(calls)
