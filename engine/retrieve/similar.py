"""find_similar as its own retrieval: first the seed, then its neighbours.

A user asking `operators like debounceTime` or `code similar to the file-based cache backend` wants
the other operators and the other cache backends, not the definition of `debounceTime` and not a
page of text about caches. So the searcher finds the seed first (a definition or file the query
names, else the top code result of the ordinary search for what it describes), and the retrievers
then look for the seed's neighbours: nearest chunks to the seed's own embedding (semantic), chunks
sharing its words (text), definitions of the same shape (structural: same kind, same base class or
container, same members or parameter count, same folder) and graph siblings (sharing callers,
callees or bases). The seed itself, its members and the tests that exercise it are left out, and
the response says which seed it used.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import accumulate, chain
from pathlib import PurePosixPath
from typing import Any

import numpy as np

from ..index.snapshot import Snapshot
from ..model.memory import IdentityCache, paused_gc
from ..model.profiles import (
    CALLABLE_KINDS,
    DEFINITION_KINDS,
    SEED_NAME_CANDIDATES,
    SIBLING_BASE,
    SIBLING_CONTAINER,
    SIBLING_FOLDER,
    SIBLING_MEMBERS,
    SIBLING_NAME_WORDS,
    SIBLING_PARAMETERS,
    SIMILAR_SEED_WORDS,
    SPELLING_TIERS,
    TYPE_KINDS,
)
from ..model.records import Chunk, Hit, ParsedFile, Seed, Span, Symbol
from ..model.tokens import split_identifier
from ..rank.ranking import is_test_path

__all__ = ["named_seed", "seed_at", "seed_text", "structural_siblings", "without_seed"]

# Kinds that are one family for similarity: a method is like a function, an interface like a class.
_FAMILY = {**dict.fromkeys(CALLABLE_KINDS, "callable"), **dict.fromkeys(TYPE_KINDS, "type")}
# Files whose shape (bases, members) stays cached (oldest evicted first), as retrieve/text.py caches lookups.
SHAPE_CACHE_FILES = 16384
_FILE_NAME = re.compile(r"[\w.-]+\.[A-Za-z0-9]{1,5}$")
_PARAMETERS = re.compile(r"\((.*)\)")


def _family(kind: str | None) -> str | None:
    return _FAMILY.get(kind or "")


def _chunk_of(parsed: ParsedFile | None, symbol: str | None, line: int) -> Chunk | None:
    """The chunk that holds a definition (its own chunk, else the one around its first line)."""
    if parsed is None:
        return None
    own = [chunk for chunk in parsed.chunks if symbol is not None and chunk.symbol == symbol]
    if own:
        return own[0]
    around = [chunk for chunk in parsed.chunks if chunk.span.start_line <= line <= chunk.span.end_line]
    return min(around, key=lambda c: c.span.end_line - c.span.start_line) if around else None


def named_seed(snapshot: Snapshot, target: str, words: frozenset[str]) -> Seed | None:
    """The definition or file `target` names; of several, the one whose path shares most of the
    query's `words` (its keywords: `the PostgreSQL DatabaseOperations` -> backends/postgresql/operations.py),
    then code before tests."""
    name = target.strip().strip("`'\"")
    if _FILE_NAME.search(name):
        files = sorted(path for path in snapshot.files if path == name or path.endswith("/" + name))
        if files:
            path = files[0]
            parsed = snapshot.parsed.get(path)
            chunk = parsed.chunks[0] if parsed is not None and parsed.chunks else None
            span = chunk.span if chunk is not None else _whole_file(parsed)
            return Seed(path, span, None, "file", "named", chunk)
    last = re.split(r"::|\.|#|->", name)[-1]
    found = [s for s in snapshot.symbols.definitions(last) if s.kind in DEFINITION_KINDS]
    if not found:
        found = [m.symbol for m in snapshot.symbols.search(last, None, SEED_NAME_CANDIDATES)
                 if m.tier in SPELLING_TIERS and m.symbol.kind in DEFINITION_KINDS]
    if not found:
        return None
    if "." in name or "::" in name:
        qualified = [s for s in found if (s.qualified or s.name).endswith(name.replace("::", "."))]
        found = qualified or found
    best = max(found, key=lambda s: (len(words & _path_words(s.path)), not is_test_path(s.path),
                                     s.kind != "method", -len(s.path)))
    chunk = _chunk_of(snapshot.parsed.get(best.path), best.qualified, best.span.start_line)
    return Seed(best.path, best.span, best.qualified or best.name, best.kind, "named", chunk)


def seed_at(snapshot: Snapshot, path: str, line: int, symbol: str | None, kind: str | None) -> Seed:
    """The seed a described query found: the top code result, at its definition when it has one."""
    parsed = snapshot.parsed.get(path)
    defined = _symbol(parsed, symbol) if symbol else None
    if defined is not None:
        chunk = _chunk_of(parsed, defined.qualified, defined.span.start_line)
        return Seed(path, defined.span, defined.qualified or defined.name, defined.kind, "described", chunk)
    chunk = _chunk_of(parsed, None, line)
    span = chunk.span if chunk is not None else _whole_file(parsed)
    return Seed(path, span, None, kind, "described", chunk)


def _symbol(parsed: ParsedFile | None, qualified: str) -> Symbol | None:
    if parsed is None:
        return None
    return next((s for s in parsed.symbols if (s.qualified or s.name) == qualified), None)


def _whole_file(parsed: ParsedFile | None) -> Span:
    end = max((s.span.end_line for s in parsed.symbols), default=0) if parsed is not None else 0
    return Span(0, 0, end, 0)


def _path_words(path: str) -> frozenset[str]:
    return frozenset(part.lower() for piece in path.split("/") for part in split_identifier(PurePosixPath(piece).stem))


def seed_text(seed: Seed) -> str:
    """The words the text retriever looks for: the seed's chunk, at most SIMILAR_SEED_WORDS of them."""
    text = seed.chunk.text if seed.chunk is not None else (seed.symbol or seed.path)
    return " ".join(text.split()[:SIMILAR_SEED_WORDS])


