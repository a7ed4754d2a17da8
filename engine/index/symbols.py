"""Symbol search: what answers `workspace/symbol` and `class Config` on every keystroke.

A user typing in VS Code's Ctrl+T or Neovim's workspace-symbol picker expects the exact name
first, then the same name in another case or spelling (`parseConfig` == `parse_config`), then
names starting with what was typed, then loose matches (`pcfg` -> `parse_config`), classes and
functions before variables. `Config.load` and `pkg.mod.func` narrow by container or module path.

The table is immutable and replaced on every file update. To keep that cheap, a table is a large
indexed *base* plus a small *overlay* of recently changed files; the overlay is folded into a new
base once it grows. Each part precomputes lowercase names, word keys, a sorted name list for
prefixes and per-name character masks, so a search touches a few dict lookups, a bisect and a
vectorised prefilter rather than every symbol.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import json
import operator
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any, overload

import numpy as np

from ..model.memory import paused_gc
from ..model.profiles import CALLABLE_KINDS, SYMBOL_TIERS, TYPE_KINDS
from ..model.records import Span, Symbol
from ..model.strings import Picked, StoredStrings
from ..model.tokens import name_stems, stem

__all__ = ["LOOKUPS", "SymbolMatch", "SymbolTable", "parse_symbol_query"]


# Within a tier: definitions users navigate to come before the values they hold.
KIND_RANK = {
    **dict.fromkeys(TYPE_KINDS | CALLABLE_KINDS - {"macro"}, 0),
    "namespace": 1, "module": 1, "macro": 1, "property": 2, "field": 2, "constant": 2, "variable": 3,
}  # fmt: skip
DEFAULT_KIND_RANK = 3

# Leading words of a query that name a kind rather than a symbol (`def load`, `class Config`).
KIND_WORDS: dict[str, frozenset[str]] = {
    "def": frozenset({"function", "method"}),
    "func": frozenset({"function", "method"}),
    "function": frozenset({"function", "method"}),
    "fn": frozenset({"function", "method"}),
    "method": frozenset({"method"}),
    "class": frozenset({"class"}),
    "interface": frozenset({"interface"}),
    "struct": frozenset({"struct"}),
    "type": TYPE_KINDS,
    "enum": frozenset({"enum"}),
    "trait": frozenset({"trait"}),
    "const": frozenset({"constant"}),
    "var": frozenset({"variable"}),
}

# An overlay larger than this is folded into a fresh base on the next update.
OVERLAY_MAX_SYMBOLS = 2000
# Fuzzy matching scores at most this many prefiltered candidates, best-ranked first; beyond that
# a query is too loose for the order among its matches to mean much.
FUZZY_MAX_CANDIDATES = 1000

# Distinct names and paths remembered while building a table: names repeat (`__init__`, `get`), and
# every symbol of a file shares its path's parts; a rebuild after an edit finds most of them here.
BUILD_CACHE_SIZE = 1 << 17

# Import aliases are short by convention (`z`, `np`, `pd`, `plt`, `sp`, `tf`); a qualifier this short
# that names nothing in the workspace is taken for one. Measured: dropping every unresolvable qualifier
# answered `shutil.rmtree` and `errno.ENOENT` in pytest-7220's issue with every `rmtree` and `ENOENT`,
# and its file left the top 10 (SWE-bench Lite file hit@10 86.4 -> 85.7); the seven query sets are the
# same either way.
IMPORT_ALIAS_MAX = 3

QUALIFIER_SEPARATORS = re.compile(r"::|#|->|\\")
WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
MASK_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_$"


@dataclass(frozen=True)
class SymbolMatch:
    """One symbol search result; `tier` says why it matched (exact, case, words, prefix, fuzzy)."""

    symbol: Symbol
    score: float
    tier: str


@dataclass(frozen=True)
class _Query:
    name: str
    qualifiers: tuple[str, ...]
    kinds: frozenset[str] | None


def parse_symbol_query(text: str) -> tuple[str, frozenset[str] | None]:
    """Strips a leading kind word (`class Config` -> ("Config", {"class"})); keeps a lone one."""
    parts = text.strip().split(None, 1)
    if len(parts) == 2 and parts[0].lower() in KIND_WORDS:
        return parts[1].strip(), KIND_WORDS[parts[0].lower()]
    return text.strip(), None


@functools.lru_cache(maxsize=BUILD_CACHE_SIZE)
def word_key(name: str) -> str:
    """The spelling-independent key: `parseConfig`, `parse_config`, `ParseConfig` -> "parse_config"."""
    return "_".join(word.lower() for word in WORD.findall(name))


class SymbolTable:
    """An immutable, searchable set of symbols, grouped by file for cheap per-file replacement."""

    def __init__(self, symbols: Iterable[Symbol] = ()) -> None:
        by_path: dict[str, list[Symbol]] = {}
        for symbol in symbols:
            by_path.setdefault(symbol.path, []).append(symbol)
        self._files: Mapping[str, tuple[Symbol, ...]] = MappingProxyType(
            {path: tuple(found) for path, found in by_path.items()})
        self._base = _Index(tuple(s for found in self._files.values() for s in found))
        self._overlay_paths: frozenset[str] = frozenset()
        self._count = len(self._base)
        # The arrays a table opened from them (`from_arrays`, `stored`) was read from: what `arrays` gives.
        self._stored: Mapping[str, np.ndarray] | None = None

    @classmethod
    def _derive(
        cls, files: dict[str, tuple[Symbol, ...]] | _EditedFiles, base: _Index, overlay_paths: frozenset[str]
    ) -> SymbolTable:
        table = cls.__new__(cls)
        table._base = base
        table._overlay_paths = overlay_paths
        table._stored = None
        overlay_size = sum(len(files.get(path, ())) for path in overlay_paths)
        if overlay_size > OVERLAY_MAX_SYMBOLS:  # every file's records are made here: a plain table from now on
            files = dict(files)
            table._base = _Index(tuple(s for found in files.values() for s in found))
            table._overlay_paths = frozenset()
        if isinstance(files, _EditedFiles):
            table._files, table._count = files, files.count
        else:
            table._files = MappingProxyType(files)
            table._count = sum(len(found) for found in files.values())
        return table

    def arrays(self) -> dict[str, np.ndarray]:
        """The table as it is (base, overlay and files) as flat arrays, for a restart to open in place.

        Nothing is pickled and nothing is rebuilt on open: every string (names, paths, docs, lookup
        keys) is in one sorted pool of UTF-8, each symbol is a row of pool ids and span ints, and each
        lookup (exact, lower, words, scoped, and the files) is a sorted run of key ids with the positions
        of each key in CSR form. A search bisects the keys and makes records only for what it shows
        (`_StoredIndex`); unpickling the same lookups as dicts was 0.13-0.3 CPU-s of every Django restart.
        Raises ValueError when a symbol holds a value of a type the rows cannot hold (nothing is saved).
        The cycle collector is paused: its passes over the process's records while this allocates
        56k tuples took most of a Django save (1.7 of 2.6 CPU-s).
        """
        if self._stored is not None:
            return dict(self._stored)
        with paused_gc():
            return self._arrays()

    def stored(self) -> SymbolTable:
        """The same table read from its own `arrays`, as a restart opens it: a whole build keeps this one.

        Built from records, a table holds a tuple, dict entries, mask and sort keys per symbol beside the
        records themselves (Django 4x: ~130 MB at a cold index's peak); as arrays it holds each distinct
        string once and a row of ints per symbol, and the saved index writes those same arrays instead of
        deriving them again. This table itself when it holds a value the arrays cannot (`arrays` raises).
        """
        if self._stored is not None:
            return self
        try:
            return SymbolTable.from_arrays(self.arrays())
        except ValueError:
            return self
        finally:
            forget_build_names()

    def _arrays(self) -> dict[str, np.ndarray]:
        base = self._base
        position = {id(symbol): at for at, symbol in enumerate(base.symbols)}
        symbols: list[Symbol] = list(base.symbols)
        files: dict[str, list[int]] = {}
        for path, found in self._files.items():
            at = [position.get(id(symbol)) for symbol in found]
            if path in self._overlay_paths or None in at:  # the overlay's files are records of their own
                at = list(range(len(symbols), len(symbols) + len(found)))
                symbols.extend(found)
            files[path] = [value for value in at if value is not None]
        rows = list(map(_TEXTS_OF, symbols))
        lookups = {name: _lookup_parts(getattr(base, name)) for name in LOOKUPS}
        lower_names = list(base.lower_names)
        try:
            strings: set[Any] = set(itertools.chain.from_iterable(rows))
        except TypeError:  # an unhashable value: not text either
            strings = {None, ()}
        strings.discard(None)
        if not all(type(value) is str for value in strings):
            raise ValueError("a symbol holds a value that is not text where text belongs")
        strings.update(files, self._overlay_paths, lower_names)
        for keys, _, _ in lookups.values():
            strings.update(keys)
        pool = sorted(strings)
        ids: dict[Any, int] = dict(zip(pool, range(len(pool)), strict=True))
        ids[None] = -1
        encoded = [text.encode("utf-8", "surrogatepass") for text in pool]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
        parts: dict[str, np.ndarray] = {
            "layout": np.frombuffer(json.dumps(_layout()).encode(), dtype=np.uint8),
            "pool": np.frombuffer(b"".join(encoded), dtype=np.uint8),
            "pool_offsets": offsets,
            "texts": np.fromiter(map(ids.__getitem__, itertools.chain.from_iterable(rows)), dtype=np.int32,
                                 count=len(rows) * len(_TEXT_FIELDS)).reshape(len(rows), len(_TEXT_FIELDS)),
            "spans": _span_rows(symbols),
            "base": np.array([len(base.symbols)], dtype=np.int64),
            "lower_of": np.fromiter(map(ids.__getitem__, lower_names), dtype=np.int32, count=len(lower_names)),
            "sorted_lower": np.fromiter(base.sorted_lower, dtype=np.int32, count=len(base.sorted_lower)),
            "masks": np.asarray(base.masks, dtype=np.uint64),
            "overlay": np.array(sorted(ids[path] for path in self._overlay_paths), dtype=np.int32),
        }
        lookups["files"] = _lookup_parts(files, keep_order=True)  # the files keep their order
        for name, (keys, counts, positions) in lookups.items():
            parts[f"{name}_keys"] = np.fromiter(map(ids.__getitem__, keys), dtype=np.int32, count=len(keys))
            parts[f"{name}_offsets"] = counts
            parts[f"{name}_positions"] = positions
        return parts

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> SymbolTable:
        """The table `arrays` wrote; raises ValueError when the arrays are of another layout or do not fit."""
        try:
            layout = json.loads(arrays["layout"].tobytes())
        except (KeyError, ValueError, UnicodeError) as error:
            raise ValueError(f"stored symbol table has no layout: {error}") from None
        if layout != json.loads(json.dumps(_layout())):  # written by a version whose records had other fields
            raise ValueError("stored symbol table has another layout")
        pool = _Pool(arrays["pool"], arrays["pool_offsets"])
        texts, spans = arrays["texts"], arrays["spans"]
        count = int(arrays["base"][0]) if arrays["base"].shape == (1,) else -1
        total = texts.shape[0] if texts.ndim == 2 else -1
        lookups = {name: _Lookup.of(pool, arrays, name, total) for name in (*LOOKUPS, "files")}
        lower_of, sorted_lower, masks = arrays["lower_of"], arrays["sorted_lower"], arrays["masks"]
        if not (texts.dtype == np.int32 and texts.shape == (total, len(_TEXT_FIELDS)) and spans.dtype == np.int64
                and spans.shape == (total, 4 * len(_SPAN_FIELDS)) and 0 <= count <= total
                and lower_of.dtype == np.int32 and lower_of.shape == (count,) and sorted_lower.dtype == np.int32
                and sorted_lower.shape == (count,) and masks.dtype == np.uint64 and masks.shape == (count,)
                and arrays["overlay"].dtype == np.int32 and all(lookup.fits(count) for lookup in lookups.values()
                                                               if lookup.name != "files")
                and pool.fits(texts) and pool.fits(lower_of) and pool.fits(arrays["overlay"])
                and (not count or (int(sorted_lower.min()) >= 0 and int(sorted_lower.max()) < count))):
            raise ValueError("stored symbol table arrays do not fit together")
        symbols = _Symbols(pool, texts, spans)
        base = _Index.__new__(_Index)
        base.symbols = _Symbols(pool, texts, spans, count, symbols)
        base.exact, base.lower, base.words = lookups["exact"], lookups["lower"], lookups["words"]
        base.stems = lookups["stems"]
        base.scoped = lookups["scoped"].as_sets()
        base.lower_names = _picked(pool, lower_of)
        base.sorted_lower = _Positions(sorted_lower)
        base.sorted_keys = _picked(pool, lower_of[sorted_lower])
        base.masks = masks
        files = _StoredFiles(symbols, lookups["files"])
        table = cls.__new__(cls)
        table._files = files
        table._base = base
        table._overlay_paths = frozenset(pool[int(at)] for at in arrays["overlay"])
        table._count = files.count
        table._stored = dict(arrays)
        return table

    def with_file(self, path: str, symbols: Iterable[Symbol]) -> SymbolTable:
        """A new table where `path` holds exactly `symbols` (this one is unchanged).

        A table opened from arrays keeps its saved files undecoded and notes the edit beside them
        (`_EditedFiles`); copying them into a dict made every saved symbol a record on a restart's first
        edit (Django 1x: 2.1 s, and the records stayed). The next save writes them all as arrays again.
        """
        found = tuple(symbols)
        if isinstance(self._files, _StoredFiles | _EditedFiles):
            return SymbolTable._derive(self._files.edited(path, found), self._base, self._overlay_paths | {path})
        files = dict(self._files)
        if found:
            files[path] = found
        else:
            files.pop(path, None)
        return SymbolTable._derive(files, self._base, self._overlay_paths | {path})

    def without_file(self, path: str) -> SymbolTable:
        return self.with_file(path, ())

    def __len__(self) -> int:
        return self._count

    def all(self) -> Iterator[Symbol]:
        for found in self._files.values():
            yield from found

    def in_file(self, path: str) -> tuple[Symbol, ...]:
        """`path`'s symbols in the file's order (none for a path it does not hold)."""
        return self._files.get(path, ())

    def symbol(self, path: str, qualified: str) -> Symbol | None:
        """`path`'s first symbol of that qualified name. A result asks for its own and for its file's name
        spans (`name_spans`): a saved table answers both over its arrays, making one record, where decoding
        the file's row with its chunks took ~4 ms at 4x Django, once for each result of a first search."""
        saved = self._saved_for(path)
        if saved is not None:
            return saved.named(path, qualified)
        return next((symbol for symbol in self.in_file(path) if symbol.qualified == qualified), None)

    def names_of_kinds(self, path: str, kinds: frozenset[str]) -> frozenset[str]:
        """The names of `path`'s symbols of those kinds."""
        saved = self._saved_for(path)
        if saved is not None:
            return saved.names_of_kinds(path, kinds)
        return frozenset(symbol.name for symbol in self.in_file(path) if symbol.kind in kinds)

    def name_spans(self, path: str) -> list[Span]:
        """The name span of every symbol of `path`, in order."""
        saved = self._saved_for(path)
        if saved is not None:
            return saved.name_spans(path)
        return sorted((symbol.name_span for symbol in self.in_file(path)), key=_span_order)

    def _saved_for(self, path: str) -> _StoredFiles | None:
        """The saved files, when they hold `path` as it is now (saved, not edited since)."""
        files = self._files
        if isinstance(files, _EditedFiles) and path not in files._changed:
            files = files._saved
        return files if isinstance(files, _StoredFiles) and path in files else None

    def enclosing(self, path: str, lines: Sequence[int]) -> list[Symbol | None]:
        """The innermost symbol of `path` around each 0-based line (None: none): of those whose span holds
        the line, the one that starts last, the later of two starting on the same line. A saved file's are
        found over its arrays: decoding its row for them had been most of a first search's time on a
        name with hits in hundreds of files (4x Django over a language server)."""
        saved = self._saved_for(path)
        if saved is not None:
            return saved.enclosing(path, lines)
        symbols = self.in_file(path)
        starts = np.fromiter((symbol.span.start_line for symbol in symbols), dtype=np.int64, count=len(symbols))
        ends = np.fromiter((symbol.span.end_line for symbol in symbols), dtype=np.int64, count=len(symbols))
        return [None if found < 0 else symbols[found] for found in innermost(starts, ends, lines)]

    def definitions(self, name: str) -> list[Symbol]:
        """Every symbol called exactly `name`, best-ranked first."""
        return [match.symbol for match in self._ranked(_Query(name, (), None), tiers=("exact",), limit=None)]

    def search(self, query: str, kinds: frozenset[str] | None = None, limit: int = 50,
               tiers: Sequence[str] = tuple(SYMBOL_TIERS)) -> list[SymbolMatch]:
        """Ranked matches by tier: exact > case-insensitive > same words > prefix > fuzzy; only `tiers` (in
        that order) when given: whether a name is defined needs no fuzzy tier, the costliest."""
        text = query.strip()
        if not text or limit <= 0:
            return []
        parts = [part for part in QUALIFIER_SEPARATORS.sub(".", text).split(".") if part]
        if not parts:
            return []
        qualifiers = tuple(parts[:-1])
        if qualifiers and len(qualifiers[-1]) <= IMPORT_ALIAS_MAX and not self._scopes(qualifiers[-1]):
            # `z.record` (`import * as z`), `np.array`: a short qualifier that is no container, folder or
            # file stem anywhere is an import alias the table cannot resolve; it narrowed zod's
            # `z.record` to nothing. A longer one (`shutil.rmtree`) names a real module outside the
            # workspace: dropping it would answer with every `rmtree`.
            qualifiers = ()
        return self._ranked(_Query(parts[-1], qualifiers, kinds), tiers=tiers, limit=limit)

    def worded(self, words: Iterable[str], min_words: int) -> list[Symbol]:
        """Symbols whose name is spelled out by the words: every content word of the name (at least
        `min_words` of them) is among `words` (stemmed). `how nvm detects whether a version is already
        installed` spells `nvm_is_version_installed`. Names with more of the words come first."""
        asked = frozenset(words)
        found: list[tuple[int, tuple[object, ...], Symbol]] = []
        for index, hidden in ((self._base, self._overlay_paths), (self._overlay, frozenset[str]())):
            for count, position in index.worded(asked, min_words):
                symbol = index.symbols[position]
                if symbol.path not in hidden and not symbol.reexport_of:
                    found.append((-count, _rank_key(symbol), symbol))
        found.sort(key=lambda entry: entry[:2])
        return [symbol for _, _, symbol in found]

    def _scopes(self, qualifier: str) -> bool:
        """Whether some symbol's container, folder or file stem is `qualifier`."""
        return any(qualifier.lower() in index.scoped for index in (self._base, self._overlay))

    @cached_property
    def _overlay(self) -> _Index:
        return _Index(tuple(s for path in sorted(self._overlay_paths) for s in self._files.get(path, ())))

    def _ranked(self, query: _Query, tiers: Sequence[str], limit: int | None) -> list[SymbolMatch]:
        found: list[tuple[tuple[float, tuple[object, ...]], SymbolMatch]] = []
        for index, hidden in ((self._base, self._overlay_paths), (self._overlay, frozenset[str]())):
            if not len(index):
                continue
            for match in index.search(query, tiers, limit, hidden):
                found.append(((-match.score, _rank_key(match.symbol)), match))
        found.sort(key=lambda pair: pair[0])
        kept = (match for _, match in found if not (match.symbol.reexport_of and self._defines(match.symbol.name)))
        return list(itertools.islice(kept, limit))

    def _defines(self, name: str) -> bool:
        """Whether a symbol that is not a re-export has exactly this name. A re-export stands in for a
        definition the workspace lacks; where the workspace has one, the re-export is only noise
        (serde's `pub use serde_derive::{Deserialize, Serialize}` beside serde_core's traits)."""
        for index, hidden in ((self._base, self._overlay_paths), (self._overlay, frozenset[str]())):
            for position in index.exact.get(name, ()):
                symbol = index.symbols[position]
                if not symbol.reexport_of and symbol.path not in hidden:
                    return True
        return False


def _rank_key(symbol: Symbol) -> tuple[object, ...]:
    return (
        KIND_RANK.get(symbol.kind, DEFAULT_KIND_RANK),
        len(symbol.name),
        len(symbol.path),
        symbol.path,
        symbol.span.start_line,
        symbol.name,
        symbol.qualified,
    )


@functools.lru_cache(maxsize=BUILD_CACHE_SIZE)
def _mask(text: str) -> int:
    mask = 0
    for char in set(text.lower()):
        position = MASK_ALPHABET.find(char)
        mask |= 1 << (position if position >= 0 else len(MASK_ALPHABET))
    return mask


def forget_build_names() -> None:
    """Empty the caches a whole table's build fills, one entry per distinct name. They pay off within
    the build; kept after it, they held 240k small objects of Django's names (~10 MiB, scattered over
    the arenas the build's records were freed from) for the few names an edit brings."""
    for cached in (word_key, _mask, name_stems, stem, _path_parts):
        cached.cache_clear()


# What a saved table holds of a symbol: its text fields as pool ids (-1: None), its spans as four ints each.
_TEXT_FIELDS = tuple(field.name for field in dataclasses.fields(Symbol) if field.name not in ("span", "name_span"))
_QUALIFIED, _KIND, _NAME = (_TEXT_FIELDS.index(name) for name in ("qualified", "kind", "name"))
_SPAN_FIELDS = ("span", "name_span")
# The lookups of an `_Index` a saved table keeps as sorted keys with CSR positions (and the files').
LOOKUPS = ("exact", "lower", "words", "stems", "scoped")


@functools.cache
def _layout() -> tuple[tuple[str, ...], ...]:
    """What a saved table's columns and lookups mean: the records' fields and the index's attributes.
    A table saved under another layout is not read (the rows' SCHEMA_VERSION need not change for it)."""
    return (tuple(field.name for field in dataclasses.fields(Symbol)),
            tuple(field.name for field in dataclasses.fields(Span)), tuple(sorted(vars(_Index(())))), LOOKUPS)


_TEXTS_OF = operator.attrgetter(*_TEXT_FIELDS)
_SPAN_INTS = operator.attrgetter("start_line", "start_col", "end_line", "end_col")


def _lookup_parts(lookup: Mapping[str, Collection[int]],
                  keep_order: bool = False) -> tuple[list[str], np.ndarray, np.ndarray]:
    """A lookup as its keys and CSR offsets and positions: keys sorted and positions ascending per key,
    or both as given with `keep_order` (the files: a file's symbols in its own order). A saved table's
    lookups hand over their arrays as they are."""
    if isinstance(lookup, _SetLookup):
        lookup = lookup._lookup
    if isinstance(lookup, _Lookup):
        return list(lookup._keys), lookup._offsets, lookup._positions
    keys = list(lookup) if keep_order else sorted(lookup)
    groups = [lookup[key] for key in keys]
    counts = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, groups), dtype=np.int64, count=len(groups)), out=counts[1:])
    positions = np.fromiter(itertools.chain.from_iterable(groups), dtype=np.int32, count=int(counts[-1]))
    if not keep_order:  # one sort by (key, position) of them all: sorting each key's apart was 100k calls
        owners = np.repeat(np.arange(len(keys)), np.diff(counts))
        positions = positions[np.lexsort((positions, owners))]
    return keys, counts, positions


