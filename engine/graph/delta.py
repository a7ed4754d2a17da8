"""Edits to a mapped graph, kept as a small overlay over its stored arrays (issue 17).

A graph opened from its stored arrays (`CodeGraph.opened`) used to build itself in memory from every row
on the first edit: ~7 CPU-s and ~0.5 GiB of serving memory at Django's size (several times that at 4x),
for an edit that changed one file's edges. Most edits change a function's body, not which definitions a
file has; then no other file's references can resolve differently (resolution reads the name indexes, the
definitions' homes, the file set and the user's own imports, none of which such an edit moves), and every
edge the edit changes starts at a node of the edited file (a contribution's source is always a node of
the file it came from). So the overlay holds, per edited file, its nodes' outgoing edges and their
evidence, its symbols, import specifiers, imports and uses; queries read the stored arrays with the
edited files' stored edges left out and the overlay's put in their place.

An edit that adds, removes or renames a definition used to build the whole graph from the rows (5 CPU-s
at Django's size). Now the overlay also holds nodes: an added definition is numbered after the stored
nodes (last in node order, as in memory), a removed one is left out wherever the stored arrays name it,
and the name indexes hold the keys such edits changed as sets (`OverlaidIndex`). Which other files' uses
may now resolve differently is what `CodeGraph._mark_name` says, read over a stored index of the files
that use each name (`DeltaReferencers`, the stored `refs`); those files are resolved again whole, over the
overlay. Creating or deleting a file used to build the graph too (5 CPU-s at Django's size, 17 at 4x): now a
created file's node and definitions are added so, a deleted one's removed so, its path joins or leaves the
file set and the path numbers (`DeltaPaths`: a created path is numbered after the stored ones), and the files
whose imports it changes (of those whose specifiers could name it, `DeltaImporters` over the stored ones:
`_mark_importers`' rule), or whose uses of its names may resolve differently, are resolved again. Past
`OVERLAY_MAX_RERESOLVED` such files an edit builds the graph in memory (`CodeGraph`), and so does one of a
C-family source file that adds or removes definitions (the headers it implements are linked again).

Edge order follows what an in-memory edit does: an edge that is kept stays where it was, a new edge goes
last. A ranking of the overlaid graph (`overlay_edges`: each edge weighed from its evidence, stored or held)
replaces the stored one when the graph is ranked again (a server does so behind a burst of edits); until
then a query reads the last ranking, as for a graph in memory. `compacted` writes the stored arrays with the
overlay folded in, for the next save, so a restart maps the edited graph: nodes edits removed are left out
there and the others numbered again (0.9 CPU-s at Django's size after 20 definitions added, against ~0.1 for
body edits alone); a deleted file's path stays, as no file's, until a build numbers the paths afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from functools import cached_property
from typing import Any, TypeVar

import numpy as np

from .stored import (
    _SYMBOL,
    _TOP_LEVEL,
    MappedAdjacency,
    StoredGraph,
    StringPool,
    _strings,
    rank_check,
    row_arrays,
    string_arrays,
)

__all__ = ["DeltaAdjacency", "DeltaEvidence", "DeltaImporters", "DeltaPaths", "DeltaReferencers", "Overlaid",
           "OverlaidIndex", "compacted", "overlay_edges"]

K = TypeVar("K")
V = TypeVar("V")
_TARGET_BITS = 32
_TARGET_MASK = (1 << _TARGET_BITS) - 1


class Overlaid(MutableMapping[K, V]):
    """A stored mapping with some keys' values replaced, added or removed (an edited file's rows, the
    definitions an edit added or removed): reads see the changes, writes go to them."""

    def __init__(self, base: Mapping[K, V]) -> None:
        self.base = base
        self.changes: dict[K, V] = {}
        self.removed: set[K] = set()  # keys of `base` removed (and not set again)

    def __getitem__(self, key: K) -> V:
        if key in self.changes:
            return self.changes[key]
        if key in self.removed:
            raise KeyError(key)
        return self.base[key]

    def __contains__(self, key: object) -> bool:
        return key in self.changes or (key not in self.removed and key in self.base)

    def __setitem__(self, key: K, value: V) -> None:
        self.changes[key] = value
        self.removed.discard(key)

    def __delitem__(self, key: K) -> None:
        if key not in self:
            raise KeyError(key)
        self.changes.pop(key, None)
        if key in self.base:
            self.removed.add(key)

    def __iter__(self) -> Iterator[K]:
        removed = self.removed
        yield from (key for key in self.base if key not in removed)
        yield from (key for key in self.changes if key not in self.base)

    def __len__(self) -> int:
        return len(self.base) - len(self.removed) + sum(1 for key in self.changes if key not in self.base)


class OverlaidIndex(Mapping[str, Any]):
    """A stored name index (key -> its one value, or a frozenset of them) with what edits added under some keys
    and removed from them held beside it (`add`, `discard`): the definitions an edit added or removed, under
    their names and words. A key's stored row is read only when the key is: a common word's row at 4x Django
    is thousands of nodes, and a deleted test file read it for each of its methods' words (a third of such a
    deletion's CPU)."""

    def __init__(self, base: Mapping[str, Any]) -> None:
        self.base = base
        self.added: dict[str, set[str]] = {}  # key -> values edits put under it
        self.removed: dict[str, set[str]] = {}  # key -> stored values edits took from it (a node edits removed)

    def changed(self, key: str) -> bool:
        """Whether edits added or removed values under `key`."""
        return key in self.added or key in self.removed

    def add(self, key: str, value: str) -> None:
        self.added.setdefault(key, set()).add(value)

    def discard(self, key: str, value: str) -> None:
        added = self.added.get(key)
        if added is not None and value in added:  # put there by an edit (any stored copy is removed already)
            added.discard(value)
            if not added:
                del self.added[key]
        else:
            self.removed.setdefault(key, set()).add(value)

    def _held(self, key: str) -> set[str] | None:
        """The values under a key edits changed (None for a key they did not)."""
        if not self.changed(key):
            return None
        stored = self.base.get(key)
        found = set() if stored is None else {stored} if isinstance(stored, str) else set(stored)
        return (found - self.removed.get(key, set())) | self.added.get(key, set())

    def __getitem__(self, key: str) -> Any:
        found = self._held(key)
        if found is None:
            return self.base[key]
        if not found:
            raise KeyError(key)
        return next(iter(found)) if len(found) == 1 else frozenset(found)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        found = self._held(key)
        return bool(found) if found is not None else key in self.base

    def __iter__(self) -> Iterator[str]:
        yield from (key for key in self.base if not self.changed(key) or self._held(key))
        yield from (key for key in self.added if key not in self.base and self._held(key))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class DeltaPaths:
    """The stored graph's path numbers with the paths edits created numbered after the stored ones, in the order
    created (what an overlaid edit's resolution compares candidates' homes with, `_stored_candidates`, and what
    the next save writes: a created path is appended to the stored ones, a deleted one stays, as no file)."""

    def __init__(self, stored: StoredGraph) -> None:
        self._stored = stored
        self.added: dict[str, int] = {}  # created path -> its number (>= the stored count)
        self._added_folders: list[int] = []  # number - stored count -> its folder's number

    def id(self, path: str) -> int:
        """The path's number, or -1 for a path the graph never had."""
        at = self._stored.path_id(path)
        return at if at >= 0 else self.added.get(path, -1)

    def add(self, path: str) -> None:
        """A created file's path, numbered if it is new to the graph (a deleted one keeps its number)."""
        if self.id(path) < 0:
            self.added[path] = len(self._stored.paths) + len(self.added)
            folder = path.rpartition("/")[0]
            self._added_folders.append(self._folders.setdefault(folder, len(self._folders)))

    def folder(self, at: int) -> int:
        """The number of path `at`'s folder (equal numbers: the same folder, as `StoredGraph.path_folders`)."""
        size = len(self._stored.paths)
        return int(self._stored.path_folders[at]) if at < size else self._added_folders[at - size]

    @cached_property
    def _folders(self) -> dict[str, int]:  # folder -> its number, the stored ones' as `path_folders` numbers them
        return dict(zip((path.rpartition("/")[0] for path in self._stored.paths),
                        self._stored.path_folders.tolist(), strict=True))


