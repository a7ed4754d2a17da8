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
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from ..index.snapshot import Snapshot
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


_SHAPES: dict[int, tuple[ParsedFile, _Shape]] = {}
_SHAPES_LOCK = threading.Lock()


def _shape(parsed: ParsedFile) -> _Shape:
    """Cached by identity (the entry holds its ParsedFile, so the id cannot be reused while cached):
    a file's shape changes only with the file, and a similarity query reads every file's."""
    entry = _SHAPES.get(id(parsed))
    if entry is not None and entry[0] is parsed:
        return entry[1]
    bases: dict[str, set[str]] = defaultdict(set)
    for ref in parsed.references:
        if ref.kind == "inherit" and ref.enclosing:
            bases[ref.enclosing].add(ref.name.split(".")[-1])
    members: dict[str, set[str]] = defaultdict(set)
    for symbol in parsed.symbols:
        if symbol.container and _family(symbol.kind) == "callable":
            members[symbol.container].add(symbol.name)
    shape = _Shape({k: frozenset(v) for k, v in bases.items()}, {k: frozenset(v) for k, v in members.items()})
    with _SHAPES_LOCK:
        if len(_SHAPES) >= SHAPE_CACHE_FILES:
            del _SHAPES[next(iter(_SHAPES))]
        _SHAPES[id(parsed)] = (parsed, shape)
    return shape


def structural_siblings(snapshot: Snapshot, seed: Seed, depth: int) -> list[Hit]:
    """Definitions shaped like the seed, best first: same family of kind, then points for a shared
    base class, a shared container, shared member names, the same parameter count, the same folder
    and shared name words (`bufferTime` ~ `bufferCount`, `windowTime`)."""
    family = _family(seed.kind)
    seed_parsed = snapshot.parsed.get(seed.path)
    if family is None or seed_parsed is None or seed.symbol is None:
        return []
    seed_symbol = _symbol(seed_parsed, seed.symbol)
    if seed_symbol is None:
        return []
    bases = _shape(seed_parsed).bases.get(seed.symbol, frozenset())
    members = _shape(seed_parsed).members.get(seed.symbol, frozenset())
    parameters = _parameter_count(seed_symbol.signature)
    words = _name_words(seed.symbol)
    folder = str(PurePosixPath(seed.path).parent)
    scored: list[tuple[float, Symbol]] = []
    for path, parsed in snapshot.parsed.items():
        candidates = [s for s in parsed.symbols if _family(s.kind) == family]
        if not candidates:
            continue
        shape = _shape(parsed)
        for symbol in candidates:
            qualified = symbol.qualified or symbol.name
            if _is_seed(seed, path, qualified) or symbol.name in bases:
                continue  # the seed's own base is what it specialises, not another one of its kind
            score = 0.0
            if bases and bases & shape.bases.get(qualified, frozenset()):
                score += SIBLING_BASE
            if seed_symbol.container is not None and symbol.container == seed_symbol.container \
                    and path == seed.path:
                score += SIBLING_CONTAINER
            if members:
                theirs = shape.members.get(qualified)
                if theirs:
                    score += SIBLING_MEMBERS * len(members & theirs) / len(members | theirs)
            if parameters is not None and family == "callable" and _parameter_count(symbol.signature) == parameters:
                score += SIBLING_PARAMETERS
            if words:
                shared = words & _name_words(qualified)
                score += SIBLING_NAME_WORDS * len(shared) / len(words)
            if score <= 0:
                continue
            if str(PurePosixPath(path).parent) == folder:
                score += SIBLING_FOLDER
            scored.append((score, symbol))
    scored.sort(key=lambda item: (-item[0], item[1].path, item[1].span))
    return [Hit(s.path, s.span, score, s.qualified or s.name, s.kind, s.signature, s.language)
            for score, s in scored[:depth]]


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
