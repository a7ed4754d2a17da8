"""Literal hits name their innermost enclosing definition, found by bisection over sorted spans."""

from __future__ import annotations

import random

from fourfold.engine.records import Span, Symbol
from fourfold.engine.retrievers import _Enclosing


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
    enclosing = _Enclosing(symbols)
    for line in range(480):
        assert enclosing.at(line) is _brute_force(symbols, line)


def test_module_level_lines_and_same_start_ties() -> None:
    outer, first, second = _symbol("Outer", 2, 20), _symbol("a", 5, 8), _symbol("b", 5, 6)
    enclosing = _Enclosing([outer, first, second])
    assert enclosing.at(0) is None and enclosing.at(21) is None
    assert enclosing.at(5) is second  # the later of two starting on one line wins, as a plain scan decides
    assert enclosing.at(7) is first and enclosing.at(12) is outer
