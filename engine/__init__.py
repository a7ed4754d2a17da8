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
    from .discovery import UnreadableFile
    from .intent import Classification, classify
    from .records import Chunk, FileRecord, Hit, ParsedFile, Reference, Span, Symbol
    from .search import SearchError, SearchRequest, SearchResponse
    from .settings import Settings, parse_settings
    from .textsearch import QueryError
    from .workspace import RefreshStats, Workspace, WorkspaceError

# Public name -> the module that defines it.
_HOMES = {
    "UnreadableFile": "discovery",
    "Classification": "intent",
    "classify": "intent",
    **dict.fromkeys(("Chunk", "FileRecord", "Hit", "ParsedFile", "Reference", "Span", "Symbol"), "records"),
    **dict.fromkeys(("SearchError", "SearchRequest", "SearchResponse"), "search"),
    "Settings": "settings",
    "parse_settings": "settings",
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
    "Chunk",
    "Classification",
    "FileRecord",
    "Hit",
    "ParsedFile",
    "QueryError",
    "Reference",
    "RefreshStats",
    "SearchError",
    "SearchRequest",
    "SearchResponse",
    "Settings",
    "Span",
    "Symbol",
    "UnreadableFile",
    "Workspace",
    "WorkspaceError",
    "classify",
    "parse_settings",
]
