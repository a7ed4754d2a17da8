"""The text modality: literal search (trigram candidates confirmed by RE2) for a quoted string, an
identifier or a regex, and BM25 over chunks, re-ranked by what the question names, for a question."""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pathspec

from ..index.lexical import LexicalIndex
from ..index.snapshot import Snapshot
from ..index.textpositions import Served
from ..index.textsearch import FoundFiles, SearchText, TextMatches, TextQuery, candidate_plan, match_text
from ..model.profiles import LEXICAL_CANDIDATES
from ..model.records import Chunk, FileRecord, Hit, Symbol
from ..model.tokens import with_abbreviations
from ..query.parsedquery import ParsedQuery
from ..query.request import Ranking
from ..rank.ranking import boost_chunks, literal_ranked, with_generic
from .retriever import Retriever, chunk_hit
from .similar import seed_text

__all__ = ["LexicalCache", "LineMatches", "every_line", "literal_hits", "literal_matches", "make_text_retriever",
           "path_filter"]

# A grep-like listing (`every_line`): full hits for the first LINE_PAGE lines, as the text retriever's
# depth (profiles.RETRIEVER_DEPTH) gives a search; at most MAX_LINES lines in all, which bounds its
# memory (a record is a 4-tuple, about 100 bytes) when a short literal matches most lines of a large repository.
LINE_PAGE = 100
MAX_LINES = 100_000
# When the positional index serves all files of a search but this many, those are scanned whole, without the
# trigram lookup of which of them may match: a file without the text costs one byte search, less than the
# lookup's ~0.3-2 ms on Django (a fresh index leaves one file, with a KELVIN SIGN, to a case-folding scan).
FEW_UNSERVED = 16

# How the layer that owns the storage keeps BM25 between processes: `Opened` gives the stored index
# for a snapshot's chunks (None: build it), `Built` is told of every index built and says whether it
# stored it (then the stored copy, memory-mapped, is what serves).
Opened = Callable[[Snapshot, Sequence[Chunk]], LexicalIndex | None]
Built = Callable[[Snapshot, LexicalIndex], bool]


class LexicalCache:
    """BM25 over the chunks of the latest snapshot.

    Building BM25 over a large repository takes seconds, so after the first build a newer snapshot
    is indexed in a background thread while queries keep using the previous index (a question's
    answer may lag an edit by that long; literal searches never lag). Only the very first build
    happens on the caller's thread.

    `opened` and `built` let the caller keep an index on disk: a restart with unchanged rows opens the
    stored one instead of building it (the index package knows nothing of snapshots' storage). `elsewhere`
    says which newer snapshots the caller has built by another process, which it then `adopt`s: no build
    of those starts here.
    """

    def __init__(self, opened: Opened | None = None, built: Built | None = None,
                 elsewhere: Callable[[Snapshot], bool] | None = None) -> None:
        self._opened = opened
        self._built = built
        self._elsewhere = elsewhere
        self._lock = threading.Lock()
        self._generation = -1
        self._index: LexicalIndex | None = None
        self._chunks: Sequence[Chunk] = ()
        self._building: threading.Thread | None = None

    def get(self, snapshot: Snapshot) -> tuple[LexicalIndex, Sequence[Chunk]]:
        with self._lock:
            if self._index is None:
                self._build(snapshot)
            elif self._generation < snapshot.generation:
                self.warm(snapshot)
            assert self._index is not None
            return self._index, self._chunks

    def warm(self, snapshot: Snapshot) -> None:
        """Start building for `snapshot` in the background, unless a build is already running or the
        caller builds it elsewhere."""
        if self._building is not None and self._building.is_alive():
            return
        if self._index is not None and self._elsewhere is not None and self._elsewhere(snapshot):
            return
        self._building = threading.Thread(target=self._build_locked, args=(snapshot,), daemon=True,
                                          name="bm25-build")
        self._building.start()

    def adopt(self, snapshot: Snapshot) -> bool:
        """Serve the stored index of `snapshot`'s rows, when one fits (`opened`), building nothing; whether
        it did (a newer index already served is kept)."""
        if self._opened is None:
            return False
        chunks = snapshot.chunk_sequence
        index = self._opened(snapshot, chunks)
        if index is None:
            return False
        with self._lock:
            if snapshot.generation > self._generation:
                self._index, self._chunks, self._generation = index, chunks, snapshot.generation
        return True

    def ensure(self, snapshot: Snapshot) -> None:
        """Build now if nothing is built yet (so the first question does not spend its time budget on it)."""
        building = self._building
        if self._index is None and building is not None:
            building.join()
        with self._lock:
            if self._index is None:
                self._build(snapshot)

    def _index_for(self, snapshot: Snapshot, chunks: Sequence[Chunk]) -> LexicalIndex:
        index = self._opened(snapshot, chunks) if self._opened is not None else None
        if index is None:
            index = LexicalIndex.build(chunks)
            if self._built is not None and self._built(snapshot, index) and self._opened is not None:
                # The copy just stored, mapped: its arrays are pages of the file, not the heap (a server's
                # first question on Django grew its heap by 181 MiB when it kept the built one; 123 so).
                index = self._opened(snapshot, chunks) or index
        return index

    def _build_locked(self, snapshot: Snapshot) -> None:
        chunks = snapshot.chunk_sequence
        index = self._index_for(snapshot, chunks)
        with self._lock:
            if snapshot.generation > self._generation:
                self._index, self._chunks, self._generation = index, chunks, snapshot.generation

    def _build(self, snapshot: Snapshot) -> None:
        self._chunks = snapshot.chunk_sequence
        self._index = self._index_for(snapshot, self._chunks)
        self._generation = snapshot.generation