@lru_cache(maxsize=1 << 17)
def _name_words(name: str | None) -> frozenset[str]:
    if not name:
        return frozenset()
    last = re.split(r"::|\.|#", name)[-1]
    return frozenset(word for word in split_identifier(last) if len(word) > 2)


@lru_cache(maxsize=1 << 17)
def _parameter_count(signature: str) -> int | None:
    match = _PARAMETERS.search(signature)
    if match is None:
        return None
    inner = match.group(1).strip()
    if not inner:
        return 0
    names = [part.strip() for part in inner.split(",") if part.strip() not in ("self", "cls", "")]
    return len(names)


@dataclass(frozen=True)
class _Shape:
    """One file's definitions by what they inherit and what they hold, computed once per file."""

    bases: Mapping[str, frozenset[str]]
    members: Mapping[str, frozenset[str]]


_SHAPES: IdentityCache[ParsedFile, _Shape] = IdentityCache(SHAPE_CACHE_FILES)


def _shape(parsed: ParsedFile) -> _Shape:
    """Cached by identity while the ParsedFile lives (`IdentityCache`): a file's shape changes only with
    the file, and a similarity query reads every file's."""
    cached = _SHAPES.get(parsed)
    if cached is not None:
        return cached
    bases: dict[str, set[str]] = defaultdict(set)
    for ref in parsed.references:
        if ref.kind == "inherit" and ref.enclosing:
            bases[ref.enclosing].add(ref.name.split(".")[-1])
    members: dict[str, set[str]] = defaultdict(set)
    for symbol in parsed.symbols:
        if symbol.container and _family(symbol.kind) == "callable":
            members[symbol.container].add(symbol.name)
    shape = _Shape({k: frozenset(v) for k, v in bases.items()}, {k: frozenset(v) for k, v in members.items()})
    _SHAPES.put(parsed, shape)
    return shape


