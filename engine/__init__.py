"""Fourfold engine: index, retrievers, routing and fusion behind one `Workspace` API.

The engine knows nothing of the Language Server Protocol: the server and the CLI in `fourfold.lsp`
import only the names listed in `__all__`, and a test pins this list so it changes only on purpose.
"""

from .discovery import UnreadableFile
from .intent import Classification, classify
from .records import Chunk, FileRecord, Hit, ParsedFile, Reference, Span, Symbol
from .search import SearchError, SearchRequest, SearchResponse
from .settings import Settings, parse_settings
from .textsearch import QueryError
from .workspace import RefreshStats, Workspace, WorkspaceError

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
