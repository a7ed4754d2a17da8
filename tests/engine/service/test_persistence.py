"""What a restart reuses instead of rebuilding: the graph's centrality and the list of unreadable files.

Work is counted (graph builds, files read), never timed: a restart of an unchanged index must build no
graph, answer centrality as the last run computed it, and still build the edges the first time a
graph question or an edit needs them. Stored parts that are damaged or belong to other rows are
computed again, never trusted.
"""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.graph.centrality import StoredRank
from fourfold.engine.graph.graph import CodeGraph
from fourfold.engine.index.mapped import POINTER, open_arrays
from fourfold.engine.service.workspace import GRAPH_ENTRY, RANK_ENTRY, UNREADABLE_ENTRY


@pytest.fixture
def tree(tree: Path) -> Path:
    """The polyglot copy with a binary file beside it (refused on reading, remembered as such)."""
    (tree / "blob.bin").write_bytes(b"\x00\x01binary" * 64)
    return tree


def opened(root: Path, index: Path) -> Workspace:
    return Workspace(root, Settings(index_dir=str(index), semantic_backend="none"), background=False)


def indexed(root: Path, index: Path) -> dict[str, float]:
    """Index `root` once and close it; returns every definition's centrality as that run computed it."""
    workspace = opened(root, index)
    workspace.refresh()
    scores = centralities(workspace)
    workspace.close()
    return scores


def centralities(workspace: Workspace) -> dict[str, float]:
    snapshot = workspace.snapshot()
    symbols = [symbol for parsed in snapshot.parsed.values() for symbol in parsed.symbols]
    return {f"{s.path}#{s.qualified}": snapshot.graph.centrality_of(s.path, s.qualified) for s in symbols}


def damage(index: Path, entry: str, blob: bytes) -> None:
    with sqlite3.connect(index / "index.sqlite") as db:
        db.execute("UPDATE derived SET blob = ? WHERE name = ?", (blob, entry))


def recomputed_once_and_stored_again(tree: Path, tmp_path: Path, before: dict[str, float]) -> None:
    """A damaged stored centrality: the restart builds the graph once, says so, ranks as before, and
    the close stores it again whole (the next restart builds nothing)."""
    builds = CodeGraph.builds
    workspace = opened(tree, tmp_path / "index")
    assert CodeGraph.builds == builds + 1 and workspace.snapshot().graph.built
    assert any("centrality" in repair for repair in workspace.status()["repairs"])
    assert centralities(workspace) == pytest.approx(before)
    workspace.refresh()
    workspace.close()
    assert not opened(tree, tmp_path / "index").snapshot().graph.built


def entry(index: Path, name: str) -> bytes:
    with sqlite3.connect(index / "index.sqlite") as db:
        blob: bytes = db.execute("SELECT blob FROM derived WHERE name = ?", (name,)).fetchone()[0]
    db.close()
    return blob


def test_a_restart_of_an_unchanged_index_builds_no_graph(tree: Path, tmp_path: Path) -> None:
    before = indexed(tree, tmp_path / "index")
    builds = CodeGraph.builds
    workspace = opened(tree, tmp_path / "index")
    stats = workspace.refresh()
    assert stats.indexed == 0
    assert CodeGraph.builds == builds and not workspace.snapshot().graph.built
    assert centralities(workspace) == before and any(before.values())


def graph_answers(workspace: Workspace) -> list[object]:
    graph = workspace.snapshot().graph
    return [graph.callers("BaseJob.with_retry"), graph.callees("BaseJob.with_retry"), graph.impact("Item"),
            graph.siblings("web/src/store.ts", "InventoryStore.reserve"), graph.related(["stock"]),
            graph.resolve("Item")]


