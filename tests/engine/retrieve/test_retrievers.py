"""Retrievers: literal hits' enclosing definitions, and what the ranking features do to each modality's list.

The ranking tests index a small real corpus (a class `Tokenizer` in a file not named after it, files that
mention it more often than it does, an error class, a function and a class about routing).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from fourfold.engine import SearchRequest, Settings, Workspace, classify
from fourfold.engine.index.lexical import LexicalIndex
from fourfold.engine.index.snapshot import Snapshot
from fourfold.engine.index.symbols import SymbolTable
from fourfold.engine.model.profiles import SEMANTIC_WORD_SMOOTHING, VECTOR_CANDIDATES
from fourfold.engine.model.records import Chunk, Hit, Span, Symbol
from fourfold.engine.query.parsedquery import parse_query
from fourfold.engine.query.request import Ranking
from fourfold.engine.retrieve.semantic import SemanticState, SemanticView, make_semantic_retriever, word_weights
from fourfold.engine.retrieve.structural import structural
from fourfold.engine.retrieve.text import LexicalCache, make_text_retriever
from fourfold.engine.semantic.vectors import VectorIndex

CORPUS = {
    "text/lexer.py": '''class Tokenizer:
    """Splits a line into words."""

    def split(self, line):
        return line.split()
''',
    "text/pipeline.py": '''"""Runs the tokenizer over documents."""
from text.lexer import Tokenizer


def run(documents):
    """Each document goes through the Tokenizer; the Tokenizer drops tabs."""
    tokenizer = Tokenizer()
    return [tokenizer.split(doc) for doc in documents]
''',
    "text/report.py": '''from text.lexer import Tokenizer


def report(lines):
    """A Tokenizer per report: the Tokenizer output, counted."""
    tokenizer = Tokenizer()
    return {line: len(tokenizer.split(line)) for line in lines}
''',
    "lib/errors.py": '''class FooError(Exception):
    """Raised when foo fails."""
''',
    "app/service.py": '''from lib.errors import FooError


def handle(x):
    if x is None:
        raise FooError("no x")
    return x


def check(y):
    raise FooError("bad y")
''',
    "web/routing.py": '''def routing(table):
    """Build the table."""
    return dict(table)
''',
    "web/router.py": '''class Router:
    """Matches paths against routes."""

    def match(self, path):
        return path
''',
}


def _symbol(name: str, start: int, end: int) -> Symbol:
    return Symbol(name, "function", "a.py", Span(start, 0, end, 0), Span(start, 0, start, 1), qualified=name)


def _brute_force(symbols: list[Symbol], line: int) -> Symbol | None:
    best = None
    for symbol in symbols:
        if symbol.span.contains_line(line) and (best is None or symbol.span.start_line >= best.span.start_line):
            best = symbol
    return best


def test_innermost_definition_matches_a_scan_of_every_symbol() -> None:
    rng = random.Random(5)
    symbols = []
    for number in range(150):
        start = rng.randrange(0, 400)
        symbols.append(_symbol(f"s{number}", start, start + rng.randrange(0, 60)))
    table = SymbolTable(symbols)
    lines = list(range(480))
    for line, found in zip(lines, table.enclosing("a.py", lines), strict=True):
        assert found is _brute_force(symbols, line)
    saved = SymbolTable.from_arrays(table.arrays())  # over the saved arrays: records made anew, equal
    assert saved.enclosing("a.py", lines) == [_brute_force(symbols, line) for line in lines]


def test_module_level_lines_and_same_start_ties() -> None:
    outer, first, second = _symbol("Outer", 2, 20), _symbol("a", 5, 8), _symbol("b", 5, 6)
    at = dict(zip([0, 21, 5, 7, 12], SymbolTable([outer, first, second]).enclosing("a.py", [0, 21, 5, 7, 12]),
                  strict=True))
    assert at[0] is None and at[21] is None
    assert at[5] is second  # the later of two starting on one line wins, as a plain scan decides
    assert at[7] is first and at[12] is outer


def _write(root: Path) -> None:
    for name, text in CORPUS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    root = tmp_path_factory.mktemp("ranking") / "repo"
    _write(root)
    opened = Workspace(root, Settings(index_dir=str(root.parent / "index"), semantic_backend="none"), background=False)
    opened.refresh()
    yield opened
    opened.close()


FULL = Ranking()


def _text(snapshot: Snapshot, query: str, ranking: Ranking = FULL) -> list[Hit]:
    """The text modality's own list for `query`, with `ranking` in force."""
    return make_text_retriever(LexicalCache())(snapshot, parse_query(query), ranking, 100)


