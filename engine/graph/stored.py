"""The settled code graph as flat arrays in a memory-mapped file beside the index, read in place.

A restart used to keep only the centrality (`graph.rank`) and build the edges from every row on the
first graph question or edit: ~7 CPU-s for Django and ~500 MiB more of serving memory (1.6 GiB at 4x
Django), for a graph that had not changed since it was stored. This file holds what the graph's
queries read (who calls, what it calls, impact, siblings, related, name resolution), so a restart or a
CLI process maps it and answers from its pages; nothing is decoded until a query touches it.

What it holds (every array read with `np.frombuffer` from the mapping, `mapped.write_arrays`):
  - nodes: node ids (newline-joined UTF-8, `StoredStrings`) in the graph's node order, a hash table that
    finds one (`_Lookup`), the path each is in (an index into `paths`, -1 for a node only an edge named);
  - edges: successors and predecessors in CSR form, both in the graph's edge order (networkx's: the
    order edges were first added), with each edge's kind; the successor side also says where each edge's
    evidence starts;
  - evidence: one row per distinct contribution of an edge (kind, candidates, the use's span, times
    seen), in the order it arrived;
  - definitions: per node its name, kind, qualified and dotted name, container, language and span (ids
    into one pool of strings), and whether it is top level (what name resolution and hits read);
  - per file (paths sorted): its definitions in order, its import specifiers and the files it imports;
  - the three name indexes (simple name, dotted qualified name, name word -> definitions), keys sorted;
  - which files use each simple name (name -> paths), what an edit that adds or removes a definition reads
    to find the other files whose uses may now resolve differently (delta.py).

The uses in a file (`Reference`s) are not stored: the one query that reads them (whether a call
resolves to its target, for the call sites of one name) decodes those files' rows, which the graph
still holds. An edit is held as an overlay over these arrays (delta.py), a created or deleted file's too; one
that would re-resolve too many other files builds the graph in memory from the rows first, as a deferred graph
did (`CodeGraph._materialize`), then updates it as a cold one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np
import xxhash

from ..model.records import Reference, Span, Symbol
from ..model.strings import StoredStrings

__all__ = ["EVIDENCE_COLUMNS", "GRAPH_FORMAT", "DamagedGraph", "OlderGraph", "StoredGraph", "StringPool", "rank_check",
           "sorted_strings"]

# The layout's version, kept in the file: one written by another layout is refused and built again.
GRAPH_FORMAT = 2  # 2: the files that use each name (`refs`)
# Columns of `symbols`: ids into the string pool (-1: none)
_NAME, _KIND, _QUALIFIED, _CONTAINER, _LANGUAGE, _DOTTED = range(6)
_SYMBOL, _TOP_LEVEL = 1, 2  # bits of `flags`
# Columns of `evidence`: kind, candidates, start line, start col, end line, end col, times seen
EVIDENCE_COLUMNS = 7
# Files whose uses a restart keeps grouped by name after reading them for call sites (a query reads a few).
REFS_CACHED = 64
# Strings a lookup table remembers the position of (emptied when full): one query asks about the same few
# hundred nodes again and again (a definition's file, home and centrality), each a hash and a string read.
LOOKUPS_CACHED = 1 << 14


class DamagedGraph(ValueError):
    """A stored graph whose arrays do not fit together (or of another layout): it is built again."""


class OlderGraph(DamagedGraph):
    """A stored graph of another layout (an index an earlier release wrote): built again, and not damage."""


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _strings(items: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(UTF-8 buffer, starts) for `StoredStrings(buffer, starts, gap=1)`: newline-joined, as the stored
    centrality keeps its node ids (so a graph can tell whether it lists its nodes in the ranking's order)."""
    encoded = [_encoded(item) for item in items]
    starts = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(item) + 1 for item in encoded], out=starts[1:])
    return np.frombuffer(b"\n".join(encoded), dtype=np.uint8).copy(), starts