def test_a_graph_question_after_a_restart_is_answered_from_the_stored_graph(tree: Path, tmp_path: Path) -> None:
    first = opened(tree, tmp_path / "index")
    first.refresh()
    expected = graph_answers(first)
    first.close()
    assert all(expected)
    workspace = opened(tree, tmp_path / "index")
    workspace.refresh()
    builds = CodeGraph.builds
    assert graph_answers(workspace) == expected
    assert CodeGraph.builds == builds and workspace.snapshot().graph.mapped and not workspace.snapshot().graph.built
    assert not workspace.status()["repairs"]


def test_a_graph_question_after_a_restart_without_a_stored_graph_builds_the_edges_once(tree: Path,
                                                                                      tmp_path: Path) -> None:
    """An index stored before the graph was (only its centrality): the first graph question builds the edges,
    the close stores them, and the next restart answers from them."""
    first = opened(tree, tmp_path / "index")
    first.refresh()
    expected = graph_answers(first)
    first.close()
    with sqlite3.connect(tmp_path / "index" / "index.sqlite") as db:
        db.execute("DELETE FROM derived WHERE name = ?", (GRAPH_ENTRY,))
    db.close()
    workspace = opened(tree, tmp_path / "index")
    builds = CodeGraph.builds
    assert not workspace.snapshot().graph.mapped
    assert graph_answers(workspace) == expected and graph_answers(workspace) == expected
    assert CodeGraph.builds == builds + 1 and workspace.snapshot().graph.built
    assert not workspace.status()["repairs"]  # a part not stored yet is no damage
    workspace.close()
    again = opened(tree, tmp_path / "index")
    assert again.snapshot().graph.mapped and graph_answers(again) == expected and CodeGraph.builds == builds + 1


@pytest.mark.parametrize("damage_by", ["flip", "cut", "missing", "entry"])
def test_a_damaged_stored_graph_is_built_again_said_and_stored_again(tree: Path, tmp_path: Path,
                                                                     damage_by: str) -> None:
    first = opened(tree, tmp_path / "index")
    first.refresh()
    expected = graph_answers(first)
    first.close()
    path = tmp_path / "index" / GRAPH_ENTRY
    data = bytearray(path.read_bytes())
    if damage_by == "flip":
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    elif damage_by == "cut":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif damage_by == "missing":
        path.unlink()
    else:
        damage(tmp_path / "index", GRAPH_ENTRY, b"FFMAPPED{not json")
    workspace = opened(tree, tmp_path / "index")
    builds = CodeGraph.builds
    assert not workspace.snapshot().graph.mapped
    assert any("stored graph" in repair for repair in workspace.status()["repairs"])
    assert graph_answers(workspace) == expected and CodeGraph.builds == builds + 1
    workspace.close()
    again = opened(tree, tmp_path / "index")
    assert again.snapshot().graph.mapped and not again.status()["repairs"]
    assert graph_answers(again) == expected


def test_a_definition_added_after_a_restart_is_held_over_the_stored_graph_as_a_cold_index_answers(
        tree: Path, tmp_path: Path) -> None:
    """A new definition after a restart, used by no other file yet: the graph is not built (an overlay over
    the stored arrays, with a node added), answers as a cold index of the edited tree (scores aside: the
    centrality stays the stored one until a build), and the next restart maps the graph stored at close with
    the overlay folded in (the node added) and answers as the workspace did."""
    indexed(tree, tmp_path / "index")
    workspace = opened(tree, tmp_path / "index")
    assert workspace.snapshot().graph.mapped
    builds = CodeGraph.builds
    target = tree / "inventory" / "models.py"
    target.write_text(target.read_text() + "\n\ndef restocked(item):\n    return BaseJob().with_retry(item)\n")
    workspace.update_file(target)
    graph = workspace.snapshot().graph
    edited = graph_answers(workspace)
    assert CodeGraph.builds == builds and graph.mapped and graph.edited_in_place == ["inventory/models.py"]
    assert graph.symbol_node("inventory/models.py", "restocked") and graph.resolve("restocked")
    assert unscored(cold_answers(tree, tmp_path / "cold", graph_answers)) == unscored(edited)
    workspace.close()
    again = opened(tree, tmp_path / "index")
    assert again.snapshot().graph.mapped and graph_answers(again) == edited
    assert again.snapshot().graph.symbol_node("inventory/models.py", "restocked") and CodeGraph.builds == builds


