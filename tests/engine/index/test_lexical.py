"""BM25 over chunks: natural-language questions about the polyglot fixture find the right chunk."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest
import tree_sitter as ts

from fourfold.engine.index.lexical import DamagedLexical, LexicalIndex, chunk_tokens
from fourfold.engine.model.languages import DOC_LANGUAGES, detect_language, grammar, has_grammar
from fourfold.engine.model.records import Chunk, Span

POLYGLOT = Path(__file__).resolve().parents[2] / "fixtures" / "polyglot"

# Definition node types per grammar family: enough to cut the fixture into one chunk per definition
# (the real chunker lives elsewhere; this test only needs realistic chunks).
DEFINITIONS = frozenset(
    {
        "function_definition",
        "class_definition",
        "function_declaration",
        "class_declaration",
        "method_definition",
        "method_declaration",
        "interface_declaration",
        "abstract_class_declaration",
        "type_declaration",
        "function_item",
        "struct_item",
        "impl_item",
        "constructor_declaration",
        "class_specifier",
        "class",
        "method",
        "lexical_declaration",
    }
)
NAME_TYPES = frozenset(
    {"identifier", "field_identifier", "type_identifier", "constant", "name", "property_identifier"}
)
HEADING = re.compile(r"^#+ (.*)$", re.MULTILINE)


def _name(node: ts.Node) -> str | None:
    """The defined name: `name` field, else down the declarator chain (C/C++), else `type` (Rust impl)."""
    found = node.child_by_field_name("name")
    declarator = node.child_by_field_name("declarator")
    while found is None and declarator is not None:
        if declarator.type in NAME_TYPES:
            found = declarator
        else:
            declarator = declarator.child_by_field_name("declarator") or declarator.child_by_field_name(
                "name"
            )
    if found is None:
        found = node.child_by_field_name("type")
    if found is None:
        spec = next(
            (child for child in node.named_children if child.type in {"type_spec", "variable_declarator"}),
            None,
        )
        found = spec.child_by_field_name("name") if spec is not None else None
    return found.text.decode() if found is not None and found.text else None


def _chunk(path: str, kind: str, name: str | None, lines: list[str], start: int, end: int) -> Chunk:
    body = "\n".join(lines[start : end + 1])
    text = f"{path}\n{kind} {name or ''}\n{body}"
    digest = hashlib.sha1(text.encode()).hexdigest()
    return Chunk(path, Span(start, 0, end, 0), kind, name, text, digest, detect_language(path))


def code_chunks(path: str, source: str) -> list[Chunk]:
    language = detect_language(path)
    lines = source.splitlines()
    if language in DOC_LANGUAGES:
        starts = [source.count("\n", 0, m.start()) for m in HEADING.finditer(source)] or [0]
        bounds = [*starts[1:], len(lines)]
        return [
            _chunk(path, "section", lines[s].lstrip("# "), lines, s, e - 1)
            for s, e in zip(starts, bounds, strict=True)
        ]
    if not has_grammar(language):
        return []
    assert language is not None
    tree = ts.Parser(grammar(language)).parse(source.encode())
    chunks = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in DEFINITIONS and node is not tree.root_node:
            name = _name(node)
            chunks.append(_chunk(path, node.type, name, lines, node.start_point[0], node.end_point[0]))
        stack.extend(reversed(node.named_children))
    return chunks or [_chunk(path, "module", None, lines, 0, max(len(lines) - 1, 0))]


@pytest.fixture(scope="module")
def chunks() -> list[Chunk]:
    found: list[Chunk] = []
    for file in sorted(p for p in POLYGLOT.rglob("*") if p.is_file()):
        relative = file.relative_to(POLYGLOT).as_posix()
        found.extend(code_chunks(relative, file.read_text(encoding="utf-8")))
    return found


@pytest.fixture(scope="module")
def index(chunks: list[Chunk]) -> LexicalIndex:
    return LexicalIndex.build(chunks)


# (question, acceptable (path, symbol) answers). One answer per question except where the
# fixture holds the same thing in one file twice (a declaration and its definition).
QUESTIONS = [
    ("how does retry work", {("README.md", "How retry works")}),
    ("where are settings loaded from environment variables", {("inventory/config.py", "load_settings")}),
    ("parse json settings into a config object in the browser", {("web/src/config.js", "parseConfig")}),
    ("take units out of stock when not enough is left", {("inventory/service.py", "reserve")}),
    (
        "evict the least recently used entry",
        {("native/cache.cpp", "evict"), ("native/cache.hpp", "LruCache")},
    ),
    (
        "checksum to detect corrupted stock files",
        {("native/checksum.h", None), ("native/checksum.c", "sku_checksum")},
    ),
    ("render stock as an html table", {("php/src/StockReport.php", "render")}),
    ("are expired perishable items available", {("inventory/models.py", "PerishableItem")}),
    ("open a tcp connection to the warehouse retrying when refused", {("inventory/service.py", "connect")}),
    ("nightly job that reorders items below the threshold", {("scripts/restock.rb", "Restocker")}),
    ("which skus are low on stock", {("inventory/report.py", "low_stock")}),
    ("backoff delay doubles but never above the cap", {("inventory/retry.py", "backoff_delay")}),
    ("rust parse key value lines unknown key error", {("rust/src/config.rs", "parse_config")}),
    (
        "load settings from a java properties file",
        {("java/src/main/java/com/example/inventory/ConfigLoader.java", "loadSettings")},
    ),
    (
        "http client error when the service answers 503",
        {("web/src/client.js", "get"), ("web/src/client.js", "HttpClient")},
    ),
    ("translated error messages", {("docs/localisation.md", "Localisation des messages — Lokalisierung")}),
    ("available quantity minus reserved", {("web/src/types.ts", "available")}),
    ("go server dial the warehouse", {("go/inventory/server.go", "Dial")}),
    ("exception raised when every attempt failed", {("inventory/retry.py", "RetryError")}),
    ("wrap report rows in a table", {("php/src/Report.php", "wrap")}),
]


@pytest.mark.parametrize(("question", "answers"), QUESTIONS, ids=[q for q, _ in QUESTIONS])
def test_question_finds_the_right_chunk_in_top_3(
    question: str, answers: set[tuple[str, str | None]], chunks: list[Chunk], index: LexicalIndex
) -> None:
    top = [(chunks[pos].path, chunks[pos].symbol) for pos, _ in index.search(question, limit=3)]
    assert answers & set(top), f"{question!r} -> {top}"


def test_results_are_positions_with_descending_positive_scores(
    index: LexicalIndex, chunks: list[Chunk]
) -> None:
    results = index.search("retry connection refused", limit=10)
    assert 0 < len(results) <= 10
    assert all(0 <= pos < len(chunks) for pos, _ in results)
    scores = [score for _, score in results]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0


def test_unknown_words_and_empty_indexes_give_nothing(index: LexicalIndex) -> None:
    assert index.search("zyxwvut qqqq") == []
    assert index.search("the of is") == []
    assert LexicalIndex.build([]).search("retry") == []


def test_symbol_and_path_fields_are_weighted_in() -> None:
    chunk = Chunk("inventory/retry.py", Span(0, 0, 1, 0), "function", "backoff_delay", "x = 1", "d")
    tokens = chunk_tokens(chunk)
    assert tokens.count("backoff") >= 2 and tokens.count("inventori") >= 1 and tokens.count("retri") >= 1


def test_symbol_name_outranks_a_mention_in_a_body() -> None:
    named = Chunk(
        "a/cache.py", Span(0, 0, 3, 0), "function", "evict_entries", "def evict_entries(): pass", "1"
    )
    mention = Chunk(
        "a/other.py", Span(0, 0, 3, 0), "function", "cleanup", "def cleanup():\n  # evict entries", "2"
    )
    ranked = LexicalIndex.build([mention, named]).search("evict entries")
    assert [pos for pos, _ in ranked] == [1, 0]


def test_a_saved_index_loads_memory_mapped_and_scores_the_same(
    index: LexicalIndex, chunks: list[Chunk], tmp_path: Path
) -> None:
    index.save(tmp_path / "bm25", "rows-1")
    loaded = LexicalIndex.load(tmp_path / "bm25", "rows-1", chunks)
    assert loaded is not None and loaded.model is not None
    assert isinstance(loaded.model.scores["data"], np.memmap)
    assert loaded.definitions == index.definitions and loaded.size == index.size
    for question, _ in QUESTIONS:
        assert loaded.search(question) == index.search(question)


def test_a_saved_index_is_not_loaded_for_other_rows_nor_for_other_chunks(
    index: LexicalIndex, chunks: list[Chunk], tmp_path: Path
) -> None:
    index.save(tmp_path / "bm25", "rows-1")
    assert LexicalIndex.load(tmp_path / "bm25", "rows-2", chunks) is None
    assert LexicalIndex.load(tmp_path / "nothing", "rows-1", chunks) is None
    with pytest.raises(DamagedLexical):
        LexicalIndex.load(tmp_path / "bm25", "rows-1", chunks[:-1])


def _plugin_chunks() -> list[Chunk]:
    """Four chunks that all say "plugin"; one also says "lockfile", two say "commit"."""
    bodies = ["plugin lockfile pins", "plugin commit list", "plugin commit log", "plugin loader"]
    return [Chunk(f"lua/{n}.lua", Span(0, 0, 1, 0), "function", None, body, str(n)) for n, body in enumerate(bodies)]


def test_document_share_counts_chunks_not_occurrences() -> None:
    index = LexicalIndex.build(_plugin_chunks())
    assert index.document_share(["plugin"]) == 1.0
    assert index.document_share(["commit"]) == 0.5
    assert index.document_share(["lockfil"]) == 0.25  # the stemmed token BM25 stores
    # A word's share is its rarest part's; a token no chunk has makes it absent.
    assert index.document_share(["plugin", "commit"]) == 0.5
    assert index.document_share(["plugin", "zyxwvut"]) == 0.0
    assert index.document_share([]) == 0.0
    assert LexicalIndex.build([]).document_share(["plugin"]) == 0.0


def test_holds_says_whether_any_chunk_has_a_words_tokens() -> None:
    index = LexicalIndex.build(code_chunks("net/socket.py", "def open_websocket(url):\n    return connect(url)\n"))
    assert index.holds("websocket") and index.holds("websockets") and index.holds("connecting")
    assert not index.holds("kafka")
    assert index.holds("the")  # a stop word has no token: nothing is known absent
    assert LexicalIndex.build([]).holds("kafka")  # an empty workspace knows no word absent
