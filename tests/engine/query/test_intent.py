"""DESIGN §2, row by row and language by language: intent, confidence, rule and target."""

from __future__ import annotations

import unicodedata

import pytest

from fourfold.engine.query import intent
from fourfold.engine.query.intent import RULES, Classification, classify, is_identifier, pin

CASES: list[tuple[str, str, float, str, str | None]] = [
    # rule 1: declaration keywords (code, so language-independent)
    ("def parse_config(self):", "find_definition", 0.95, "1:decl-keyword", "parse_config"),
    ("class Session", "find_definition", 0.95, "1:decl-keyword", "Session"),
    ("func (s *Server) Start", "find_definition", 0.95, "1:decl-keyword", "Start"),
    ("fn main", "find_definition", 0.95, "1:decl-keyword", "main"),
    ("function loadSettings", "find_definition", 0.95, "1:decl-keyword", "loadSettings"),
    ("interface Reader {", "find_definition", 0.95, "1:decl-keyword", "Reader"),
    ("struct Point", "find_definition", 0.95, "1:decl-keyword", "Point"),
    ("type Config struct", "find_definition", 0.95, "1:decl-keyword", "Config"),
    ("enum Color", "find_definition", 0.95, "1:decl-keyword", "Color"),
    ("trait Iterator", "find_definition", 0.95, "1:decl-keyword", "Iterator"),
    ("import numpy as np", "find_definition", 0.95, "1:decl-keyword", "numpy"),
    ("import os.path", "find_definition", 0.95, "1:decl-keyword", "os.path"),
    ("class parse_config helpers", "find_definition", 0.95, "1:decl-keyword", "parse_config"),
    # rule 2: references — English
    ("who calls load_settings", "find_references", 0.90, "2:references", "load_settings"),
    ("who calls load_settings?", "find_references", 0.90, "2:references", "load_settings"),
    ("who uses Session.send", "find_references", 0.90, "2:references", "Session.send"),
    ("usages of parseConfig", "find_references", 0.90, "2:references", "parseConfig"),
    ("find usages of parseConfig", "find_references", 0.90, "2:references", "parseConfig"),
    ("references to Session", "find_references", 0.90, "2:references", "Session"),
    ("callers of retry", "find_references", 0.90, "2:references", "retry"),
    ("where is parseConfig used", "find_references", 0.90, "2:references", "parseConfig"),
    ("where is the Session class used", "find_references", 0.90, "2:references", "Session"),
    ("where parse_config is called", "find_references", 0.90, "2:references", "parse_config"),
    ('who calls "send"', "find_references", 0.90, "2:references", "send"),
    # rule 2: Italian
    ("chi chiama load_settings", "find_references", 0.90, "2:references", "load_settings"),
    ("chi usa parseConfig", "find_references", 0.90, "2:references", "parseConfig"),
    ("usi di parseConfig", "find_references", 0.90, "2:references", "parseConfig"),
    ("riferimenti a Session.send", "find_references", 0.90, "2:references", "Session.send"),
    ("dove è usato parseConfig", "find_references", 0.90, "2:references", "parseConfig"),
    ("dove viene usato parseConfig", "find_references", 0.90, "2:references", "parseConfig"),
    (
        "dove viene chiamata la funzione load_settings",
        "find_references",
        0.90,
        "2:references",
        "load_settings",
    ),
    # rule 2: Vietnamese
    ("ai gọi load_settings", "find_references", 0.90, "2:references", "load_settings"),
    ("các nơi sử dụng parseConfig", "find_references", 0.90, "2:references", "parseConfig"),
    ("tham chiếu đến Session.send", "find_references", 0.90, "2:references", "Session.send"),
    ("hàm parseConfig được sử dụng ở đâu", "find_references", 0.90, "2:references", "parseConfig"),
    # rule 3: impact — English
    ("what depends on Session.send", "impact_analysis", 0.90, "3:impact", "Session.send"),
    ("impact of changing parse_config", "impact_analysis", 0.90, "3:impact", "parse_config"),
    ("blast radius of Session.send", "impact_analysis", 0.90, "3:impact", "Session.send"),
    ("what breaks if I change load_settings", "impact_analysis", 0.90, "3:impact", "load_settings"),
    ("Session.send impact", "impact_analysis", 0.90, "3:impact", "Session.send"),
    # rule 3: Italian
    ("impatto di Session.send", "impact_analysis", 0.90, "3:impact", "Session.send"),
    ("raggio d'impatto di parse_config", "impact_analysis", 0.90, "3:impact", "parse_config"),
    ("raggio d’impatto di parse_config", "impact_analysis", 0.90, "3:impact", "parse_config"),
    ("cosa dipende da Session.send", "impact_analysis", 0.90, "3:impact", "Session.send"),
    # rule 3: Vietnamese
    ("tác động của Session.send", "impact_analysis", 0.90, "3:impact", "Session.send"),
    ("phạm vi ảnh hưởng của parse_config", "impact_analysis", 0.90, "3:impact", "parse_config"),
    ("những gì phụ thuộc vào Session.send", "impact_analysis", 0.90, "3:impact", "Session.send"),
    # rule 4: explicit regexes, quoted strings and error tokens
    ("re:conn\\w+ refused", "exact_match", 0.90, "4:regex", "re:conn\\w+ refused"),
    ("/load_(settings|config)/", "exact_match", 0.90, "4:regex", "/load_(settings|config)/"),
    ('"connection refused"', "exact_match", 0.90, "4:quoted", "connection refused"),
    ('where does "connection refused" come from', "exact_match", 0.90, "4:quoted", "connection refused"),
    ("“errore di connessione”", "exact_match", 0.90, "4:quoted", "errore di connessione"),
    ('where is "parse" defined', "exact_match", 0.90, "4:quoted", "parse"),
    ("'Timeout has occurred'", "exact_match", 0.90, "4:quoted", "Timeout has occurred"),
    ("  'connection refused'  ", "exact_match", 0.90, "4:quoted", "connection refused"),
    ("Traceback (most recent call last)", "exact_match", 0.85, "4:error-token", "Traceback"),
    ("ECONNREFUSED when connecting", "exact_match", 0.85, "4:error-token", "ECONNREFUSED"),
    ("errore ENOENT all'avvio", "exact_match", 0.85, "4:error-token", "ENOENT"),
    ("KeyError in settings", "exact_match", 0.85, "4:error-token", "KeyError"),
    ("NullPointerException nel parser", "exact_match", 0.85, "4:error-token", "NullPointerException"),
    ("lỗi ValueError khi đọc cấu hình", "exact_match", 0.85, "4:error-token", "ValueError"),
    (
        "panic: runtime error: index out of range",
        "exact_match",
        0.85,
        "4:error-token",
        "panic: runtime error: index out of range",
    ),
    # rule 4b: where defined — English
    ("where is parseConfig defined", "find_definition", 0.90, "4b:where-defined", "parseConfig"),
    ("where's the Session class defined?", "find_definition", 0.90, "4b:where-defined", "Session"),
    ("definition of retry", "find_definition", 0.90, "4b:where-defined", "retry"),
    ("go to definition of Session.send", "find_definition", 0.90, "4b:where-defined", "Session.send"),
    ("implementation of parse_file in the workspace", "find_definition", 0.90, "4b:where-defined", "parse_file"),
    # ... but a noun phrase that names no code is a description: `X implementation for Y` asks how.
    ("iterator implementation for JSON arrays and objects", "understand_code", 0.40, "9:fallback", None),
    ("hash table implementation for objects", "understand_code", 0.40, "9:fallback", None),
    ("definition of the retry policy for uploads", "understand_code", 0.40, "9:fallback", None),
    ("where is parseConfig", "find_definition", 0.90, "4b:where-defined", "parseConfig"),
    ("definition of the Session class", "find_definition", 0.90, "4b:where-defined", "Session"),
    ("implementation of parse_config in the loader", "find_definition", 0.90, "4b:where-defined", "parse_config"),
    # ... but "implementation for" inside a description names no definition (semble-rest axum-001,
    # nlohmann-json-015 went down the direct path looking up `storing` and `JSON`).
    ("iterator implementation for JSON arrays and objects", "understand_code", 0.40, "9:fallback", None),
    (
        "Router path_router implementation for storing and matching routes",
        "find_definition",
        0.60,
        "8:identifier-in-query",
        "path_router",
    ),
    # A plain word is a name when the question says so with a noun (`the function X`), in every language.
    ("where is the function tinsert", "find_definition", 0.90, "4b:where-defined", "tinsert"),
    ("where's the class Session?", "find_definition", 0.90, "4b:where-defined", "Session"),
    ("dov'è la funzione stringify", "find_definition", 0.90, "4b:where-defined", "stringify"),
    ("hàm stringify ở đâu", "find_definition", 0.90, "4b:where-defined", "stringify"),
    # ... but not a description after the noun.
    ("where is the function that parses config", "understand_code", 0.40, "9:fallback", None),
    # rule 4b: Italian
    ("dove è definito parseConfig", "find_definition", 0.90, "4b:where-defined", "parseConfig"),
    ("dov'è definita load_settings", "find_definition", 0.90, "4b:where-defined", "load_settings"),
    ("definizione di parseConfig", "find_definition", 0.90, "4b:where-defined", "parseConfig"),
    ("definizione di retry", "find_definition", 0.90, "4b:where-defined", "retry"),
    ("dov'è parseConfig?", "find_definition", 0.90, "4b:where-defined", "parseConfig"),
    # rule 4b: Vietnamese
    ("parseConfig được định nghĩa ở đâu", "find_definition", 0.90, "4b:where-defined", "parseConfig"),
    ("định nghĩa của parseConfig", "find_definition", 0.90, "4b:where-defined", "parseConfig"),
    ("parseConfig ở đâu", "find_definition", 0.90, "4b:where-defined", "parseConfig"),
    # rule 5: identifiers
    ("parseConfig", "find_definition", 0.80, "5:identifier-whole", "parseConfig"),
    ("ParseConfig", "find_definition", 0.80, "5:identifier-whole", "ParseConfig"),
    ("HTTPServer", "find_definition", 0.80, "5:identifier-whole", "HTTPServer"),
    ("load_settings", "find_definition", 0.80, "5:identifier-whole", "load_settings"),
    ("MAX_RETRIES", "find_definition", 0.80, "5:identifier-whole", "MAX_RETRIES"),
    ("__init__", "find_definition", 0.80, "5:identifier-whole", "__init__"),
    ("Session.send", "find_definition", 0.80, "5:identifier-whole", "Session.send"),
    ("std::vec::Vec", "find_definition", 0.80, "5:identifier-whole", "std::vec::Vec"),
    ("parseConfig()", "find_definition", 0.80, "5:identifier-whole", "parseConfig"),
    ("`load_settings`", "find_definition", 0.80, "5:identifier-whole", "load_settings"),
    ("  parseConfig  ", "find_definition", 0.80, "5:identifier-whole", "parseConfig"),
    # rule 6: similar — English, Italian, Vietnamese
    ("similar to retry", "find_similar", 0.75, "6:similar", "retry"),
    ("functions like the retry loop", "find_similar", 0.75, "6:similar", "retry"),
    ("duplicates of the cache helper", "find_similar", 0.75, "6:similar", "cache"),
    ("simile a retry", "find_similar", 0.75, "6:similar", "retry"),
    ("duplicati di cache", "find_similar", 0.75, "6:similar", "cache"),
    ("tương tự như retry", "find_similar", 0.75, "6:similar", "retry"),
    ("giống với cache", "find_similar", 0.75, "6:similar", "cache"),
    # rule 7: understand — English, Italian, Vietnamese
    ("how does retry work", "understand_code", 0.75, "7:understand", None),
    ("why is the cache cleared", "understand_code", 0.75, "7:understand", None),
    ("explain the retry logic", "understand_code", 0.75, "7:understand", None),
    ("architecture", "understand_code", 0.75, "7:understand", None),
    ("come funziona il retry", "understand_code", 0.75, "7:understand", None),
    ("perché la cache viene svuotata", "understand_code", 0.75, "7:understand", None),
    ("spiega il retry", "understand_code", 0.75, "7:understand", None),
    ("architettura del server", "understand_code", 0.75, "7:understand", None),
    ("retry hoạt động như thế nào", "understand_code", 0.75, "7:understand", None),
    ("vì sao cache bị xoá", "understand_code", 0.75, "7:understand", None),
    ("giải thích retry", "understand_code", 0.75, "7:understand", None),
    ("kiến trúc của máy chủ", "understand_code", 0.75, "7:understand", None),
    # the question's shape wins over the names in it (DESIGN §2: the phrase rules come first)
    ("how does parseConfig work", "understand_code", 0.75, "7:understand", None),
    ("come funziona parseConfig", "understand_code", 0.75, "7:understand", None),
    ("how are tRPC links composed", "understand_code", 0.75, "7:understand", None),
    ("how nvm downloads a Node.js tarball", "understand_code", 0.75, "7:understand", None),
    ("why does safeParse throw on null", "understand_code", 0.75, "7:understand", None),
    ("functions similar to parse_header", "find_similar", 0.75, "6:similar", "parse_header"),
    ("code like Session.send", "find_similar", 0.75, "6:similar", "Session.send"),
    ("functions similar to parseConfig in the loader", "find_similar", 0.75, "6:similar", "parseConfig"),
    # rule 8: an identifier inside a longer query that no phrase claimed
    ("retry in load_settings", "find_definition", 0.60, "8:identifier-in-query", "load_settings"),
    ("hàm parse_config làm gì", "find_definition", 0.60, "8:identifier-in-query", "parse_config"),
    ("parseConfig for yaml files", "find_definition", 0.60, "8:identifier-in-query", "parseConfig"),
    # rule 9: nothing matched
    ("retry logic", "understand_code", 0.40, "9:fallback", None),
    ("Session", "understand_code", 0.40, "9:fallback", None),
    ("function that parses config", "understand_code", 0.40, "9:fallback", None),
    ("where is retry", "understand_code", 0.40, "9:fallback", None),
    ("JavaScript parser", "understand_code", 0.40, "9:fallback", None),
    ("I would like the retry loop", "understand_code", 0.40, "9:fallback", None),
    ("URLs and IDs", "understand_code", 0.40, "9:fallback", None),
    ("EMAIL settings", "understand_code", 0.40, "9:fallback", None),
    ("tRPC links", "understand_code", 0.40, "9:fallback", None),
    ("GitHub actions workflow", "understand_code", 0.40, "9:fallback", None),
    ("iOS and macOS builds", "understand_code", 0.40, "9:fallback", None),
    ("PostgreSQL backend", "understand_code", 0.40, "9:fallback", None),
    ("", "understand_code", 0.40, "9:fallback", None),
]