class _Words:
    """Strings as small integers (names, name words, base and member names), so a family's sets become
    flat id arrays that numpy compares at once. Grows with the names seen, never with the queries."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.lock = threading.Lock()

    def of(self, words: Iterable[str]) -> list[int]:
        ids = self.ids
        return [ids[word] if word in ids else ids.setdefault(word, len(ids)) for word in words]

    def known(self, words: Iterable[str]) -> np.ndarray:
        """The ids of the `words` already seen (one never seen cannot be shared with anything)."""
        return np.asarray([self.ids[word] for word in words if word in self.ids], dtype=np.int64)


_WORDS = _Words()


@dataclass(frozen=True)
class _Sets:
    """A set per row as one flat id array: row r's ids are `ids[owner == r]`."""

    ids: np.ndarray
    owner: np.ndarray
    sizes: np.ndarray

    @classmethod
    def of(cls, sets: Sequence[Sequence[int]]) -> _Sets:
        sizes = np.fromiter(map(len, sets), dtype=np.int64, count=len(sets))
        flat = np.fromiter(chain.from_iterable(sets), dtype=np.int64, count=int(sizes.sum()))
        return cls(flat, np.repeat(np.arange(len(sets), dtype=np.int64), sizes), sizes)

    def shared(self, wanted: np.ndarray, rows: int) -> np.ndarray:
        """How many of `wanted` (unique ids) each row's set holds."""
        return np.bincount(self.owner[np.isin(self.ids, wanted)], minlength=rows)


@dataclass(frozen=True)
class _Rows:
    """One file's definitions of one family of kind (callable or type), in the order of its symbols, with
    the strings `structural_siblings` compares as ids: computed once per file version."""

    symbols: list[Symbol]
    qualified: list[str]
    names: list[int]  # id of each symbol's name
    parameters: list[int]  # its parameter count, -1 when its signature has none
    spans: list[tuple[int, int, int, int]]
    words: list[list[int]]  # its name's words (lists shared between rows of the same name: never edited)
    bases: list[list[int]]  # the base classes its file's shape gives it
    members: list[list[int]]  # the member names its file's shape gives it

    @classmethod
    def of(cls, symbols: list[Symbol], shape: _Shape) -> _Rows:
        qualified = [symbol.qualified or symbol.name for symbol in symbols]
        with _WORDS.lock:
            names = _WORDS.of(symbol.name for symbol in symbols)
            bases = [_WORDS.of(sorted(shape.bases[name])) if name in shape.bases else [] for name in qualified]
            members = [_WORDS.of(sorted(shape.members[name])) if name in shape.members else [] for name in qualified]
        counts = [_parameter_count(symbol.signature) for symbol in symbols]
        spans = [(s.span.start_line, s.span.start_col, s.span.end_line, s.span.end_col) for s in symbols]
        return cls(symbols, qualified, names, [-1 if count is None else count for count in counts], spans,
                   [_word_ids(name) for name in qualified], bases, members)


@lru_cache(maxsize=1 << 17)
def _word_ids(name: str) -> list[int]:
    """The ids of a name's words (`_name_words`): names repeat (`get`, `save`, `__init__`), so each is split once."""
    with _WORDS.lock:
        return _WORDS.of(sorted(_name_words(name)))


@dataclass(frozen=True)
class _Table:
    """One family's definitions across every file of a snapshot, as arrays in the order of the files and
    of their symbols: what `structural_siblings` scores, one numpy pass per query."""

    symbols: list[Symbol]
    qualified: list[str]
    names: np.ndarray
    parameters: np.ndarray
    spans: np.ndarray  # (start_line, start_col, end_line, end_col) per row
    words: _Sets
    bases: _Sets
    members: _Sets
    path_rank: np.ndarray  # each row's path's place in sorted order (ties sort by path first)
    folders: np.ndarray  # each row's folder id
    files: dict[str, tuple[int, int]]  # path -> its rows [start, end)

    @classmethod
    def of(cls, blocks: Sequence[tuple[str, _Rows]]) -> _Table:
        sizes = [len(block.symbols) for _, block in blocks]
        offsets = [0, *accumulate(sizes)]
        parts = [block for _, block in blocks]
        order = {path: rank for rank, path in enumerate(sorted(path for path, _ in blocks))}
        with _WORDS.lock:
            folders = _WORDS.of(_folder(path) for path, _ in blocks)
        size_array = np.asarray(sizes, dtype=np.int64)
        count = offsets[-1]

        def flat(field: str) -> list[Any]:
            return list(chain.from_iterable(getattr(part, field) for part in parts))

        return cls(
            flat("symbols"), flat("qualified"), np.asarray(flat("names"), dtype=np.int64),
            np.asarray(flat("parameters"), dtype=np.int64), np.asarray(flat("spans"), dtype=np.int64).reshape(count, 4),
            _Sets.of(flat("words")), _Sets.of(flat("bases")), _Sets.of(flat("members")),
            np.repeat(np.asarray([order[path] for path, _ in blocks], dtype=np.int64), size_array),
            np.repeat(np.asarray(folders, dtype=np.int64), size_array),
            {path: (offsets[i], offsets[i + 1]) for i, (path, _) in enumerate(blocks)})