def _span_rows(symbols: Sequence[Symbol]) -> np.ndarray:
    """Each symbol's spans (`_SPAN_FIELDS`) as one row of four ints apiece, read straight into the array:
    converting nested lists of tuples was a fifth of a Django table's save."""
    columns = [np.fromiter(itertools.chain.from_iterable(map(_SPAN_INTS, map(operator.attrgetter(name), symbols))),
                           dtype=np.int64, count=4 * len(symbols)).reshape(len(symbols), 4) for name in _SPAN_FIELDS]
    return np.stack(columns, axis=1).reshape(len(symbols), 4 * len(_SPAN_FIELDS))


class _Pool(StoredStrings):
    """A saved table's strings: sorted UTF-8, decoded one at a time as lookups and records need them."""

    def __init__(self, data: np.ndarray, offsets: np.ndarray) -> None:
        super().__init__(data, offsets, what="stored symbol strings")

    def fits(self, ids: np.ndarray) -> bool:
        """Whether every id of `ids` (-1 for None) names a string of the pool."""
        return not ids.size or (int(ids.min()) >= -1 and int(ids.max()) < len(self))


def _picked(pool: _Pool, ids: np.ndarray) -> Picked[str]:
    """The pool's strings at `ids`, in that order (what `bisect` and the fuzzy tier read)."""
    return Picked(ids, pool.__getitem__)


