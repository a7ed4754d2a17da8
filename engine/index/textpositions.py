"""Where every trigram of the stored files' text lies: exact matching lines without scanning the files.

Pruning whole files with the trigram index (`trigram`) cannot make a common literal fast: `import` is in
2,451 of Django's 5,408 files, 23 of its 32 MiB, and scanning those is most of scanning everything. This
index keeps the positions instead (Zoekt's design): the text of the files as they were saved, one blob,
and for each trigram of its ASCII-lowercased bytes the sorted positions where it starts. A literal's
occurrences are the positions of its rarest trigram shifted back by that trigram's offset in the
literal, each confirmed against the blob's bytes, so the work grows with the matches, not the text.

What it holds (flat arrays, memory-mapped in place by a restart, written streamed, `write_positions`):
  - `blob`: each file's scan-ready bytes (`SearchText.data`: UTF-8, CRLF folded to LF), each followed by
    one `\\n`, so no literal without a newline matches across two files and `^`, `$`, `\\b` see a line
    break at a file's end as they see the end of the file's own text;
  - `starts` (a file's first byte; one more entry, the blob's end), `first_lines` (how many `\\n` of the
    blob lie before a file: a global line number minus it is the line in the file), `newlines` (every `\\n`
    of the blob), `flags` (ascii, plain_case), `paths` and `digests` (what each file was at the build);
  - per block of files (`BLOCK_BYTES`), an independent CSR: sorted unique trigram codes, offsets into
    the positions, and the positions (global, uint32: the blob is capped at `MAX_BLOB`).
A file is served from it only while its digest is the one stored and no unsaved buffer covers it;
everything else (new, edited, or a query it cannot answer) goes through the scanner (`textsearch`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache, partial
from pathlib import Path

import numpy as np
import re2

from . import regexplan
from .mapped import ArrayWriter
from .textsearch import (
    COMPILED_KEPT,
    REGEX_MAX_MEM,
    WORD_BYTES,
    FoundFiles,
    FoundRecords,
    LineRecords,
    Search,
    SearchText,
    TextQuery,
    compile_query,
    plain_needle,
    searcher,
)

__all__ = ["MAX_BLOB", "DamagedPositions", "Served", "TextPositions", "write_positions"]

# Files are indexed in blocks of about this much text: the build's transient arrays (codes, positions,
# the sort's permutations: ~25 bytes a byte of text) stay around 100 MB whatever the repository's size,
# and each block's sort is of a few million keys; a lookup pays ~30 us a block (Django: eight).
BLOCK_BYTES = 4 << 20
# Positions are uint32: text past this many bytes (4 GiB) is left to the scanner.
MAX_BLOB = (1 << 32) - 1
# Candidates of a literal are checked a byte offset at a time for this many offsets, then all the others at once.
FILTER_STEPS = 2
# A regex's candidate lines are narrowed by another of its literals only when that literal has at most this
# many candidates per line left: confirming one and finding its line costs about what RE2 spends on a line
# (gathered with the others and matched in one pass), so a more common literal costs more than it can save.
INTERSECT_RATIO = 1.0
# After a candidate line that does not match, the next this many are tried where they start (one forward pass
# of RE2's DFA each) before RE2 looks for the next run wherever it starts, which costs a second, reverse pass
# over the run: `def test_\w+\(self`'s few misses among 15,877 lines had sent nearly every run through both.
ANCHORED_MISSES = 4
# Trigrams never worth looking up, left out of the postings: three spaces (17% of Django's positions;
# indentation, the worst anchor there is) and any with a newline (a literal with one is left to RE2).
_SPACES = 0x202020
_NEWLINE = ord("\n")
_ASCII = 1  # flags: the file's text is ASCII
_PLAIN_CASE = 2  # ... it holds no character RE2 folds to an ASCII letter (`SearchText.plain_case`)
# ASCII lowercasing as a byte table, for confirming occurrences in bulk (what `bytes.lower` does).
LOWER = np.arange(256, dtype=np.uint8)
LOWER[ord("A") : ord("Z") + 1] += 32
# Bytes that continue an identifier, as `textsearch` judges a whole-word match (>= 0x80: part of a letter).
WORD = np.zeros(256, dtype=bool)
WORD[list(WORD_BYTES)] = True
WORD[0x80:] = True
_EMPTY = np.zeros(0, dtype=np.int64)
_NO_RECORDS = LineRecords(np.zeros((0, 4), dtype=np.int64))
# A record as `match_text` keeps it: file number among the files it took, 0-based line, byte span.
_Record = tuple[int, int, int, int]


class DamagedPositions(ValueError):
    """Stored arrays that do not fit together (the index is built again)."""


def _trusted() -> bool:
    """What a file this process has just written needs instead of a check: it hashed those very bytes."""
    return True


@dataclass(frozen=True)
class _Block:
    codes: np.ndarray  # sorted unique trigram codes (uint32)
    offsets: np.ndarray  # positions of codes[i] are positions[offsets[i]:offsets[i + 1]] (int64)
    positions: np.ndarray  # global blob offsets, ascending within a code (uint32)


@dataclass(frozen=True)
class _Anchors:
    """Where a needle may start, block by block: its rarest trigram's positions less that trigram's offset
    in it (with the offset), before they are confirmed against the blob."""

    needle: np.ndarray  # uint8
    per_block: tuple[tuple[np.ndarray, int], ...]
    case_sensitive: bool

    @property
    def count(self) -> int:
        return sum(candidates.size for candidates, _ in self.per_block)


@dataclass(frozen=True)
class TextPositions:
    """The positional index of one set of files as they were saved (see the module's docstring)."""

    blob: np.ndarray  # uint8
    starts: np.ndarray  # int64, one per file and the blob's end
    first_lines: np.ndarray  # int64, one per file
    newlines: np.ndarray  # uint32
    flags: np.ndarray  # uint8, one per file
    paths: tuple[str, ...]
    digests: tuple[str, ...]
    blocks: tuple[_Block, ...]
    # Whether the stored bytes are the ones written (`mapped.verify`), asked once, by the first search that
    # reads them: hashing reads every page of the file (4.8x the text), which a restart need not wait for.
    verify: Callable[[], bool] = field(default=_trusted, compare=False, repr=False)

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], verify: Callable[[], bool] | None = None) -> TextPositions:
        """The index `arrays` describe, its bytes checked by `verify` when first searched (None: trusted,
        the file just written); raises DamagedPositions when the arrays do not fit together."""
        try:
            blob, starts, first_lines, newlines, flags = (
                arrays[name] for name in ("blob", "starts", "first_lines", "newlines", "flags"))
            paths, digests = _split(arrays["paths"]), _split(arrays["digests"])
            count = sum(1 for name in arrays if name.startswith("codes."))
            blocks = tuple(_Block(arrays[f"codes.{n}"], arrays[f"offsets.{n}"], arrays[f"positions.{n}"])
                           for n in range(count))
        except (KeyError, UnicodeError) as error:
            raise DamagedPositions(f"stored text positions do not decode: {error}") from None
        files = len(paths)
        if not (blob.dtype == np.uint8 and starts.dtype == np.int64 and first_lines.dtype == np.int64
                and newlines.dtype == np.uint32 and flags.dtype == np.uint8 and len(digests) == files
                and starts.shape == (files + 1,) and first_lines.shape == flags.shape == (files,)
                and int(starts[0]) == 0 and int(starts[-1]) == blob.size
                and all(_fits(block) for block in blocks)):
            raise DamagedPositions("stored text positions do not fit together")
        return cls(blob, starts, first_lines, newlines, flags, paths, digests, blocks, verify or _trusted)

    @cached_property
    def sound(self) -> bool:
        """Whether searches may read it (`verify`, asked once)."""
        return self.verify()

    @cached_property
    def numbers(self) -> dict[str, int]:
        """Each stored path's file number."""
        return {path: number for number, path in enumerate(self.paths)}

    @cached_property
    def text(self) -> memoryview:
        """The blob as a buffer RE2 reads and slices are cut from (a view of the mapping, not a copy)."""
        return self.blob.data.cast("B")

    def file_view(self, number: int) -> memoryview:
        """The scan-ready bytes of stored file `number` (its text without the separator), in place."""
        return self.text[int(self.starts[number]) : int(self.starts[number + 1]) - 1]

    def file_bytes(self, number: int) -> bytes:
        return bytes(self.file_view(number))

    @cached_property
    def sizes(self) -> list[int]:
        """Each file's size in bytes (without its separator)."""
        return (np.diff(self.starts) - 1).tolist()

    @cached_property
    def ascii(self) -> list[bool]:
        """Whether each file's text is ASCII."""
        return (self.flags & _ASCII).astype(bool).tolist()

    @cached_property
    def folded_apart(self) -> frozenset[str]:
        """The stored files that are not `plain_case`: a query that folds case scans them."""
        plain = (self.flags & _PLAIN_CASE).astype(bool).tolist()
        return frozenset(path for path, kept in zip(self.paths, plain, strict=True) if not kept)

    def served(self, query: TextQuery, current: frozenset[str]) -> Served | None:
        """What this index answers of `query` in the `current` files (stored as they are now, no buffer
        over them); None when it answers nothing of it, or its bytes are not the ones written (every file is
        scanned then)."""
        if not self.sound:
            return None
        if query.kind == "regex":
            lines = self._regex_lines(query)
            return None if lines is None else Served(self, current, True, _RegexLines(self, query, lines))
        needle = plain_needle(query)
        if needle is None:
            return None
        found = self.occurrences(needle, query.case_sensitive)
        if found is None:
            return None
        return Served(self, current, not query.case_sensitive,
                      _LiteralLines(self, found, len(needle), query.kind == "identifier"))

    def _regex_lines(self, query: TextQuery) -> np.ndarray | None:
        """The global lines that hold every literal of one of the regex's plan clauses, ascending.

        The plan is taken case-insensitively (as `textsearch`'s guide is), so it holds whatever flags the
        pattern sets inside, in `plain_case` files; a clause with a literal this index cannot look up (not
        ASCII, or only spaces and newlines) makes the whole query a scan.
        """
        plan = regexplan.plan(query.pattern, True)
        if plan is None:
            return None
        clauses = []
        for clause in plan:
            if not all(literal.isascii() for literal in clause):
                return None
            anchored = [self._anchors(literal.encode("ascii")) for literal in clause]
            if any(found is None for found in anchored):
                return None
            clauses.append(self._lines_holding([found for found in anchored if found is not None]))
        return np.unique(np.concatenate(clauses)) if len(clauses) > 1 else clauses[0]

    def _lines_holding(self, anchored: list[_Anchors]) -> np.ndarray:
        """The global lines (ascending) that hold the rarest literal and each other one that is worth
        looking up: one whose candidates are at most INTERSECT_RATIO times the lines left (confirming a
        literal costs per candidate about what RE2 costs per line it might remove; `(self` beside `def
        test_` removes almost none). The others are left to RE2, which checks the whole pattern anyway."""
        anchored = sorted(anchored, key=lambda found: found.count)
        lines = _distinct(self.lines_of(self._confirmed_all(anchored[0])))
        for found in anchored[1:]:
            if lines.size == 0 or found.count > INTERSECT_RATIO * lines.size:
                break
            begins, ends = self.line_bounds(lines)
            occurrences = self._confirmed_all(found)
            at = np.searchsorted(begins, occurrences, side="right") - 1
            inside = (at >= 0) & (occurrences < ends[np.maximum(at, 0)])  # a literal holds no newline
            holding = np.zeros(lines.size, dtype=bool)
            holding[at[inside]] = True
            lines = lines[holding]
        return lines

    def line_bounds(self, lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where each global line starts in the blob and where its `\\n` is (int64)."""
        begins = np.where(lines > 0, self.newlines[np.maximum(lines - 1, 0)].astype(np.int64) + 1, 0)
        return begins, self.newlines[lines].astype(np.int64)

    def occurrences(self, needle: bytes, case_sensitive: bool) -> np.ndarray | None:
        """Every position (int64, ascending) where `needle` starts in the blob, exactly when
        `case_sensitive`, else in the ASCII-lowercased blob (`needle` given lowercased); None when no
        trigram of it is in the postings (shorter than 3 bytes, or only spaces and newlines).

        Occurrences may overlap (`aaa` in `aaaa` starts twice); the caller keeps what it needs.
        """
        anchors = self._anchors(needle, case_sensitive)
        return None if anchors is None else self._confirmed_all(anchors)

    def _anchors(self, needle: bytes, case_sensitive: bool = False) -> _Anchors | None:
        """Where `needle` may start in each block, not yet confirmed (see `occurrences`)."""
        wanted = np.frombuffer(needle, dtype=np.uint8)
        folded = LOWER[wanted]
        if wanted.size < 3:
            return None
        codes = folded[:-2].astype(np.uint32) << 16 | folded[1:-1].astype(np.uint32) << 8 | folded[2:]
        usable = np.flatnonzero((codes != _SPACES) & ~(wanted == _NEWLINE)[:-2]
                                & ~(wanted == _NEWLINE)[1:-1] & ~(wanted == _NEWLINE)[2:])
        if usable.size == 0:
            return None
        codes, shifts = codes[usable], usable
        return _Anchors(wanted, tuple(self._anchored(block, codes, shifts) for block in self.blocks), case_sensitive)

    def _confirmed_all(self, anchors: _Anchors) -> np.ndarray:
        found = [self._confirmed(candidates, shift, anchors.needle, anchors.case_sensitive)
                 for candidates, shift in anchors.per_block]
        return np.concatenate(found) if found else _EMPTY

    def _anchored(self, block: _Block, codes: np.ndarray, shifts: np.ndarray) -> tuple[np.ndarray, int]:
        """Where the needle may start in one block: its rarest trigram's positions less its offset (the
        offset too, whose three bytes are known to match up to case)."""
        at = np.searchsorted(block.codes, codes)
        if (at >= block.codes.size).any() or (block.codes[np.minimum(at, block.codes.size - 1)] != codes).any():
            return _EMPTY, 0  # a trigram of the needle is nowhere in the block
        counts = block.offsets[at + 1] - block.offsets[at]
        rarest = int(np.argmin(counts))
        start, shift = int(block.offsets[at[rarest]]), int(shifts[rarest])
        return block.positions[start : start + int(counts[rarest])].astype(np.int64) - shift, shift

    def _confirmed(self, candidates: np.ndarray, shift: int, wanted: np.ndarray, case_sensitive: bool) -> np.ndarray:
        """The candidates where the blob holds the needle: a byte offset at a time over the survivors for the
        first FILTER_STEPS offsets (most wrong candidates fall at the first), then the rest as one row each
        (comparing every candidate's whole row at once had cost 4x more; a step per offset, numpy's fixed
        cost per step on a long identifier's dozens of offsets)."""
        candidates = candidates[(candidates >= 0) & (candidates + wanted.size <= self.blob.size)]
        known = range(shift, shift + 3) if not case_sensitive else range(0)
        offsets = np.asarray([at for at in range(wanted.size) if at not in known], dtype=np.int64)
        blob = self.blob
        for offset in offsets[:FILTER_STEPS].tolist():
            if candidates.size == 0:
                return candidates
            seen = blob[candidates + offset]
            candidates = candidates[(seen if case_sensitive else LOWER[seen]) == wanted[offset]]
        rest = offsets[FILTER_STEPS:]
        if rest.size == 0 or candidates.size == 0:
            return candidates
        seen = blob[candidates[:, None] + rest]
        return candidates[((seen if case_sensitive else LOWER[seen]) == wanted[rest]).all(axis=1)]

    def files_of(self, positions: np.ndarray) -> np.ndarray:
        """The file number of each blob position."""
        return np.searchsorted(self.starts, positions, side="right") - 1

    def lines_of(self, positions: np.ndarray) -> np.ndarray:
        """The global line number of each blob position (how many `\\n` lie before it). The positions are
        cast to the newlines' uint32 first: searching int64 ones made numpy copy all the newlines, every time."""
        return np.searchsorted(self.newlines, positions.astype(np.uint32))


def write_positions(path: Path, files: Iterable[tuple[str, str, SearchText]]) -> bytes:
    """Write the index of `files` (path, digest, scan-ready text, in path order) to `path` and return the
    entry naming it (`mapped`). It streams: the texts go to the file one by one as the blob, then each
    block is read back from it, its postings sorted and written, so it holds one block's work at a time
    (~25 bytes per byte of BLOCK_BYTES), never the blob or all postings, whatever the repository's size."""
    paths: list[str] = []
    digests: list[str] = []
    flags: list[int] = []
    lengths: list[int] = []
    size = 0
    with ArrayWriter(path) as writer:
        writer.begin("blob", np.uint8)
        for name, digest, text in files:
            if size + len(text.data) + 1 > MAX_BLOB:
                break
            writer.extend(text.data)
            writer.extend(b"\n")
            paths.append(name)
            digests.append(digest)
            flags.append((_ASCII if text.ascii else 0) | (_PLAIN_CASE if text.plain_case else 0))
            lengths.append(len(text.data) + 1)
            size += lengths[-1]
        writer.end()
        starts = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64)
        newlines = [_EMPTY.astype(np.uint32)]
        for number, (first, last) in enumerate(_block_bounds(lengths)):
            start = int(starts[first])
            part = np.frombuffer(writer.read_back("blob", start, int(starts[last])), dtype=np.uint8)
            newlines.append((np.flatnonzero(part == _NEWLINE) + start).astype(np.uint32))
            block = _block(part, start)
            writer.add(f"codes.{number}", block.codes)
            writer.add(f"offsets.{number}", block.offsets)
            writer.add(f"positions.{number}", block.positions)
        every = np.concatenate(newlines)
        first_lines = np.searchsorted(every, starts[:-1]).astype(np.int64)
        named: dict[str, np.ndarray] = {"starts": starts, "first_lines": first_lines, "newlines": every,
                                        "flags": np.asarray(flags, dtype=np.uint8), "paths": _joined(paths),
                                        "digests": _joined(digests)}
        for name, array in named.items():
            writer.add(name, array)
        return writer.commit()