class DeltaImporters(Mapping[str, Any]):
    """Spec key -> the files whose import specifiers have it (`CodeGraph._importers`' shape: one path, or a
    frozenset), over the stored specifiers with each edited file's in place of its stored ones: whose imports
    a created or deleted file may now resolve differently (`CodeGraph._mark_importers`' rule). The stored
    specifiers' keys are read at `prepare` (a server's warm-up) or on the first look-up (5,055 distinct
    specifiers at Django's size: 33 CPU-ms)."""

    def __init__(self, stored: StoredGraph, keys_of: Callable[[str], set[str]]) -> None:
        self._stored = stored
        self._keys_of = keys_of
        self._edited: dict[str, frozenset[str]] = {}  # edited path -> its specifiers' keys now (none: deleted)

    def set(self, path: str, specs: Sequence[str]) -> None:
        """An edited file's specifiers now (none for a deleted file), in place of its stored ones."""
        self._edited[path] = frozenset(key for spec in specs for key in self._keys_of(spec))

    @cached_property
    def _by_key(self) -> dict[str, list[int]]:  # key -> the pool ids of the stored specifiers that have it
        pool = self._stored.pool
        found: dict[str, list[int]] = {}
        for at in np.unique(self._stored.specs).tolist():
            for key in self._keys_of(pool[at]):
                found.setdefault(key, []).append(at)
        return found

    def prepare(self) -> None:
        """Read the stored specifiers' keys now (`CodeGraph.prepare_edits`), not on the first look-up."""
        _ = self._by_key, self._spec_path

    @cached_property
    def _spec_path(self) -> np.ndarray:  # per stored specifier, the path it is in
        return np.repeat(np.arange(len(self._stored.paths), dtype=np.int32), np.diff(self._stored.spec_ptr))

    def __getitem__(self, key: str) -> Any:
        stored = self._stored
        found: set[str] = set()
        ids = self._by_key.get(key)
        if ids:
            wanted = np.zeros(len(stored.pool), dtype=bool)
            wanted[ids] = True
            found = {stored.paths[at] for at in np.unique(self._spec_path[wanted[stored.specs]]).tolist()}
        return _edited_paths(found, self._edited, key)

    def __iter__(self) -> Iterator[str]:
        raise NotImplementedError("a mapped graph's importers are looked up by key, never listed")

    def __len__(self) -> int:
        return len(self._by_key)