class _Positions(Sequence[int]):
    """Saved positions, read as plain ints (a slice is a list, as a list's would be)."""

    def __init__(self, positions: np.ndarray) -> None:
        self._positions = positions

    def __len__(self) -> int:
        return self._positions.size

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            found: list[int] = self._positions[index].tolist()
            return found
        return int(self._positions[index])


class _Lookup(Mapping[str, list[int]]):
    """One of an `_Index`'s lookups as saved: sorted key ids into the pool, each key's positions in CSR form.
    `get` bisects the keys, as a dict lookup would answer (each key's positions ascending)."""

    def __init__(self, name: str, pool: _Pool, keys: np.ndarray, offsets: np.ndarray, positions: np.ndarray) -> None:
        self.name = name
        self._keys = _picked(pool, keys)
        self._key_ids = keys
        self._offsets = offsets
        self._positions = positions

    @classmethod
    def of(cls, pool: _Pool, arrays: Mapping[str, np.ndarray], name: str, total: int) -> _Lookup:
        keys, offsets, positions = (arrays[f"{name}_{part}"] for part in ("keys", "offsets", "positions"))
        if not (keys.dtype == np.int32 and keys.ndim == 1 and offsets.dtype == np.int64
                and offsets.shape == (keys.size + 1,) and int(offsets[0]) == 0 and int(offsets[-1]) == positions.size
                and bool((offsets[1:] >= offsets[:-1]).all()) and positions.dtype == np.int32 and positions.ndim == 1
                and pool.fits(keys) and (not keys.size or int(keys.min()) >= 0)
                and (not positions.size or (int(positions.min()) >= 0 and int(positions.max()) < max(total, 0)))):
            raise ValueError(f"stored symbol lookup {name!r} does not fit together")
        if name != "files" and not bool((keys[1:] > keys[:-1]).all()):  # sorted pool ids: sorted keys
            raise ValueError(f"stored symbol lookup {name!r} is not sorted")
        return cls(name, pool, keys, offsets, positions)

    def fits(self, count: int) -> bool:
        return not self._positions.size or int(self._positions.max()) < count

    def _find(self, key: object) -> int:
        if not isinstance(key, str):
            return -1
        at = bisect.bisect_left(self._keys, key)
        return at if at < len(self._keys) and self._keys[at] == key else -1

    def __getitem__(self, key: str) -> list[int]:
        at = self._find(key)
        if at < 0:
            raise KeyError(key)
        found: list[int] = self._positions[self._offsets[at] : self._offsets[at + 1]].tolist()
        return found

    def __contains__(self, key: object) -> bool:
        return self._find(key) >= 0

    def __iter__(self) -> Iterator[str]:
        return (self._keys[at] for at in range(len(self._keys)))

    def __len__(self) -> int:
        return len(self._keys)

    def as_sets(self) -> _SetLookup:
        return _SetLookup(self)


