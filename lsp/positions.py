"""Column conversion between the engine's code points and the client's position encoding.

The engine counts columns in Unicode code points; LSP clients count in UTF-16 code units by default
(VS Code, Neovim) or in UTF-8 bytes / UTF-32 when they negotiate `general.positionEncodings`. A
result on a line with an emoji or a CJK name lands on the wrong character unless every column
crossing the wire is converted here, at the edge.
"""

from __future__ import annotations

from collections.abc import Callable

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"
ENCODINGS = (UTF8, UTF16, UTF32)


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
    """Lines of files, read once per response: converting 100 results must not re-split a file 100 times.

    Most source files are pure ASCII, where every encoding counts columns alike: for those a column
    passes through without the file being split into lines at all (the split of a large file was
    most of a Ctrl+T answer's conversion time).
    """

    def __init__(self, read: Callable[[str], str | None]) -> None:
        self._read = read
        self._texts: dict[str, str] = {}
        self._lines: dict[str, list[str]] = {}

    def _text(self, path: str) -> str:
        text = self._texts.get(path)
        if text is None:
            text = self._texts[path] = self._read(path) or ""
        return text

    def line(self, path: str, number: int) -> str:
        lines = self._lines.get(path)
        if lines is None:
            lines = self._lines[path] = self._text(path).split("\n")
        line = lines[number] if 0 <= number < len(lines) else ""
        return line[:-1] if line.endswith("\r") else line

    def to_client(self, path: str, number: int, column: int, encoding: str) -> int:
        """`to_client` for a column on line `number` of `path`; an ASCII file is never split.

        (`str.isascii` is a flag CPython keeps on every string, so the test costs nothing.)
        """
        if encoding == UTF32 or self._text(path).isascii():
            return max(column, 0)
        return to_client(self.line(path, number), column, encoding)