def make_text_retriever(lexical: LexicalCache) -> Retriever:
    """The text modality: literal search for a literal, ranked BM25 for a question."""

    def text(snapshot: Snapshot, query: ParsedQuery, features: Ranking, depth: int) -> list[Hit]:
        seed = query.classification.seed
        if seed is not None:
            index, chunks = lexical.get(snapshot)
            found = index.search(seed_text(seed), depth)
            return [chunk_hit(chunks[position], score) for position, score in found]
        if query.literal_error is not None:
            raise query.literal_error
        if query.literal is not None:
            return literal_ranked(snapshot, query, features, literal_hits(snapshot, query.literal, depth), depth)
        index, chunks = lexical.get(snapshot)
        return _question_hits(index, chunks, query, features, depth)

    return text


def _question_hits(
    index: LexicalIndex, chunks: Sequence[Chunk], query: ParsedQuery, features: Ranking, depth: int
) -> list[Hit]:
    """BM25 candidates re-ranked by what the question names.

    The list stays one entry per chunk: where a file's chunks sit in it is evidence that fusion
    uses (measured: collapsing it to one entry per file before fusion cost 0.06 NDCG@10 on semble).
    """
    tokens = with_abbreviations(query.tokens) if features.abbreviations else list(query.tokens)
    found = index.search_tokens(tokens, max(depth, LEXICAL_CANDIDATES))
    scored = [(chunks[position], score) for position, score in found]
    names = None
    if features.definitions:
        names = with_generic(query.stated,
                            lambda name: [chunks[p].path for p in index.definitions.get(name, ())])
    extra = [chunks[p] for name in (names.all if names else ()) for p in index.definitions.get(name, ())
             if names is not None and names.names_definition(name, chunks[p].path)]
    ranked = boost_chunks(scored, query, features, extra, names)
    return [chunk_hit(chunk, score) for chunk, score in ranked[:depth]]


def literal_hits(snapshot: Snapshot, query: TextQuery, limit: int) -> list[Hit]:
    """Trigram candidates confirmed by the real matcher (RE2 for regexes), each with its enclosing definition."""
    return _with_symbols(snapshot, literal_matches(snapshot, query, limit).hits())