@lru_cache(maxsize=1 << 16)
def _folder(path: str) -> str:
    return str(PurePosixPath(path).parent)


_BLOCKS: IdentityCache[ParsedFile, dict[str, _Rows | None]] = IdentityCache(SHAPE_CACHE_FILES)
# family -> (the snapshot's parsed files, held weakly where they can be: a closed workspace's stored rows are
# not kept; a plain dict, which a weak reference cannot point at, is held; generation, size, table)
_TABLES: dict[str, tuple[Callable[[], Mapping[str, ParsedFile] | None], int, int, _Table]] = {}
_TABLES_LOCK = threading.Lock()


def _block(parsed: ParsedFile, family: str) -> _Rows | None:
    """A file's definitions of `family` as ids, None when it has none; cached by identity as `_shape` is,
    each family computed when first asked."""
    made = _BLOCKS.get(parsed)
    if made is None:
        made = {}
        _BLOCKS.put(parsed, made)
    if family not in made:
        symbols = [symbol for symbol in parsed.symbols if _family(symbol.kind) == family]
        made[family] = _Rows.of(symbols, _shape(parsed)) if symbols else None
    return made[family]


def _table(snapshot: Snapshot, family: str) -> _Table:
    """Every file's definitions of `family`, kept while the snapshot's parsed files are the same mapping
    (an edit makes a new one; then only the changed files' rows are computed again)."""
    parsed = snapshot.parsed
    entry = _TABLES.get(family)
    if entry is not None and entry[0]() is parsed and entry[1:3] == (snapshot.generation, len(parsed)):
        return entry[3]
    with paused_gc():  # hundreds of thousands of small objects, none in a cycle (see paused_gc)
        blocks = [(path, block) for path, one in parsed.items() if (block := _block(one, family)) is not None]
        table = _Table.of(blocks)
    held: Callable[[], Mapping[str, ParsedFile] | None]
    try:
        held = weakref.ref(parsed, _forget_tables)
    except TypeError:  # a dict of records built in this process (a first index)
        held = partial(_same, parsed)
    with _TABLES_LOCK:
        _TABLES[family] = (held, snapshot.generation, len(parsed), table)
    return table


def _same(parsed: Mapping[str, ParsedFile]) -> Mapping[str, ParsedFile]:
    return parsed


def _forget_tables(gone: Callable[[], Mapping[str, ParsedFile] | None]) -> None:
    """Drop the tables of a snapshot's parsed files once they are freed (a closed workspace's)."""
    for family, entry in list(_TABLES.items()):
        if entry[0] is gone:
            _TABLES.pop(family, None)