def test_a_question_naming_a_class_ranks_the_file_that_defines_it_first(workspace: Workspace) -> None:
    response = workspace.search(SearchRequest("why does the Tokenizer drop tabs"))
    assert response.intent == "understand_code"
    assert response.results[0].path == "text/lexer.py"
    assert response.results[0].symbol == "Tokenizer"
    assert response.modalities["structural"].hits == 1  # the stated name, looked up


def test_the_text_modality_puts_the_definition_of_a_stated_name_first(workspace: Workspace) -> None:
    query = "why does the Tokenizer drop tabs"
    boosted = _text(workspace.snapshot(), query)
    plain = _text(workspace.snapshot(), query, Ranking(definitions=False))
    assert (boosted[0].path, boosted[0].symbol) == ("text/lexer.py", "Tokenizer")
    # without the feature BM25 prefers the function whose docstring says "Tokenizer" twice
    assert (plain[0].path, plain[0].symbol) == ("text/pipeline.py", "run")


def test_an_identifier_exact_match_lists_its_definition_first(workspace: Workspace) -> None:
    query = "FooError"
    assert classify(query).intent == "exact_match"
    hits = _text(workspace.snapshot(), query)
    assert (hits[0].path, hits[0].symbol, hits[0].kind) == ("lib/errors.py", "FooError", "class")
    assert hits[0].span == Span(0, 6, 0, 14)  # at its name, where a literal match of it would be
    assert sum(hit.path == "lib/errors.py" and hit.span.start_line == 0 for hit in hits) == 1  # not listed twice
    plain = _text(workspace.snapshot(), query, Ranking(definitions=False))
    assert plain[0].path == "app/service.py"  # literal hits alone come in path order


def test_find_references_does_not_put_the_definition_first(workspace: Workspace) -> None:
    query = "who calls FooError"
    assert classify(query).intent == "find_references"
    hits = _text(workspace.snapshot(), query)
    assert hits[0].path == "app/service.py"
    assert hits == _text(workspace.snapshot(), query, Ranking(definitions=False))


def test_a_question_looks_up_only_the_names_it_states(workspace: Workspace) -> None:
    snapshot = workspace.snapshot()
    plain = "how does routing work"  # `routing` is a function here, but the question is in plain words
    assert structural(snapshot, parse_query(plain), FULL, 100) == []
    named = "how does the Router match paths"
    hits = structural(snapshot, parse_query(named), FULL, 100)
    assert [(hit.path, hit.symbol) for hit in hits] == [("web/router.py", "Router")]
    response = workspace.search(SearchRequest(plain, modes=("structural",)))
    assert response.modalities["structural"].ran and response.modalities["structural"].hits == 0


def test_the_lexical_index_maps_each_definition_name_to_its_chunks(workspace: Workspace) -> None:
    chunks = workspace.snapshot().chunks()
    index = LexicalIndex.build(chunks)
    assert [(chunks[p].path, chunks[p].symbol) for p in index.definitions["Tokenizer"]] == [
        ("text/lexer.py", "Tokenizer")]
    assert [chunks[p].path for p in index.definitions["FooError"]] == ["lib/errors.py"]


