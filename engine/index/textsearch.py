"""Exact text search: literals, identifiers and regexes, one hit per matching line, like ripgrep.

This is what a user gets for `"connection refused"`, `parseConfig` or `/retry\\(\\w+/`: every line
that contains the text, with the match's columns, so the editor can jump to it. The caller
narrows the files with the trigram index first (`required_trigrams` gives the plan); this module
is the real matcher that confirms each candidate, so false positives of the index never show.

Queries are data (`TextQuery`), parsed once by `parse_text_query` with ripgrep's smart case: an
all-lowercase query ignores case, any uppercase letter makes it exact. Regexes run on RE2, whose
matching time is linear in the input, so a pathological pattern such as `(a+)+$` cannot hang the
server. Matching is line-oriented (RE2's `never_nl`): a match never spans two lines, as in ripgrep, which
also lets a scan run in slices of whole lines and stop between them when its time budget is spent.
Columns are 0-based code points on the line; in CRLF files `$` matches before the `\\r` and
snippets never show it.
"""

from __future__ import annotations

import re
import threading
import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import accumulate
from typing import Literal

import numpy as np
import re2

from ..model.languages import detect_language
from ..model.records import Hit, Span
from . import regexplan
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
REASON_TIME = "time_budget"
# A scan stops once this long has passed (the searcher's retriever budget, search.RETRIEVER_BUDGET_S):
# the searcher has given up on it by then, so the thread must not keep burning a core.
SCAN_BUDGET_S = 5.0
# The clock is looked at once the scan of a file has moved this many bytes on, and RE2 runs over at most
# this many (cut at a line end) at a time, so an expensive pattern on a large file overruns its budget
# by two slices at most; asking after every matching line instead cost a clock read per line.
SCAN_SLICE = 64 * 1024
# Compiled matchers kept for the latest queries (`compile_query`, `_finder`): compiling cost a short listing
# a fifth of its time; each RE2 holds at most REGEX_MAX_MEM, so this bounds what they keep to 64 MB.
COMPILED_KEPT = 8
# RE2's memory bound for one compiled pattern (its default, made explicit): a pattern whose program
# does not fit is refused at once as "pattern too large" instead of being run.
REGEX_MAX_MEM = 8 << 20

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
# Escapes and group names are syntax, not text the user wants matched: ignore them for smart case.
_NOT_LITERAL_TEXT = re.compile(r"\\[pP]\{[^}]*\}|\\[xX]\{[^}]*\}|\\.|\(\?P?<[^>]*>|\(\?[a-zA-Z-]+[:)]")
# The (?m) prefix lets ^ and $ match at line boundaries; error columns are shifted back by its length.
_MULTILINE = "(?m)"
# The only non-ASCII characters RE2's case folding equates with ASCII letters: KELVIN SIGN (k) and
# LATIN SMALL LETTER LONG S (s). A text without them is searched case-insensitively by lowercasing bytes.
_ASCII_FOLD_TWINS = ("\u212a".encode(), "\u017f".encode())
_NEWLINE = ord("\n")
WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


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


class _File:
    """A file with matches: what turning one of them into a Hit needs, its language looked up once.

    Its bytes are a `SearchText`'s, or read on first use (`FoundFiles.data`: a file served from the
    positional index is copied out of it only when one of its lines becomes a Hit)."""

    def __init__(self, path: str, data: bytes | Callable[[], bytes], ascii: bool, locate: Search | None = None) -> None:
        self.path, self._data, self.ascii, self.locate = path, data, ascii, locate

    @cached_property
    def data(self) -> bytes:
        return self._data if isinstance(self._data, bytes) else self._data()

    @cached_property
    def language(self) -> str | None:
        return detect_language(self.path)  # only files whose lines are shown pay


# One matching line as the scan records it: its file's number in `TextMatches.files`, 0-based line, and
# the match's byte span. A tuple, not a Hit: a search with thousands of matching lines builds Hits only
# for those it shows. Only ints, so the garbage collector stops tracking it at its first look: records
# holding a _File were tracked, and the tens of thousands a listing keeps brought on full collections
# of the whole heap (1.2 million objects with Django indexed: 0.9 s inside one search, measured).
_Line = tuple[int, int, int, int]