def structural_siblings(snapshot: Snapshot, seed: Seed, depth: int) -> list[Hit]:
    """Definitions shaped like the seed, best first: same family of kind, then points for a shared
    base class, a shared container, shared member names, the same parameter count, the same folder
    and shared name words (`bufferTime` ~ `bufferCount`, `windowTime`).

    Every definition of the family is scored at once over its table's arrays (`_Table`), adding the
    points in the order a loop over them would, so each score is that loop's to the last bit; a loop
    in Python took half a second on four copies of Django.
    """
    family = _family(seed.kind)
    seed_parsed = snapshot.parsed.get(seed.path)
    if family is None or seed_parsed is None or seed.symbol is None:
        return []
    seed_symbol = _symbol(seed_parsed, seed.symbol)
    if seed_symbol is None or depth <= 0:
        return []
    bases = _shape(seed_parsed).bases.get(seed.symbol, frozenset())
    members = _shape(seed_parsed).members.get(seed.symbol, frozenset())
    parameters = _parameter_count(seed_symbol.signature)
    words = _name_words(seed.symbol)
    rows = _table(snapshot, family)
    count = len(rows.symbols)
    score = np.zeros(count, dtype=np.float64)
    excluded = np.zeros(count, dtype=bool)
    base_ids = _WORDS.known(bases)
    if bases:
        score[rows.bases.shared(base_ids, count) > 0] += SIBLING_BASE
        excluded |= np.isin(rows.names, base_ids)  # the seed's own base is what it specialises
    start, end = rows.files.get(seed.path, (0, 0))
    for row in range(start, end):
        if _is_seed(seed, seed.path, rows.qualified[row]):
            excluded[row] = True
        elif seed_symbol.container is not None and rows.symbols[row].container == seed_symbol.container:
            score[row] += SIBLING_CONTAINER
    if members:
        inside = rows.members.shared(_WORDS.known(members), count)
        sizes = rows.members.sizes
        theirs = sizes > 0
        score[theirs] += SIBLING_MEMBERS * inside[theirs] / (len(members) + sizes[theirs] - inside[theirs])
    if parameters is not None and family == "callable":
        score[rows.parameters == parameters] += SIBLING_PARAMETERS
    if words:
        score += SIBLING_NAME_WORDS * rows.words.shared(_WORDS.known(words), count) / len(words)
    kept = np.flatnonzero((score > 0) & ~excluded)
    folder = _WORDS.known([_folder(seed.path)])
    if folder.size:
        score[kept[rows.folders[kept] == folder[0]]] += SIBLING_FOLDER
    if kept.size > depth:  # only rows scoring at least the depth-th best can be shown
        floor = np.partition(score[kept], kept.size - depth)[kept.size - depth]
        kept = kept[score[kept] >= floor]
    spans = rows.spans[kept]
    order = kept[np.lexsort((kept, spans[:, 3], spans[:, 2], spans[:, 1], spans[:, 0], rows.path_rank[kept],
                             -score[kept]))]
    return [Hit(s.path, s.span, float(score[row]), s.qualified or s.name, s.kind, s.signature, s.language)
            for row in order[:depth].tolist() for s in (rows.symbols[row],)]


def _is_seed(seed: Seed, path: str, symbol: str | None) -> bool:
    """The seed itself or one of its members (`Rule.__rich_console__` for the seed `Rule`)."""
    if path != seed.path:
        return False
    if seed.symbol is None:
        return seed.kind == "file"
    return symbol is not None and (symbol == seed.symbol or symbol.startswith(seed.symbol + "."))


def without_seed(snapshot: Snapshot, seed: Seed, hits: Sequence[Hit]) -> list[Hit]:
    """`hits` less the seed, its members, lines inside it and the test files that use it."""
    name = re.split(r"::|\.|#", seed.symbol)[-1] if seed.symbol else PurePosixPath(seed.path).stem
    kept = []
    tests: dict[str, bool] = {}
    for hit in hits:
        if _is_seed(seed, hit.path, hit.symbol):
            continue
        if hit.path == seed.path and seed.span.start_line <= hit.span.start_line <= seed.span.end_line \
                and (hit.symbol is None or seed.symbol is None):
            continue
        if hit.path not in tests:
            tests[hit.path] = is_test_path(hit.path) and _uses(snapshot.parsed.get(hit.path), name, seed.path)
        if tests[hit.path]:
            continue
        kept.append(hit)
    return kept


def _uses(parsed: ParsedFile | None, name: str, path: str) -> bool:
    if parsed is None:
        return False
    stem = PurePosixPath(path).stem
    return any(ref.name.split(".")[-1] == name for ref in parsed.references) or any(
        stem in spec for spec in parsed.imports)