class _LiteralLines:
    """A literal's records, made at once for every file from its occurrences (`match_text`'s rules: one
    record per line, its first occurrence; for an identifier the line's first whole-word one if any,
    which is then a whole-word record, else a substring record)."""

    def __init__(self, positions: TextPositions, found: np.ndarray, size: int, rank_words: bool) -> None:
        lines = positions.lines_of(found)
        first = _firsts(lines)
        if rank_words:
            blob = positions.blob
            whole = ~WORD[blob[found + size]] & ~(WORD[blob[np.maximum(found - 1, 0)]] & (found > 0))
            words, word_lines = found[whole], lines[whole]
            word_first = _firsts(word_lines)
            words, word_lines = words[word_first], word_lines[word_first]
            others, other_lines = found[first], lines[first]
            keep = ~_member(other_lines, word_lines)
            self.whole = _Records(positions, words, word_lines, size)
            self.partial = _Records(positions, others[keep], other_lines[keep], size)
        else:
            self.whole = _Records(positions, found[first], lines[first], size)
            self.partial = _Records(positions, _EMPTY, _EMPTY, size)
        self.files = np.union1d(self.whole.files, self.partial.files).tolist()

    def __call__(self, numbers: np.ndarray, base: int, stop: Callable[[], bool]) -> FoundRecords:
        whole, whole_ends = self.whole.of(numbers, base)
        partial, partial_ends = self.partial.of(numbers, base)
        return FoundRecords(whole, partial, whole_ends, partial_ends, numbers.size)


