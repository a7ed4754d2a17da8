"""CLI mistakes a person makes get one line on stderr and exit code 2, never a traceback (issue 12)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fourfold.lsp.cli import main


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_a_blank_query_is_one_line_and_exit_code_2(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                   query: str) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    code = main(["search", query, "--root", str(tmp_path), "--index-dir", str(tmp_path / "index"),
                 "--backend", "none"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and "blank" in captured.err
    assert not (tmp_path / "index").exists()  # refused before opening or indexing anything
