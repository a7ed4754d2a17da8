"""Records that cross module lines: files, symbols, references, chunks, hits.

They are plain frozen dataclasses so that a snapshot can hand them to any number of readers
without copying, and so that the store can pickle them as they are (unpickling skips `__init__`,
which is what makes opening an index fast). Positions are 0-based lines and 0-based *code point*
columns; the language server converts columns to the client's position encoding at the edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Span:
    """A half-open region of a file: (start_line, start_col) up to (end_line, end_col)."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int

    def contains_line(self, line: int) -> bool:
        return self.start_line <= line <= self.end_line


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
    # A public re-export of a name the workspace may not define (Rust `pub use other_crate::Name;`):
    # the path it re-exports. The symbol table ranks it after every real definition of the name.
    reexport_of: str = ""


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
    # References only: whether the use resolves to the target by scope, imports or qualification
    # (True), or only matches its name (False); None where the question does not arise.
    resolved: bool | None = None


@dataclass(frozen=True)
class Seed:
    """What a find_similar query is similar to: a named definition or file, or the code its words
    describe (the top code result of the ordinary search). `chunk` is the seed's chunk, whose
    embedding and words find its neighbours; `how` is "named" or "described"."""

    path: str
    span: Span
    symbol: str | None
    kind: str | None
    how: str
    chunk: Chunk | None = None
