"""Answers in the client's columns, converted on the text the engine searched.

A real workspace whose file has an emoji before the searched name: the UTF-16 answer moves every
range, match and selection by the emoji's two code units, the engine's own JSON keeps code points,
and an edit published after the search does not shift an answer already found.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.lsp import convert
from fourfold.lsp.positions import UTF16

SOURCE = "GREETING = '🚀'; VALUE = parse_config('x')\n\n\ndef parse_config(path):\n    return path\n"
# A buffer that puts three more emoji before the use on line 0 (a later snapshot than the search's).
EDITED = "GREETING = '🚀🚀🚀🚀'; VALUE = parse_config('x')\n\n\ndef parse_config(path):\n    return path\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text(SOURCE, encoding="utf-8")
    opened = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=False)
    opened.refresh()
    yield opened
    opened.close()


def _use(row: dict) -> dict:
    return next(match for match in row["matches"] if match["start"]["line"] == 0)


def test_utf16_answer_moves_ranges_matches_and_selection_past_the_emoji(workspace: Workspace) -> None:
    answer = workspace.search_answer(SearchRequest('"parse_config"', limit=5))
    engine = answer.to_dict()["results"][0]
    client = convert.answer_json(answer, UTF16)["results"][0]
    use = _use(engine)["start"]["character"]
    assert SOURCE.split("\n")[0][use:].startswith("parse_config")
    assert _use(client)["start"]["character"] == use + 1  # 🚀 is one code point, two UTF-16 units
    assert client["path"] == engine["path"] == "app.py" and client["score"] == engine["score"]
    definition = convert.answer_json(workspace.search_answer(SearchRequest("parse_config")), UTF16)["results"][0]
    assert definition["selection"]["start"] == {"line": 3, "character": 4}  # an ASCII line: unchanged


def test_an_answer_is_converted_on_the_snapshot_it_searched(workspace: Workspace) -> None:
    answer = workspace.search_answer(SearchRequest('"parse_config"', limit=5))
    before = _use(convert.answer_json(answer, UTF16)["results"][0])["start"]["character"]
    workspace.set_buffer("app.py", EDITED)  # published after the search
    assert workspace.snapshot() is not answer.results[0].source
    assert _use(convert.answer_json(answer, UTF16)["results"][0])["start"]["character"] == before
    later = workspace.search_answer(SearchRequest('"parse_config"', limit=5))
    assert _use(convert.answer_json(later, UTF16)["results"][0])["start"]["character"] == before + 6


def test_ctrl_t_entries_land_on_the_converted_selection(workspace: Workspace) -> None:
    answer = workspace.search_answer(SearchRequest("parse_config"))
    columns = convert.ClientColumns(UTF16)
    entry = convert.workspace_symbol(answer.results[0], columns)
    assert entry.name == "parse_config" and entry.container_name == "app.py"
    assert entry.location.range.start.line == 3  # type: ignore[union-attr]
    assert entry.location.range.start.character == 4  # type: ignore[union-attr]