class DeltaReferencers(Mapping[str, Any]):
    """Simple name -> the files that use it (`CodeGraph._referencers`' shape: one path, or a frozenset): the
    stored index (`refs`) with each edited file's uses in place of its stored ones."""

    def __init__(self, base: Mapping[str, Any]) -> None:
        self.base = base
        self.uses: dict[str, frozenset[str]] = {}  # edited path -> the names it uses now

    def __getitem__(self, name: str) -> Any:
        stored = self.base.get(name)
        found = set() if stored is None else {stored} if isinstance(stored, str) else set(stored)
        return _edited_paths(found, self.uses, name)

    def __iter__(self) -> Iterator[str]:
        raise NotImplementedError("a mapped graph's uses are looked up by name, never listed")

    def __len__(self) -> int:
        return len(self.base)

    def rows(self, stored: StoredGraph, paths: DeltaPaths) -> dict[str, list[int]]:
        """Name -> the numbers of the paths that use it, the edits folded in (for the next save)."""
        keys, _, ptr, values = stored.indexes["refs"]
        edited = np.zeros(len(stored.paths), dtype=bool)
        edited[[at for at in map(paths.id, self.uses) if at < len(stored.paths)]] = True
        key_of = np.repeat(np.arange(len(keys)), np.diff(ptr))
        keep = ~edited[values]
        counts = np.bincount(key_of[keep], minlength=len(keys))
        kept, starts = values[keep], np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        rows = {name: kept[starts[at] : starts[at + 1]].tolist()
                for at, name in enumerate(keys) if counts[at]}
        for path, names in self.uses.items():
            at = paths.id(path)
            for name in names:
                rows.setdefault(name, []).append(at)
        return rows


def _edited_paths(found: set[str], edited: Mapping[str, frozenset[str]], key: str) -> Any:
    """The stored paths under `key` with each edited path's own keys deciding for it, in the in-memory
    index's shape (one path, or a frozenset); KeyError when none is left."""
    for path, keys in edited.items():
        if key in keys:
            found.add(path)
        else:
            found.discard(path)
    if not found:
        raise KeyError(key)
    return next(iter(found)) if len(found) == 1 else frozenset(found)


