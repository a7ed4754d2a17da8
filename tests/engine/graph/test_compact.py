"""The code graph holds its edges, evidence and adjacency as integers (issue 17), and no decoded record."""

from __future__ import annotations

import gc
import threading
import tracemalloc
import weakref
from pathlib import Path

from fourfold.engine.graph import graph as graph_module
from fourfold.engine.graph.adjacency import Adjacency, NodePositions, edge_ends, edge_key
from fourfold.engine.graph.graph import CodeGraph, file_node, symbol_node_id
from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.records import ParsedFile


def write_repo(root: Path, modules: int = 40) -> dict[str, ParsedFile]:
    """A Python package whose modules import and call each other, parsed by the real structural pass."""
    files: dict[str, ParsedFile] = {}
    for number in range(modules):
        previous = (number - 1) % modules
        source = (
            f"from pkg.mod{previous} import helper{previous}, Base{previous}\n\n\n"
            f"class Base{number}(Base{previous}):\n"
            f"    def run(self, value):\n"
            f"        return helper{previous}(value) + self.step(value)\n\n"
            f"    def step(self, value):\n"
            f"        return helper{number}(value) * helper{previous}(value)\n\n\n"
            f"def helper{number}(value):\n"
            f"    return Base{number}().step(value) if value else helper{previous}(value - 1)\n"
        )
        path = f"pkg/mod{number}.py"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(source, encoding="utf-8")
        files[path] = parse_file(path, (root / path).read_text(encoding="utf-8"), "python")
    return files


def test_a_contribution_packs_into_one_integer_that_orders_by_kind() -> None:
    spans = [(-1, -1, -1, -1), (0, 0, 0, 0), (12, 4, 12, 19), (2**31, 70_000, 2**31 + 5, 1)]
    for kind in range(len(graph_module.EDGE_KINDS)):
        for count in (1, 3, 2**20):
            for span in spans:
                packed = graph_module._contribution(kind, count, span)
                assert isinstance(packed, int)
                assert graph_module._unpacked(packed) == (kind, count, span)
    weaker = graph_module._contribution(graph_module._CALLS_KIND - 1, 2**20, (2**31, 9, 2**31, 9))
    assert weaker < graph_module._contribution(graph_module._CALLS_KIND, 1, (-1, -1, -1, -1))
    contained = graph_module._contribution(graph_module._CONTAINS_KIND, 1, (-1, -1, -1, -1))
    assert contained == graph_module._CONTAINED
    assert edge_ends(edge_key(7, 2**31 - 1)) == (7, 2**31 - 1)


def test_edges_and_their_evidence_are_integers_and_agree_with_the_adjacency(tmp_path: Path) -> None:
    files = write_repo(tmp_path)
    graph = CodeGraph(files)
    adjacency = graph._graph
    assert graph._evidence and all(isinstance(edge, int) for edge in graph._evidence)
    for evidence in graph._evidence.values():
        if isinstance(evidence, int):
            continue
        assert len(evidence) > 1 or next(iter(evidence.values())) > 1  # else it would be the bare contribution
        assert all(isinstance(c, int) and isinstance(n, int) for c, n in evidence.items())
    # each file's record of what it added: per use its contribution, the source and as many targets as
    # the contribution counts, the nodes as the interned integer objects themselves (no new object per use)
    uses = 0
    for groups in graph._added.values():
        for added in groups.values():
            at = 0
            while at < len(added):
                contribution, source = added[at], added[at + 1]
                end = at + 2 + graph_module._unpacked(contribution)[1]
                assert end <= len(added)
                for node in added[at + 1 : end]:
                    assert node is adjacency._ids[adjacency.name(node)]
                    if node is not source:
                        assert edge_key(source, node) in graph._evidence
                uses, at = uses + 1, end
    assert uses >= adjacency.number_of_edges()
    # one edge in the adjacency per edge with evidence, between the nodes its key names
    assert adjacency.number_of_edges() == len(graph._evidence)
    named = {(adjacency.name(s), adjacency.name(t)) for s, t in map(edge_ends, graph._evidence)}
    assert named == {(source, target) for source, target, _ in adjacency.edges()}
    # one use seen once is the common case, and is held as its bare contribution
    single = sum(isinstance(evidence, int) for evidence in graph._evidence.values())
    assert single >= len(graph._evidence) // 2
    run, helper = symbol_node_id("pkg/mod5.py", "Base5.run"), symbol_node_id("pkg/mod4.py", "helper4")
    assert (helper, graph_module.EDGE_KINDS.index("calls")) in adjacency.successors(run)
    assert [hit.via for hit in graph.callers("helper4") if hit.symbol == "Base5.run"] == [("Base5.run", "helper4")]


