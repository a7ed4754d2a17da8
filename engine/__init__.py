"""Fourfold engine: index, retrievers, routing and fusion behind one `Workspace` API.

The engine knows nothing of the Language Server Protocol: the server and the CLI in `fourfold.lsp`
import only the names listed in `__all__`, and a test pins this list so it changes only on purpose.

The names load on first use (PEP 562): `fourfold --help`, a CLI call answered by the daemon and
`fourfold.engine.model.settings` must not pay 3 s for networkx and scipy, which only the index needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .index.discovery import UnreadableFile
    from .index.snapshot import Snapshot
    from .index.textsearch import QueryError
    from .model.records import Chunk, FileRecord, Hit, ParsedFile, Reference, Span, Symbol
    from .model.settings import Settings, parse_settings
    from .query.intent import Classification, classify
    from .query.request import SearchError, SearchRequest
    from .search.answer import (
        Answer,
        Columns,
        DecompositionPart,
        FunctionRow,
        IndexState,
        ModalityReport,
        Result,
        SearchResponse,
        SeedInfo,
        merge_answers,
    )
    from .service.workspace import RefreshStats, Workspace, WorkspaceError

# Public name -> the module that defines it.
_HOMES = {
    **dict.fromkeys(("Answer", "Columns", "DecompositionPart", "FunctionRow", "IndexState", "ModalityReport", "Result",
                     "SeedInfo", "merge_answers"), "search.answer"),
    "UnreadableFile": "index.discovery",
    "Classification": "query.intent",
    "classify": "query.intent",
    **dict.fromkeys(("Chunk", "FileRecord", "Hit", "ParsedFile", "Reference", "Span", "Symbol"), "model.records"),
    **dict.fromkeys(("SearchError", "SearchRequest"), "query.request"),
    "SearchResponse": "search.answer",
    "Settings": "model.settings",
    "parse_settings": "model.settings",
    "Snapshot": "index.snapshot",
    "QueryError": "index.textsearch",
    **dict.fromkeys(("RefreshStats", "Workspace", "WorkspaceError"), "service.workspace"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "Answer",
    "Chunk",
    "Classification",
    "Columns",
    "DecompositionPart",
    "FileRecord",
    "FunctionRow",
    "Hit",
    "IndexState",
    "ModalityReport",
    "ParsedFile",
    "QueryError",
    "Reference",
    "RefreshStats",
    "Result",
    "SearchError",
    "SearchRequest",
    "SearchResponse",
    "SeedInfo",
    "Settings",
    "Snapshot",
    "Span",
    "Symbol",
    "UnreadableFile",
    "Workspace",
    "WorkspaceError",
    "classify",
    "merge_answers",
    "parse_settings",
]