@pytest.mark.parametrize(("query", "intent", "confidence", "rule", "target"), CASES)
def test_classify(query: str, intent: str, confidence: float, rule: str, target: str | None) -> None:
    assert classify(query) == Classification(intent, confidence, rule, target)


def test_every_rule_of_the_table_is_exercised() -> None:
    assert {rule.id for rule in RULES} == {case[3] for case in CASES}


def test_rule_order_is_the_design_order() -> None:
    assert [rule.id.split(":")[0] for rule in RULES] == [
        "1",
        "2",
        "3",
        "4",
        "4",
        "4",
        "4b",
        "5",
        "6",
        "7",
        "8",
        "9",
    ]


def test_identifier_rule_comes_after_every_phrase_rule() -> None:
    order = [rule.id for rule in RULES]
    phrase_rules = [rule.id for rule in RULES if rule.shape == "phrases"]
    assert all(order.index(rule) < order.index("8:identifier-in-query") for rule in phrase_rules)


# A product or platform name is an identifier only when the index has a symbol of that name.
KNOWN_CASES: list[tuple[str, frozenset[str], str, str | None]] = [
    ("tRPC links", frozenset(), "9:fallback", None),
    ("tRPC links", frozenset({"tRPC"}), "8:identifier-in-query", "tRPC"),
    ("toJSON", frozenset(), "9:fallback", None),
    ("toJSON", frozenset({"toJSON"}), "5:identifier-whole", "toJSON"),
    ("GitHub", frozenset({"GitHub"}), "5:identifier-whole", "GitHub"),
    ("Node.js tarball", frozenset(), "9:fallback", None),
    ("Node.js tarball", frozenset({"Node.js"}), "8:identifier-in-query", "Node.js"),
    ("iOS parseConfig", frozenset(), "8:identifier-in-query", "parseConfig"),
    ("parseConfig", frozenset(), "5:identifier-whole", "parseConfig"),
    ("Session", frozenset(), "9:fallback", None),
    ("Session", frozenset({"Session"}), "5:identifier-whole", "Session"),
    ("session", frozenset({"session"}), "9:fallback", None),
]


