"""The MCP server's compact rows say what kind of answer each one is (issue 14: honest guesses)."""

from __future__ import annotations

from typing import Any

import pytest

from fourfold.lsp.mcp_server import _row_line


def _row(**extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"path": "core/freeze.ts", "range": {"start": {"line": 9, "character": 0}},
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
