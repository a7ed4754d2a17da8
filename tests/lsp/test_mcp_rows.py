"""The MCP server's compact rows say what kind of answer each one is (issue 14: honest guesses)."""

from __future__ import annotations

from typing import Any

import pytest

from fourfold.lsp.mcp_server import _row_line, render


def _row(**extra: Any) -> dict[str, Any]:
    # the chunk opens with its doc comment on line 8; the definition's name is on line 10
    row: dict[str, Any] = {"path": "core/freeze.ts", "range": {"start": {"line": 7, "character": 0}},
                           "selection": {"start": {"line": 9, "character": 9}},
                           "symbol": "freeze", "kind": "function", "snippet": "function freeze(obj) {",
                           "contributions": {"structural": 0.02}, "ranks": {"structural": 0}, "matches": []}
    return {**row, **extra}


@pytest.mark.parametrize(("extra", "flag"), [
    ({"approximate": True}, "approximate"),
    ({"resolved": False}, "name only"),
    ({"demoted": True}, "demoted"),
])
def test_a_guess_is_marked_as_one(extra: dict[str, Any], flag: str) -> None:
    expected = f"1. core/freeze.ts:10  freeze (function)  — function freeze(obj) {{ [structural #1 {flag}]"
    assert _row_line(1, _row(**extra)) == expected


def test_a_sure_answer_carries_no_flag() -> None:
    assert _row_line(2, _row(resolved=True, approximate=False)).endswith("[structural #1]")


def test_an_impact_row_names_the_path_to_the_target() -> None:
    line = _row_line(3, _row(via=["Store.freeze", "freeze"], matches=[{"start": {"line": 12}}]))
    assert line.endswith("[structural #1] via Store.freeze → freeze +1 more in file")
    assert " via " not in _row_line(3, _row(via=[]))


def test_a_decomposed_answer_lists_its_functions_before_its_files() -> None:
    result = {"intent": "understand_code", "confidence": 1.0, "fusion_strategy": "decomposed",
              "modalities": {"text": {"ran": True}}, "results": [_row()], "timings_ms": {"total": 5.0},
              "notes": ["decomposed into 1 prose, 1 file"],
              "functions": [{"path": "core/freeze.ts", "symbol": "deepFreeze", "kind": "function",
                             "range": {"start": {"line": 20, "character": 0}}, "why": ["frame", "named"]},
                            {"path": "core/freeze.ts", "symbol": "freeze", "kind": "function",
                             "range": {"start": {"line": 9, "character": 0}}, "why": []}]}
    lines = render(result, [], 2000).splitlines()
    start = lines.index("functions to read first (2):")
    assert lines[start + 1:start + 4] == ["- core/freeze.ts:21  deepFreeze (function) [frame, named]",
                                          "- core/freeze.ts:10  freeze (function) [its file]", "files:"]
    assert lines[start + 4].startswith("1. core/freeze.ts:10  freeze")