@pytest.mark.parametrize(("query", "names", "rule", "target"), KNOWN_CASES)
def test_product_names_count_only_when_the_index_knows_them(
    query: str, names: frozenset[str], rule: str, target: str | None
) -> None:
    asked: list[str] = []

    def known(name: str) -> bool:
        asked.append(name)
        return name in names

    verdict = classify(query, known)
    assert (verdict.rule, verdict.target) == (rule, target)
    assert all(name in {"tRPC", "toJSON", "GitHub", "Node.js", "iOS", "Session"} for name in asked)


@pytest.mark.parametrize(
    ("query", "rule", "target"),
    [
        # "implementation for" a plain word describes code unless the index has a symbol of that name
        ("hash table implementation for objects", "9:fallback", None),
        ("implementation of dequote", "4b:where-defined", "dequote"),
        ("implementation of parse_file", "4b:where-defined", "parse_file"),
        ("definition of objects", "4b:where-defined", "objects"),
    ],
)
def test_implementation_of_a_plain_word_needs_the_index_to_know_it(query: str, rule: str, target: str | None) -> None:
    verdict = classify(query, lambda name: name in {"dequote", "parse_file"})
    assert (verdict.rule, verdict.target) == (rule, target)


def test_phrase_rules_ship_three_languages() -> None:
    for rule in RULES:
        if rule.phrases:
            assert set(rule.phrases) == {"en", "it", "vi"}, rule.id