class DeltaAdjacency(MappedAdjacency):
    """The stored adjacency with the outgoing edges of some nodes (those of edited files) held in memory, and
    the nodes edits added (numbered after the stored ones, in the order added) or removed."""

    def __init__(self, stored: StoredGraph) -> None:
        super().__init__(stored)
        # source position -> target position -> edge kind, in edge order: the edges of an owned node
        self.owned: dict[int, dict[int, int]] = {}
        # target position -> owned sources whose edge to it comes after the stored ones (not stored, or
        # removed and added again), in the order added
        self._later: dict[int, dict[int, None]] = {}
        self._size = len(stored.nodes)
        self.added: dict[str, int] = {}  # node -> its position (>= the stored count), while it is in the graph
        self._added_nodes: list[str] = []  # position - stored count -> node (a removed one's too)
        self._added_paths: list[str] = []
        self.removed: set[int] = set()  # stored positions of nodes edits removed

    def _at(self, node: object) -> int:
        at = self.added.get(node) if isinstance(node, str) else None
        if at is not None:
            return at
        at = self._stored.node(node)
        return -1 if at in self.removed else at

    def _names(self, positions: list[int]) -> list[str]:
        size = self._size
        if not self._added_nodes or all(at < size for at in positions):
            return self._stored.names(positions)
        return [self._added_nodes[at - size] if at >= size else self._stored.names([at])[0] for at in positions]

    @property
    def added_count(self) -> int:
        """Positions edits gave out after the stored nodes (a node added then removed keeps its own)."""
        return len(self._added_nodes)

    def name_at(self, at: int) -> str | None:
        """The node at position `at`, or None when the graph no longer has it."""
        if at in self.removed:
            return None
        if at >= self._size:
            node = self._added_nodes[at - self._size]
            return node if self.added.get(node) == at else None
        return self._stored.names([at])[0]

    @property
    def added_nodes(self) -> list[str]:
        """The node at each position edits gave out, in order (one removed since, too)."""
        return self._added_nodes

    @property
    def added_paths(self) -> list[str]:
        """The path of each position edits gave out, in order (a created file's node among them)."""
        return self._added_paths

    @property
    def changes_nodes(self) -> bool:
        """Whether edits added or removed nodes (the stored node arrays no longer list the graph's)."""
        return bool(self._added_nodes or self.removed)

    def add_node(self, node: str, path: str) -> None:
        """A definition an edit added: last in node order (as in memory, a re-added node too), no edges yet."""
        at = self._size + len(self._added_nodes)
        self._added_nodes.append(node)
        self._added_paths.append(path)
        self.added[node] = at
        self.owned[at] = {}

    def remove_node(self, node: str) -> None:
        """A definition an edit removed; its edges are gone already (its file's flush, and its users')."""
        at = self._at(node)
        if at >= self._size:
            del self.added[node]
            del self.owned[at]
        elif at >= 0:  # still owned, with no edge: a stored predecessor list naming it skips it
            self.removed.add(at)
            self.owned[at] = {}
        self._later.pop(at, None)

    def own(self, source: int) -> list[int]:
        """Hold `source`'s outgoing edges in memory from now on, as stored; the keys of those edges."""
        if source in self.owned:
            return []
        stored = self._stored
        start, end = int(stored.succ_ptr[source]), int(stored.succ_ptr[source + 1])
        targets = stored.succ[start:end].tolist()
        self.owned[source] = dict(zip(targets, stored.succ_kind[start:end].tolist(), strict=True))
        return [source << _TARGET_BITS | target for target in targets]

    def ids_of(self, nodes: Sequence[str]) -> list[int]:
        """The positions of nodes that are in the graph (KeyError for one that is not)."""
        found = [self._at(node) for node in nodes]
        if any(at < 0 for at in found):
            raise KeyError(next(node for node, at in zip(nodes, found, strict=True) if at < 0))
        return found

    def node_id(self, node: str) -> int:
        return self._at(node)

    def __contains__(self, node: object) -> bool:
        return self._at(node) >= 0

    def __len__(self) -> int:
        return self._size - len(self.removed) + len(self.added)

    def path(self, node: str) -> str | None:
        at = self._at(node)
        if at >= self._size:
            return self._added_paths[at - self._size]
        if at < 0:
            raise KeyError(node)
        return super().path(node)

    def set_edge(self, key: int, data: tuple[int, float]) -> None:
        """Add or update an edge of an owned node (its weight is not kept: `overlay_edges` weighs it from its evidence).
        A new edge, or a stored one removed and added again, goes after the stored ones, as in memory."""
        source, target = key >> _TARGET_BITS, key & _TARGET_MASK
        ends = self.owned[source]
        if target not in ends:
            self._later.setdefault(target, {})[source] = None
        ends[target] = data[0]

    def remove_edge(self, key: int) -> None:
        source, target = key >> _TARGET_BITS, key & _TARGET_MASK
        ends = self.owned.get(source)
        if ends is None or ends.pop(target, None) is None:
            return
        later = self._later.get(target)
        if later is not None and source in later:
            del later[source]
            if not later:
                del self._later[target]

    def _ends(self, node: str, *, outgoing: bool) -> list[tuple[str, int]]:
        stored = self._stored
        at = self._at(node)
        if at < 0:
            raise KeyError(node)
        if outgoing:
            if at not in self.owned:
                return super()._ends(node, outgoing=True)
            ends = self.owned[at]
            return list(zip(self._names(list(ends)), ends.values(), strict=True))
        found: list[tuple[int, int]] = []
        later = self._later.get(at, {})
        if at < self._size:  # an added node's edges all came later
            start, end = int(stored.pred_ptr[at]), int(stored.pred_ptr[at + 1])
            for source, kind in zip(stored.pred[start:end].tolist(), stored.pred_kind[start:end].tolist(),
                                    strict=True):
                held = self.owned.get(source)
                if held is None:
                    found.append((source, kind))
                elif at in held and source not in later:
                    found.append((source, held[at]))
        found += [(source, self.owned[source][at]) for source in later]
        return list(zip(self._names([source for source, _ in found]), [kind for _, kind in found], strict=True))

    def number_of_edges(self) -> int:
        stored = self._stored
        dropped = sum(int(stored.succ_ptr[at + 1] - stored.succ_ptr[at]) for at in self.owned if at < self._size)
        return int(stored.succ.size) - dropped + sum(len(ends) for ends in self.owned.values())