def created_answers(workspace: Workspace) -> list[object]:
    """Questions about a created inventory/audit.py (its import, its calls, its definition) and about others."""
    graph = workspace.snapshot().graph
    return [graph.callers("Item.is_available"), graph.callees("restocked"), graph.impact("Item"),
            graph.impact("inventory/models.py"), graph.resolve("restocked"), graph.callers("BaseJob.with_retry"),
            graph.siblings("inventory/audit.py", "restocked")]


def test_a_file_created_after_a_restart_and_deleted_after_the_next_is_held_over_the_stored_graph(
        tree: Path, tmp_path: Path) -> None:
    """A created file builds no graph: the mapped graph holds it as an overlay and answers as a cold index of
    the tree (scores aside); the close stores the graph with it folded in, the next restart maps that one, and
    deleting the file there is held as an overlay too, answering as a cold index of the tree without it."""
    indexed(tree, tmp_path / "index")
    workspace = opened(tree, tmp_path / "index")
    workspace.refresh()
    builds = CodeGraph.builds
    target = tree / "inventory" / "audit.py"
    target.write_text("from inventory.models import Item\n\n\ndef restocked(item: Item):\n"
                      "    return item.is_available()\n")
    workspace.update_file(target)
    graph = workspace.snapshot().graph
    created = created_answers(workspace)
    assert CodeGraph.builds == builds and graph.mapped and "inventory/audit.py" in graph.edited_in_place
    assert any(hit.path == "inventory/audit.py" for hit in created[0])  # type: ignore[attr-defined]
    assert unscored(cold_answers(tree, tmp_path / "cold", created_answers)) == unscored(created)
    workspace.close()
    again = opened(tree, tmp_path / "index")
    assert again.snapshot().graph.mapped and not again.snapshot().graph.edited_in_place
    assert created_answers(again) == created
    target.unlink()
    assert again.refresh().removed == 1
    graph = again.snapshot().graph
    deleted = created_answers(again)
    assert CodeGraph.builds == builds and graph.mapped and graph.edited_in_place[0] == "inventory/audit.py"
    assert not deleted[4]
    assert unscored(cold_answers(tree, tmp_path / "cold again", created_answers)) == unscored(deleted)
    again.close()
    last = opened(tree, tmp_path / "index")
    assert last.snapshot().graph.mapped and created_answers(last) == deleted and CodeGraph.builds == builds


@pytest.mark.parametrize("blob", [b"", b"PK\x03\x04 not a zip", b"\x00" * 100])
def test_damaged_stored_centrality_is_recomputed_and_said(tree: Path, tmp_path: Path, blob: bytes) -> None:
    before = indexed(tree, tmp_path / "index")
    damage(tmp_path / "index", RANK_ENTRY, blob)
    recomputed_once_and_stored_again(tree, tmp_path, before)


def test_centrality_stored_for_other_rows_is_not_used(tree: Path, tmp_path: Path) -> None:
    indexed(tree, tmp_path / "index")
    with sqlite3.connect(tmp_path / "index" / "index.sqlite") as db:
        db.execute("DELETE FROM files WHERE path = 'inventory/models.py'")
    workspace = opened(tree, tmp_path / "index")
    assert workspace.snapshot().graph.built  # the stored ranking counted a file the rows no longer hold
    workspace.refresh()
    assert workspace.snapshot().symbols.definitions("Item")


def test_unreadable_files_are_not_read_again_after_a_restart(tree: Path, tmp_path: Path) -> None:
    indexed(tree, tmp_path / "index")
    read: list[str] = []
    workspace = opened(tree, tmp_path / "index")
    original = workspace.index_job
    workspace.index_job = lambda job: read.append(job[1]) or original(job)  # type: ignore[method-assign]
    workspace.refresh()
    assert read == []
    assert "blob.bin" in {item["path"] for item in workspace.status()["skipped_files"]}
    (tree / "blob.bin").write_bytes(b"def now_text():\n    return 1\n")
    workspace.refresh()
    assert read == ["blob.bin"]