class _Records:
    """Records of one kind (file, line in the file, start, end), in file order."""

    def __init__(self, positions: TextPositions, found: np.ndarray, lines: np.ndarray, size: int) -> None:
        self.file_of = positions.files_of(found)
        self.files = _distinct(self.file_of)
        self.starts = found - positions.starts[self.file_of]
        self.lines = lines - positions.first_lines[self.file_of]
        self.size = size

    def of(self, numbers: np.ndarray, base: int) -> tuple[LineRecords, list[int]]:
        """The records of the files `numbers` (ascending), numbered from `base` in that order, and how many
        the files up to each one hold."""
        low, high = np.searchsorted(self.file_of, [numbers[0], numbers[-1] + 1])
        file_of = self.file_of[low:high]
        local = np.minimum(np.searchsorted(numbers, file_of), numbers.size - 1)
        kept = numbers[local] == file_of  # files between the run's that it does not serve are not its own
        local = local[kept]
        starts = self.starts[low:high][kept]
        made = LineRecords.columns(local + base, self.lines[low:high][kept], starts, starts + self.size)
        return made, np.searchsorted(local, np.arange(numbers.size), side="right").tolist()


class _RegexLines:
    """A regex's records: RE2 over the candidate lines of the files, when the scan reaches them.

    RE2 reads each file's own bytes (a view of the blob, not the blob), searching from a line's start to
    its end, so `^`, `$`, `\\A`, `\\z` and `\\b` see what they see when the file is scanned; a match
    never spans lines (`never_nl`), so the line's first match is the one the scan records.

    A `regexplan.line_local` pattern goes faster: its candidate lines are put one after another and a
    second pattern (`_runs`) matches a whole run of consecutive matching lines at a time, so RE2 is called
    once per run instead of once per line (Django's `def test_\\w+\\(self`: 15,877 lines, a few hundred runs;
    a call costs 1-3 us). Its records give the line's start with end -1: the match's span is found only
    when the line becomes a Hit (`textsearch._hit`).
    """

    def __init__(self, positions: TextPositions, query: TextQuery, lines: np.ndarray) -> None:
        self.positions = positions
        self.search = searcher(compile_query(query, 0))
        self.runs = _runs(query) if regexplan.line_local(query.pattern) else None
        self.global_begins, self.global_ends = positions.line_bounds(lines)
        self.file_of = positions.files_of(self.global_begins)  # ascending, as the lines are
        self.files = _distinct(self.file_of).tolist()
        self.local_lines = lines - positions.first_lines[self.file_of]
        self._matched: np.ndarray | None = None

    @cached_property
    def _per_line(self) -> tuple[dict[int, tuple[int, int]], list[int], list[int], list[int]]:
        """For RE2 line by line: each file's run of candidates, and their lines, starts and ends in the file."""
        heads = np.flatnonzero(_firsts(self.file_of))
        ends = np.append(heads, self.file_of.size)[1:]
        bounds = dict(zip(self.file_of[heads].tolist(), zip(heads.tolist(), ends.tolist(), strict=True),
                          strict=True))
        base = self.positions.starts[self.file_of]
        return (bounds, self.local_lines.tolist(), (self.global_begins - base).tolist(),
                (self.global_ends - base).tolist())

    def __call__(self, numbers: np.ndarray, base: int, stop: Callable[[], bool]) -> FoundRecords:
        if self.runs is not None:
            return self._by_runs(self.runs, numbers, base)
        return self._by_lines(numbers, base, stop)

    def _by_lines(self, numbers: np.ndarray, base: int, stop: Callable[[], bool]) -> FoundRecords:
        """RE2 over the files' candidate lines, asking `stop` before each file but the first (the scan's
        loop has asked before it)."""
        records: list[_Record] = []
        ends: list[int] = []
        search = self.search
        bounds, lines, begins, line_ends = self._per_line
        for at, file in enumerate(numbers.tolist()):
            if at and stop():
                return FoundRecords(LineRecords.of(records), _NO_RECORDS, ends, [0] * len(ends), at)
            low, high = bounds.get(file, (0, 0))
            view, number = self.positions.file_view(file), base + at
            for line, begin, end in zip(lines[low:high], begins[low:high], line_ends[low:high], strict=True):
                span = search(view, begin, end)  # type: ignore[arg-type]
                if span is not None:
                    records.append((number, line, span[0], span[1]))
            ends.append(len(records))
        return FoundRecords(LineRecords.of(records), _NO_RECORDS, ends, [0] * len(ends), numbers.size)

    def _by_runs(self, runs: _Runs, numbers: np.ndarray, base: int) -> FoundRecords:
        """The records of the files' candidate lines that `_matching` says match."""
        low, high = np.searchsorted(self.file_of, [numbers[0], numbers[-1] + 1])
        file_of = self.file_of[low:high]
        local = np.minimum(np.searchsorted(numbers, file_of), numbers.size - 1)
        kept = np.flatnonzero(numbers[local] == file_of) + low  # candidates of the run's own files
        kept = kept[self._matching(runs)[kept]]
        local = np.searchsorted(numbers, self.file_of[kept])
        records = LineRecords.columns(local + base, self.local_lines[kept], self._begins_local(kept),
                                      np.full(kept.size, -1))
        counts = np.searchsorted(local, np.arange(numbers.size), side="right").tolist()
        return FoundRecords(records, _NO_RECORDS, counts, [0] * numbers.size, numbers.size)

    def _matching(self, runs: _Runs) -> np.ndarray:
        """Whether each candidate line matches: all of them, each with its `\\n`, one after another, and
        `runs` over them, every line inside a run it matches a matching line. Made once for all the runs
        of files a search takes (a file scanned between two splits them), without asking the time budget:
        this costs about what finding the candidates did."""
        if self._matched is not None:
            return self._matched
        begins, ends = self.global_begins, self.global_ends
        sizes = ends - begins + 1
        heads = np.concatenate([[0], np.cumsum(sizes)])
        # Each candidate's bytes: where it lies less where it goes (never negative: the candidates are apart
        # and in order), repeated over its bytes, plus the place in the text; uint32, half int64's traffic.
        where = np.repeat((begins - heads[:-1]).astype(np.uint32), sizes)
        where += np.arange(int(heads[-1]), dtype=np.uint32)
        text = np.take(self.positions.blob, where).tobytes()
        matched = np.zeros(begins.size, dtype=bool)
        starts = heads.tolist()
        line, size, missed = 0, len(text), 0
        while line < begins.size:  # a run ends where a line without a match starts (or the text ends)
            pos = starts[line]
            if missed < ANCHORED_MISSES:
                span = runs.starting(text, pos, size)
                if span is None:  # this line does not match: try the next one where it starts
                    line, missed = line + 1, missed + 1
                    continue
            else:
                span = runs.anywhere(text, pos, size)
                if span is None:
                    break
            first, line = np.searchsorted(heads, span).tolist()  # the lines of the run, and the one after it
            matched[first:line] = True
            missed = 0
        self._matched = matched
        return matched

    def _begins_local(self, kept: np.ndarray) -> np.ndarray:
        return self.global_begins[kept] - self.positions.starts[self.file_of[kept]]


