"""Columns crossing the wire: code points in the engine, UTF-16 / UTF-8 / UTF-32 in clients."""

from __future__ import annotations

import pytest

from fourfold.lsp.positions import (
    UTF8,
    UTF16,
    UTF32,
    LineSource,
    from_client,
    split_lines,
    to_client,
)

# (line, code point column, utf-8, utf-16, utf-32)
CASES = [
    ("def parse_config():", 4, 4, 4, 4),
    ("naïve = 1", 5, 6, 5, 5),  # ï: 2 bytes in UTF-8, 1 UTF-16 unit
    ("x = '日本語' + y", 9, 15, 9, 9),  # CJK: 3 bytes each
    ("s = '🚀🚀' ; retry()", 11, 17, 13, 11),  # emoji outside the BMP: 4 bytes, 2 UTF-16 units
    ("🚀", 1, 4, 2, 1),
    ("", 0, 0, 0, 0),
]


@pytest.mark.parametrize(("line", "points", "utf8", "utf16", "utf32"), CASES)
def test_to_client_counts_units(line: str, points: int, utf8: int, utf16: int, utf32: int) -> None:
    assert to_client(line, points, UTF8) == utf8
    assert to_client(line, points, UTF16) == utf16
    assert to_client(line, points, UTF32) == utf32


@pytest.mark.parametrize(("line", "points", "utf8", "utf16", "utf32"), CASES)
def test_from_client_inverts_to_client(line: str, points: int, utf8: int, utf16: int, utf32: int) -> None:
    assert from_client(line, utf8, UTF8) == points
    assert from_client(line, utf16, UTF16) == points
    assert from_client(line, utf32, UTF32) == points


def test_a_column_inside_a_surrogate_pair_rounds_down_to_the_character() -> None:
    assert from_client("🚀x", 1, UTF16) == 0
    assert from_client("日x", 2, UTF8) == 0


def test_columns_past_the_end_of_the_line() -> None:
    assert to_client("é", 3, UTF16) == 3  # end-of-line spans keep their distance past the text
    assert to_client("é", 3, UTF8) == 4
    assert from_client("é", 10, UTF16) == 1  # a client column past the end clamps to the end


def test_split_lines_counts_rows_like_tree_sitter() -> None:
    text = "a\fb\r\nc\u2028d\n"
    assert split_lines(text) == ["a\fb", "c\u2028d", ""]
    assert len(text.splitlines()) != len(split_lines(text)) - 1  # splitlines would shift line numbers


def test_line_source_reads_each_file_once() -> None:
    reads: list[str] = []

    def read(path: str) -> str:
        reads.append(path)
        return "one\ntwo 🚀\n"

    lines = LineSource(read)
    assert lines.line("a.py", 1) == "two 🚀"
    assert lines.line("a.py", 0) == "one"
    assert lines.line("a.py", 99) == ""
    assert reads == ["a.py"]
