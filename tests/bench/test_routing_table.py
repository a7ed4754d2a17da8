"""bench/routing_table.py: the README's routing table, per rule, per set, with intent accuracy."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def routing_table(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    monkeypatch.syspath_prepend(str(BENCH))
    import routing_table as module

    yield module
    sys.modules.pop("routing_table", None)


def test_table_counts_each_rule_and_its_accuracy(routing_table) -> None:  # type: ignore[no-untyped-def]
    routed = routing_table.Routed
    sets = {"a": [routed("2:references", "find_references", "find_references"),
                  routed("8:identifier-in-query", "find_definition", "understand_code"),
                  routed("8:identifier-in-query", "find_definition", "find_definition")],
            "b": [routed("7:understand", "understand_code", None)]}
    lines = routing_table.table(sets)
    assert lines[0] == "| rule | a | b |"
    assert "| `2:references` | 1 (100%) | · |" in lines
    assert "| `7:understand` | · | 1 |" in lines
    assert "| `8:identifier-in-query` | 2 (50%) | · |" in lines
    assert lines[-1] == "| all | 3 (67%) | 1 |"
    assert lines.index("| `2:references` | 1 (100%) | · |") < lines.index("| `8:identifier-in-query` | 2 (50%) | · |")


def test_our_sets_route_every_labelled_intent_at_least_nine_times_in_ten(routing_table) -> None:  # type: ignore[no-untyped-def]
    for name in ("django", "rich", "rxjs"):
        routed = routing_table.routed_from_queries(BENCH / "queries" / f"{name}.jsonl")
        for intent in {item.label for item in routed}:
            mine = [item for item in routed if item.label == intent]
            assert sum(item.intent == intent for item in mine) / len(mine) >= 0.9, (name, intent)


def test_reports_are_read_for_their_first_fused_system(routing_table, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    report = tmp_path / "report.json"
    rows = [{"system": "fourfold default", "rule": "6:similar", "intent": "find_similar", "label": "find_similar"},
            {"system": "fourfold thorough", "rule": "6:similar", "intent": "find_similar", "label": "find_similar"},
            {"system": "bm25", "rule": None, "intent": None, "label": "find_similar"}]
    report.write_text(json.dumps({"queries": rows}))
    expected = [routing_table.Routed("6:similar", "find_similar", "find_similar")]
    assert routing_table.routed_from_report(report) == expected