@dataclass(frozen=True)
class _Runs:
    """A matcher of whole runs of consecutive lines that each hold a match of a (line-local) pattern,
    newline included: `starting` finds a run that starts where it is asked to (one forward pass of RE2's
    DFA), `anywhere` the next run wherever it starts (a second, reverse pass over the run)."""

    starting: Search
    anywhere: Search


@lru_cache(maxsize=COMPILED_KEPT)
def _runs(query: TextQuery) -> _Runs | None:
    """The query's `_Runs`; None when RE2 will not compile it (too large)."""
    options = re2.Options()
    options.log_errors = False
    options.never_capture = True
    options.max_mem = REGEX_MAX_MEM
    options.case_sensitive = query.case_sensitive
    try:
        matcher = re2.compile(f"(?m)(?:^[^\\n]*?(?:{query.pattern})[^\\n]*\\n)+".encode(), options)
    except re2.error:
        return None
    return _Runs(searcher(matcher, anchored=True), searcher(matcher))


class Served:
    """What the positional index answers of one query: the files it serves (`current` ones, `plain_case`
    too where the query folds case), and the lines of those with a match, as runs (`run`)."""

    def __init__(self, positions: TextPositions, current: frozenset[str], folds: bool,
                 lines: _LiteralLines | _RegexLines) -> None:
        self.positions, self.current, self.lines = positions, current, lines
        self.apart = positions.folded_apart if folds else frozenset()

    def serves(self, path: str) -> bool:
        return path in self.current and path not in self.apart

    def unserved(self, files: Mapping[str, object]) -> set[str]:
        """The paths of `files` it does not serve (`current` holds only paths of `files`)."""
        left = files.keys() - self.current if len(self.current) < len(files) else set()
        return left | {path for path in self.apart if path in files}

    def found(self) -> list[tuple[str, int]]:
        """The served files with a match, in path order: (path, file number)."""
        paths = self.positions.paths
        made = [(paths[number], number) for number in self.lines.files if self.serves(paths[number])]
        made.sort()
        return made

    def run(self, files: Sequence[tuple[str, int]]) -> FoundFiles:
        """The lines of some of `found`'s files, consecutive in path order, for `match_text`."""
        positions, lines = self.positions, self.lines
        numbers = np.fromiter((number for _, number in files), dtype=np.int64, count=len(files))
        sizes, ascii = positions.sizes, positions.ascii
        return FoundFiles([path for path, _ in files], [sizes[number] for _, number in files],
                          [ascii[number] for _, number in files],
                          partial(_file_bytes, positions, numbers), partial(lines, numbers),
                          lines.search if isinstance(lines, _RegexLines) and lines.runs is not None else None)