class _SetLookup(Mapping[str, set[int]]):
    """`_Index.scoped` as saved: each qualifier's positions as a set, made when a query names it."""

    def __init__(self, lookup: _Lookup) -> None:
        self._lookup = lookup

    def __getitem__(self, key: str) -> set[int]:
        return set(self._lookup[key])

    def __contains__(self, key: object) -> bool:
        return key in self._lookup

    def __iter__(self) -> Iterator[str]:
        return iter(self._lookup)

    def __len__(self) -> int:
        return len(self._lookup)


class _Symbols(Sequence[Symbol]):
    """A saved table's symbols, made into records one by one as searches show them (then kept); the
    base index's are the first `count` of the file map's (`shared`), so both hand out the same records."""

    def __init__(self, pool: _Pool, texts: np.ndarray, spans: np.ndarray, count: int | None = None,
                 shared: _Symbols | None = None) -> None:
        self._pool = pool
        self._texts = texts
        self._spans = spans
        self._count = texts.shape[0] if count is None else count
        self._made: list[Symbol | None] = shared._made if shared is not None else [None] * texts.shape[0]

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Symbol: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Symbol]: ...

    def __getitem__(self, index: int | slice) -> Symbol | Sequence[Symbol]:
        if isinstance(index, slice):
            return [self[at] for at in range(self._count)[index]]
        if not -self._count <= index < self._count:
            raise IndexError(index)
        index %= self._count
        made = self._made[index]
        if made is None:
            made = self._made[index] = self._symbol(index)
        return made

    def pool_id(self, text: str) -> int:
        """The id of `text` in the sorted pool (-1: not in it), by bisection."""
        pool = self._pool
        found = bisect.bisect_left(pool, text)
        return found if found < len(pool) and pool[found] == text else -1

    def _symbol(self, index: int) -> Symbol:
        pool = self._pool
        values: dict[str, Any] = {name: None if at < 0 else pool[at]
                                  for name, at in zip(_TEXT_FIELDS, self._texts[index].tolist(), strict=True)}
        ints = self._spans[index].tolist()
        for number, name in enumerate(_SPAN_FIELDS):
            values[name] = Span(*ints[4 * number : 4 * number + 4])
        return Symbol(**values)