@dataclass(frozen=True)
class FoundFiles:
    """A run of files, consecutive in path order, whose matching lines were found without scanning them
    (by `textpositions`), for `match_text` to take in their place: the records a scan would have made.

    `records(base, stop)` makes them, the files numbered from `base` on in order: the whole-word and the
    other records, how many of each the files up to each one hold (cumulative, one entry per file), and
    how many files it went through before `stop` said stop (all of them, unless it did). `data(i)` reads
    the i-th file's scan-ready bytes, for the Hits shown; `sizes` is what a scan would have read of each.
    """

    paths: list[str]
    sizes: list[int]
    ascii: list[bool]
    data: Callable[[int], bytes]
    records: Callable[[int, Callable[[], bool]], FoundRecords]
    # Finds a record's match from its line's start (`search` over the line) where the record says only
    # which line matches (end -1): a regex's lines can be known to match before where they do is.
    locate: Search | None = None


class LineRecords:
    """Matching lines as one int64 array of rows (file number, 0-based line, match start, end), in result
    order; an end of -1 says the line is known to match but not yet where (`FoundFiles.locate`).

    An array, not a tuple per line: a many-hit search served from the positional index makes its records
    with a few numpy calls, and a listing of tens of thousands of lines keeps no Python object per line
    for the garbage collector to walk (records it tracked had brought full collections of the whole heap
    into searches: 0.9 s inside one, measured with Django indexed).
    """

    __slots__ = ("rows",)

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows

    @classmethod
    def of(cls, rows: list[_Line]) -> LineRecords:
        return cls(np.array(rows, dtype=np.int64).reshape(-1, 4))

    @classmethod
    def columns(cls, file: np.ndarray, line: np.ndarray, start: np.ndarray, end: np.ndarray) -> LineRecords:
        return cls(np.stack([file, line, start, end], axis=1).astype(np.int64, copy=False).reshape(-1, 4))

    @classmethod
    def joined(cls, parts: list[LineRecords]) -> LineRecords:
        return parts[0] if len(parts) == 1 else cls(np.concatenate([part.rows for part in parts]))

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[_Line]:
        return iter(self.listed())

    def head(self, count: int) -> LineRecords:
        return self if count >= len(self.rows) else LineRecords(self.rows[: max(count, 0)])

    def listed(self, count: int | None = None) -> list[_Line]:
        """The first `count` rows (all when None) as tuples."""
        rows = self.rows if count is None else self.rows[: max(count, 0)]
        return [(file, line, start, end) for file, line, start, end in rows.tolist()]

    def in_path_order(self, paths: list[str]) -> LineRecords:
        """Sorted by (path of the file, line): the order of a scan that took the files in path order."""
        if len(self.rows) < 2:
            return self
        rank = np.argsort(np.array(paths, dtype=object), kind="stable")
        place = np.empty(len(paths), dtype=np.int64)
        place[rank] = np.arange(len(paths))
        return LineRecords(self.rows[np.lexsort((self.rows[:, 1], place[self.rows[:, 0]]))])


_NO_RECORDS = LineRecords(np.zeros((0, 4), dtype=np.int64))


@dataclass(frozen=True)
class FoundRecords:
    """What `FoundFiles.records` gives (see there)."""

    whole: LineRecords
    partial: LineRecords
    whole_ends: list[int]
    partial_ends: list[int]
    done: int


class _Collected:
    """The records of one kind a search has made so far: the scan appends tuples to `rows`, a served run
    adds its array whole; `records()` joins them in order."""

    def __init__(self) -> None:
        self.parts: list[LineRecords] = []
        self.rows: list[_Line] = []
        self.done = 0  # how many rows `parts` holds

    def __len__(self) -> int:
        return self.done + len(self.rows)

    def add(self, records: LineRecords) -> None:
        self._flush()
        self.parts.append(records)
        self.done += len(records)

    def records(self) -> LineRecords:
        self._flush()
        return LineRecords.joined(self.parts) if self.parts else _NO_RECORDS

    def _flush(self) -> None:
        if self.rows:
            self.parts.append(LineRecords.of(self.rows))
            self.done += len(self.rows)
            self.rows = []