def _hashed(items: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(sorted 64-bit hashes of the strings' UTF-8, the position of each) for `_Lookup`."""
    hashes = np.fromiter((xxhash.xxh3_64_intdigest(_encoded(item)) for item in items), dtype=np.uint64,
                         count=len(items))
    order = np.argsort(hashes, kind="stable").astype(np.int32)
    return hashes[order], order


def rank_check(scores: np.ndarray) -> int:
    """What tells a ranking from another: a hash of its scores' bytes."""
    return xxhash.xxh3_64_intdigest(np.ascontiguousarray(scores, dtype=np.float64).tobytes())


def sorted_strings(items: Iterable[str]) -> list[str]:
    """`items` in the order bisecting their stored UTF-8 bytes needs."""
    return sorted(items, key=_encoded)


class StringPool:
    """Distinct strings numbered in the order first seen (None is -1)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.items: list[str] = []

    def id(self, text: str | None) -> int:
        if text is None:
            return -1
        found = self.ids.get(text)
        if found is None:
            found = self.ids[text] = len(self.items)
            self.items.append(text)
        return found


def _csr(rows: Iterable[Sequence[int]], count: int) -> tuple[np.ndarray, np.ndarray]:
    """(starts, values) of `count` rows of ints."""
    starts = np.zeros(count + 1, dtype=np.int64)
    values: list[int] = []
    lengths: list[int] = []
    for row in rows:  # the offsets summed once in numpy: a numpy item written per row cost more than the row
        before = len(values)
        values.extend(row)
        lengths.append(len(values) - before)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=starts[1:])
    return starts, np.array(values, dtype=np.int32)


def index_arrays(prefix: str, index: Mapping[str, Any],
                 position: Mapping[str, int]) -> dict[str, np.ndarray]:
    """A name index (key -> node, or the set of them) as sorted keys and CSR node positions."""
    return row_arrays(prefix, {key: [position[found]] if isinstance(found, str) else [position[v] for v in found]
                               for key, found in index.items()})


def row_arrays(prefix: str, rows: Mapping[str, Sequence[int]]) -> dict[str, np.ndarray]:
    """A name index as key -> positions (each row sorted here), as sorted keys and CSR positions."""
    keys = sorted_strings(rows)
    text, starts = _strings(keys)
    hashes, order = _hashed(keys)
    ptr, values = _csr((sorted(rows[key]) for key in keys), len(keys))
    return {f"{prefix}_text": text, f"{prefix}_starts": starts, f"{prefix}_hash": hashes, f"{prefix}_order": order,
            f"{prefix}_ptr": ptr, f"{prefix}_nodes": values}


def string_arrays(prefix: str, items: Sequence[str], *, lookup: bool = False) -> dict[str, np.ndarray]:
    """Stored strings, and with `lookup` the hash table that finds one (`_Lookup`)."""
    text, starts = _strings(items)
    arrays = {f"{prefix}_text": text, f"{prefix}_starts": starts}
    if lookup:
        arrays[f"{prefix}_hash"], arrays[f"{prefix}_order"] = _hashed(items)
    return arrays


def csr_arrays(prefix: str, rows: Iterable[Sequence[int]], count: int) -> dict[str, np.ndarray]:
    ptr, values = _csr(rows, count)
    return {f"{prefix}_ptr": ptr, f"{prefix}_values": values}


class _Lookup:
    """A string's position among stored strings: a binary search of its 64-bit hash over the sorted hashes
    (in numpy), then a read of the string to confirm it (a bisect over the strings themselves read ~16 of
    them per lookup in Python, most of what a mapped graph's queries cost)."""

    def __init__(self, strings: StoredStrings, hashes: np.ndarray, order: np.ndarray, what: str) -> None:
        size = len(strings)
        if not (hashes.dtype == np.uint64 and hashes.shape == (size,) and order.dtype == np.int32
                and order.shape == (size,) and bool((hashes[1:] >= hashes[:-1]).all())
                and (not size or bool((np.bincount(order, minlength=size) == 1).all()))):
            raise ValueError(f"{what} lookup does not fit its strings")
        self._strings, self._hashes, self._order = strings, hashes, order
        self._cached: dict[str, int] = {}

    def find(self, text: object) -> int:
        """The position of `text`, or -1."""
        if not isinstance(text, str):
            return -1
        found = self._cached.get(text)
        if found is not None:
            return found
        key = _encoded(text)
        digest = xxhash.xxh3_64_intdigest(key)
        at, found = int(np.searchsorted(self._hashes, np.uint64(digest))), -1
        while at < self._hashes.size and int(self._hashes[at]) == digest:
            if self._strings.raw(int(self._order[at])) == key:
                found = int(self._order[at])
                break
            at += 1
        self.remember(text, found)
        return found

    def remember(self, text: str, at: int) -> None:
        if len(self._cached) >= LOOKUPS_CACHED:
            self._cached.clear()
        self._cached[text] = at


def _fits_csr(ptr: np.ndarray, values: np.ndarray, rows: int, bound: int) -> bool:
    """Whether `ptr` describes `rows` rows of `values`, each an id below `bound`."""
    return (ptr.dtype == np.int64 and ptr.shape == (rows + 1,) and values.ndim == 1 and int(ptr[0]) == 0
            and int(ptr[-1]) == values.size and bool((ptr[1:] >= ptr[:-1]).all())
            and (not values.size or (int(values.min()) >= 0 and int(values.max()) < bound)))


class StoredGraph:
    """The arrays of a stored graph, checked to fit together, and the lookups the query views use."""

    def __init__(self, arrays: Mapping[str, np.ndarray]) -> None:
        layout = arrays["format"].tolist() if "format" in arrays else None
        if layout is not None and layout != [GRAPH_FORMAT]:
            raise OlderGraph(f"stored graph has layout {layout}, this release reads {GRAPH_FORMAT}")
        try:
            self._open(arrays)
        except (KeyError, ValueError, TypeError, IndexError) as error:
            raise DamagedGraph(f"stored graph does not decode: {type(error).__name__}: {error}") from None

    def _open(self, arrays: Mapping[str, np.ndarray]) -> None:
        self.arrays = arrays  # all of them, for an overlay's edits folded in at the next save (delta.py)
        self.nodes = StoredStrings(arrays["node_text"], arrays["node_starts"], gap=1, what="stored graph nodes")
        self.paths = StoredStrings(arrays["path_text"], arrays["path_starts"], gap=1, what="stored graph paths")
        self.pool = StoredStrings(arrays["pool_text"], arrays["pool_starts"], gap=1, what="stored graph names")
        nodes, paths, pool = len(self.nodes), len(self.paths), len(self.pool)
        self.node_path = arrays["node_path"]
        self.succ_ptr, self.succ, self.succ_kind = arrays["succ_ptr"], arrays["succ_values"], arrays["succ_kind"]
        self.pred_ptr, self.pred, self.pred_kind = arrays["pred_ptr"], arrays["pred_values"], arrays["pred_kind"]
        self.evidence_ptr, self.evidence = arrays["evidence_ptr"], arrays["evidence"]
        self.symbols, self.spans, self.flags = arrays["symbols"], arrays["spans"], arrays["flags"]
        self.files = arrays["path_file"]
        self.rank_position, self.rank_check = arrays["rank_position"], arrays["rank_check"]
        self.file_ptr, self.file_nodes = arrays["file_ptr"], arrays["file_values"]
        self.spec_ptr, self.specs = arrays["spec_ptr"], arrays["spec_values"]
        self.import_ptr, self.imports = arrays["import_ptr"], arrays["import_values"]
        edges = self.succ.size
        if not (self.node_path.dtype == np.int32 and self.node_path.shape == (nodes,)
                and (not nodes or (int(self.node_path.min()) >= -1 and int(self.node_path.max()) < paths))
                and _fits_csr(self.succ_ptr, self.succ, nodes, nodes)
                and _fits_csr(self.pred_ptr, self.pred, nodes, nodes)
                and self.pred.size == edges and self.succ_kind.shape == (edges,) and self.pred_kind.shape == (edges,)
                and self.evidence.ndim == 2 and self.evidence.shape[1] == EVIDENCE_COLUMNS
                and self.evidence_ptr.dtype == np.int64 and self.evidence_ptr.shape == (edges + 1,)
                and int(self.evidence_ptr[0]) == 0 and int(self.evidence_ptr[-1]) == self.evidence.shape[0]
                and bool((self.evidence_ptr[1:] >= self.evidence_ptr[:-1]).all())
                and self.symbols.shape == (nodes, 6) and self.spans.shape == (nodes, 4) and self.flags.shape == (nodes,)
                and (not nodes or (int(self.symbols.min()) >= -1 and int(self.symbols.max()) < pool))
                and self.files.shape == (paths,) and self.rank_position.shape == (nodes,)
                and self.rank_check.dtype == np.uint64 and self.rank_check.shape == (1,)
                and _fits_csr(self.file_ptr, self.file_nodes, paths, nodes)
                and _fits_csr(self.spec_ptr, self.specs, paths, pool)
                and _fits_csr(self.import_ptr, self.imports, paths, paths)):
            raise ValueError("arrays do not fit together")
        self.indexes: dict[str, tuple[StoredStrings, _Lookup, np.ndarray, np.ndarray]] = {}
        for name, bound in (("defs", nodes), ("qualified", nodes), ("words", nodes), ("refs", paths)):
            keys = StoredStrings(arrays[f"{name}_text"], arrays[f"{name}_starts"], gap=1, what=f"stored graph {name}")
            ptr, values = arrays[f"{name}_ptr"], arrays[f"{name}_nodes"]
            if not _fits_csr(ptr, values, len(keys), bound):
                raise ValueError(f"index {name} does not fit together")
            lookup = _Lookup(keys, arrays[f"{name}_hash"], arrays[f"{name}_order"], name)
            self.indexes[name] = (keys, lookup, ptr, values)
        self._nodes = _Lookup(self.nodes, arrays["node_hash"], arrays["node_order"], "node")
        self._paths = _Lookup(self.paths, arrays["path_hash"], arrays["path_order"], "path")

    # --- lookups ----------------------------------------------------------------------------------

    def node(self, name: object) -> int:
        """The node's position, or -1 when it is not in the graph."""
        return self._nodes.find(name)

    def path_id(self, path: object) -> int:
        return self._paths.find(path)

    def ranks(self, scores: np.ndarray) -> bool:
        """Whether `scores` are those of the ranking this graph was stored with (`rank_position` is its)."""
        return int(self.rank_check[0]) == rank_check(scores)

    def rank_positions(self) -> Mapping[str, int]:
        """Node id -> its position in the ranking stored with this graph, by the graph's hash table."""
        return _Positions(self)

    def names(self, positions: Iterable[int]) -> list[str]:
        """The node ids at `positions`; the lookup remembers them, as a query looks up what it was given."""
        nodes, remember = self.nodes, self._nodes.remember
        found = [nodes[at] for at in positions]
        for name, at in zip(found, positions if isinstance(positions, list) else (), strict=False):
            remember(name, at)
        return found

    def row(self, ptr: np.ndarray, values: np.ndarray, at: int) -> np.ndarray:
        return values[int(ptr[at]) : int(ptr[at + 1])]

    def defined(self, name: str) -> np.ndarray:
        """The positions of the nodes defining simple name `name` (the `defs` index's row; empty if none)."""
        _, lookup, ptr, values = self.indexes["defs"]
        at = lookup.find(name)
        return values[:0] if at < 0 else self.row(ptr, values, at)

    @cached_property
    def path_folders(self) -> np.ndarray:
        """Each path's folder as a number (equal numbers: the same folder), made once: resolution compares a
        use's folder with every candidate's, and reading each candidate's path was most of an edit's cost."""
        numbers: dict[str, int] = {}
        return np.array([numbers.setdefault(path.rpartition("/")[0], len(numbers)) for path in self.paths],
                        dtype=np.int32)

    def free_definitions(self, name: str) -> int:
        """How many of the definitions of simple name `name` have no container, read from the arrays: counting
        them over the decoded symbols decoded each of its thousands of definitions (`setUp` at 4x Django) on
        every deletion of a file that defines one."""
        return int(np.count_nonzero(self.symbols[self.defined(name), _CONTAINER] < 0))

    def top_level(self, positions: np.ndarray) -> np.ndarray:
        """Whether each node at `positions` is a top-level definition (`_Home.top_level`)."""
        return (self.flags[positions] & _TOP_LEVEL) != 0

    def dotted(self, position: int) -> str:
        """A definition's dotted qualified name (`_Home.dotted`)."""
        return self.pool[int(self.symbols[position, _DOTTED])]


class _Positions(Mapping[str, int]):
    def __init__(self, stored: StoredGraph) -> None:
        self._stored = stored

    def __getitem__(self, node: str) -> int:
        at = self._stored.node(node)
        found = -1 if at < 0 else int(self._stored.rank_position[at])
        if found < 0:
            raise KeyError(node)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._stored.nodes)

    def __len__(self) -> int:
        return len(self._stored.nodes)


# --- the views a mapped CodeGraph reads through in place of its dicts ---------------------------------


class MappedAdjacency:
    """The part of `Adjacency` the queries read, over the stored CSR arrays."""

    def __init__(self, stored: StoredGraph) -> None:
        self._stored = stored

    def node_id(self, node: str) -> int:
        """The node's position (-1 when it is not in the graph: no edge has it)."""
        return self._stored.node(node)

    def __contains__(self, node: object) -> bool:
        return self._stored.node(node) >= 0

    def __len__(self) -> int:
        return len(self._stored.nodes)

    def path(self, node: str) -> str | None:
        at = self._stored.node(node)
        if at < 0:
            raise KeyError(node)
        path = int(self._stored.node_path[at])
        return None if path < 0 else self._stored.paths[path]

    def successors(self, node: str) -> list[tuple[str, int]]:
        return self._ends(node, outgoing=True)

    def predecessors(self, node: str) -> list[tuple[str, int]]:
        return self._ends(node, outgoing=False)

    def _ends(self, node: str, *, outgoing: bool) -> list[tuple[str, int]]:
        stored = self._stored
        at = stored.node(node)
        if at < 0:
            raise KeyError(node)
        ptr, values, kinds = ((stored.succ_ptr, stored.succ, stored.succ_kind) if outgoing
                              else (stored.pred_ptr, stored.pred, stored.pred_kind))
        start, end = int(ptr[at]), int(ptr[at + 1])
        return list(zip(stored.names(values[start:end].tolist()), kinds[start:end].tolist(), strict=True))

    def number_of_edges(self) -> int:
        return int(self._stored.succ.size)


class MappedEvidence(Mapping[int, Any]):
    """Edge key (`edge_key` of two node positions) -> its evidence, as `CodeGraph._evidence` holds it:
    the packed contribution when it was seen once, else contribution -> times seen, in arrival order."""

    def __init__(self, stored: StoredGraph, pack: Callable[[int, int, tuple[int, int, int, int]], int]) -> None:
        self._stored = stored
        self._pack = pack

    def __getitem__(self, key: int) -> int | dict[int, int]:
        stored = self._stored
        source, target = key >> 32, key & 0xFFFFFFFF
        if not 0 <= source < len(stored.nodes):
            raise KeyError(key)
        start = int(stored.succ_ptr[source])
        found = np.flatnonzero(stored.succ[start : int(stored.succ_ptr[source + 1])] == target)
        if not found.size:
            raise KeyError(key)
        edge = start + int(found[0])
        rows = stored.evidence[int(stored.evidence_ptr[edge]) : int(stored.evidence_ptr[edge + 1])].tolist()
        if not rows:
            raise KeyError(key)
        counted = {self._pack(kind, count, (a, b, c, d)): times for kind, count, a, b, c, d, times in rows}
        if len(counted) == 1:
            ((only, times),) = counted.items()
            if times == 1:
                return only
        return counted

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError("a mapped graph's evidence is looked up, never listed")

    def __len__(self) -> int:
        return int(self._stored.succ.size)


class MappedSymbols(Mapping[str, Symbol]):
    """Node -> its definition, with the fields the graph's hits and resolution read (the name's own span
    is the definition's, and signature and doc are left out: the symbol table serves those)."""

    def __init__(self, stored: StoredGraph) -> None:
        self._stored = stored

    def _at(self, node: str) -> int:
        at = self._stored.node(node)
        if at < 0 or not int(self._stored.flags[at]) & _SYMBOL:
            raise KeyError(node)
        return at

    def __getitem__(self, node: str) -> Symbol:
        at = self._at(node)
        stored = self._stored
        pool = stored.pool
        name, kind, qualified, container, language, _ = stored.symbols[at].tolist()
        path = stored.paths[int(stored.node_path[at])]
        span = Span(*stored.spans[at].tolist())
        return Symbol(pool[name], pool[kind], path, span, span, None if container < 0 else pool[container],
                      pool[qualified], language=None if language < 0 else pool[language])

    def __contains__(self, node: object) -> bool:
        if not isinstance(node, str):
            return False
        at = self._stored.node(node)
        return at >= 0 and bool(int(self._stored.flags[at]) & _SYMBOL)

    def __iter__(self) -> Iterator[str]:
        stored = self._stored
        return iter(stored.names(np.flatnonzero(stored.flags & _SYMBOL).tolist()))

    def __len__(self) -> int:
        return int(np.count_nonzero(self._stored.flags & _SYMBOL))


class MappedHomes(Mapping[str, Any]):
    """Node -> where its definition lives (`make(path, folder, top_level, dotted)`, the graph's `_Home`)."""

    def __init__(self, stored: StoredGraph, make: Callable[[str, str, bool, str], Any]) -> None:
        self._stored = stored
        self._make = make

    def __getitem__(self, node: str) -> Any:
        stored = self._stored
        at = stored.node(node)
        if at < 0 or not int(stored.flags[at]) & _SYMBOL:
            raise KeyError(node)
        path = stored.paths[int(stored.node_path[at])]
        return self._make(path, path.rpartition("/")[0], bool(int(stored.flags[at]) & _TOP_LEVEL),
                          stored.pool[int(stored.symbols[at, _DOTTED])])

    def __iter__(self) -> Iterator[str]:
        return iter(MappedSymbols(self._stored))

    def __len__(self) -> int:
        return len(MappedSymbols(self._stored))


class _PerFile(Mapping[str, Any]):
    """Path -> one row of a per-file CSR array (a file of the graph; others are missing)."""

    def __init__(self, stored: StoredGraph, ptr: np.ndarray, values: np.ndarray,
                 read: Callable[[list[int]], Any]) -> None:
        self._stored = stored
        self._ptr, self._values = ptr, values
        self._read = read

    def __getitem__(self, path: str) -> Any:
        at = self._stored.path_id(path)
        if at < 0 or not int(self._stored.files[at]):
            raise KeyError(path)
        return self._read(self._stored.row(self._ptr, self._values, at).tolist())

    def __iter__(self) -> Iterator[str]:
        stored = self._stored
        return iter([stored.paths[at] for at in np.flatnonzero(stored.files).tolist()])

    def __len__(self) -> int:
        return int(np.count_nonzero(self._stored.files))


def mapped_nodes(stored: StoredGraph) -> Mapping[str, list[str]]:
    """Path -> its definitions' nodes, in the order the graph added them."""
    return _PerFile(stored, stored.file_ptr, stored.file_nodes, stored.names)


def mapped_specs(stored: StoredGraph) -> Mapping[str, tuple[str, ...]]:
    """Path -> its import specifiers, as its ParsedFile lists them."""
    pool = stored.pool
    return _PerFile(stored, stored.spec_ptr, stored.specs, lambda ids: tuple(pool[at] for at in ids))


def mapped_imports(stored: StoredGraph) -> Mapping[str, frozenset[str]]:
    """Path -> the files its imports resolved to."""
    paths = stored.paths
    return _PerFile(stored, stored.import_ptr, stored.imports, lambda ids: frozenset(paths[at] for at in ids))


class MappedNames(Mapping[str, Any]):
    """A name index of the graph (`defs`, `qualified`, `words`: key -> its one node, or a frozenset; `refs`:
    name -> the one path that uses it, or a frozenset)."""

    def __init__(self, stored: StoredGraph, name: str) -> None:
        self._stored = stored
        self._keys, self._lookup, self._ptr, self._values = stored.indexes[name]
        paths = stored.paths
        self._read: Callable[[list[int]], list[str]] = (
            (lambda ids: [paths[at] for at in ids]) if name == "refs" else stored.names)

    def __getitem__(self, key: str) -> str | frozenset[str]:
        at = self._lookup.find(key)
        if at < 0:
            raise KeyError(key)
        found = self._read(self._stored.row(self._ptr, self._values, at).tolist())
        return found[0] if len(found) == 1 else frozenset(found)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


class ParsedRefs(Mapping[str, dict[str, list[Reference]]]):
    """Path -> its uses grouped by last name, from the file's row (`CodeGraph._refs` of a built graph);
    the last `REFS_CACHED` files read are kept, as call sites ask about one file many times."""

    def __init__(self, parsed: Mapping[str, Any], last_name: Callable[[str], str]) -> None:
        self._parsed = parsed
        self._last_name = last_name
        self._cached: dict[str, dict[str, list[Reference]]] = {}

    def __getitem__(self, path: str) -> dict[str, list[Reference]]:
        found = self._cached.pop(path, None)
        if found is None:
            found = {}
            for ref in self._parsed[path].references:
                found.setdefault(self._last_name(ref.name), []).append(ref)
            if len(self._cached) >= REFS_CACHED:
                del self._cached[next(iter(self._cached))]
        self._cached[path] = found
        return found

    def __contains__(self, path: object) -> bool:
        return path in self._parsed  # without decoding the row (an edit's `pop` asks before it reads)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parsed)

    def __len__(self) -> int:
        return len(self._parsed)