@dataclass(frozen=True)
class LineMatches:
    """Every line that matches a literal, identifier or regex search, as a grep-like client lists them.

    `page` holds full hits (columns, snippet, enclosing definition) for the first lines, the ones a
    client shows at once; `lines` is (path, 0-based line) of every matching line in the same order,
    made when first asked; `file_counts` and `in_file_order` count, sort and cap them from the records'
    arrays, so a client can count, group or page through tens of thousands of them without the engine
    building a Hit, or even a tuple, for each (issue 17). `reason` says why `truncated` holds, as in
    `TextResult`; `kind` is how the pattern was read (literal, identifier or regex). The listing
    keeps the snapshot it was found in, so `texts` reads the lines as they were matched even if a
    file changes meanwhile.
    """

    page: list[Hit]
    found: TextMatches = field(repr=False, compare=False)
    kind: str = ""
    snapshot: Snapshot | None = field(default=None, repr=False, compare=False)

    @property
    def truncated(self) -> bool:
        return self.found.truncated

    @property
    def reason(self) -> str:
        return self.found.reason

    @property
    def count(self) -> int:
        return len(self.found)

    @cached_property
    def lines(self) -> list[tuple[str, int]]:
        return self.found.lines()

    def file_counts(self) -> dict[str, int]:
        """How many matching lines each file with one has, in path order."""
        return self.found.file_counts()

    def in_file_order(self, per_file: int | None = None, limit: int | None = None) -> tuple[list[tuple[str, int]], int]:
        """See `TextMatches.in_file_order`."""
        return self.found.in_file_order(per_file, limit)

    def texts(self, lines: Sequence[tuple[str, int]]) -> list[str]:
        """The text of each (path, 0-based line), without its line break: only the lines a client prints
        pay for a decode, from the scan-ready bytes the search just read (cached per file version)."""
        if self.snapshot is None:
            raise ValueError("this listing keeps no snapshot to read its lines from")
        texts = []
        path: str | None = None
        text: SearchText | None = None
        for where, line in lines:
            if where != path:
                path, text = where, _searchable(self.snapshot, where)
            texts.append(text.line(line) if text is not None else "")
        return texts


    def definitions(self, lines: Sequence[tuple[str, int]]) -> list[str | None]:
        """The innermost definition around each (path, 0-based line), qualified (`Client.send`), or None
        at a file's top level: what a grep line is part of, one symbol lookup per file, not per line."""
        if self.snapshot is None:
            raise ValueError("this listing keeps no snapshot to read its definitions from")
        by_file: dict[str, list[int]] = {}
        for at, (path, _) in enumerate(lines):
            by_file.setdefault(path, []).append(at)
        found: list[str | None] = [None] * len(lines)
        for path, ats in by_file.items():
            around = self.snapshot.symbols.enclosing(path, [lines[at][1] for at in ats])
            for at, symbol in zip(ats, around, strict=True):
                found[at] = symbol.qualified if symbol is not None else None
        return found


def every_line(snapshot: Snapshot, query: TextQuery, page: int = LINE_PAGE, limit: int = MAX_LINES,
               allowed: Callable[[str], bool] | None = None) -> LineMatches:
    """Every matching line of `query` (up to `limit`) in the files `allowed` keeps, the first `page` as full hits."""
    found = literal_matches(snapshot, query, limit, allowed)
    return LineMatches(_with_symbols(snapshot, found.hits(page)), found, query.kind, snapshot)


def path_filter(snapshot: Snapshot, paths: Sequence[str] | None,
                languages: Sequence[str] | None) -> Callable[[str], bool] | None:
    """A search's `paths` globs (gitignore syntax, as rg's --glob) and `languages` ids as a test of one
    path, applied to the candidates before they are scanned; None when neither is given."""
    if not paths and not languages:
        return None
    spec = pathspec.GitIgnoreSpec.from_lines(paths) if paths else None
    wanted = set(languages or ())

    def allowed(path: str) -> bool:
        if spec is not None and not spec.match_file(path):
            return False
        record = snapshot.files.get(path)
        return not wanted or (record is not None and record.language in wanted)

    return allowed


