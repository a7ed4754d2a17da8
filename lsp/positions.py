"""Column conversion between the engine's code points and the client's position encoding.

The engine counts columns in Unicode code points; LSP clients count in UTF-16 code units by default
(VS Code, Neovim) or in UTF-8 bytes / UTF-32 when they negotiate `general.positionEncodings`. A
result on a line with an emoji or a CJK name lands on the wrong character unless every column
crossing the wire is converted here, at the edge.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"
ENCODINGS = (UTF8, UTF16, UTF32)

Range = dict[str, dict[str, int]]


def _utf16_units(text: str) -> int:
    """UTF-16 code units of `text`: one per code point, two for those outside the BMP."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def to_client(line: str, column: int, encoding: str) -> int:
    """A code point column on `line` as the client counts it (columns past the end stay past it)."""
    column = max(column, 0)
    if encoding == UTF32:
        return column
    prefix = line[:column]
    beyond = column - len(prefix)
    if prefix.isascii():
        return column
    if encoding == UTF8:
        return len(prefix.encode("utf-8")) + beyond
    return _utf16_units(prefix) + beyond


def from_client(line: str, column: int, encoding: str) -> int:
    """A client column on `line` as a code point column (a column inside a character rounds down)."""
    column = max(column, 0)
    if encoding == UTF32 or line.isascii():
        return min(column, len(line))
    if encoding == UTF8:
        return len(line.encode("utf-8")[:column].decode("utf-8", errors="ignore"))
    return len(line.encode("utf-16-le")[: 2 * column].decode("utf-16-le", errors="ignore"))


def split_lines(text: str) -> list[str]:
    """Lines as tree-sitter and LSP count them: split at `\\n` only, a trailing `\\r` dropped.

    `str.splitlines` would also split at form feeds and U+2028, which shifts every later line
    number away from the engine's (tree-sitter's) rows.
    """
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


class LineSource:
    """Lines of files, read once per response: converting 100 results must not re-split a file 100 times."""

    def __init__(self, read: Callable[[str], str | None]) -> None:
        self._read = read
        self._lines: dict[str, list[str]] = {}

    def line(self, path: str, number: int) -> str:
        lines = self._lines.get(path)
        if lines is None:
            lines = self._lines[path] = split_lines(self._read(path) or "")
        return lines[number] if 0 <= number < len(lines) else ""


def convert_position(position: dict[str, int], line: str, encoding: str) -> dict[str, int]:
    return {"line": position["line"], "character": to_client(line, position["character"], encoding)}


def convert_range(value: Range, path: str, lines: LineSource, encoding: str) -> Range:
    """A code point range of the engine's JSON as a range in the client's encoding."""
    start, end = value["start"], value["end"]
    return {
        "start": convert_position(start, lines.line(path, start["line"]), encoding),
        "end": convert_position(end, lines.line(path, end["line"]), encoding),
    }


def convert_result(row: dict[str, Any], lines: LineSource, encoding: str) -> dict[str, Any]:
    """One `fourfold.search` result row with `range` and `matches` in the client's encoding."""
    if encoding == UTF32:
        return row
    path = row["path"]
    return {
        **row,
        "range": convert_range(row["range"], path, lines, encoding),
        "matches": [convert_range(match, path, lines, encoding) for match in row.get("matches", [])],
    }