class _StoredFiles(Mapping[str, tuple[Symbol, ...]]):
    """A saved table's symbols by file, in the files' order: positions among the saved symbols."""

    def __init__(self, symbols: _Symbols, files: _Lookup) -> None:
        self._symbols = symbols
        self._files = files
        self.count = int(files._offsets[-1])
        self._placed: dict[str, int] = {}  # `_at`'s answers, one int a path asked about

    def _at(self, path: object) -> int:
        """`path`'s place among the files (-1: none), without a dict of every path (40 ms of a start or first
        edit for 4x Django's 21k): the pool is sorted, so its id is a bisect, and its place is read from
        `_places`. Kept per path once found: a search's results ask three times each (their symbol, name
        spans and enclosing definitions), and each bisect decodes a string at every step."""
        if not isinstance(path, str):
            return -1
        placed = self._placed.get(path)
        if placed is None:
            placed = self._placed[path] = self._pool_id_place(path)
        return placed

    def _pool_id_place(self, path: str) -> int:
        found = self._symbols.pool_id(path)
        return -1 if found < 0 else int(self._places[found])

    def names_of_kinds(self, path: str, kinds: frozenset[str]) -> frozenset[str]:
        """`SymbolTable.names_of_kinds` of a saved `path` over the arrays, decoding only those names."""
        positions = self._rows(path)
        ids = [found for found in map(self._symbols.pool_id, sorted(kinds)) if found >= 0]
        texts = self._symbols._texts[positions]
        kept = texts[np.isin(texts[:, _KIND], ids), _NAME]
        pool = self._symbols._pool
        return frozenset(pool[at] for at in kept.tolist() if at >= 0)

    @cached_property
    def _places(self) -> np.ndarray:
        """Each pool id's place among the files (-1: not a file), made once with two vectorised writes: the
        files keep their order, not the pool's, and a compare over every file per lookup made a loop over
        all files quadratic."""
        places = np.full(len(self._symbols._pool), -1, dtype=np.int64)
        places[self._files._key_ids] = np.arange(len(self._files._key_ids))
        return places

    def __getitem__(self, path: str) -> tuple[Symbol, ...]:
        at = self._at(path)
        if at < 0:
            raise KeyError(path)
        start, end = int(self._files._offsets[at]), int(self._files._offsets[at + 1])
        return tuple(self._symbols[position] for position in self._files._positions[start:end].tolist())

    def __contains__(self, path: object) -> bool:
        return self._at(path) >= 0

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def _rows(self, path: str) -> np.ndarray:
        """The positions of a saved `path`'s symbols, in the file's order."""
        at = self._at(path)
        return self._files._positions[int(self._files._offsets[at]) : int(self._files._offsets[at + 1])]

    def named(self, path: str, qualified: str) -> Symbol | None:
        """`SymbolTable.symbol` of a saved `path` over the arrays, making only the record it returns."""
        positions = self._rows(path)
        found = self._symbols.pool_id(qualified)
        if found < 0:
            return None
        same = np.flatnonzero(self._symbols._texts[positions, _QUALIFIED] == found)
        return self._symbols[int(positions[same[0]])] if same.size else None

    def name_spans(self, path: str) -> list[Span]:
        """`SymbolTable.name_spans` of a saved `path` over the arrays, making no record."""
        rows = self._symbols._spans[self._rows(path)][:, 4:8]
        ordered = rows[np.lexsort((rows[:, 3], rows[:, 2], rows[:, 1], rows[:, 0]))]
        return [Span(*row) for row in ordered.tolist()]

    def enclosing(self, path: str, lines: Sequence[int]) -> list[Symbol | None]:
        """`SymbolTable.enclosing` of a saved `path` over the arrays, making only the records it returns."""
        positions = self._rows(path)
        spans = self._symbols._spans[positions]
        return [None if found < 0 else self._symbols[int(positions[found])]
                for found in innermost(spans[:, 0], spans[:, 2], lines)]

    def size(self, path: str) -> int:
        """How many symbols `path` holds (0: none saved), without making their records."""
        at = self._at(path)
        return 0 if at < 0 else int(self._files._offsets[at + 1] - self._files._offsets[at])

    def edited(self, path: str, found: tuple[Symbol, ...]) -> _EditedFiles:
        return _EditedFiles(self, {}, self.count, len(self)).edited(path, found)