def test_a_damaged_list_of_unreadable_files_reads_them_again(tree: Path, tmp_path: Path) -> None:
    indexed(tree, tmp_path / "index")
    damage(tmp_path / "index", UNREADABLE_ENTRY, b"not zlib")
    read: list[str] = []
    workspace = opened(tree, tmp_path / "index")
    original = workspace.index_job
    workspace.index_job = lambda job: read.append(job[1]) or original(job)  # type: ignore[method-assign]
    workspace.refresh()
    assert read == ["blob.bin"]
    assert "blob.bin" in {item["path"] for item in workspace.status()["skipped_files"]}


def test_stored_centrality_reads_its_node_ids_in_place_and_an_older_blob_still_reads(tree: Path,
                                                                                    tmp_path: Path) -> None:
    """The node ids are looked up by bisecting their stored order (no list or dict of 61k ids at a
    restart); every node, an absent one, and a blob written before the order was stored read as before."""
    indexed(tree, tmp_path / "index")
    stored = StoredRank.from_arrays(open_arrays(tmp_path / "index", entry(tmp_path / "index", RANK_ENTRY)))
    rank = stored.rank()
    assert stored.order is not None and not isinstance(stored.nodes, list) and not isinstance(rank.index, dict)
    nodes = list(stored.nodes)
    assert len(nodes) == len(set(nodes)) > 10
    assert [rank.index[node] for node in nodes] == list(range(len(nodes)))
    assert "sym:nowhere.py#x" not in rank.index and rank.score("sym:nowhere.py#x") == 0.0
    assert [rank.score(node) for node in nodes] == stored.scores.tolist()
    older = {name: array for name, array in stored.arrays().items() if name not in ("starts", "order")}
    buffer = io.BytesIO()  # an inline `.npz` as written before `starts` and `order`
    np.savez(buffer, **older)
    old = StoredRank.decode(buffer.getvalue())
    assert old.order is None and list(old.nodes) == nodes
    assert [old.rank().score(node) for node in nodes] == stored.scores.tolist()
    assert StoredRank.decode(stored.encode()).encode() == stored.encode()  # a read-back rank stores the same


