"""Fourfold engine: index, retrievers, routing and fusion behind one `Workspace` API.

The engine knows nothing of the Language Server Protocol: the server and the CLI in `fourfold.lsp`
import only the names listed in `__all__`, and a test pins this list so it changes only on purpose.

The names load on first use (PEP 562): `fourfold --help`, a CLI call answered by the daemon and
`fourfold.engine.settings` must not pay 3 s for networkx and scipy, which only the index needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .answer import (
        Answer,
        Columns,
        DecompositionPart,
        IndexState,
        ModalityReport,
        Result,
        SearchResponse,
        SeedInfo,
        merge_answers,
    )
    from .discovery import UnreadableFile
    from .intent import Classification, classify
    from .records import Chunk, FileRecord, Hit, ParsedFile, Reference, Span, Symbol
    from .request import SearchError, SearchRequest
    from .settings import Settings, parse_settings
    from .snapshot import Snapshot
    from .textsearch import QueryError
    from .workspace import RefreshStats, Workspace, WorkspaceError

# Public name -> the module that defines it.
_HOMES = {
    **dict.fromkeys(("Answer", "Columns", "DecompositionPart", "IndexState", "ModalityReport", "Result", "SeedInfo",
                     "merge_answers"), "answer"),
    "UnreadableFile": "discovery",
    "Classification": "intent",
    "classify": "intent",
    **dict.fromkeys(("Chunk", "FileRecord", "Hit", "ParsedFile", "Reference", "Span", "Symbol"), "records"),
    **dict.fromkeys(("SearchError", "SearchRequest"), "request"),
    "SearchResponse": "answer",
    "Settings": "settings",
    "parse_settings": "settings",
    "Snapshot": "snapshot",
    "QueryError": "textsearch",
    **dict.fromkeys(("RefreshStats", "Workspace", "WorkspaceError"), "workspace"),
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