class _EditedFiles(Mapping[str, tuple[Symbol, ...]]):
    """A saved table's files after edits: each edited path's symbols (an empty tuple: removed) over the
    saved files, which stay undecoded. Saved paths keep their place; new ones follow in edit order."""

    def __init__(self, saved: _StoredFiles, changed: dict[str, tuple[Symbol, ...]], count: int, length: int) -> None:
        """`count` and `length`: the symbols and files with `changed` applied (`edited` keeps them up to date)."""
        self._saved = saved
        self._changed = changed
        self.count = count
        self._len = length

    def edited(self, path: str, found: tuple[Symbol, ...]) -> _EditedFiles:
        """These files with `path`'s symbols replaced by `found`: the counts move by that file alone (summed
        over every edited file, they read every edited path's saved size again on each edit)."""
        before = self._changed.get(path)
        if before is None:
            held, present = self._saved.size(path), path in self._saved
        else:
            held, present = len(before), bool(before)
        return _EditedFiles(self._saved, {**self._changed, path: found}, self.count + len(found) - held,
                            self._len + bool(found) - present)

    def __getitem__(self, path: str) -> tuple[Symbol, ...]:
        found = self._changed.get(path)
        if found is None:
            return self._saved[path]
        if not found:
            raise KeyError(path)
        return found

    def __contains__(self, path: object) -> bool:
        found = self._changed.get(path) if isinstance(path, str) else None
        return path in self._saved if found is None else bool(found)

    def __iter__(self) -> Iterator[str]:
        changed = self._changed
        yield from (path for path in self._saved if changed.get(path, True))
        yield from (path for path, found in changed.items() if found and path not in self._saved)

    def __len__(self) -> int:
        return self._len


