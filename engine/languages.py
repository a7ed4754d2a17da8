"""Which language a file is written in, and the tree-sitter grammar that parses it.

Grammars come from the per-language wheels (`tree-sitter-python`, …), which ship a compiled
parser and, for most languages, a `tags.scm` query. Nothing is downloaded at run time, so the
index builds offline. A file whose extension is not listed here is still indexed for text search.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePath

import tree_sitter as ts


@dataclass(frozen=True)
class Grammar:
    """Where a language's parser lives: the wheel's module and the function returning its pointer."""

    module: str
    function: str = "language"


# Extension -> language id. The ids are the ones the `languages` search filter accepts.
EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".txt": "text",
}

GRAMMARS: dict[str, Grammar] = {
    "python": Grammar("tree_sitter_python"),
    "javascript": Grammar("tree_sitter_javascript"),
    "typescript": Grammar("tree_sitter_typescript", "language_typescript"),
    "tsx": Grammar("tree_sitter_typescript", "language_tsx"),
    "go": Grammar("tree_sitter_go"),
    "rust": Grammar("tree_sitter_rust"),
    "java": Grammar("tree_sitter_java"),
    "c": Grammar("tree_sitter_c"),
    "cpp": Grammar("tree_sitter_cpp"),
    "csharp": Grammar("tree_sitter_c_sharp"),
    "ruby": Grammar("tree_sitter_ruby"),
    "php": Grammar("tree_sitter_php", "language_php"),
}

# Documentation languages are chunked by heading rather than parsed.
DOC_LANGUAGES = frozenset({"markdown", "rst", "text"})


def detect_language(path: str | PurePath) -> str | None:
    """The language id for a path, by extension; None for files indexed as plain text only."""
    return EXTENSIONS.get(PurePath(path).suffix.lower())


def has_grammar(language: str | None) -> bool:
    return language in GRAMMARS


@cache
def grammar(language: str) -> ts.Language:
    """The compiled tree-sitter language for an id in GRAMMARS (cached: loading is not free)."""
    spec = GRAMMARS[language]
    module = importlib.import_module(spec.module)
    return ts.Language(getattr(module, spec.function)())


@cache
def shipped_tags_query(language: str) -> str:
    """The `tags.scm` shipped in the grammar wheel, or "" when the wheel ships none (C#)."""
    module = importlib.import_module(GRAMMARS[language].module)
    folder = Path(module.__file__ or "").parent / "queries"
    tags = folder / "tags.scm"
    return tags.read_text(encoding="utf-8") if tags.is_file() else ""
