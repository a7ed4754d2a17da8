"""The polyglot query set (bench/queries/polyglot.jsonl): six languages of issue 13, every intent,
line-level gold, readable by `fourfold eval`. Its corpus (Debian source packages, bench/fetch_debian.sh)
is not fetched by the test run, so this checks the committed file's promises, not its regeneration.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from fourfold.engine.model.languages import detect_language
from fourfold.engine.model.profiles import INTENTS
from fourfold.lsp.evaluation import load_queries

QUERIES = Path(__file__).resolve().parents[3] / "bench" / "queries" / "polyglot.jsonl"
# Package folder -> the language its gold files are in (detected from the path alone where it can be).
PACKAGES = {"xmonad": "haskell", "lua-luassert": "lua", "elixir-lang": "elixir", "bash-completion": "bash",
            "libpath-tiny-perl": "perl", "ocaml-re": "ocaml"}


def test_every_intent_in_six_languages() -> None:
    queries = load_queries(QUERIES)
    assert set(Counter(q.intent for q in queries)) == set(INTENTS)
    packages = {gold.path.split("/", 1)[0] for q in queries for gold in q.gold}
    assert packages == set(PACKAGES)
    assert all(bool(q.gold) == q.answerable for q in queries)


def test_every_package_has_unanswerable_queries_of_four_intents() -> None:
    """Issue 14's honest "not found" is measured in six languages: a foreign name as a definition,
    references and impact query, and one question on a foreign topic, per package (ids name it)."""
    unanswerable = [q for q in load_queries(QUERIES) if not q.answerable]
    for package in PACKAGES:
        intents = {q.intent for q in unanswerable if q.id.startswith(f"{package}-una-")}
        assert intents == {"find_definition", "find_references", "impact_analysis", "understand_code"}, package


def test_definition_reference_and_literal_gold_is_at_line_level() -> None:
    for query in load_queries(QUERIES):
        if query.intent in ("find_definition", "find_references", "impact_analysis", "exact_match"):
            assert all(gold.line is not None and gold.line >= 1 for gold in query.gold), query.id


def test_gold_files_are_in_their_package_language() -> None:
    for query in load_queries(QUERIES):
        for gold in query.gold:
            package = gold.path.split("/", 1)[0]
            language = detect_language(gold.path)
            # bash-completion's completions have no extension: their language comes from their mode line.
            assert language in (PACKAGES[package], None), (query.id, gold.path)
