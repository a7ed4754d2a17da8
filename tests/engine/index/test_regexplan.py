"""Regex plans: the literals a match must contain, and never a requirement a match can miss."""

from __future__ import annotations

from pathlib import Path

import pytest
import re2

from fourfold.engine.index.regexplan import plan

POLYGLOT = Path(__file__).resolve().parents[2] / "fixtures" / "polyglot"


def normal(result: list[list[str]] | None) -> list[list[str]] | None:
    return None if result is None else sorted(sorted(clause) for clause in result)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("connection refused", [["connection refused"]]),
        (r"retry\(\w+, max_attempts", [[", max_attempts", "retry("]]),
        ("foo|bar", [["bar"], ["foo"]]),
        (r"load_(settings|config)", [["load_config"], ["load_settings"]]),
        (r"colou?r", [["color"], ["colour"]]),
        (r"x*abc", [["abc"]]),
        (r"(?:abc){0,3}xyz", [["xyz"]]),
        (r"foo.*bar|baz\d+qux", [["bar", "foo"], ["baz", "qux"]]),
        (r"\bparseConfig\b", [["parseConfig"]]),
        (r"^\s*def\s+load", [["def", "load"]]),
        (r"[ab]cd", [["acd"], ["bcd"]]),
        (r"(\w+abc)def", [["abc", "def"]]),
        (r"abc{2}", [["abcc"]]),
        (r"(?:retry)+ing", [["ing", "retry"]]),
        (r"Größe|在庫", [["Größe"], ["在庫"]]),
        ("ab", None),
        (r"\w+", None),
        (r"(abc)?de", None),
        (r"abc|.", None),
        (r"a.b.c", None),
    ],
)
def test_plan_table(pattern: str, expected: list[list[str]] | None) -> None:
    assert normal(plan(pattern, case_insensitive=False)) == normal(expected)


def test_case_insensitive_plans_are_casefolded() -> None:
    assert normal(plan("ParseConfig|STRASSE", case_insensitive=True)) == [["parseconfig"], ["strasse"]]


@pytest.mark.parametrize(
    "pattern",
    [
        r"a(?=bcd)",  # look-around: RE2 rejects it; no plan
        r"[[:alpha:]]xyz",  # POSIX class: Python would read it as a set followed by "]xyz"
        r"x\pLabc",  # RE2-only escape
        r"(a)\1bcd",  # back-reference
        r"(",  # invalid
        r"(?(1)abc|def)",  # conditional
    ],
)
def test_unsupported_syntax_gives_no_plan(pattern: str) -> None:
    assert plan(pattern, case_insensitive=False) is None


def test_alternatives_beyond_the_bound_give_no_plan_rather_than_a_wrong_one() -> None:
    pattern = "|".join(f"word{i:03d}" for i in range(200))
    result = plan(pattern, case_insensitive=False)
    assert result is None or all(any(w.startswith("word") for w in clause) for clause in result)


PATTERNS = [
    r"retry\(",
    r"def \w+\(self",
    r"connection (refused|reset)",
    r"max_?attempts",
    r"(?i)PARSE_?CONFIG",
    r"class \w+ (extends|<|:) \w+",
    r"[Ll]oad[A-Z_]\w*",
    r"im(port|plement)s?",
    r"\d{4}",
    r"(fn|func|def|function) \w*config",
    r"stock(s|Level)?\b",
    r"r.try",
    r"épuisé|Größe|切れ",
    r"\$this->\w+",
    r"#include \"\w+\.h(pp)?\"",
]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("case_insensitive", [False, True])
def test_plan_never_excludes_a_matching_file(pattern: str, case_insensitive: bool) -> None:
    options = re2.Options()
    options.case_sensitive = not case_insensitive
    compiled = re2.compile(pattern, options)
    result = plan(pattern, case_insensitive)
    matched = 0
    for path in sorted(p for p in POLYGLOT.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8")
        if compiled.search(text) is None:
            continue
        matched += 1
        folded = text.casefold()
        assert result is None or any(all(lit.casefold() in folded for lit in clause) for clause in result), (
            path
        )
    assert matched > 0, "each pattern should match somewhere in the fixture"
