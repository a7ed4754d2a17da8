"""The code graph's nodes and edges in plain dicts: the part of a networkx DiGraph the graph uses.

networkx keeps a dict of attributes per node and per edge and checks its arguments on every call;
building Django's graph through it cost about a third of the build (adding 190k edges, then reading
them back as arrays for PageRank). Here a node is its id and its file's path, and an edge is
`(kind, weight)` with the kind as its index in `graph.EDGE_KINDS`.

The orders are networkx's, on purpose: nodes in insertion order (a re-added node goes last),
each node's successors and predecessors in the order their edges were first added. PageRank reads
the edges in that order, so the scores are the same floats, bit for bit, as over a networkx graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

__all__ = ["Adjacency", "EdgeData"]

# (edge kind as an index into EDGE_KINDS, weight)
EdgeData = tuple[int, float]


class Adjacency:
    """Directed edges with a kind and a weight; a node also knows the path of the file it is in.

    `path[node]` is None for a node only an edge named (networkx adds those implicitly too).
    """

    __slots__ = ("path", "pred", "succ")

    def __init__(self) -> None:
        self.path: dict[str, str | None] = {}
        self.succ: dict[str, dict[str, EdgeData]] = {}
        self.pred: dict[str, dict[str, EdgeData]] = {}

    def __contains__(self, node: object) -> bool:
        return node in self.path

    def __len__(self) -> int:
        return len(self.path)

    def add_node(self, node: str, path: str | None) -> None:
        """Add `node` last, or only set its path when it is already there (it keeps its place)."""
        if node not in self.path:
            self.succ[node] = {}
            self.pred[node] = {}
        self.path[node] = path

    def remove_nodes(self, nodes: Iterable[str]) -> None:
        """Remove the nodes that are there, with every edge touching them."""
        for node in nodes:
            successors = self.succ.pop(node, None)
            if successors is None:
                continue
            del self.path[node]
            for target in successors:
                del self.pred[target][node]
            for source in self.pred.pop(node):
                del self.succ[source][node]

    def set_edge(self, source: str, target: str, data: EdgeData) -> None:
        """Add the edge, or replace its data in place; a node it names that is not there is added."""
        if source not in self.path:
            self.add_node(source, None)
        if target not in self.path:
            self.add_node(target, None)
        self.succ[source][target] = data
        self.pred[target][source] = data

    def remove_edge(self, source: str, target: str) -> None:
        """Remove the edge when it is there."""
        successors = self.succ.get(source)
        if successors is not None and successors.pop(target, None) is not None:
            del self.pred[target][source]

    def edges(self) -> Iterator[tuple[str, str, EdgeData]]:
        for source, successors in self.succ.items():
            for target, data in successors.items():
                yield source, target, data

    def number_of_edges(self) -> int:
        return sum(len(successors) for successors in self.succ.values())

    def arrays(self) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        """Nodes in order and the edges as (source index, target index, weight) arrays, in edge order."""
        nodes = list(self.path)
        index = {node: position for position, node in enumerate(nodes)}
        lengths = np.fromiter(map(len, self.succ.values()), dtype=np.int64, count=len(nodes))
        count = int(lengths.sum())
        rows = np.repeat(np.arange(len(nodes), dtype=np.int64), lengths)
        cols = np.fromiter((index[target] for successors in self.succ.values() for target in successors),
                           dtype=np.int64, count=count)
        weights = np.fromiter((data[1] for successors in self.succ.values() for data in successors.values()),
                              dtype=np.float64, count=count)
        return nodes, rows, cols, weights
