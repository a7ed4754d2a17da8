"""ParsedQuery: the query read once, table-driven (as zoekt's query/parse_test.go), and read only once."""

from __future__ import annotations

from pathlib import Path

import pytest
from tree import indexed_workspace

from fourfold.engine import SearchRequest
from fourfold.engine.index.textsearch import QueryError, TextQuery
from fourfold.engine.model.profiles import UNDERSTAND_CODE
from fourfold.engine.query.intent import Classification, is_explicit_regex
from fourfold.engine.query.parsedquery import SymbolQuery, parse_query, question_subject
from fourfold.engine.search import search
from fourfold.engine.service import workspace as workspace_module


@pytest.mark.parametrize(
    ("raw", "intent", "target", "literal"),
    [
        ("where is parseConfig defined", "find_definition", "parseConfig",
         TextQuery("identifier", "parseConfig", True)),
        ('"connection refused"', "exact_match", "connection refused",
         TextQuery("literal", "connection refused", False)),
        ("/retry\\(\\w+/", "exact_match", "/retry\\(\\w+/", TextQuery("regex", "retry\\(\\w+", False)),
        ("who calls load_settings", "find_references", "load_settings",
         TextQuery("identifier", "load_settings", False)),
        ("how does the Router match paths", "understand_code", None, None),
        ("functions similar to parse_header", "find_similar", "parse_header", None),  # no literal intent: BM25
    ],
)
def test_the_literal_form_follows_the_verdict(raw: str, intent: str, target: str | None,
                                              literal: TextQuery | None) -> None:
    parsed = parse_query(raw)
    assert (parsed.intent, parsed.target, parsed.literal) == (intent, target, literal)
    assert parsed.lexical is (literal is None)


def test_an_invalid_regex_is_kept_as_the_reason_there_is_no_literal() -> None:
    parsed = parse_query("re:load_(settings")
    assert parsed.regex and parsed.literal is None and not parsed.lexical
    assert isinstance(parsed.whole_error, QueryError) and parsed.whole_error.position == 8
    assert isinstance(parsed.literal_error, QueryError)


def test_the_words_every_stage_reads_are_read_at_parse() -> None:
    parsed = parse_query("how does the Router match paths")
    assert parsed.stated.embedded == {"Router"}
    assert parsed.keywords == {"router", "match", "paths"}
    assert parsed.tokens == ("rout", "match", "path")
    assert parsed.symbol == SymbolQuery("how does the Router match paths", None, frozenset({"Router"}))
    assert parsed.named_things == ("Router",)
    assert parsed.subject == ()  # the subject is the named Router, which the named-thing check reads
    assert parsed.last_word == "paths"
    assert not parsed.tests_wanted and not parsed.docs_wanted
    wants = parse_query("which tests cover the retry docs")
    assert wants.tests_wanted and wants.docs_wanted
    quoted = parse_query('where is "connection refused" raised in load_settings')
    assert quoted.quoted == ("connection refused",) and quoted.identifiers == ("load_settings",)


def test_a_new_verdict_reads_only_what_depends_on_the_target() -> None:
    parsed = parse_query("functions similar to parse_header")
    assert parsed.symbol == SymbolQuery("parse_header", None)
    described = parsed.classified(Classification(UNDERSTAND_CODE, 0.75, "6:similar"))
    assert described.symbol == SymbolQuery("functions similar to parse_header", None, frozenset({"parse_header"}))
    assert (described.tokens, described.stated, described.keywords) == (parsed.tokens, parsed.stated, parsed.keywords)


@pytest.mark.parametrize(("text", "regex"), [("/a/", True), ("re:x", True), ("//", False), ("/a", False),
                                             ("a/b/", False)])
def test_one_regex_detector(text: str, regex: bool) -> None:
    assert is_explicit_regex(text) is regex
    assert parse_query(text).regex is regex
    assert (parse_query(text).classification.rule == "4:regex") is regex


def test_a_workspace_search_classifies_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workspace._prepare and the searcher share one reading (they used to classify twice: the
    workspace without the symbol table, then the searcher with it)."""
    workspace = indexed_workspace(tmp_path / "repo", {"app/config.py": "def load_settings():\n    return {}\n"},
                                  tmp_path / "index")
    calls: list[str] = []
    classify = search.classify

    def counted(query: str, known: object = None) -> Classification:
        calls.append(query)
        return classify(query, known)  # type: ignore[arg-type]

    monkeypatch.setattr(search, "classify", counted)
    try:
        response = workspace.search(SearchRequest("how are settings loaded"))
    finally:
        workspace.close()
    assert calls == ["how are settings loaded"]
    assert response.intent == "understand_code"
    assert not {"classify", "pin"} & set(vars(workspace_module))  # the workspace reads no query itself


# A capitalised first word is a stated name when the index defines it (issue 14: Vapor's `Content`
# protocol, `Validations`); a sentence's capital alone (`Session management` with no `Session`), a stop
# word (`How`) or a lowercase word is not.
@pytest.mark.parametrize(
    ("raw", "opening"),
    [
        ("Content protocol for encoding and decoding bodies", "Content"),
        ("Validations and Validatable for request validation", "Validations"),
        ("Session management and cookies", None),  # the index has no `Session`
        ("How Content is encoded", None),  # a stop word opens it; `Content` is stated as ever
        ("content protocol for bodies", None),
        ("Content", None),  # one word is the whole query (rule 5), stated as `whole`
    ],
)
def test_a_capitalised_first_word_the_index_defines_is_a_stated_name(raw: str, opening: str | None) -> None:
    def known(name: str) -> bool:
        return name in {"Content", "Validations", "Validatable", "How"}

    parsed = parse_query(raw, known=known)
    assert parsed.opening == opening
    if opening:
        assert opening in parsed.stated.embedded and opening in parsed.symbol.words
        # the switch off (Ranking.opening_names): a sentence's first word is never a name
        off = parse_query(raw, known=known, opening_names=False)
        assert opening not in off.stated.all and opening not in off.symbol.words
    assert "Content" in parse_query("How Content is encoded", known=known).stated.embedded


@pytest.mark.parametrize(("question", "subject"), [
    ("how does the websocket reconnect after a dropped connection", ("websocket",)),
    ("how are unpaid invoices reminded by email", ("unpaid",)),
    ("How is the monthly payroll computed?", ("monthly",)),
    ("how does it work", ()),  # a stop word ends the phrase before it starts
    ("how Param defines a named parameter", ()),  # no auxiliary: not a shape whose subject is known
    ("null-safe string operations and text helpers", ()),
    ("come vengono cifrate le password", ()),
])
def test_a_questions_subject_is_read_from_its_shape(question: str, subject: tuple[str, ...]) -> None:
    assert question_subject(question) == subject
    assert parse_query(question).subject == subject
