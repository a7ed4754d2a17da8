"""Exact text search: literals, identifiers and regexes, one hit per matching line, like ripgrep.

This is what a user gets for `"connection refused"`, `parseConfig` or `/retry\\(\\w+/`: every line
that contains the text, with the match's columns, so the editor can jump to it. The caller
narrows the files with the trigram index first (`required_trigrams` gives the plan); this module
is the real matcher that confirms each candidate, so false positives of the index never show.

Queries are data (`TextQuery`), parsed once by `parse_text_query` with ripgrep's smart case: an
all-lowercase query ignores case, any uppercase letter makes it exact. Regexes run on RE2, whose
matching time is linear in the input, so a pathological pattern such as `(a+)+$` cannot hang the
server. Matching is line-oriented (RE2's `never_nl`): a match never spans two lines, as in ripgrep.
Columns are 0-based code points on the line; in CRLF files `$` matches before the `\\r` and
snippets never show it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import re2

from . import regexplan
from .languages import detect_language
from .records import Hit, Span
from .trigram import file_trigrams

QueryKind = Literal["literal", "identifier", "regex"]

# Snippets: a long line is cut to this many code points, keeping some context before the match.
SNIPPET_MAX = 300
SNIPPET_LEAD = 100
# Raw scores (only ranks leave this retriever): whole-word identifier hits rank above substrings.
WHOLE_WORD_SCORE = 1.0
SUBSTRING_SCORE = 0.5
# Why a result is partial; "" when it is complete.
REASON_LIMIT = "limit"
REASON_BYTES = "max_bytes_scanned"

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
# Escapes and group names are syntax, not text the user wants matched: ignore them for smart case.
_NOT_LITERAL_TEXT = re.compile(r"\\[pP]\{[^}]*\}|\\[xX]\{[^}]*\}|\\.|\(\?P?<[^>]*>|\(\?[a-zA-Z-]+[:)]")
# The (?m) prefix lets ^ and $ match at line boundaries; error columns are shifted back by its length.
_MULTILINE = "(?m)"
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


class QueryError(ValueError):
    """A query the matcher cannot run; `position` is the column in the user's text, when known."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


@dataclass(frozen=True)
class TextQuery:
    """What to look for and how: the parsed form of what the user typed."""

    kind: QueryKind
    pattern: str
    case_sensitive: bool


@dataclass(frozen=True)
class TextResult:
    """The hits, and whether (and why) the search stopped before seeing every match."""

    hits: list[Hit] = field(default_factory=list)
    truncated: bool = False
    reason: str = ""


def parse_text_query(text: str) -> TextQuery:
    """Parse user text: `/re/` or `re:` is a regex, `"…"` a literal, one identifier an identifier."""
    stripped = text.strip()
    offset = len(text) - len(text.lstrip())
    if len(stripped) >= 2 and stripped[0] == stripped[-1] == "/":
        return _regex_query(stripped[1:-1], offset + 1)
    if stripped.startswith("re:"):
        pattern = stripped[3:]
        return _regex_query(pattern.lstrip(), offset + 3 + len(pattern) - len(pattern.lstrip()))
    if len(stripped) >= 2 and stripped[0] == stripped[-1] == '"':
        return _literal_query("literal", stripped[1:-1], offset + 1)
    kind: QueryKind = "identifier" if _IDENTIFIER.fullmatch(stripped) else "literal"
    return _literal_query(kind, stripped, offset)


def required_trigrams(query: TextQuery) -> regexplan.Plan | None:
    """The literals every match must contain, as an OR of ANDs, for `TrigramIndex.candidates_for_plan`."""
    if query.kind == "regex":
        return regexplan.plan(query.pattern, not query.case_sensitive)
    if not regexplan.indexable(query.pattern):
        return None
    return [[query.pattern]]


def candidate_plan(query: TextQuery) -> list[np.ndarray] | None:
    """The plan as trigram codes: a file is a candidate when it holds every code of any one array."""
    plan = required_trigrams(query)
    if plan is None:
        return None
    return [np.unique(np.concatenate([file_trigrams(literal) for literal in clause])) for clause in plan]


def search_text(
    query: TextQuery,
    files: Iterable[tuple[str, str]],
    limit: int = 200,
    max_bytes_scanned: int | None = None,
) -> TextResult:
    """Matching lines of `files` (path, content), best first; stops at `limit` hits or the byte budget."""
    matcher = _compile(query, 0)
    rank_words = query.kind == "identifier"
    whole: list[Hit] = []
    partial: list[Hit] = []
    scanned = 0
    reason = ""
    for path, content in files:
        if max_bytes_scanned is not None and scanned >= max_bytes_scanned:
            reason = REASON_BYTES
            break
        data = content.encode("utf-8", "replace")
        scanned += len(data)
        if b"\r\n" in data:
            # Dropping the \r that ends each CRLF line moves no column and no line, and lets `$`
            # match at the end of the visible line, as ripgrep's --crlf does.
            data = data.replace(b"\r\n", b"\n")
        _scan(matcher, path, content, data, rank_words, whole, partial)
        if len(whole) > limit:
            reason = REASON_LIMIT
            break
    hits = sorted(whole, key=_order) + sorted(partial, key=_order)
    if len(hits) > limit:
        reason = REASON_LIMIT
    return TextResult(hits[:limit], bool(reason), reason)