def _span_order(span: Span) -> tuple[int, int, int, int]:
    """A span's sort key, made once per span (sorting by the dataclass order built two tuples a comparison)."""
    return span.start_line, span.start_col, span.end_line, span.end_col


def innermost(starts: np.ndarray, ends: np.ndarray, lines: Sequence[int]) -> list[int]:
    """For each line, the index of the span (start and end lines) around it that starts last, the later
    in the given order of two starting on the same line; -1 where none holds it.

    By bisection over the starts, then a walk back that stops once no earlier span reaches the line (the
    running furthest end), so a grep listing thousands of one file's lines costs a bisect each."""
    order = np.argsort(starts, kind="stable")
    ordered_starts, ordered_ends = starts[order].tolist(), ends[order].tolist()
    reach = list(itertools.accumulate(ordered_ends, max))
    indexes = order.tolist()
    found = []
    for line in lines:
        at = bisect.bisect_right(ordered_starts, line) - 1
        while at >= 0 and reach[at] >= line and ordered_ends[at] < line:
            at -= 1
        found.append(indexes[at] if at >= 0 and reach[at] >= line else -1)
    return found


class _Index:
    """Symbols in rank order with lookups for every tier; positions double as within-tier rank."""

    # Built here as dicts and lists; a saved table's are read-only views of its arrays (`from_arrays`).
    symbols: Sequence[Symbol]
    exact: Mapping[str, list[int]]
    lower: Mapping[str, list[int]]
    words: Mapping[str, list[int]]
    lower_names: Sequence[str]
    # A qualifier's last part is the container or a folder/file-stem of the path: positions by each.
    scoped: Mapping[str, set[int]]
    sorted_lower: Sequence[int]
    sorted_keys: Sequence[str]
    masks: np.ndarray

    def __init__(self, symbols: tuple[Symbol, ...]) -> None:
        self.symbols = tuple(sorted(symbols, key=_rank_key))
        exact: dict[str, list[int]] = {}
        lower_of: dict[str, list[int]] = {}
        words: dict[str, list[int]] = {}
        lower_names: list[str] = []
        scoped: dict[str, set[int]] = {}
        for position, symbol in enumerate(self.symbols):
            name = symbol.name
            lower = name.lower()
            exact.setdefault(name, []).append(position)
            lower_of.setdefault(lower, []).append(position)
            words.setdefault(word_key(name), []).append(position)
            lower_names.append(lower)
            for part in _scope_parts(symbol):
                scoped.setdefault(part, set()).add(position)
        self.exact, self.lower, self.words, self.lower_names, self.scoped = exact, lower_of, words, lower_names, scoped
        self.sorted_lower = sorted(range(len(self.symbols)), key=lower_names.__getitem__)
        self.sorted_keys = [lower_names[position] for position in self.sorted_lower]
        masks = (_mask(name) for name in lower_names)
        self.masks = np.fromiter(masks, dtype=np.uint64, count=len(self.symbols))

    def __len__(self) -> int:
        return len(self.symbols)

    @cached_property
    def stems(self) -> Mapping[str, list[int]]:
        """Each stemmed content word of the names (`name_stems`) with the positions of the names that say
        it: what a question's plain words look up. Made on the first such question or save, not with the
        index: it cost half as much again as the other lookups together (0.27 of 0.81 CPU-s on Django's
        56k symbols), on every rebuild of the base. A saved table reads it in place (`from_arrays`)."""
        stems: dict[str, list[int]] = {}
        for positions in self.words.values():  # one word key, one set of words: stem it once
            for word in name_stems(self.symbols[positions[0]].name):
                stems.setdefault(word, []).extend(positions)
        return {word: sorted(found) for word, found in stems.items()}

    def worded(self, asked: frozenset[str], min_words: int) -> Iterator[tuple[int, int]]:
        """(content word count, position) of the symbols whose every content word is asked: a name's
        stems are counted among the asked ones, and the name qualifies when the count is all of them."""
        found = [np.asarray(self.stems.get(word, ()), dtype=np.int64) for word in sorted(asked)]
        if not found:
            return
        positions, counts = np.unique(np.concatenate(found), return_counts=True)
        enough = counts >= min_words
        for position, count in zip(positions[enough].tolist(), counts[enough].tolist(), strict=True):
            if count == len(name_stems(self.symbols[position].name)):
                yield count, position

    def search(
        self, query: _Query, tiers: Sequence[str], limit: int | None, hidden: frozenset[str]
    ) -> Iterator[SymbolMatch]:
        seen: set[int] = set()
        emitted = 0
        allowed = self.scoped.get(query.qualifiers[-1].lower(), set()) if query.qualifiers else None
        for tier in tiers:
            for position, quality in self.tier(tier, query.name, allowed):
                if position in seen:
                    continue
                seen.add(position)
                symbol = self.symbols[position]
                if symbol.path in hidden or not _accepts(symbol, query):
                    continue
                yield SymbolMatch(symbol, SYMBOL_TIERS[tier] + quality, tier)
                emitted += 1
                if limit is not None and emitted >= limit:
                    return

    def tier(self, tier: str, name: str, allowed: set[int] | None) -> Iterable[tuple[int, float]]:
        """(position, quality) of the tier's matches, best first."""
        if tier == "exact":
            return ((position, 0.0) for position in self.exact.get(name, ()))
        if tier == "case":
            return ((position, 0.0) for position in self.lower.get(name.lower(), ()))
        if tier == "words":
            return ((position, 0.0) for position in self.words.get(word_key(name), ()))
        if tier == "prefix":
            return ((position, 0.0) for position in self.prefixed(name.lower(), allowed))
        return self.fuzzy(name, allowed)

    def prefixed(self, prefix: str, allowed: set[int] | None) -> list[int]:
        start = bisect.bisect_left(self.sorted_keys, prefix)
        end = bisect.bisect_left(self.sorted_keys, prefix + "\U0010ffff", lo=start)
        found = self.sorted_lower[start:end]
        return sorted(found if allowed is None else allowed.intersection(found))

    def fuzzy(self, name: str, allowed: set[int] | None) -> list[tuple[int, float]]:
        """Subsequence matches (VS Code Ctrl+T style), scored by contiguity and word starts."""
        needle = "".join(name.lower().split())
        query_mask = np.uint64(_mask(needle))
        candidates = np.flatnonzero((self.masks & query_mask) == query_mask).tolist()
        if allowed is not None:
            candidates = [position for position in candidates if position in allowed]
        pattern = re.compile(".*?".join(f"({re.escape(char)})" for char in needle))
        scored: list[tuple[float, int]] = []
        for position in candidates[:FUZZY_MAX_CANDIDATES]:
            lowered = self.lower_names[position]
            # Most candidates share the needle's letters but not in its order: a plain subsequence test
            # turns them away in a few steps, where the regex backtracks through every split.
            if not _is_subsequence(needle, lowered):
                continue
            found = pattern.search(lowered)
            if found is not None:
                scored.append((-_fuzzy_quality(self.symbols[position].name, found), position))
        scored.sort()
        return [(position, -negative) for negative, position in scored]