class _Files:
    """The files that records name by number: a scanned file's `_File` is made as it is scanned, a served
    run's only when one of its lines becomes a Hit (a many-hit search takes hundreds of files at a time)."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self._made: dict[int, _File] = {}
        self._bases: list[int] = []
        self._runs: list[FoundFiles] = []

    def __len__(self) -> int:
        return len(self.paths)

    def add(self, file: _File) -> None:
        self._made[len(self.paths)] = file
        self.paths.append(file.path)

    def add_run(self, run: FoundFiles, count: int) -> None:
        self._bases.append(len(self.paths))
        self._runs.append(run)
        self.paths.extend(run.paths[:count])

    def __getitem__(self, number: int) -> _File:
        made = self._made.get(number)
        if made is None:
            which = bisect_right(self._bases, number) - 1
            run, at = self._runs[which], number - self._bases[which]
            made = self._made[number] = _File(run.paths[at], _file_data(run.data, at), run.ascii[at], run.locate)
        return made


@dataclass(frozen=True)
class TextMatches:
    """Every matching line a search found, best first, as records that become Hits only when asked.

    `lines()` lists (path, 0-based line) of them all at the cost of one tuple each; `hits(n)` builds
    full Hits (columns in code points, snippet, language) for the first n, as a page of results needs.
    Whole-word identifier matches come first, then substring matches, each in (path, line) order.
    """

    whole: LineRecords = _NO_RECORDS
    partial: LineRecords = _NO_RECORDS
    truncated: bool = False
    reason: str = ""
    files: _Files = field(default_factory=_Files)  # what the records' file numbers refer to

    def __len__(self) -> int:
        return len(self.whole) + len(self.partial)

    def lines(self) -> list[tuple[str, int]]:
        """(path, 0-based line) of every matching line, in result order."""
        paths = np.array(self.files.paths, dtype=object)
        listed: list[tuple[str, int]] = []
        for part in (self.whole, self.partial):
            listed += zip(paths[part.rows[:, 0]].tolist(), part.rows[:, 1].tolist(), strict=True)
        return listed

    def file_counts(self) -> dict[str, int]:
        """How many matching lines each file with one has, in path order."""
        paths = self.files.paths
        counts = np.bincount(self._rows()[:, 0], minlength=len(paths)).tolist()
        return {path: counts[number] for path, number in sorted((path, number) for number, path in enumerate(paths)
                                                                if counts[number])}

    def in_file_order(self, per_file: int | None = None, limit: int | None = None) -> tuple[list[tuple[str, int]], int]:
        """(path, 0-based line) in path then line order, as rg lists them, at most `per_file` lines of each
        file and the first `limit` of those; and how many lines the per-file cap kept. Only the listed lines
        become tuples: a count or a short page of tens of thousands of lines does not pay for them all."""
        rows = self._rows()
        paths = self.files.paths
        place = np.empty(len(paths), dtype=np.int64)
        place[np.argsort(np.array(paths, dtype=object), kind="stable")] = np.arange(len(paths))
        ranked = place[rows[:, 0]]
        order = np.lexsort((rows[:, 1], ranked))
        rows, ranked = rows[order], ranked[order]
        if per_file is not None and len(rows):
            at = np.arange(len(rows))
            heads = np.maximum.accumulate(np.where(np.r_[True, ranked[1:] != ranked[:-1]], at, 0))
            rows = rows[at - heads < per_file]
        shown = rows if limit is None else rows[: max(limit, 0)]
        named = np.array(paths, dtype=object)[shown[:, 0]].tolist()
        return list(zip(named, shown[:, 1].tolist(), strict=True)), len(rows)

    def _rows(self) -> np.ndarray:
        return np.concatenate([self.whole.rows, self.partial.rows])

    def hits(self, limit: int | None = None) -> list[Hit]:
        """Hits for the first `limit` matching lines (all of them when None)."""
        wanted = len(self) if limit is None else max(limit, 0)
        files = self.files
        made = [_hit(files[found[0]], found, WHOLE_WORD_SCORE) for found in self.whole.listed(wanted)]
        made.extend(_hit(files[found[0]], found, SUBSTRING_SCORE)
                    for found in self.partial.listed(wanted - len(made)))
        return made


def _hit(file: _File, found: _Line, score: float) -> Hit:
    """A Hit for one recorded line of `file`: columns in code points, the line without its `\\r`, cut to SNIPPET_MAX."""
    _, line, start, end = found
    data = file.data
    if end < 0 and file.locate is not None:  # a line known to match (`FoundFiles.locate`): where is the match?
        span = file.locate(data, start, len(data) if (cut := data.find(b"\n", start)) == -1 else cut)
        start, end = span if span is not None else (start, start)
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", start)
    text = data[line_start : len(data) if line_end == -1 else line_end].decode("utf-8", "replace").rstrip("\r")
    if file.ascii:
        start_col, end_col = start - line_start, end - line_start
    else:
        start_col = len(data[line_start:start].decode("utf-8", "replace"))
        end_col = start_col + len(data[start:end].decode("utf-8", "replace"))
    return Hit(file.path, Span(line, start_col, line, min(end_col, len(text))), score,
               snippet=_snippet(text, start_col), language=file.language)


# Characters that make the text between them one literal when they enclose the whole query.
QUOTES = "\"'"


def parse_text_query(text: str) -> TextQuery:
    """Parse user text: `/re/` or `re:` is a regex, `"…"` or `'…'` a literal, one identifier an identifier."""
    stripped = text.strip()
    offset = len(text) - len(text.lstrip())
    if len(stripped) >= 2 and stripped[0] == stripped[-1] == "/":
        return _regex_query(stripped[1:-1], offset + 1)
    if stripped.startswith("re:"):
        pattern = stripped[3:]
        return _regex_query(pattern.lstrip(), offset + 3 + len(pattern) - len(pattern.lstrip()))
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in QUOTES:
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


class SearchText:
    """A file's text in the form the matcher scans: UTF-8 with every CRLF folded to LF.

    Dropping the \\r that ends each CRLF line moves no column and no line, and lets `$` match at the
    end of the visible line, as ripgrep's --crlf does. Built once per file version and cached (see
    `ContentCache`), so a search never re-encodes the repository. `lowered` (ASCII files only) lets a
    case-insensitive literal be found with a plain byte search instead of a case-folding regex; that
    is exact when `plain_case` holds (no non-ASCII character RE2 folds to an ASCII letter).
    """

    __slots__ = ("_lowered", "_newlines", "ascii", "data", "plain_case")

    def __init__(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        self._scan(data.replace(b"\r\n", b"\n") if b"\r" in data else data)

    @classmethod
    def scanned(cls, data: bytes) -> SearchText:
        """The scan-ready bytes of a text as the positional index keeps them (`textpositions`): folded already."""
        made = cls.__new__(cls)
        made._scan(data)
        return made

    def _scan(self, data: bytes) -> None:
        self.data = data
        self.ascii = data.isascii()
        self.plain_case = self.ascii or not any(twin in data for twin in _ASCII_FOLD_TWINS)
        self._lowered: bytes | None = None
        self._newlines: np.ndarray | None = None

    @property
    def newlines(self) -> np.ndarray:
        """The byte offset of every `\\n`, ascending (int32: 4 bytes a line), computed on first use.

        A match's line is the number of newlines before it, one `searchsorted` for all of a file's
        matches, instead of counting newlines over the bytes between matches with every search.
        """
        if self._newlines is None:
            self._newlines = np.flatnonzero(np.frombuffer(self.data, dtype=np.uint8) == _NEWLINE).astype(np.int32)
        return self._newlines

    def line(self, number: int) -> str:
        """One 0-based line without its line break, decoded ("" past the last)."""
        newlines = self.newlines
        if not 0 <= number <= len(newlines):
            return ""
        start = int(newlines[number - 1]) + 1 if number > 0 else 0
        end = int(newlines[number]) if number < len(newlines) else len(self.data)
        return self.data[start:end].decode("utf-8", "replace")

    @property
    def lowered(self) -> bytes:
        """The ASCII-lowercased bytes (same length and offsets), computed on first use."""
        if self._lowered is None:
            self._lowered = self.data.lower()
        return self._lowered


# How far ahead a literal is looked for with `bytes.find` before RE2 takes over (`_Finder`): about
# the bytes `bytes.find` scans in the time of one RE2 call's fixed cost (measured: 1-3 us).
FIND_WINDOW = 4096
# Up to this many occurrences in a file get their lines by bisection one by one; more, by one
# vectorised `searchsorted` (measured: its fixed cost is that of about four bisections).
FEW_OCCURRENCES = 4
# A short identifier prefix (`tes`) matches inside words everywhere; once this many times the limit of
# substring hits are in, scanning on for rarer whole-word hits costs more than it finds (Ctrl+T per keystroke).
PARTIAL_SCAN_FACTOR = 5


def search_text(
    query: TextQuery,
    files: Iterable[tuple[str, str | SearchText | FoundFiles]],
    limit: int = 200,
    max_bytes_scanned: int | None = None,
    budget_s: float | None = SCAN_BUDGET_S,
    cancel: threading.Event | None = None,
) -> TextResult:
    """Matching lines of `files` (path, content), best first, as Hits; `match_text` says when it stops."""
    found = match_text(query, files, limit, max_bytes_scanned, budget_s, cancel)
    return TextResult(found.hits(), found.truncated, found.reason)


def match_text(
    query: TextQuery,
    files: Iterable[tuple[str, str | SearchText | FoundFiles]],
    limit: int = 200,
    max_bytes_scanned: int | None = None,
    budget_s: float | None = SCAN_BUDGET_S,
    cancel: threading.Event | None = None,
) -> TextMatches:
    """Matching lines of `files` (path, content), best first; stops at `limit` lines, the byte budget,
    the time budget or `cancel`, checked between files and between slices of a file. Files given as
    `FoundFiles` (served from the positional index) are not scanned: their records are taken as they
    are, and the run is cut where a scan of its files would have stopped (`_taken`).

    The scan records each matching line as a small tuple: building the Hits of thousands of lines is
    what made a many-hit search cost as much as scanning the repository without an index (issue 17).
    """
    stop = _Stop(None if budget_s is None else time.monotonic() + budget_s, cancel)
    matcher = compile_query(query, 0)
    search = searcher(matcher)
    needle = plain_needle(query)
    finder = _finder(needle) if needle is not None else None
    literal = _guide_literal(query)
    guide = _finder(literal) if literal is not None else None
    rank_words = query.kind == "identifier"
    whole, partial = _Collected(), _Collected()
    numbered = _Files()  # the files that records name by number
    scanned = 0
    reason = ""
    previous = ""
    in_order = True
    for path, content in files:
        if max_bytes_scanned is not None and scanned >= max_bytes_scanned:
            reason = REASON_BYTES
            break
        if stop():
            reason = REASON_TIME
            break
        in_order = in_order and path >= previous
        previous = path
        if isinstance(content, FoundFiles):
            previous = content.paths[-1]
            found = content.records(len(numbered), stop)
            taken, reason = _taken(content, found, scanned, max_bytes_scanned, len(whole), len(partial), limit)
            scanned += sum(content.sizes[:taken])
            numbered.add_run(content, taken)
            if taken:
                whole.add(found.whole.head(found.whole_ends[taken - 1]))
                partial.add(found.partial.head(found.partial_ends[taken - 1]))
            if reason:
                break
            continue
        text = content if isinstance(content, SearchText) else SearchText(content)
        scanned += len(text.data)
        if finder is not None and (query.case_sensitive or text.plain_case):
            haystack = text.data if query.case_sensitive else text.lowered
            first = finder.find(haystack, 0)
            if first != -1:  # most candidates hold the needle, but a file without it costs one find
                numbered.add(_File(path, text.data, text.ascii))
                _Scan(len(numbered) - 1, text, rank_words, whole.rows, partial.rows).find_all(haystack, finder, first)
        else:
            numbered.add(_File(path, text.data, text.ascii))
            if not _Scan(len(numbered) - 1, text, rank_words, whole.rows, partial.rows).match_all(
                    matcher, search, _Guide(guide, text.lowered) if guide is not None and text.plain_case else None,
                    stop):
                reason = REASON_TIME
                break
        if len(whole) > limit or len(partial) > PARTIAL_SCAN_FACTOR * limit:
            reason = REASON_LIMIT
            break
    whole_found, partial_found = whole.records(), partial.records()
    if not in_order:
        whole_found = whole_found.in_path_order(numbered.paths)
        partial_found = partial_found.in_path_order(numbered.paths)
    if len(whole_found) + len(partial_found) > limit:
        reason = REASON_LIMIT
        partial_found = partial_found.head(max(limit - len(whole_found), 0))
        whole_found = whole_found.head(limit)
    return TextMatches(whole_found, partial_found, bool(reason), reason, numbered)


def _taken(content: FoundFiles, found: FoundRecords, scanned: int, max_bytes: int | None, whole: int,
           partial: int, limit: int) -> tuple[int, str]:
    """How many files of a run a scan would have gone through, and why it stopped there ("" if it did not).

    As `match_text`'s loop asks them: the byte budget, then the time budget, before each file; the limits
    after it. So a limit reached after file i stops before the budgets asked before file i + 1.
    """
    count = len(content.paths)
    over = min(bisect_right(found.whole_ends, limit - whole),  # the first file after which whole > limit
               bisect_right(found.partial_ends, PARTIAL_SCAN_FACTOR * limit - partial))
    if over < count:
        count, reason = over + 1, REASON_LIMIT
    else:
        reason = ""
    if max_bytes is not None:
        spent = bisect_left(list(accumulate(content.sizes, initial=scanned)), max_bytes, hi=count)
        if spent < count:  # the first file the byte budget is spent before
            count, reason = spent, REASON_BYTES
    if found.done < count:
        count, reason = found.done, REASON_TIME
    return count, reason


def _file_data(data: Callable[[int], bytes], at: int) -> Callable[[], bytes]:
    """The bytes of file `at` of a run, read when a Hit needs them."""
    return lambda: data(at)


class _Stop:
    """Whether a scan must stop now: its deadline passed or its caller cancelled it."""

    __slots__ = ("cancel", "deadline")

    def __init__(self, deadline: float | None, cancel: threading.Event | None) -> None:
        self.deadline, self.cancel = deadline, cancel

    def __call__(self) -> bool:
        if self.cancel is not None and self.cancel.is_set():
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline


def plain_needle(query: TextQuery) -> bytes | None:
    """The bytes to find with a plain byte search, or None when only RE2 will do.

    A case-sensitive literal is its UTF-8 bytes (UTF-8 is self-synchronising: a byte match is a
    character match). A case-insensitive ASCII literal matches where its lowercase form occurs in
    the ASCII-lowercased bytes of a `plain_case` text, so both searches give the same lines.
    """
    if query.kind == "regex" or "\n" in query.pattern or "\r" in query.pattern:
        return None  # RE2 never matches across lines; leave such a literal to it
    if query.case_sensitive:
        return query.pattern.encode("utf-8")
    return query.pattern.lower().encode("ascii") if query.pattern.isascii() else None


@lru_cache(maxsize=COMPILED_KEPT)
def _finder(needle: bytes) -> _Finder:
    return _Finder(needle)


class _Finder:
    """The next occurrence of a literal: `bytes.find` over the next FIND_WINDOW bytes, then RE2.

    RE2 skips to a literal's first byte with `memchr`, several times faster than `bytes.find` over
    the same bytes (measured on Django: 4-50 GB/s against 2.5-4), but each call costs a few
    microseconds; the window keeps close occurrences on the cheap byte search and lets RE2 cross
    the long stretches without one, such as the rest of a file after its last occurrence.
    """

    def __init__(self, needle: bytes) -> None:
        options = re2.Options()
        options.literal = True
        options.log_errors = False
        options.never_capture = True
        options.max_mem = REGEX_MAX_MEM
        self.needle = needle
        self._search = searcher(re2.compile(needle, options))

    def find(self, haystack: bytes, pos: int) -> int:
        """The offset of the first occurrence at or after `pos`, or -1."""
        end = pos + FIND_WINDOW
        at = haystack.find(self.needle, pos, end + len(self.needle) - 1)  # occurrences starting before end
        if at != -1 or end >= len(haystack):
            return at
        span = self._search(haystack, end, len(haystack))
        return -1 if span is None else span[0]

    def find_all(self, haystack: bytes, first: int) -> list[int]:
        """Every occurrence from `first` (one, found by `find`) on, not overlapping: `find` repeated,
        inlined because a many-hit search calls it once per occurrence (tens of thousands of calls)."""
        needle, search = self.needle, self._search
        size, reach, stretch = len(needle), len(haystack), FIND_WINDOW + len(needle) - 1
        find = haystack.find
        found = [first]
        at = first
        while True:
            pos = at + size
            at = find(needle, pos, pos + stretch)
            if at == -1:
                if pos + FIND_WINDOW >= reach:
                    return found
                span = search(haystack, pos + FIND_WINDOW, reach)
                if span is None:
                    return found
                at = span[0]
            found.append(at)


def _guide_literal(query: TextQuery) -> bytes | None:
    """For a regex whose plan is one clause, its longest literal lowercased: where in a file a match may be.

    Only for an ASCII literal: then in a `plain_case` text every match holds it up to ASCII case,
    whatever the flags inside the pattern say. With several clauses one byte search per clause
    would cost more than the single RE2 pass it is meant to shorten.
    """
    if query.kind != "regex":
        return None
    plan = regexplan.plan(query.pattern, True)
    if plan is None or len(plan) != 1 or not plan[0]:
        return None
    literal = max(plan[0], key=len)
    return literal.lower().encode("ascii") if literal.isascii() else None


class _Guide:
    """Skips RE2 past the lines that cannot match: a match's line holds the guiding literal.

    A byte search for a literal is many times faster than RE2 over the same bytes, so RE2 only runs
    from the start of the next line that holds a clause's literal (a line start is also where RE2
    would start anyway after a hit, so `^` and `\\b` behave as before).
    """

    def __init__(self, literal: _Finder, lowered: bytes) -> None:
        self.literal, self.lowered = literal, lowered


def _literal_query(kind: QueryKind, pattern: str, offset: int) -> TextQuery:
    if not pattern:
        raise QueryError("the query is empty", offset)
    return TextQuery(kind, pattern, _has_upper(pattern))


def _regex_query(pattern: str, offset: int) -> TextQuery:
    if not pattern:
        raise QueryError("the regular expression is empty", offset)
    query = TextQuery("regex", pattern, _has_upper(_NOT_LITERAL_TEXT.sub("", pattern)))
    compile_query(query, offset)
    return query


def _has_upper(text: str) -> bool:
    return any(char.isupper() for char in text)


@lru_cache(maxsize=COMPILED_KEPT)
def compile_query(query: TextQuery, offset: int) -> re2._Regexp:
    """The RE2 matcher for a query; a regex RE2 rejects becomes a QueryError pointing at the culprit.
    Kept for the last few queries (`COMPILED_KEPT`): a listing re-asked, or paged, compiles once."""
    options = re2.Options()
    options.never_nl = True
    options.log_errors = False
    # Only a match's span is used: without capture groups RE2 keeps to its DFA, where 990 nested
    # groups would otherwise send every match through the NFA (36 s on one repository, measured).
    options.never_capture = True
    options.max_mem = REGEX_MAX_MEM
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


class _Scan:
    """One file's matching lines: one per line, for identifiers a whole-word match when the line has one.

    A match's line and the line's end come from the file's newline offsets (`SearchText.newlines`), so
    the cost is one pass of the matcher over the bytes plus a few C calls and a tuple per line.
    """

    def __init__(self, file: int, text: SearchText, rank_words: bool, whole: list[_Line],
                 partial: list[_Line]) -> None:
        # Its records name the file by `file`, its number among the files the search took.
        self.file, self.data, self.newlines = file, text.data, text.newlines
        self.rank_words, self.whole, self.partial = rank_words, whole, partial
        self.line = 0

    def find_all(self, haystack: bytes, finder: _Finder, first: int) -> None:
        """Every line holding the finder's needle in `haystack` (the data or its lowered twin), whose
        first occurrence is at `first`.

        Finds every occurrence, gives them their lines with one `searchsorted` over the file's
        `newlines`, then keeps one per line: the first, or for an identifier the first whole-word
        one when the line has one.
        """
        size = len(finder.needle)
        occurrences = finder.find_all(haystack, first)
        newlines = self.newlines
        file, whole, partial = self.file, self.whole, self.partial
        if len(occurrences) <= FEW_OCCURRENCES:
            view = newlines.data
            lines = [bisect_left(view, at) for at in occurrences]
        else:
            lines = np.searchsorted(newlines, np.array(occurrences, dtype=newlines.dtype)).tolist()
        if not self.rank_words:
            last = -1
            for at, line in zip(occurrences, lines, strict=True):
                if line != last:
                    whole.append((file, line, at, at + size))
                    last = line
            return
        is_whole = self._is_whole_word
        last, pending = -1, False  # pending: the last line's record is a substring one, a whole word may follow
        for at, line in zip(occurrences, lines, strict=True):
            if line == last and not pending:
                continue
            if line != last:
                last = line
                if is_whole(at, at + size):
                    whole.append((file, line, at, at + size))
                    pending = False
                else:
                    partial.append((file, line, at, at + size))
                    pending = True
            elif is_whole(at, at + size):
                partial.pop()
                whole.append((file, line, at, at + size))
                pending = False

    def match_all(self, matcher: re2._Regexp, search: Search, guide: _Guide | None, stop: Callable[[], bool]) -> bool:
        """Every line RE2 matches; an empty match after the final newline is on no line (ripgrep agrees).

        RE2 runs over one slice of whole lines at a time (a match never spans lines), and `stop` is
        asked once the scan has moved on a slice since it last asked; returns False when it said stop
        before the file was done. The loop runs once per matching line (thousands for a many-hit
        regex), so the guide's search and the line lookup are inlined here.
        """
        data = self.data
        size = len(data)
        phantom = size if data.endswith(b"\n") else -1
        newlines = self.newlines.data
        count = len(newlines)
        file, rank_words, is_whole = self.file, self.rank_words, self._is_whole_word
        whole, partial = self.whole, self.partial
        literal, lowered = (guide.literal, guide.lowered) if guide is not None else (None, b"")
        pos = asked = 0  # asked: where the scan was when `stop` was last asked
        while data:
            if literal is not None:  # skip to the start of the next line holding the guide's literal
                found = literal.find(lowered, pos)
                if found == -1:
                    return True
                pos = lowered.rfind(b"\n", pos, found) + 1 or pos
            cut = data.find(b"\n", pos + SCAN_SLICE) if size - pos > SCAN_SLICE else -1
            window = size if cut == -1 else cut
            span = search(data, pos, window)
            if span is None:
                if window >= size:
                    return True
                if stop():
                    return False
                pos = asked = window + 1
                continue
            start, end = span
            if start == phantom:
                return True
            line = bisect_left(newlines, start)
            line_end = newlines[line] if line < count else size
            if rank_words and not is_whole(start, end):
                better = _first_whole_word(matcher, data, end, line_end, is_whole)
                if better is not None:
                    start, end = better.span()
                (whole if better is not None else partial).append((file, line, start, end))
            else:
                whole.append((file, line, start, end))
            if line_end >= size:
                return True
            pos = line_end + 1
            if pos - asked > SCAN_SLICE:
                if stop():
                    return False
                asked = pos
        return True

    def _is_whole_word(self, start: int, end: int) -> bool:
        # Bytes >= 0x80 belong to non-ASCII characters, which in identifiers are letters.
        data = self.data
        before = start > 0 and (data[start - 1] in WORD_BYTES or data[start - 1] >= 0x80)
        after = end < len(data) and (data[end] in WORD_BYTES or data[end] >= 0x80)
        return not before and not after


# Span of a match, or None: the matcher's search over data[pos:endpos], looking at the text around it.
Search = Callable[[bytes, int, int], tuple[int, int] | None]


def searcher(matcher: re2._Regexp, anchored: bool = False) -> Search:
    """The first match's span in a window, by google-re2's compiled RE2 when it exposes it; with
    `anchored`, only a match that starts where the window does.

    Its public `search` wraps every call in a generator and a Match object, which is most of the
    cost of a search over one short window; a regex with a thousand matching lines pays it a
    thousand times. Falls back to `search` (`match`) where the binding's internals are not as expected.
    An anchored search is one pass of RE2's DFA; an unanchored one that matches also runs a reverse pass
    over the match to find where it starts (measured: half the time over a long match).
    """
    compiled = getattr(matcher, "_regexp", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "ANCHOR_START" if anchored else "UNANCHORED", None)
    match = getattr(compiled, "Match", None)
    if match is None or anchor is None:
        public = matcher.match if anchored else matcher.search
        return lambda data, pos, endpos: (found.span() if (found := public(data, pos, endpos)) else None)

    def search(data: bytes, pos: int, endpos: int) -> tuple[int, int] | None:
        span = match(anchor, data, pos, endpos)[0]
        return None if span[0] == -1 else (span[0], span[1])

    return search


def _first_whole_word(
    matcher: re2._Regexp, data: bytes, start: int, line_end: int, is_whole: Callable[[int, int], bool]
) -> re2._Match | None:
    for candidate in matcher.finditer(data, start, line_end):
        if is_whole(candidate.start(), candidate.end()):
            return candidate
    return None


def _snippet(text: str, start_col: int) -> str:
    stripped = text.strip()
    if len(stripped) <= SNIPPET_MAX:
        return stripped
    indent = len(text) - len(text.lstrip())
    begin = max(indent, start_col - SNIPPET_LEAD)
    return text[begin : begin + SNIPPET_MAX].strip()