def _order(hit: Hit) -> tuple[str, int]:
    return hit.path, hit.span.start_line


def _literal_query(kind: QueryKind, pattern: str, offset: int) -> TextQuery:
    if not pattern:
        raise QueryError("the query is empty", offset)
    return TextQuery(kind, pattern, _has_upper(pattern))


def _regex_query(pattern: str, offset: int) -> TextQuery:
    if not pattern:
        raise QueryError("the regular expression is empty", offset)
    query = TextQuery("regex", pattern, _has_upper(_NOT_LITERAL_TEXT.sub("", pattern)))
    _compile(query, offset)
    return query


def _has_upper(text: str) -> bool:
    return any(char.isupper() for char in text)


def _compile(query: TextQuery, offset: int) -> re2._Regexp:
    """The RE2 matcher for a query; a regex RE2 rejects becomes a QueryError pointing at the culprit."""
    options = re2.Options()
    options.never_nl = True
    options.log_errors = False
    options.case_sensitive = query.case_sensitive
    if query.kind != "regex":
        options.literal = True
        return re2.compile(query.pattern.encode("utf-8"), options)
    try:
        return re2.compile((_MULTILINE + query.pattern).encode("utf-8"), options)
    except re2.error as error:
        message = error.args[0].decode("utf-8", "replace") if error.args else str(error)
        message = message.replace(_MULTILINE + query.pattern, query.pattern)
        raise QueryError(
            f"invalid regular expression: {message}", offset + _error_column(query.pattern, message)
        ) from None


def _error_column(pattern: str, message: str) -> int:
    """Where the error is: Python's parser knows the column; else find the fragment RE2 quotes."""
    try:
        re.compile(pattern)
    except re.error as error:
        if error.pos is not None:
            return error.pos
    fragment = message.rpartition(": ")[2]
    found = pattern.find(fragment) if fragment else -1
    return max(found, 0)


def _scan(
    matcher: re2._Regexp,
    path: str,
    content: str,
    data: bytes,
    rank_words: bool,
    whole: list[Hit],
    partial: list[Hit],
) -> None:
    """Append one hit per matching line; for identifiers prefer a whole-word match on that line."""
    match = matcher.search(data) if data else None
    if match is None:
        return
    newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 0x0A)
    ascii_only = content.isascii()
    language = detect_language(path)
    # An empty match after the final newline is not on a line of the file (ripgrep agrees).
    phantom = len(data) if data.endswith(b"\n") else -1
    while match is not None and match.start() != phantom:
        line = int(np.searchsorted(newlines, match.start()))
        line_start = int(newlines[line - 1]) + 1 if line > 0 else 0
        line_end = int(newlines[line]) if line < newlines.size else len(data)
        best = match
        if rank_words and not _is_whole_word(data, match.start(), match.end()):
            best = _first_whole_word(matcher, data, match.end(), line_end) or match
        is_whole = rank_words and _is_whole_word(data, best.start(), best.end())
        hit = _hit(path, language, data, line, line_start, line_end, best.start(), best.end(), ascii_only)
        if is_whole or not rank_words:
            whole.append(hit if not rank_words else _scored(hit, WHOLE_WORD_SCORE))
        else:
            partial.append(_scored(hit, SUBSTRING_SCORE))
        match = matcher.search(data, line_end + 1) if line_end < len(data) else None


def _first_whole_word(matcher: re2._Regexp, data: bytes, start: int, line_end: int) -> re2._Match | None:
    for candidate in matcher.finditer(data, start, line_end):
        if _is_whole_word(data, candidate.start(), candidate.end()):
            return candidate
    return None


def _is_word_byte(data: bytes, at: int) -> bool:
    # Bytes >= 0x80 belong to non-ASCII characters, which in identifiers are letters.
    return 0 <= at < len(data) and (data[at] in _WORD_BYTES or data[at] >= 0x80)


def _is_whole_word(data: bytes, start: int, end: int) -> bool:
    return not _is_word_byte(data, start - 1) and not _is_word_byte(data, end)


def _scored(hit: Hit, score: float) -> Hit:
    return Hit(hit.path, hit.span, score, snippet=hit.snippet, language=hit.language)


def _hit(
    path: str,
    language: str | None,
    data: bytes,
    line: int,
    line_start: int,
    line_end: int,
    start: int,
    end: int,
    ascii_only: bool,
) -> Hit:
    """A hit for one line: columns in code points, the line without its `\\r`, cut to SNIPPET_MAX."""
    text = data[line_start:line_end].decode("utf-8", "replace").rstrip("\r")
    if ascii_only:
        start_col, end_col = start - line_start, end - line_start
    else:
        start_col = len(data[line_start:start].decode("utf-8", "replace"))
        end_col = start_col + len(data[start:end].decode("utf-8", "replace"))
    end_col = min(end_col, len(text))
    return Hit(
        path,
        Span(line, start_col, line, end_col),
        WHOLE_WORD_SCORE,
        snippet=_snippet(text, start_col),
        language=language,
    )


def _snippet(text: str, start_col: int) -> str:
    stripped = text.strip()
    if len(stripped) <= SNIPPET_MAX:
        return stripped
    indent = len(text) - len(text.lstrip())
    begin = max(indent, start_col - SNIPPET_LEAD)
    return text[begin : begin + SNIPPET_MAX].strip()