def test_decomposed_vietnamese_is_recognised() -> None:
    query = unicodedata.normalize("NFD", "ai gọi load_settings")
    assert query != "ai gọi load_settings"
    assert classify(query).rule == "2:references"


def test_case_does_not_matter_for_phrases() -> None:
    assert classify("WHO CALLS load_settings").intent == "find_references"
    assert classify("Dove È Definito parseConfig").intent == "find_definition"


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("parseConfig", True),
        ("ParseConfig", True),
        ("HTTPServer", True),
        ("snake_case", True),
        ("_private", True),
        ("os.path", True),
        ("a::b", True),
        ("retry", False),
        ("Session", False),
        ("URLs", False),
        ("JavaScript", False),
        ("iPhone", False),
        ("tRPC", False),
        ("iOS", False),
        ("macOS", False),
        ("Node.js", False),
        ("GitHub", False),
        ("PostgreSQL", False),
    ],
)
def test_is_identifier(token: str, expected: bool) -> None:
    assert is_identifier(token) is expected


def test_pin_is_certain_and_keeps_the_target() -> None:
    assert pin("impact_analysis") == Classification("impact_analysis", 1.0, "pinned", None)
    assert pin("find_references", "where is parseConfig defined") == Classification(
        "find_references", 1.0, "pinned", "parseConfig"
    )