def literal_matches(snapshot: Snapshot, query: TextQuery, limit: int,
                    allowed: Callable[[str], bool] | None = None) -> TextMatches:
    """The matching lines of the trigram candidates (those `allowed` keeps), as records (`TextMatches`)
    not yet turned into Hits."""
    served = snapshot.positions.served(query, snapshot.as_stored) if snapshot.positions is not None else None
    unserved = served.unserved(snapshot.files) if served is not None else None
    plan = candidate_plan(query) if unserved is None or len(unserved) > FEW_UNSERVED else None
    if unserved is not None and len(unserved) <= FEW_UNSERVED:
        paths = sorted(unserved)
    elif plan is None:
        paths = sorted(snapshot.files)
    else:
        ids = np.unique(np.concatenate([snapshot.trigrams.candidates(grams) for grams in plan]))
        paths = sorted(path for doc in ids.tolist() if (path := snapshot.paths_by_id.get(doc)) is not None)
    if allowed is not None:
        paths = [path for path in paths if allowed(path)]
    return match_text(query, _contents(snapshot, paths, served, allowed), limit=limit)


def _contents(snapshot: Snapshot, paths: Sequence[str], served: Served | None,
              allowed: Callable[[str], bool] | None) -> Iterator[tuple[str, SearchText | FoundFiles]]:
    """What the matcher takes, in path order: the text of each candidate to scan, and between them, as one
    run, the files the positional index serves that it found lines in (a served file without any has no
    match). Runs keep a many-hit search from paying per file: `import` is in 2,451 of Django's files."""
    scanned = [path for path in paths if served is None or not served.serves(path)]
    found = served.found() if served is not None else []
    if allowed is not None:
        found = [item for item in found if allowed(item[0])]
    taken = 0
    for path in scanned:
        upto = bisect_left(found, (path, -1), lo=taken)
        if upto > taken and served is not None:
            yield found[taken][0], served.run(found[taken:upto])
            taken = upto
        text = _searchable(snapshot, path)
        if text is not None:
            yield path, text
    if taken < len(found) and served is not None:
        yield found[taken][0], served.run(found[taken:])


def _searchable(snapshot: Snapshot, path: str) -> SearchText | None:
    """The scan-ready bytes of what the user sees in `path`: cached for indexed files, else read from the
    positional index when it holds this version (even once the file changed on disk, before it is indexed
    again; a restart caches nothing), fresh for buffers."""
    record = snapshot.files.get(path)
    if path not in snapshot.buffers and record is not None:
        cached = snapshot.contents.searchable(path, record.digest)
        if cached is not None:
            return cached
        positions = snapshot.positions
        if positions is not None and path in snapshot.as_stored and positions.sound:
            return SearchText.scanned(positions.file_bytes(positions.numbers[path]))
    text = snapshot.text(path)
    if text is None:
        return None
    if path not in snapshot.buffers and record is not None:
        return snapshot.contents.searchable(path, record.digest) or SearchText(text)
    return SearchText(text)


def _with_symbols(snapshot: Snapshot, hits: list[Hit]) -> list[Hit]:
    """Every hit with its enclosing definition, from the symbol table (a saved one's arrays: no row is
    decoded), one lookup per file for all of its hits, in the hits' order."""
    by_file: dict[str, list[int]] = {}
    for at, hit in enumerate(hits):
        by_file.setdefault(hit.path, []).append(at)
    result = list(hits)
    for path, ats in by_file.items():
        if path not in snapshot.parsed:
            continue
        record = snapshot.files.get(path)
        around = snapshot.symbols.enclosing(path, [hits[at].span.start_line for at in ats])
        for at, symbol in zip(ats, around, strict=True):
            result[at] = _with_symbol(hits[at], symbol, record)
    return result


def _with_symbol(hit: Hit, best: Symbol | None, record: FileRecord | None) -> Hit:
    """Attach the innermost enclosing definition, so fusion can merge this hit with other modalities'."""
    return Hit(
        hit.path,
        hit.span,
        hit.score,
        best.qualified if best else None,
        best.kind if best else None,
        hit.snippet,
        record.language if record is not None else None,
    )