def _file_bytes(positions: TextPositions, numbers: np.ndarray, at: int) -> bytes:
    return positions.file_bytes(int(numbers[at]))


def _firsts(lines: np.ndarray) -> np.ndarray:
    """Where each run of equal (sorted) values starts, as a mask."""
    return np.r_[True, lines[1:] != lines[:-1]] if lines.size else np.zeros(0, dtype=bool)


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of a sorted array (np.unique sorts again, and hashes: 10x slower here)."""
    return values[_firsts(values)]


def _member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Whether each value is in a sorted array, by binary search (np.isin sorts both again)."""
    if sorted_set.size == 0:
        return np.zeros(values.size, dtype=bool)
    at = np.minimum(np.searchsorted(sorted_set, values), sorted_set.size - 1)
    return sorted_set[at] == values


def _intersected(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """The values in both sorted distinct arrays: the smaller one looked up in the larger."""
    small, large = (left, right) if left.size <= right.size else (right, left)
    return small[_member(small, large)]


def _block_bounds(lengths: Sequence[int]) -> list[tuple[int, int]]:
    """(first, last) file numbers of each block: whole files, about BLOCK_BYTES of text each."""
    bounds = []
    first, held = 0, 0
    for number, length in enumerate(lengths):
        held += length
        if held >= BLOCK_BYTES:
            bounds.append((first, number + 1))
            first, held = number + 1, 0
    if first < len(lengths):
        bounds.append((first, len(lengths)))
    return bounds


def _block(text: np.ndarray, start: int) -> _Block:
    """The CSR postings of the trigrams starting in `text` (the blob's bytes from `start`), lowercased,
    positions ascending per code.

    Sorted by two stable radix passes (the low 16 bits, then the high 8) rather than one sort of the
    24-bit codes: numpy sorts 8- and 16-bit keys by counting. Each pass carries the codes and positions
    themselves (uint32) rather than composing index permutations and gathering the text's bytes again
    (30 % less time on Django's blocks). What it holds at once is ~20 bytes per byte of the block.
    """
    part = LOWER[text]
    if part.size < 3:
        return _Block(np.zeros(0, np.uint32), np.zeros(1, np.int64), np.zeros(0, np.uint32))
    code = part[:-2].astype(np.uint32)
    code <<= 8
    code |= part[1:-1]
    code <<= 8
    code |= part[2:]
    keep = (part[:-2] != _NEWLINE) & (part[1:-1] != _NEWLINE) & (part[2:] != _NEWLINE) & (code != _SPACES)
    where = np.flatnonzero(keep).astype(np.uint32)
    del keep
    codes = code[where]
    del code
    order = np.argsort(codes.astype(np.uint16), kind="stable")
    codes, where = codes[order], where[order]
    order = np.argsort((codes >> 16).astype(np.uint8), kind="stable")
    codes, where = codes[order], where[order]
    del order
    heads = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if codes.size else _EMPTY
    offsets = np.append(heads, codes.size).astype(np.int64)
    where += np.uint32(start)
    return _Block(codes[heads], offsets, where)


def _fits(block: _Block) -> bool:
    """Whether a block's arrays fit together (a position past the blob is never read: `_confirmed` bounds them)."""
    codes, offsets, positions = block.codes, block.offsets, block.positions
    return (codes.dtype == np.uint32 and offsets.dtype == np.int64 and positions.dtype == np.uint32
            and offsets.shape == (codes.size + 1,) and int(offsets[0]) == 0 and int(offsets[-1]) == positions.size
            and bool((offsets[1:] > offsets[:-1]).all()) and bool((codes[1:] > codes[:-1]).all()))


def _joined(names: Iterable[str]) -> np.ndarray:
    return np.frombuffer("\n".join(names).encode("utf-8", "surrogatepass"), dtype=np.uint8)


def _split(array: np.ndarray) -> tuple[str, ...]:
    text = array.tobytes().decode("utf-8", "surrogatepass")
    return tuple(text.split("\n")) if text else ()