@pytest.mark.parametrize(("intent", "query", "target"), [
    ("find_references", "freeze", "freeze"),  # a plain word, but the caller said it is a symbol's callers
    ("impact_analysis", "render()", "render"),
    ("find_references", "how does freezing work", None),  # a sentence is not a name
    ("understand_code", "freeze", None),  # a pinned question about a word is still a question
])
def test_a_pinned_graph_intent_takes_a_lone_word_as_its_target(intent: str, query: str, target: str | None) -> None:
    """The MCP `callers` tool pins find_references with the bare name; `freeze` is no code-shaped word, and
    without a target the graph has nothing to follow (it answered nothing)."""
    assert pin(intent, query).target == target


def test_pin_rejects_an_unknown_intent_by_naming_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="find_definition"):
        pin("find_everything")


def test_odd_whitespace_is_one_space() -> None:
    assert classify("who\u00a0calls \t load_settings") == Classification(
        "find_references", 0.90, "2:references", "load_settings"
    )


@pytest.mark.parametrize("query", [case[0] for case in CASES])
def test_the_re2_screen_never_rejects_a_query_a_phrase_row_accepts(query: str) -> None:
    text = intent._normalise(query)
    for rule_id, family in intent._FAMILIES.items():
        if any(row.pattern.search(text) for row in family.rows):
            assert family.screen.search(text) is not None, (rule_id, query)


