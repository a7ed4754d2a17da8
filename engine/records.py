"""Records that cross module lines: files, symbols, references, chunks, hits.

They are plain frozen dataclasses so that a snapshot can hand them to any number of readers
without copying, and so that the store can serialise them with `to_row` / `from_row` without a
schema library. Positions are 0-based lines and 0-based *code point* columns; the language server
converts columns to the client's position encoding at the edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, order=True)
class Span:
    """A half-open region of a file: (start_line, start_col) up to (end_line, end_col)."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int

    def contains_line(self, line: int) -> bool:
        return self.start_line <= line <= self.end_line

    def to_list(self) -> list[int]:
        return [self.start_line, self.start_col, self.end_line, self.end_col]

    @classmethod
    def from_list(cls, values: list[int]) -> Span:
        return cls(values[0], values[1], values[2], values[3])


@dataclass(frozen=True)
class FileRecord:
    """What the index knows about one file without reading it: enough to notice a change."""

    path: str
    size: int
    mtime_ns: int
    digest: str
    language: str | None


@dataclass(frozen=True)
class Symbol:
    """A definition found by tree-sitter: a function, class, method, type, constant, module…"""

    name: str
    kind: str
    path: str
    span: Span
    name_span: Span
    container: str | None = None
    qualified: str = ""
    signature: str = ""
    doc: str = ""
    language: str | None = None

    def to_row(self) -> list[Any]:
        """A compact positional row for the store (`dataclasses.asdict` is ten times slower)."""
        return [self.name, self.kind, self.path, self.span.to_list(), self.name_span.to_list(), self.container,
                self.qualified, self.signature, self.doc, self.language]

    @classmethod
    def from_row(cls, row: list[Any]) -> Symbol:
        name, kind, path, span, name_span, container, qualified, signature, doc, language = row
        return cls(name, kind, path, Span.from_list(span), Span.from_list(name_span), container, qualified,
                   signature, doc, language)


@dataclass(frozen=True)
class Reference:
    """A use of a name: a call, a plain reference, an import or an inheritance edge.

    `enclosing` is the qualified name of the innermost definition around the use, or None at
    module level; the graph retriever turns (enclosing -> name) into an edge.
    """

    name: str
    kind: str
    path: str
    span: Span
    enclosing: str | None = None

    def to_row(self) -> list[Any]:
        return [self.name, self.kind, self.path, self.span.to_list(), self.enclosing]

    @classmethod
    def from_row(cls, row: list[Any]) -> Reference:
        name, kind, path, span, enclosing = row
        return cls(name, kind, path, Span.from_list(span), enclosing)


@dataclass(frozen=True)
class Chunk:
    """A unit of retrieval for BM25 and embeddings: a definition, a gap of module code, a doc section.

    `text` is the text that is embedded and tokenised (path, kind, name words, signature, doc and
    body), `digest` its content hash: the embedding cache is keyed by it.
    """

    path: str
    span: Span
    kind: str
    symbol: str | None
    text: str
    digest: str
    language: str | None = None

    def to_row(self) -> list[Any]:
        return [self.path, self.span.to_list(), self.kind, self.symbol, self.text, self.digest, self.language]

    @classmethod
    def from_row(cls, row: list[Any]) -> Chunk:
        path, span, kind, symbol, text, digest, language = row
        return cls(path, Span.from_list(span), kind, symbol, text, digest, language)


@dataclass(frozen=True)
class ParsedFile:
    """Everything the structural pass extracts from one file."""

    symbols: tuple[Symbol, ...] = ()
    references: tuple[Reference, ...] = ()
    imports: tuple[str, ...] = ()
    chunks: tuple[Chunk, ...] = ()


@dataclass(frozen=True)
class Hit:
    """One retriever's answer: a location with the retriever's own score (never compared across retrievers)."""

    path: str
    span: Span
    score: float
    symbol: str | None = None
    kind: str | None = None
    snippet: str = ""
    language: str | None = None
    via: tuple[str, ...] = field(default=())