def _view() -> SemanticView:
    """Vectors made so that the binary shortlist misses the best row: its signs disagree with the query's on
    half the dimensions, while VECTOR_CANDIDATES + 50 faint rows agree on every sign."""
    dims = 64
    query = np.ones(dims, dtype=np.float32) / 8
    best = np.concatenate([np.full(dims // 2, 1.0), np.full(dims // 2, -0.01)]).astype(np.float32)
    faint = np.full((VECTOR_CANDIDATES + 50, dims), 0.01, dtype=np.float32)
    chunks = [Chunk("text/lexer.py", Span(0, 0, 1, 0), "definition", "Tokenizer", "best", "best")]
    chunks += [Chunk("text/pipeline.py", Span(n, 0, n, 0), "gap", None, "faint", f"faint{n}")
               for n in range(len(faint))]
    vectors = VectorIndex.build([chunk.digest for chunk in chunks], np.vstack([best, faint]))
    return SemanticView(
        vectors, {chunk.digest: chunk for chunk in chunks}, lambda text, weights: query, "test", "signs"
    )


def test_exact_float_vectors_find_what_the_binary_shortlist_misses(workspace: Workspace) -> None:
    snapshot = workspace.snapshot()
    state = SemanticState()
    state.view = _view()
    query = parse_query("split words")
    binary = make_semantic_retriever(state)(snapshot, query, FULL, 10)
    exact = make_semantic_retriever(state)(snapshot, query, Ranking(binary_vectors=False), 10)
    assert len(binary) == len(exact) == 10
    assert "text/lexer.py" not in {hit.path for hit in binary}
    assert exact[0].path == "text/lexer.py"


def test_float_vectors_still_answer_through_a_workspace(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _write(root)
    local = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="local"), background=False)
    try:
        local.refresh()
        assert local.embed_pending() > 0
        request = SearchRequest("split a line into words", modes=("semantic",))
        binary = local.search(request)
        exact = local.search(replace(request, ranking=Ranking(binary_vectors=False)))
    finally:
        local.close()
    assert exact.modalities["semantic"].ran and exact.modalities["semantic"].hits > 0
    # fewer chunks than the shortlist holds: the exact scan and the shortlist agree
    assert [r.path for r in exact.results] == [r.path for r in binary.results]
    assert exact.results[0].path == "text/lexer.py"


def test_a_query_word_that_most_chunks_share_weighs_less() -> None:
    bodies = ["plugin lockfile pins", "plugin commit list", "plugin commit log", "plugin loader"]
    chunks = [Chunk(f"lua/{n}.lua", Span(0, 0, 1, 0), "function", None, body, str(n)) for n, body in enumerate(bodies)]
    weights = word_weights("how the lockfile pins plugin commits, zyxwvut", LexicalIndex.build(chunks))
    smoothing = SEMANTIC_WORD_SMOOTHING
    assert weights == pytest.approx({
        "plugin": smoothing / (smoothing + 1.0),
        "commits": smoothing / (smoothing + 0.5),
        "lockfile": smoothing / (smoothing + 0.25),
        "pins": smoothing / (smoothing + 0.25),
    })  # stop words ("how", "the") and words no chunk has keep their full weight: they are absent


def test_the_semantic_retriever_embeds_the_query_with_its_word_weights(workspace: Workspace) -> None:
    snapshot = workspace.snapshot()
    seen: list[dict[str, float]] = []
    state = SemanticState()
    view = _view()

    def recording(text: str, weights: Mapping[str, float]) -> object:
        seen.append(dict(weights))
        return view.embed_query(text, {})

    state.view = replace(view, embed_query=recording)
    lexical = LexicalCache()
    make_semantic_retriever(state, lexical)(snapshot, parse_query("split words into tokens"), FULL, 10)
    make_semantic_retriever(state)(snapshot, parse_query("split words into tokens"), FULL, 10)
    make_semantic_retriever(state, lexical)(snapshot, parse_query("split words"), Ranking(word_weights=False), 10)
    index, _ = lexical.get(snapshot)
    assert seen[0] == word_weights("split words into tokens", index) and seen[0], "the workspace's words are shared"
    assert seen[1] == {}, "without the BM25 index every word weighs 1"
    assert seen[2] == {}, "the ablation switch turns the weights off"


def test_a_question_word_finds_the_short_form_code_writes(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "app").mkdir(parents=True)
    (root / "app" / "loader.py").write_text("def read_cfg(path):\n    return open(path).read()\n")
    notes = "def read_notes(path):\n    # read them, all of them: read\n    return read(path)\n"
    (root / "app" / "notes.py").write_text(notes)
    opened = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=False)
    try:
        opened.refresh()
        question = "where is the configuration read from disk"
        found = _text(opened.snapshot(), question)
        plain = _text(opened.snapshot(), question, Ranking(abbreviations=False))
    finally:
        opened.close()
    assert found and found[0].symbol == "read_cfg"  # `cfg` is how the code writes "configuration"
    assert plain and plain[0].symbol == "read_notes"  # `read` alone: the file that says it most


WORDED = {
    "tool/install.py": ("def is_version_installed(version):\n    return version in INSTALLED\n\n\n"
                        "def download(url):\n    return url\n"),
    "tool/fetch.py": "def download_file(url):\n    return url\n",
    **{f"backends/{name}.py": "class SessionStore:\n    pass\n" for name in ("db", "file", "cache")},
}


@pytest.fixture(scope="module")
def worded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    root = tmp_path_factory.mktemp("worded") / "repo"
    for name, text in WORDED.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    opened = Workspace(root, Settings(index_dir=str(root.parent / "index"), semantic_backend="none"), background=False)
    opened.refresh()
    yield opened
    opened.close()


def test_a_question_names_a_definition_by_saying_every_word_of_it(worded: Workspace) -> None:
    snapshot = worded.snapshot()
    question = parse_query("how does it check whether a version is installed")
    assert [(hit.path, hit.symbol) for hit in structural(snapshot, question, FULL, 100)] == [
        ("tool/install.py", "is_version_installed")]
    assert structural(snapshot, question, Ranking(worded_names=False), 100) == []


def test_a_name_that_says_a_small_part_of_the_question_or_a_role_of_many_files_is_not_looked_up(
        worded: Workspace) -> None:
    snapshot = worded.snapshot()
    # `download_file` says two of this question's six words; `download` is one word.
    long = parse_query("how does the tool download a file when the network fails and retries")
    assert structural(snapshot, long, FULL, 100) == []
    # Three backends define `SessionStore`: the question describes their role, not one of them.
    assert structural(snapshot, parse_query("where is the session store"), FULL, 100) == []