class DeltaEvidence(MutableMapping[int, Any]):
    """The stored evidence with that of owned nodes' edges held in memory (`CodeGraph._evidence`'s shape)."""

    def __init__(self, stored: Mapping[int, Any], adjacency: DeltaAdjacency) -> None:
        self._stored = stored
        self._owned = adjacency.owned
        self.held: dict[int, Any] = {}

    def __getitem__(self, key: int) -> Any:
        if key >> _TARGET_BITS in self._owned:
            return self.held[key]
        return self._stored[key]

    def __setitem__(self, key: int, value: Any) -> None:
        assert key >> _TARGET_BITS in self._owned, "only an edited file's edges change"
        self.held[key] = value

    def __delitem__(self, key: int) -> None:
        del self.held[key]

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError("a mapped graph's evidence is looked up, never listed")

    def __len__(self) -> int:
        return len(self._stored)


def _spliced(ptr: np.ndarray, columns: Sequence[np.ndarray], rows: Mapping[int, Sequence[Sequence[Any]]]
             ) -> tuple[np.ndarray, list[np.ndarray]]:
    """A CSR array (`ptr` over parallel `columns`) with some rows replaced: row -> its new columns."""
    pieces: list[list[np.ndarray]] = [[] for _ in columns]
    lengths = np.diff(ptr)
    at = 0
    for row in sorted(rows):
        start, end = int(ptr[at]), int(ptr[row])
        for column, piece, new in zip(columns, pieces, rows[row], strict=True):
            piece.append(column[start:end])
            piece.append(np.asarray(new, dtype=column.dtype).reshape((-1, *column.shape[1:])))
        lengths[row] = len(rows[row][0])
        at = row + 1
    for column, piece in zip(columns, pieces, strict=True):
        piece.append(column[int(ptr[at]) :])
    starts = np.zeros(ptr.size, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    return starts, [np.concatenate(piece) for piece in pieces]


def compacted(stored: StoredGraph, adjacency: DeltaAdjacency, evidence: DeltaEvidence, paths: DeltaPaths,
              files: Mapping[str, tuple[Mapping[str, Any], tuple[str, ...], frozenset[str]] | None],
              symbols: Mapping[str, Any], homes: Mapping[str, Any], referencers: DeltaReferencers,
              indexes: Mapping[str, OverlaidIndex], unpack: Any,
              ranked: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The stored arrays with the overlay folded in (what `CodeGraph.stored_arrays` writes at the next save).
    `ranked`: the scores of a ranking of the overlaid graph (`overlay_edges`), which numbers the nodes as this
    does, and is stored with it; None keeps the stored ranking's places.

    `files`: edited path -> (its nodes -> symbols in order, its import specifiers, its imported paths), or None
    for a deleted file (its path stays, as no file's: a build numbers the paths afresh); a created one's path is
    appended to the stored paths (`paths`);
    `indexes`: the overlaid name indexes by their stored names; `unpack` turns a packed contribution into
    (kind, count, span). The arrays are first made over the stored nodes and those edits added (numbered as
    the overlay numbers them), then the nodes edits removed are left out and the rest numbered again in
    order (`_renumbered`). The ranking stays the stored one: an added node has no place in it.
    """
    arrays = dict(stored.arrays) | row_arrays("refs", referencers.rows(stored, paths))
    size, extra = len(stored.nodes), adjacency.added_count
    owned = adjacency.owned
    if paths.added:
        arrays |= _with_paths(stored, list(paths.added), arrays)

    def grown(ptr: np.ndarray) -> np.ndarray:  # a node-indexed CSR pointer with the added nodes' rows, empty
        return np.concatenate([ptr, np.full(extra, ptr[-1], dtype=ptr.dtype)])

    evidence_rows: dict[int, list[list[Any]]] = {}
    succ_rows: dict[int, list[list[Any]]] = {}
    for source, ends in owned.items():
        rows: list[tuple[int, ...]] = []
        lengths: list[int] = []
        for target in ends:
            seen = evidence.held.get(source << _TARGET_BITS | target)
            counted = () if seen is None else ((seen, 1),) if isinstance(seen, int) else seen.items()
            for contribution, times in counted:
                kind, count, span = unpack(contribution)
                rows.append((kind, count, *span, times))
            lengths.append(len(counted))
        succ_rows[source] = [list(ends), list(ends.values()), lengths]
        evidence_rows[source] = [rows]
    stored_counts = np.diff(stored.evidence_ptr)
    succ_ptr, (succ, succ_kind, counts) = _spliced(grown(stored.succ_ptr),
                                                   [stored.succ, stored.succ_kind, stored_counts], succ_rows)
    by_node = grown(stored.evidence_ptr[stored.succ_ptr])
    _, (rows_out,) = _spliced(by_node, [stored.evidence], evidence_rows)
    evidence_ptr = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=evidence_ptr[1:])
    arrays |= {"succ_ptr": succ_ptr, "succ_values": succ, "succ_kind": succ_kind, "evidence_ptr": evidence_ptr,
               "evidence": rows_out}
    targets = {target for source in owned
               for target in [*(stored.row(stored.succ_ptr, stored.succ, source).tolist() if source < size else ()),
                              *owned[source]]}
    pred_rows: dict[int, list[list[Any]]] = {}
    for target in sorted(targets | adjacency.removed):
        name = adjacency.name_at(target)
        sources = adjacency.predecessors(name) if name is not None else []
        pred_rows[target] = [adjacency.ids_of([node for node, _ in sources]), [kind for _, kind in sources]]
    pred_ptr, (pred, pred_kind) = _spliced(grown(stored.pred_ptr), [stored.pred, stored.pred_kind], pred_rows)
    arrays |= {"pred_ptr": pred_ptr, "pred_values": pred, "pred_kind": pred_kind}
    # strings the edited files brought, after the stored pool's (a few per edit; a build numbers them afresh)
    pool = StringPool()
    base = len(stored.pool)

    def pooled(text: str | None) -> int:
        return -1 if text is None else base + pool.id(text)

    symbol_rows = np.concatenate([arrays["symbols"], np.full((extra, 6), -1, dtype=arrays["symbols"].dtype)])
    span_rows = np.concatenate([arrays["spans"], np.zeros((extra, 4), dtype=arrays["spans"].dtype)])
    flags = np.concatenate([arrays["flags"], np.zeros(extra, dtype=arrays["flags"].dtype)])
    node_path = np.concatenate([arrays["node_path"], np.array([paths.id(path) for path in adjacency.added_paths],
                                                              dtype=arrays["node_path"].dtype)])
    file_rows: dict[int, list[list[int]]] = {}
    spec_rows: dict[int, list[list[int]]] = {}
    import_rows: dict[int, list[list[int]]] = {}
    path_file = arrays["path_file"].copy()
    for path, row in files.items():
        at = paths.id(path)
        path_file[at] = row is not None
        nodes, specs, imported = row if row is not None else ({}, (), frozenset())
        for node in nodes:
            where, symbol, home = adjacency.node_id(node), symbols[node], homes[node]
            symbol_rows[where] = (pooled(symbol.name), pooled(symbol.kind), pooled(symbol.qualified),
                                  pooled(symbol.container), pooled(symbol.language), pooled(home.dotted))
            span_rows[where] = (symbol.span.start_line, symbol.span.start_col, symbol.span.end_line,
                                symbol.span.end_col)
            flags[where] = _SYMBOL | (_TOP_LEVEL if home.top_level else 0)
            node_path[where] = at
        file_rows[at] = [adjacency.ids_of(list(nodes))]
        spec_rows[at] = [[pooled(spec) for spec in specs]]
        import_rows[at] = [sorted(paths.id(other) for other in imported)]
    for prefix, rows_of in (("file", file_rows), ("spec", spec_rows), ("import", import_rows)):
        ptr, (values,) = _spliced(arrays[f"{prefix}_ptr"], [arrays[f"{prefix}_values"]], rows_of)
        arrays |= {f"{prefix}_ptr": ptr, f"{prefix}_values": values}
    arrays |= {"symbols": symbol_rows, "spans": span_rows, "flags": flags, "node_path": node_path,
               "path_file": path_file}
    if pool.items:  # appended to the stored pool's newline-joined text, its starts continued
        text, starts = _strings(pool.items)
        joint = np.frombuffer(b"\n", dtype=np.uint8) if base else np.zeros(0, dtype=np.uint8)
        arrays["pool_text"] = np.concatenate([arrays["pool_text"], joint, text])
        arrays["pool_starts"] = np.concatenate([arrays["pool_starts"], arrays["pool_starts"][-1] + starts[1:]])
    if adjacency.changes_nodes:
        arrays = _renumbered(stored, adjacency, indexes, arrays)
    if ranked is not None:  # the ranking of the overlaid graph itself: it numbers the nodes as they are here
        arrays["rank_position"] = np.arange(ranked.size, dtype=np.int32)
        arrays["rank_check"] = np.array([rank_check(ranked)], dtype=np.uint64)
    return arrays


def _with_paths(stored: StoredGraph, added: list[str], arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The path arrays with the paths edits created appended (no file's yet: each has an empty row, which the
    created files' rows then replace)."""
    grown = {prefix: np.concatenate([arrays[f"{prefix}_ptr"], np.full(len(added), arrays[f"{prefix}_ptr"][-1])])
             for prefix in ("file", "spec", "import")}
    no_file = np.zeros(len(added), dtype=arrays["path_file"].dtype)
    return (string_arrays("path", [*stored.paths, *added], lookup=True)
            | {f"{prefix}_ptr": ptr for prefix, ptr in grown.items()}
            | {"path_file": np.concatenate([arrays["path_file"], no_file])})


def _renumbered(stored: StoredGraph, adjacency: DeltaAdjacency, indexes: Mapping[str, OverlaidIndex],
                arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """`arrays` made over the stored and added node numbers, with the nodes no longer in the graph left out and
    the others numbered again in order (stored ones first, then those edits added, as the overlay has them)."""
    size, extra = len(stored.nodes), adjacency.added_count
    keep = np.zeros(size + extra, dtype=bool)
    keep[:size] = True
    keep[list(adjacency.removed)] = False
    keep[list(adjacency.added.values())] = True
    new_of = np.cumsum(keep) - 1
    new_of[~keep] = -1

    def renumbered(values: np.ndarray) -> np.ndarray:
        found = new_of[values]
        if found.size and int(found.min()) < 0:
            raise AssertionError("an edge or an index still names a node the graph no longer has")
        return found.astype(np.int32)

    for side in ("succ", "pred"):  # a left-out node has no edge left (its file's flush, its users')
        lengths = np.diff(arrays[f"{side}_ptr"])
        if lengths[~keep].any():
            raise AssertionError("a node the graph no longer has keeps edges")
        starts = np.zeros(int(keep.sum()) + 1, dtype=np.int64)
        np.cumsum(lengths[keep], out=starts[1:])
        arrays[f"{side}_ptr"] = starts
        arrays[f"{side}_values"] = renumbered(arrays[f"{side}_values"])
    arrays["file_values"] = renumbered(arrays["file_values"])
    for column in ("symbols", "spans", "flags", "node_path"):
        arrays[column] = arrays[column][keep]
    # an added node has no place in the stored ranking, unless it was removed and added again (a file deleted and
    # created again): then it keeps its place, as the ranking it is read with knows it by its name
    again = [int(stored.rank_position[at]) if (at := stored.node(node)) >= 0 else -1 for node in adjacency.added_nodes]
    arrays["rank_position"] = np.concatenate([stored.rank_position, np.array(again, dtype=np.int32)])[keep]
    names = [*(node for at, node in enumerate(stored.nodes) if keep[at]),
             *(node for node, at in sorted(adjacency.added.items(), key=lambda item: item[1]))]
    arrays |= string_arrays("node", names, lookup=True)
    for name, index in indexes.items():
        keys, lookup, ptr, values = stored.indexes[name]
        mapped = new_of[values]
        rows: dict[str, list[int]] = {}
        for at, key in enumerate(keys):
            if not index.changed(key):
                rows[key] = mapped[int(ptr[at]) : int(ptr[at + 1])].tolist()
        for key in index.added.keys() | index.removed.keys():
            at = lookup.find(key)
            gone = {stored.node(node) for node in index.removed.get(key, ())}
            kept = [] if at < 0 else [where for where in values[int(ptr[at]) : int(ptr[at + 1])].tolist()
                                      if where not in gone]
            row = [int(new_of[where]) for where in [*kept, *adjacency.ids_of(sorted(index.added.get(key, ())))]]
            if row:
                rows[key] = row
        if any(at < 0 for row in rows.values() for at in row):
            raise AssertionError(f"index {name} names a node the graph no longer has")
        arrays |= row_arrays(name, rows)
    return arrays


# the stored evidence's columns (`graph._evidence_arrays`): kind, count, four span fields, times seen
_COUNT_COLUMN, _TIMES_COLUMN = 1, 6


def overlay_edges(stored: StoredGraph, adjacency: DeltaAdjacency, held: Mapping[int, Any],
                  edge_data: Callable[[Any], tuple[int, float]]) -> tuple[Sequence[str], Mapping[str, int],
                                                                            np.ndarray, np.ndarray, np.ndarray]:
    """The nodes of a mapped graph with edits held over it, their positions, and its edges as (source, target,
    weight) arrays sorted by source: what `Rank.ranked` ranks, as `Adjacency.arrays` gives them for a graph in
    memory. The nodes are numbered as `compacted` numbers them (the stored ones edits kept, in order, then those
    edits added, in the order added), so the ranking is the one the next save stores with the graph.

    An edge's weight is what the in-memory flush gives it (`edge_data` of its evidence): over the stored
    evidence for the stored nodes' edges, and the held evidence (`DeltaEvidence.held`) for the edited ones."""
    size = len(stored.nodes)
    keep = np.ones(size, dtype=bool)
    keep[np.fromiter(adjacency.removed, dtype=np.int64, count=len(adjacency.removed))] = False
    live = np.cumsum(keep, dtype=np.int64) - 1
    live[~keep] = -1
    kept = int(keep.sum())
    added = sorted(adjacency.added.items(), key=lambda item: item[1])
    added_live = {at: kept + number for number, (_, at) in enumerate(added)}
    plain = keep.copy()
    plain[[source for source in adjacency.owned if source < size]] = False
    counts = np.diff(stored.succ_ptr)
    sources = np.repeat(np.arange(size, dtype=np.int64), counts)
    evidence = stored.evidence
    per_row = evidence[:, _TIMES_COLUMN] / evidence[:, _COUNT_COLUMN]
    edge_of_row = np.repeat(np.arange(sources.size, dtype=np.int64), np.diff(stored.evidence_ptr))
    weights = np.bincount(edge_of_row, weights=per_row, minlength=sources.size)
    del per_row, edge_of_row
    unchanged = plain[sources]
    rows, cols, weights = live[sources[unchanged]], live[stored.succ[unchanged]], weights[unchanged]
    del sources, unchanged
    if (cols < 0).any():
        raise AssertionError("a node the graph no longer has keeps edges")

    def position(at: int) -> int:
        return added_live[at] if at >= size else int(live[at])

    held_rows: list[int] = []
    held_cols: list[int] = []
    held_weights: list[float] = []
    for source, ends in adjacency.owned.items():
        if (source < size and not keep[source]) or (source >= size and source not in added_live):
            continue
        at = position(source)
        for target in ends:
            held_rows.append(at)
            held_cols.append(position(target))
            held_weights.append(edge_data(held[source << _TARGET_BITS | target])[1])
    rows = np.concatenate([rows, np.array(held_rows, dtype=np.int64)])
    cols = np.concatenate([cols, np.array(held_cols, dtype=np.int64)])
    weights = np.concatenate([weights, np.array(held_weights, dtype=np.float64)])
    order = np.argsort(rows, kind="stable")
    nodes = _LiveNodes(stored, np.flatnonzero(keep), [node for node, _ in added])
    index = _LiveIndex(stored, live, {node: kept + number for number, (node, _) in enumerate(added)}, len(nodes))
    return nodes, index, rows[order], cols[order], weights[order]


class _LiveNodes(Sequence[str]):
    """The node ids of an overlaid graph in `overlay_edges`' order, read from the stored ids where kept."""

    def __init__(self, stored: StoredGraph, kept: np.ndarray, added: list[str]) -> None:
        self._stored, self._kept, self._added = stored, kept, added

    def __len__(self) -> int:
        return int(self._kept.size) + len(self._added)

    def __getitem__(self, at: int) -> str:  # type: ignore[override]
        if at < 0:
            at += len(self)
        if at < self._kept.size:
            return str(self._stored.nodes[int(self._kept[at])])
        return self._added[at - int(self._kept.size)]


class _LiveIndex(Mapping[str, int]):
    """Node id -> its place in `overlay_edges`' order, as the overlay stood when ranked: a stored node by the
    graph's hash table, one edits added by name."""

    def __init__(self, stored: StoredGraph, live: np.ndarray, added: dict[str, int], size: int) -> None:
        self._stored, self._live, self._added, self._size = stored, live, added, size

    def __getitem__(self, node: str) -> int:
        at = self._added.get(node)
        if at is not None:
            return at
        where = self._stored.node(node)
        if where < 0 or self._live[where] < 0:
            raise KeyError(node)
        return int(self._live[where])

    def __iter__(self) -> Iterator[str]:
        return iter(_LiveNodes(self._stored, np.flatnonzero(self._live >= 0), list(self._added)))

    def __len__(self) -> int:
        return self._size
