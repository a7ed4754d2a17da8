"""The engine's public surface is pinned, and the engine never imports the protocol layer."""

from __future__ import annotations

import ast
from pathlib import Path

import fourfold.engine

ENGINE = Path(fourfold.engine.__file__).parent
FORBIDDEN = ("pygls", "lsprotocol", "fourfold.lsp")


def test_exported_names_change_only_on_purpose() -> None:
    assert sorted(fourfold.engine.__all__) == [
        "Answer", "Chunk", "Classification", "Columns", "DecompositionPart", "FileRecord", "FunctionRow", "Hit",
        "IndexState", "ModalityReport", "ParsedFile", "QueryError", "Reference", "RefreshStats", "Result",
        "SearchError", "SearchRequest", "SearchResponse", "SeedInfo", "Settings", "Snapshot", "Span", "Symbol",
        "UnreadableFile", "Workspace", "WorkspaceError", "classify", "merge_answers", "parse_settings",
    ]
    assert all(hasattr(fourfold.engine, name) for name in fourfold.engine.__all__)


def test_engine_never_imports_the_protocol() -> None:
    offenders = []
    for source in sorted(ENGINE.rglob("*.py")):
        depth = len(source.relative_to(ENGINE).parts)  # relative imports past this leave the engine
        for node in ast.walk(ast.parse(source.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            outside = isinstance(node, ast.ImportFrom) and node.level > depth
            offenders += [f"{source.relative_to(ENGINE)}: {n}" for n in names if n.startswith(FORBIDDEN) or outside]
    assert offenders == []
