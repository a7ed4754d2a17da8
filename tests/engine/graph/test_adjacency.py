"""The code graph's own adjacency keeps networkx's orders, so PageRank over it gives the same floats."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest

from fourfold.engine.graph import graph as graph_module
from fourfold.engine.graph.adjacency import Adjacency, edge_key
from fourfold.engine.graph.graph import CodeGraph
from fourfold.engine.model.records import ParsedFile, Reference, Span, Symbol


def _same_as_networkx(mine: Adjacency, theirs: nx.DiGraph) -> None:
    assert [node for node, _ in mine.nodes()] == list(theirs.nodes)
    for node in theirs.nodes:
        assert [n for n, _ in mine.successors(node)] == list(theirs.successors(node))
        assert [n for n, _ in mine.predecessors(node)] == list(theirs.predecessors(node))
        assert mine.path(node) == theirs.nodes[node].get("path")
    assert [(s, t, d[1]) for s, t, d in mine.edges()] == list(theirs.edges(data="weight"))


@pytest.mark.parametrize("seed", range(5))
def test_random_edits_keep_networkx_orders(seed: int) -> None:
    rng = random.Random(seed)
    mine, theirs = Adjacency(), nx.DiGraph()
    names = [f"n{i}" for i in range(30)]
    for step in range(600):
        action = rng.random()
        if action < 0.25:
            node = rng.choice(names)
            mine.add_node(node, f"p{step}")
            theirs.add_node(node, path=f"p{step}")
        elif action < 0.35:
            gone = rng.sample(names, 3)
            mine.remove_nodes(gone)
            theirs.remove_nodes_from(gone)
        elif action < 0.85:
            source, target = rng.choice(names), rng.choice(names)
            mine.set_edge(edge_key(mine.node_id(source), mine.node_id(target)), (step % 3, float(step)))
            theirs.add_edge(source, target, weight=float(step))
        else:
            source, target = rng.choice(names), rng.choice(names)
            mine.remove_edge(edge_key(mine.node_id(source), mine.node_id(target)))
            if theirs.has_edge(source, target):
                theirs.remove_edge(source, target)
    _same_as_networkx(mine, theirs)
    nodes, rows, cols, weights = mine.arrays()
    assert nodes == list(theirs.nodes)
    expected = [(nodes.index(s), nodes.index(t), w) for s, t, w in theirs.edges(data="weight")]
    assert list(zip(rows.tolist(), cols.tolist(), weights.tolist(), strict=True)) == expected
    # What a stored graph keeps: each side's ends and kinds for every node at once, as the per-node lists.
    for outgoing, ends_of in ((True, mine.successors), (False, mine.predecessors)):
        starts, ends, kinds, keys = mine.side_arrays(outgoing=outgoing)
        for at, node in enumerate(nodes):
            part = slice(starts[at], starts[at + 1])
            expected_ends = ends_of(node)
            assert [(nodes[other], kind) for other, kind in zip(ends[part], kinds[part], strict=True)] == expected_ends
            pairs = [(node, other) if outgoing else (other, node) for other, _ in expected_ends]
            assert keys[part].tolist() == [edge_key(mine.node_id(s), mine.node_id(t)) for s, t in pairs]


def _files() -> dict[str, ParsedFile]:
    def symbol(path: str, name: str, line: int) -> Symbol:
        span = Span(line, 0, line + 1, 0)
        return Symbol(name=name, kind="function", path=path, span=span, name_span=span, qualified=name,
                      language="python")

    def call(name: str, line: int, enclosing: str) -> Reference:
        return Reference(name=name, kind="call", path="a.py", span=Span(line, 4, line, 4 + len(name)),
                         enclosing=enclosing)

    return {
        "a.py": ParsedFile(symbols=(symbol("a.py", "run", 1),), references=(call("helper", 2, "run"),),
                           imports=("b",)),
        "b.py": ParsedFile(symbols=(symbol("b.py", "helper", 1),)),
    }


def test_building_and_querying_use_no_networkx_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    made = []
    original = nx.DiGraph.__init__

    def counted(self: nx.DiGraph, *args: object, **kwargs: object) -> None:
        made.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(nx.DiGraph, "__init__", counted)
    graph = CodeGraph.build(_files())
    graph.refresh_centrality()
    assert [hit.symbol for hit in graph.callers("helper")] == ["run"]
    assert [hit.symbol for hit in graph.impact("helper")] == ["run"]
    assert graph.centrality_of("b.py", "helper") > graph.centrality_of("a.py", "run")
    assert made == []
    copy = graph.graph  # the reader's networkx copy is the only one
    assert len(made) == 1
    assert copy.edges[graph_module.symbol_node_id("a.py", "run"), graph_module.symbol_node_id("b.py", "helper")][
        "kind"] == "calls"
    scores = np.array([graph.centrality(node) for node in copy.nodes])
    reference = nx.pagerank(copy, weight="weight", tol=1e-12)
    assert np.allclose(scores / len(scores), [reference[node] for node in copy.nodes], atol=1e-8)