def test_the_graph_keeps_no_decoded_record_alive(tmp_path: Path) -> None:
    files = write_repo(tmp_path, modules=12)
    alive = [weakref.ref(parsed) for parsed in files.values()]
    graph = CodeGraph(files)
    del files
    gc.collect()
    assert [ref for ref in alive if ref() is not None] == []
    assert graph.resolve("pkg/mod3.py") == [file_node("pkg/mod3.py")]
    assert {hit.path for hit in graph.impact("helper3")} >= {"pkg/mod4.py"}


def test_the_graph_holds_a_bounded_number_of_bytes_per_edge(tmp_path: Path) -> None:
    """What a built graph allocates, per edge, over a real parsed package (~1.4 KB per edge before issue 17's
    integer layout: a dict of tuples of strings per edge, another tuple per use, a dict of dicts per node)."""
    files = write_repo(tmp_path, modules=150)
    for thread in threading.enumerate():  # a thread an earlier test left winding down would allocate meanwhile
        if thread is not threading.current_thread():
            thread.join(timeout=2)
    gc.collect()
    tracemalloc.start()
    try:
        graph = CodeGraph(files)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    edges = graph._graph.number_of_edges()
    assert edges > 1_500
    assert held / edges < 1_400


def test_removed_edges_give_their_slots_back() -> None:
    adjacency = Adjacency()
    for node in "abcd":
        adjacency.add_node(node, f"{node}.py")
    ids = {node: adjacency.node_id(node) for node in "abcd"}
    for _ in range(50):
        adjacency.set_edge(edge_key(ids["a"], ids["b"]), (1, 1.0))
        adjacency.set_edge(edge_key(ids["b"], ids["c"]), (2, 0.5))
        adjacency.remove_nodes(["b"])
        adjacency.add_node("b", "b.py")
    assert adjacency.number_of_edges() == 0
    assert len(adjacency._kinds) == len(adjacency._weights) == 2
    assert [node for node, _ in adjacency.nodes()] == ["a", "c", "d", "b"]
    assert adjacency.node_id("b") == ids["b"]


def test_a_ranking_finds_positions_through_the_interning_table(tmp_path: Path) -> None:
    files = write_repo(tmp_path, modules=20)
    graph = CodeGraph(files)
    graph.refresh_centrality()
    rank = graph._rank
    assert rank is not None and isinstance(rank.index, NodePositions)
    assert dict(rank.index) == {node: position for position, node in enumerate(rank.nodes)}
    assert graph.centrality_of("pkg/mod4.py", "helper4") == float(rank.scores[rank.nodes.index(
        symbol_node_id("pkg/mod4.py", "helper4"))]) > 0
    # a node interned after the ranking has no position in it, a removed one keeps the one it had
    graph._graph.node_id("sym:new.py#later")
    assert "sym:new.py#later" not in rank.index and rank.score("sym:new.py#later") == 0.0
    before = rank.index[file_node("pkg/mod7.py")]
    graph.without_file("pkg/mod7.py")
    assert rank.index[file_node("pkg/mod7.py")] == before
