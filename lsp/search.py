"""Search: Ctrl+T (`workspace/symbol`) and the `fourfold.search` command, both the fused engine.

Each handler turns its params into one SearchRequest, asks every open folder in worker threads,
lets the engine merge the folders' answers (`merge_answers`) and writes the answer in the client's
columns, converted on the snapshots the folders searched. Nothing here ranks or adds fields.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest

from fourfold.engine import Answer, QueryError, SearchRequest, Workspace, merge_answers

from . import convert
from .arguments import one_object, search_request
from .folders import Folder
from .server import FourfoldServer

T = TypeVar("T")

SEARCH_COMMAND = "fourfold.search"
# Ctrl+T shows about a dozen rows; 50 leaves room to scroll while every row still costs its
# conversion and its share of the JSON on each keystroke (jedi-language-server sends 20). The empty
# query lists the hubs of the code base.
WORKSPACE_SYMBOL_LIMIT = 50
CENTRAL_SYMBOL_LIMIT = 50


def register(server: FourfoldServer) -> None:
    server.feature(types.WORKSPACE_SYMBOL)(workspace_symbol)
    server.command(SEARCH_COMMAND)(search_command)


async def workspace_symbol(ls: FourfoldServer,
                           params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
    """Ctrl+T: the fused engine; the empty query lists the most central symbols. Partial while indexing."""
    async with ls.symbol_gate:
        return await to_completion(_workspace_symbol(ls, params.query.strip()))


async def _workspace_symbol(ls: FourfoldServer, query: str) -> list[types.WorkspaceSymbol]:
    encoding = ls.encoding
    if not query:
        pairs = await ls.opened()
        found = await asyncio.gather(*(ls.off_loop(_central, workspace, encoding) for _, workspace in pairs))
        return [symbol for symbols in found for symbol in symbols][:WORKSPACE_SYMBOL_LIMIT]
    request = search_request({"query": query, "limit": WORKSPACE_SYMBOL_LIMIT})
    try:
        answer = await run_search(ls, request)
    except JsonRpcInvalidRequest:
        return []
    except QueryError as error:
        raise JsonRpcInvalidParams(f"invalid query: {error}") from error
    columns = convert.ClientColumns(encoding)
    symbols = [convert.workspace_symbol(result, columns) for result in answer.results]
    if answer.partial:
        for symbol in symbols:
            symbol.data = {"partial": True}
    return symbols


async def to_completion(work: Awaitable[T]) -> T:
    """Await `work`; when the request is cancelled, still hold on until its worker thread is done.

    A thread cannot be stopped: letting go at once would start the next keystroke's search beside
    the abandoned one, and a fast typist would pile up searches that all share one GIL.
    """
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await asyncio.wait([task])
        if not task.cancelled():
            task.exception()  # retrieved: nobody is waiting for an abandoned answer
        raise


def _central(workspace: Workspace, encoding: str) -> list[types.WorkspaceSymbol]:
    snapshot = workspace.snapshot()
    columns = convert.ClientColumns(encoding)
    return [convert.symbol_entry(snapshot, symbol, columns)
            for symbol in workspace.central_symbols(CENTRAL_SYMBOL_LIMIT, snapshot=snapshot)]


async def search_command(ls: FourfoldServer, *args: Any) -> dict[str, Any]:
    """`fourfold.search` (DESIGN §7), with "index" and "partial" so a client can say the list may grow."""
    values = one_object(args, SEARCH_COMMAND, '{"query": "parse config"}')
    request = search_request(values)
    try:
        answer = await run_search(ls, request)
    except QueryError as error:
        raise JsonRpcInvalidParams(f"invalid query: {error}") from error
    return convert.answer_json(answer, ls.encoding)


async def run_search(ls: FourfoldServer, request: SearchRequest) -> Answer:
    """The request over every open folder, each in a worker thread; the engine merges them by score."""
    pairs = await ls.opened()
    if not pairs:
        raise JsonRpcInvalidRequest(ls.no_index_message())
    answers = await asyncio.gather(*(ls.off_loop(_search_folder, folder, workspace, request)
                                     for folder, workspace in pairs))
    return merge_answers(answers, request.limit)


def _search_folder(folder: Folder, workspace: Workspace, request: SearchRequest) -> Answer:
    return workspace.search_answer(request, folder=folder.uri)