def _is_subsequence(needle: str, text: str) -> bool:
    """Whether `needle`'s characters occur in `text` in order (what the fuzzy regex matches)."""
    rest = iter(text)
    return all(char in rest for char in needle)


def _fuzzy_quality(name: str, found: re.Match[str]) -> float:
    """In [0, 1): more matched characters at word starts and in runs, an earlier start, is better."""
    starts = _word_starts(name)
    positions = [found.start(group) for group in range(1, (found.lastindex or 0) + 1)]
    if not positions:
        return 0.0
    at_starts = sum(1 for position in positions if position in starts)
    runs = sum(1 for left, right in itertools.pairwise(positions) if right == left + 1)
    count = len(positions)
    raw = (2 * at_starts + runs) / (3 * count) - 0.01 * positions[0] - 0.001 * (len(name) - count)
    return min(max(raw, 0.0), 0.999)


def _word_starts(name: str) -> set[int]:
    starts = {0}
    for index in range(1, len(name)):
        previous, char = name[index - 1], name[index]
        after_separator = previous in "_.$-" and char not in "_.$-"
        camel = previous.islower() and char.isupper()
        if after_separator or camel or (previous.isalpha() != char.isalpha() and char.isalnum()):
            starts.add(index)
    return starts


@functools.lru_cache(maxsize=BUILD_CACHE_SIZE)
def _path_parts(path: str) -> frozenset[str]:
    """Every folder of `path` and its file stem, lower-cased."""
    parts = {part.lower() for part in path.replace("\\", "/").split("/")[:-1]}
    parts.add(path.replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0].lower())
    return frozenset(parts)


def _scope_parts(symbol: Symbol) -> set[str]:
    """The container and every folder and the file stem: what a qualifier's last part can name."""
    parts = set(_path_parts(symbol.path))
    if symbol.container:
        parts.add(symbol.container.lower())
    chain = (symbol.qualified or symbol.name).split(".")
    if len(chain) > 1:
        parts.add(chain[-2].lower())
    return parts


def _accepts(symbol: Symbol, query: _Query) -> bool:
    if query.kinds is not None and symbol.kind not in query.kinds:
        return False
    return not query.qualifiers or _qualified_by(symbol, query.qualifiers)


def _qualified_by(symbol: Symbol, qualifiers: tuple[str, ...]) -> bool:
    """`Config.load`: container chain ends with Config; `pkg.mod.func`: file is pkg/mod(.py|/...)."""
    chain = [part.lower() for part in (symbol.qualified or symbol.name).split(".")[:-1]]
    wanted = [part.lower() for part in qualifiers]
    path = "/" + symbol.path.replace("\\", "/").lower()
    module = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    for split in range(len(wanted) + 1):
        in_path, in_chain = wanted[:split], wanted[split:]
        if in_chain and chain[-len(in_chain) :] != in_chain:
            continue
        if not in_path:
            return True
        target = "/" + "/".join(in_path)
        if module.endswith(target) or target + "/" in path:
            return True
    return False