@pytest.mark.parametrize("cut", [False, True])
def test_a_damaged_centrality_file_is_recomputed_and_said(tree: Path, tmp_path: Path, cut: bool) -> None:
    """The entry names the mapped file by size and digest: a file garbled or cut since is never read."""
    before = indexed(tree, tmp_path / "index")
    path = tmp_path / "index" / RANK_ENTRY
    data = bytearray(path.read_bytes())
    if cut:
        del data[len(data) // 2 :]
    else:
        data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    recomputed_once_and_stored_again(tree, tmp_path, before)


def test_centrality_kept_inline_by_an_earlier_version_reads_and_is_stored_mapped(tree: Path, tmp_path: Path) -> None:
    before = indexed(tree, tmp_path / "index")
    stored = StoredRank.from_arrays(open_arrays(tmp_path / "index", entry(tmp_path / "index", RANK_ENTRY)))
    damage(tmp_path / "index", RANK_ENTRY, stored.encode())  # the `.npz` blob an earlier version kept
    (tmp_path / "index" / RANK_ENTRY).unlink()
    builds = CodeGraph.builds
    workspace = opened(tree, tmp_path / "index")
    assert CodeGraph.builds == builds and centralities(workspace) == before
    workspace.close()
    assert entry(tmp_path / "index", RANK_ENTRY).startswith(POINTER)
    again = opened(tree, tmp_path / "index")
    assert not again.snapshot().graph.built and centralities(again) == before


def test_edits_made_while_the_centrality_is_mapped_rank_as_a_cold_index_of_the_edited_tree(tree: Path,
                                                                                          tmp_path: Path) -> None:
    """A restart answers from the mapped ranking and decodes rows only when asked; a changed and a created
    file on top of that give the graph and centrality a cold index of the same tree has, a deleted one
    leaves the files and symbols a cold index has, and what is stored at close is what was served."""
    indexed(tree, tmp_path / "index")
    workspace = opened(tree, tmp_path / "index")
    assert not workspace.snapshot().graph.built
    source = tree / "inventory" / "models.py"
    source.write_text(source.read_text() + "\n\ndef restocked(item):\n    return item.is_available()\n")
    (tree / "inventory" / "audit.py").write_text("from inventory.models import restocked\n\n\n"
                                                 "def audit(item):\n    return restocked(item)\n")
    assert workspace.refresh().indexed == 2
    workspace.snapshot().graph.ensure_built()  # an overlay ranks as stored until a build
    workspace.snapshot().graph.refresh_centrality()
    after = centralities(workspace)
    assert after["inventory/audit.py#audit"] and workspace.snapshot().graph.callers("restocked")
    assert after == pytest.approx(indexed(tree, tmp_path / "cold"))
    (tree / "inventory" / "report.py").unlink()
    assert workspace.refresh().removed == 1
    workspace.snapshot().graph.refresh_centrality()
    after = centralities(workspace)
    cold = opened(tree, tmp_path / "cold after the deletion")
    cold.refresh()
    for snapshot in (workspace.snapshot(), cold.snapshot()):
        assert "inventory/report.py" not in snapshot.files
    assert sorted(map(repr, workspace.snapshot().symbols.all())) == sorted(map(repr, cold.snapshot().symbols.all()))
    assert after.keys() == centralities(cold).keys()
    workspace.close()
    again = opened(tree, tmp_path / "index")
    assert not again.snapshot().graph.built and centralities(again) == after


def test_a_reader_keeps_the_ranking_it_mapped_while_another_workspace_stores_a_new_one(tree: Path,
                                                                                       tmp_path: Path) -> None:
    """The stored ranking is replaced by renaming a new file over it, never written in place: a process
    that mapped the old one goes on reading it whole."""
    before = indexed(tree, tmp_path / "index")
    reader = opened(tree, tmp_path / "index")
    writer = opened(tree, tmp_path / "index")
    source = tree / "inventory" / "audit.py"  # a new file: the writer builds its graph and ranks it anew
    source.write_text("from inventory.models import Item\n\n\ndef restocked(item: Item):\n    return item\n")
    writer.update_file(source)
    writer.snapshot().graph.refresh_centrality()
    written = centralities(writer)
    writer.close()
    assert centralities(reader) == before
    assert centralities(opened(tree, tmp_path / "index")) == written != before


def test_a_file_deleted_after_a_restart_leaves_the_graph_a_cold_index_of_the_tree_has(tree: Path,
                                                                                     tmp_path: Path) -> None:
    """A deletion is the first change a restarted (mapped) graph sees: it used to be skipped, so the
    built graph kept the deleted file's nodes and edges and the stored ranking stayed as before it. It is held
    as an overlay (no build) answering as a cold index does, and once built it ranks as one."""
    indexed(tree, tmp_path / "index")
    workspace = opened(tree, tmp_path / "index")
    assert not workspace.snapshot().graph.built
    builds = CodeGraph.builds
    (tree / "inventory" / "report.py").unlink()
    assert workspace.refresh().removed == 1
    graph = workspace.snapshot().graph
    assert CodeGraph.builds == builds and graph.mapped
    assert unscored(graph_answers(workspace)) == unscored(cold_answers(tree, tmp_path / "cold answers", graph_answers))
    graph.ensure_built()
    graph.refresh_centrality()
    cold = opened(tree, tmp_path / "cold")
    cold.refresh()
    assert sorted(graph.graph.nodes) == sorted(cold.snapshot().graph.graph.nodes)
    assert not any(node.startswith(("file:inventory/report.py", "sym:inventory/report.py")) for node in graph.graph)
    assert centralities(workspace) == pytest.approx(centralities(cold))
    workspace.close()
    cold.close()


def cold_answers(root: Path, index: Path, read: Callable[[Workspace], list[object]]) -> list[object]:
    """What `read` answers on a fresh index of `root`, built cold: the reference an edited index must match."""
    cold = opened(root, index)
    try:
        cold.refresh()
        return read(cold)
    finally:
        cold.close()


def unscored(answers: list[object]) -> list[object]:
    """Graph answers without their scores and order (an overlay ranks as stored, a cold index afresh)."""
    return [sorted((hit.path, hit.span, hit.symbol, hit.kind, hit.via, hit.resolved) for hit in found)
            if found and not isinstance(found[0], str) else sorted(found) for found in answers]  # type: ignore[attr-defined]


def edited_answers(workspace: Workspace) -> list[object]:
    """Questions about the edited file (its new call and import) and about files the edit did not touch."""
    graph = workspace.snapshot().graph
    return [graph.callers("Item.is_available"), graph.callees("low_stock"), graph.impact("Item"),
            graph.impact("InventoryService"), graph.callers("BaseJob.with_retry"),
            graph.siblings("inventory/report.py", "low_stock"), graph.resolve("low_stock")]


def test_an_edit_to_a_body_after_a_restart_is_held_over_the_stored_graph_and_stored_at_close(tree: Path,
                                                                                            tmp_path: Path) -> None:
    """Editing a function's body and its file's imports builds no graph: the mapped graph holds the edit as an
    overlay and answers as a cold index of the edited files (scores aside), and the close stores the edited
    graph, which the next restart maps and answers from as before it."""
    indexed(tree, tmp_path / "index")
    workspace = opened(tree, tmp_path / "index")
    builds = CodeGraph.builds
    target = tree / "inventory" / "report.py"
    target.write_text(target.read_text(encoding="utf-8").replace(
        "from inventory.service import InventoryService\n",
        "from inventory.models import Item\nfrom inventory.service import InventoryService\n").replace(
        "if item.quantity < threshold)", "if not isinstance(item, Item) or not item.is_available())"),
        encoding="utf-8")
    workspace.update_file(target)
    graph = workspace.snapshot().graph
    edited = edited_answers(workspace)
    assert CodeGraph.builds == builds and graph.mapped and not graph.built
    assert graph.edited_in_place == ["inventory/report.py"]
    assert any(hit.path == "inventory/report.py" for hit in edited[0])  # type: ignore[attr-defined]
    assert unscored(cold_answers(tree, tmp_path / "cold", edited_answers)) == unscored(edited)
    workspace.close()
    again = opened(tree, tmp_path / "index")
    assert again.snapshot().graph.mapped and not again.snapshot().graph.edited_in_place
    assert edited_answers(again) == edited


def edited_file_answers(workspace: Workspace, paths: list[str]) -> list[object]:
    """What a workspace answers about edited files: their records, their definitions in the symbol table
    (and its counts), name and literal searches that land in them, and graph questions (scores aside)."""
    snapshot = workspace.snapshot()
    symbols = snapshot.symbols
    found: list[object] = [len(symbols), [snapshot.parsed[path] for path in paths],
                           [[s for s in symbols.all() if s.path == path] for path in paths],
                           [(m.symbol.path, m.symbol.qualified) for m in symbols.search("low_stock")],
                           [(m.symbol.path, m.symbol.qualified) for m in symbols.search("reserve")]]
    for query in ('"is_available"', '"fourfold edit"', "low_stock"):
        response = workspace.search(SearchRequest(query=query))
        found.append(sorted((result.path, result.span) for result in response.results))
    return found + unscored(edited_answers(workspace))


def test_a_warmed_up_restart_edited_answers_about_the_edited_files_as_a_cold_index_of_them(tree: Path,
                                                                                          tmp_path: Path) -> None:
    """A server's warm-up after a restart (`Workspace.warm_up`: the parsing module, the grammars, the graph's
    edit views) builds nothing and changes no answer; edits then held over the stored index (a body and its
    imports in Python, a comment in TypeScript) answer about those files as a cold index of the edited tree."""
    indexed(tree, tmp_path / "index")
    workspace = opened(tree, tmp_path / "index")
    builds = CodeGraph.builds
    before = graph_answers(workspace)
    workspace.warm_up()
    graph = workspace.snapshot().graph
    assert graph.mapped and not graph.built and not graph.edited_in_place and graph_answers(workspace) == before
    report, store = tree / "inventory" / "report.py", tree / "web" / "src" / "store.ts"
    report.write_text(report.read_text(encoding="utf-8").replace(
        "from inventory.service import InventoryService\n",
        "from inventory.models import Item\nfrom inventory.service import InventoryService\n").replace(
        "if item.quantity < threshold)", "if not isinstance(item, Item) or not item.is_available())")
        + "\n# fourfold edit\n", encoding="utf-8")
    store.write_text(store.read_text(encoding="utf-8") + "\n// fourfold edit\n", encoding="utf-8")
    for target in (report, store):
        workspace.update_file(target)
    paths = ["inventory/report.py", "web/src/store.ts"]
    assert CodeGraph.builds == builds and workspace.snapshot().graph.edited_in_place == paths
    edited = edited_file_answers(workspace, paths)
    cold = opened(tree, tmp_path / "cold")
    cold.refresh()
    assert edited_file_answers(cold, paths) == edited
    assert all(edited[5:8])  # each search found something
    cold.close()
    workspace.close()


# Run in a fresh process: which grammars and queries are loaded is process-wide state.
FIRST_EDIT = """
import json, sys
from pathlib import Path
from fourfold.engine import Settings, Workspace
root, index, warm = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "warm"
workspace = Workspace(root, Settings(index_dir=index, semantic_backend="none"), background=False)
opened_with_parser = "fourfold.engine.index.structure" in sys.modules
if warm:
    workspace.warm_up()
from fourfold.engine.index import structure
from fourfold.engine.model.languages import grammar
before = (grammar.cache_info().misses, structure._query.cache_info().misses, workspace.snapshot().graph._graph)
workspace.update_file(root / "inventory" / "report.py")
workspace.update_file(root / "web" / "src" / "store.ts")
after = (grammar.cache_info().misses, structure._query.cache_info().misses, workspace.snapshot().graph._graph)
print(json.dumps({"opened_with_parser": opened_with_parser, "grammars": [before[0], after[0]],
                  "queries": [before[1], after[1]], "same_views": before[2] is after[2]}))
workspace.close()
"""


@pytest.mark.parametrize("warm", [True, False])
def test_after_a_warm_up_the_first_edits_load_no_grammar_and_make_no_edit_views(tree: Path, tmp_path: Path,
                                                                                warm: bool) -> None:
    """`Workspace.warm_up` loads the grammars and queries of the index's languages and makes the mapped graph's
    edit views, so the first edits after a restart (Python, TypeScript) load none and make none; unwarmed, they
    do (so the check can fail). Work is counted in a fresh process, never timed."""
    indexed(tree, tmp_path / "index")
    for path in ("inventory/report.py", "web/src/store.ts"):
        (tree / path).write_text((tree / path).read_text(encoding="utf-8") + "\n", encoding="utf-8")
    completed = subprocess.run([sys.executable, "-c", FIRST_EDIT, str(tree), str(tmp_path / "index"),
                                "warm" if warm else "cold"], capture_output=True, text=True, check=True)
    counted = json.loads(completed.stdout.splitlines()[-1])
    assert not counted["opened_with_parser"]  # a restart still does not import the parsing module
    loaded = counted["grammars"][1] > counted["grammars"][0] or counted["queries"][1] > counted["queries"][0]
    assert loaded != warm and counted["same_views"] == warm