@pytest.mark.parametrize(
    "query",
    ["dov'è la funzione", "don't know how 'x' works", "what's the 'retry' loop", "l'errore di 'connessione'"],
)
def test_apostrophes_and_inner_single_quotes_are_not_a_quoted_string(query: str) -> None:
    """Only a single-quoted whole query is a literal: an apostrophe or a quoted word inside a sentence is prose."""
    verdict = classify(query)
    assert verdict.intent != "exact_match"
    assert verdict.rule != "4:quoted"


@pytest.mark.parametrize(
    ("query", "target", "unknown"),
    [
        ("where is the session middleware defined", "SessionMiddleware", "session"),
        ("who calls the retry policy", "retry_policy", "retry"),
        ("where are database routers defined", "DatabaseRouter", "database"),  # a plural last word, singular
        ("what depends on the session middleware class", "SessionMiddleware", "session"),
        # a description by its doer names the function that does it
        ("where is the cookie parser implemented", "parse_cookie", "cookie"),
        ("who calls the config loader", "loadConfig", "config"),
        ("what depends on the email validator", "validate_email", "email"),
        # no symbol spells it: the first content word, as before, and the search says it is missing
        ("where is the pipe operator defined", "pipe", "pipe"),
    ],
)
def test_a_description_in_plain_words_names_the_symbol_it_spells_when_the_index_has_it(
    query: str, target: str, unknown: str
) -> None:
    names = {"SessionMiddleware", "retry_policy", "DatabaseRouter", "Session", "session", "parse_cookie",
             "loadConfig", "validate_email"}
    assert classify(query, names.__contains__).target == target
    assert classify(query).target == unknown  # without the index's names: the first content word


@pytest.mark.parametrize(("query", "target"), [("where is %>% defined", "%>%"), ("who calls %in%", "%in%"),
                                               ("where is == defined?", "==")])
def test_an_operator_is_the_name_a_phrase_asks_about(query: str, target: str) -> None:
    assert classify(query).target == target
