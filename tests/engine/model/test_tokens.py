"""Code-aware tokens: identifiers split, compounds kept, stop words dropped, endings stemmed."""

from __future__ import annotations

import pytest

from fourfold.engine.model.tokens import (
    STOP_WORDS,
    code_tokens,
    query_tokens,
    split_identifier,
    stem,
    with_abbreviations,
)


@pytest.mark.parametrize(
    ("word", "parts"),
    [
        ("parseHTTPConfig2", ["parse", "http", "config"]),
        ("load_settings", ["load", "settings"]),
        ("XMLHttpRequest", ["xml", "http", "request"]),
        ("MAX_ATTEMPTS", ["max", "attempts"]),
        ("utf8Decode", ["utf", "decode"]),
        ("Größe", ["größe"]),
        ("__init__", ["init"]),
        ("x", ["x"]),
    ],
)
def test_split_identifier(word: str, parts: list[str]) -> None:
    assert split_identifier(word) == parts


def test_compound_identifier_keeps_its_whole_form() -> None:
    assert code_tokens("parseHTTPConfig2") == ["pars", "http", "config", "parsehttpconfig2"]
    assert code_tokens("load_settings") == ["load", "set", "load_settings"]
    assert code_tokens("retry") == ["retri"]


def test_stop_words_and_short_tokens_are_dropped() -> None:
    assert code_tokens("def self return the of x = is_available(self)") == ["availabl", "is_available"]
    assert {"the", "self", "return", "def", "this", "how"} <= STOP_WORDS


@pytest.mark.parametrize(
    "family",
    [
        ["parse", "parses", "parsed", "parsing", "parser", "parsers"],
        ["retry", "retries", "retried", "retrying"],
        ["load", "loads", "loaded", "loading", "loader"],
        ["cache", "caches", "cached", "caching"],
        ["run", "running", "runs"],
        ["refuse", "refused", "refuses"],
        # A question's nouns and doers reach the verb code names the action by.
        ["validate", "validation", "validations", "validator", "validators", "validating"],
        ["connect", "connection", "connections", "connector", "connected"],
        ["serialize", "serialization", "serializer", "serialized"],
        ["notify", "notification", "notifications"],
        ["configure", "configuration", "configured"],
        ["compress", "compression", "compressor"],
        ["iterate", "iteration", "iterator", "iterators"],
        # -ation and -ator over a verb that does not end in -ate, and the -ate verbs themselves.
        ["implement", "implementation", "implementations", "implemented"],
        ["document", "documentation", "documents"],
        ["generate", "generation", "generator", "generated", "generating"],
        ["allocate", "allocation", "allocator", "alloc"],
        ["create", "creation", "creator", "created", "creating"],
        # A plural whose stem is too short for the -ers or -ings rule is still a plural.
        ["user", "users"],
        ["thing", "things"],
    ],
)
def test_stemmer_conflates_inflections(family: list[str]) -> None:
    assert len({stem(word) for word in family}) == 1


@pytest.mark.parametrize("word", ["class", "status", "analysis", "user", "café", "is", "error", "color", "union"])
def test_stemmer_leaves_non_inflections_alone(word: str) -> None:
    assert stem(word) == word


def test_query_and_documents_share_the_pipeline() -> None:
    assert query_tokens("how is the Config parsed?") == ["config", "pars"]
    assert set(query_tokens("retrying loaders")) <= set(code_tokens("def retry(loader): ..."))


def test_a_question_word_adds_the_short_forms_code_writes_once() -> None:
    tokens = query_tokens("connection implementation for the configuration")
    expanded = with_abbreviations(tokens)
    assert expanded[: len(tokens)] == tokens  # the question's own terms first, unchanged
    assert {"conn", "impl", "cfg", "conf", "config"} <= set(expanded[len(tokens):])
    assert len(expanded) == len(set(expanded))
    asked = query_tokens("impl of the connection")
    assert with_abbreviations(asked) == [*asked, "conn"]
    assert with_abbreviations(query_tokens("tokenizer drops tabs")) == query_tokens("tokenizer drops tabs")
