"""The code graph's nodes and edges over integer ids in compact arrays: the part of a networkx
DiGraph the graph uses, at a fraction of the memory.

networkx keeps a dict of attributes per node and per edge and checks its arguments on every call;
building Django's graph through it cost about a third of the build. A dict of dicts keyed by node id
strings, with a `(kind, weight)` tuple per edge, still held ~105 MiB for Django's 61k nodes and 193k
edges (issue 17). Here every node id is interned once as an integer (`node_id`); a node's successors
and predecessors are `array('i')`s of those integers; an edge is the integer `source << 32 | target`
(`edge_key`), and its kind and weight sit in two flat columns at the slot the edge was given.

The orders are networkx's, on purpose: nodes in insertion order (a re-added node goes last),
each node's successors and predecessors in the order their edges were first added. PageRank reads
the edges in that order, so the scores are the same floats, bit for bit, as over a networkx graph.

Interned ids are never reused or forgotten: evidence of another file may still name a removed node
until its names are re-resolved, and re-adding the node must give back the same id. The table grows
only by node ids never seen before (a definition renamed in an edit), one string and one int each.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

__all__ = ["Adjacency", "EdgeData", "NodePositions", "edge_key", "key_ints"]

# (edge kind as an index into EDGE_KINDS, weight)
EdgeData = tuple[int, float]

_TARGET_BITS = 32
_TARGET_MASK = (1 << _TARGET_BITS) - 1
_EMPTY: array[int] = array("i")
# Edge keys turned into Python ints at a time (`key_ints`).
_KEY_SLICE = 1 << 16


def key_ints(keys: np.ndarray) -> Iterator[int]:
    """The edge keys of `keys` as Python ints, a slice at a time: as one list, 4x Django's were ~30 MB more
    at the peak of storing the graph."""
    for begin in range(0, keys.size, _KEY_SLICE):
        yield from keys[begin : begin + _KEY_SLICE].tolist()


def edge_key(source: int, target: int) -> int:
    """One edge between interned node ids as one integer (the key of its slot and of its evidence)."""
    return source << _TARGET_BITS | target


def edge_ends(key: int) -> tuple[int, int]:
    return key >> _TARGET_BITS, key & _TARGET_MASK


class Adjacency:
    """Directed edges with a kind and a weight; a node also knows the path of the file it is in.

    The path of a node only an edge named is None (networkx adds those implicitly too).
    """

    __slots__ = ("_free", "_ids", "_kinds", "_names", "_paths", "_pred", "_slots", "_succ", "_weights")

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}  # every node id ever named -> its integer
        self._names: list[str] = []  # integer -> node id
        self._paths: dict[int, str | None] = {}  # the nodes there, in order, with their file's path
        # node integer -> its successors / predecessors; None when it has none (or is not there)
        self._succ: list[array[int] | None] = []
        self._pred: list[array[int] | None] = []
        self._slots: dict[int, int] = {}  # edge key -> its place in the columns below
        self._kinds: array[int] = array("b")
        self._weights: array[float] = array("d")
        self._free: list[int] = []  # slots of removed edges, reused by the next added ones

    # --- ids --------------------------------------------------------------------------------------

    def node_id(self, node: str) -> int:
        """The node's integer, interned on first use (the node need not be in the graph)."""
        found = self._ids.get(node)
        if found is None:
            found = self._ids[node] = len(self._names)
            self._names.append(node)
            self._succ.append(None)
            self._pred.append(None)
        return found

    def name(self, node: int) -> str:
        return self._names[node]

    def ids_of(self, nodes: Iterable[str]) -> list[int]:
        """The integers of nodes already interned (KeyError for one that is not)."""
        ids = self._ids
        return [ids[node] for node in nodes]

    # --- nodes ------------------------------------------------------------------------------------

    def __contains__(self, node: object) -> bool:
        found = self._ids.get(node) if isinstance(node, str) else None
        return found is not None and found in self._paths

    def __len__(self) -> int:
        return len(self._paths)

    def path(self, node: str) -> str | None:
        """The path of the file `node` is in; KeyError when it is not in the graph."""
        return self._paths[self._ids[node]]

    def nodes(self) -> Iterator[tuple[str, str | None]]:
        names = self._names
        for node, path in self._paths.items():
            yield names[node], path

    def add_node(self, node: str, path: str | None) -> None:
        """Add `node` last, or only set its path when it is already there (it keeps its place)."""
        self._paths[self.node_id(node)] = path

    def remove_nodes(self, nodes: Iterable[str]) -> None:
        """Remove the nodes that are there, with every edge touching them."""
        for name in nodes:
            node = self._ids.get(name)
            if node is None or self._paths.pop(node, _ABSENT) is _ABSENT:
                continue
            successors, self._succ[node] = self._succ[node] or _EMPTY, None
            for target in successors:
                self._release(edge_key(node, target))
                self._unlink(self._pred, target, node)
            predecessors, self._pred[node] = self._pred[node] or _EMPTY, None
            for source in predecessors:
                self._release(edge_key(source, node))
                self._unlink(self._succ, source, node)

    # --- edges ------------------------------------------------------------------------------------

    def set_edge(self, key: int, data: EdgeData) -> None:
        """Add the edge `key` (`edge_key`), or replace its data in place; a node it names that is not there
        is added. The key object itself is kept: the graph's evidence holds the same one. (Runs once per
        edge of a build: `edge_ends` inlined.)"""
        slot = self._slots.get(key)
        if slot is not None:
            self._kinds[slot], self._weights[slot] = data
            return
        source, target = key >> _TARGET_BITS, key & _TARGET_MASK
        paths = self._paths
        if source not in paths:
            paths[source] = None
        if target not in paths:
            paths[target] = None
        ends = self._succ[source]
        if ends is None:
            self._succ[source] = array("i", (target,))
        else:
            ends.append(target)
        ends = self._pred[target]
        if ends is None:
            self._pred[target] = array("i", (source,))
        else:
            ends.append(source)
        if self._free:
            slot = self._slots[key] = self._free.pop()
            self._kinds[slot], self._weights[slot] = data
        else:
            self._slots[key] = len(self._kinds)
            self._kinds.append(data[0])
            self._weights.append(data[1])

    def remove_edge(self, key: int) -> None:
        """Remove the edge `key` when it is there."""
        if self._release(key):
            source, target = edge_ends(key)
            self._unlink(self._succ, source, target)
            self._unlink(self._pred, target, source)

    def successors(self, node: str) -> list[tuple[str, int]]:
        """(successor, edge kind) in edge order; KeyError when `node` is not in the graph."""
        return self._ends(node, self._succ, outgoing=True)

    def predecessors(self, node: str) -> list[tuple[str, int]]:
        """(predecessor, edge kind) in edge order; KeyError when `node` is not in the graph."""
        return self._ends(node, self._pred, outgoing=False)

    def _ends(self, name: str, side: list[array[int] | None], *, outgoing: bool) -> list[tuple[str, int]]:
        node = self._ids[name]
        if node not in self._paths:
            raise KeyError(name)
        names, slots, kinds = self._names, self._slots, self._kinds
        ends = side[node] or _EMPTY
        if outgoing:
            return [(names[other], kinds[slots[node << _TARGET_BITS | other]]) for other in ends]
        return [(names[other], kinds[slots[other << _TARGET_BITS | node]]) for other in ends]

    def edges(self) -> Iterator[tuple[str, str, EdgeData]]:
        names, slots, kinds, weights = self._names, self._slots, self._kinds, self._weights
        for source in self._paths:
            for target in self._succ[source] or _EMPTY:
                slot = slots[edge_key(source, target)]
                yield names[source], names[target], (kinds[slot], weights[slot])

    def number_of_edges(self) -> int:
        return len(self._slots)

    def order(self) -> list[int]:
        """The integers of the nodes there, in node order."""
        return list(self._paths)

    def side_arrays(self, *, outgoing: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every node's neighbours in node order, as a stored graph keeps them: (CSR starts, each
        neighbour's position in node order, edge kinds, edge keys), in edge order. Per node, in Python,
        the lists of each node's ends and the kinds and positions looked up one by one were half of
        writing Django's `graph.edges` (its 193k edges, twice)."""
        order = np.fromiter(self._paths, dtype=np.int64, count=len(self._paths))
        side = self._succ if outgoing else self._pred
        ends_of = [side[node] or _EMPTY for node in self._paths]
        starts = np.zeros(len(order) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, ends_of), dtype=np.int64, count=len(order)), out=starts[1:])
        count = int(starts[-1])
        ends = np.fromiter(itertools.chain.from_iterable(ends_of), dtype=np.int64, count=count)
        owners = np.repeat(order, np.diff(starts))
        keys = (owners << _TARGET_BITS | ends) if outgoing else (ends << _TARGET_BITS | owners)
        del owners
        slots = np.fromiter(map(self._slots.__getitem__, key_ints(keys)), dtype=np.int64, count=count)
        kinds = np.frombuffer(self._kinds, dtype=np.int8)[slots] if count else np.zeros(0, dtype=np.int8)
        position = np.zeros(len(self._names), dtype=np.int32)
        position[order] = np.arange(len(order), dtype=np.int32)
        return starts, position[ends], kinds, keys

    def arrays(self) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        """Nodes in order and the edges as (source index, target index, weight) arrays, in edge order."""
        order = np.fromiter(self._paths, dtype=np.int64, count=len(self._paths))
        nodes = [self._names[node] for node in self._paths]
        position = np.zeros(len(self._names), dtype=np.int64)
        position[order] = np.arange(len(order), dtype=np.int64)
        succ = self._succ
        lengths = np.fromiter((len(succ[node] or _EMPTY) for node in self._paths), dtype=np.int64, count=len(order))
        count = int(lengths.sum())
        rows = np.repeat(np.arange(len(order), dtype=np.int64), lengths)
        targets = np.fromiter((target for node in self._paths for target in succ[node] or _EMPTY),
                              dtype=np.int64, count=count)
        slots = self._slots
        where = np.fromiter((slots[node << _TARGET_BITS | target] for node in self._paths
                             for target in succ[node] or _EMPTY), dtype=np.int64, count=count)
        weights = np.frombuffer(self._weights, dtype=np.float64)[where] if count else np.zeros(0)
        return nodes, rows, position[targets], weights

    def positions(self) -> NodePositions:
        """Each node's position in the order `arrays` lists them, as of now (later edits leave it as it is)."""
        order = np.fromiter(self._paths, dtype=np.int64, count=len(self._paths))
        at = np.full(len(self._names), -1, dtype=np.int32)
        at[order] = np.arange(len(order), dtype=np.int32)
        return NodePositions(self._ids, at, [self._names[node] for node in self._paths])

    # --- storage ----------------------------------------------------------------------------------

    @staticmethod
    def _unlink(side: list[array[int] | None], node: int, other: int) -> None:
        ends = side[node]
        assert ends is not None
        ends.remove(other)
        if not ends:
            side[node] = None

    def _release(self, key: int) -> bool:
        slot = self._slots.pop(key, None)
        if slot is None:
            return False
        self._free.append(slot)
        return True


_ABSENT = object()


class NodePositions(Mapping[str, int]):
    """Node id -> position in one ordering of the graph's nodes, read through the graph's interning table
    and an int32 array by integer: a dict of its own per ranking was ~5 MiB for Django's 61k nodes.
    A node interned after the ordering was taken, or not in the graph then, has no position."""

    def __init__(self, ids: Mapping[str, int], at: np.ndarray, nodes: Sequence[str]) -> None:
        self._ids = ids
        self._at = at
        self._nodes = nodes

    def __getitem__(self, node: str) -> int:
        found = self._ids.get(node)
        if found is None or found >= len(self._at) or self._at[found] < 0:
            raise KeyError(node)
        return int(self._at[found])

    def __iter__(self) -> Iterator[str]:
        return iter(self._nodes)

    def __len__(self) -> int:
        return len(self._nodes)
