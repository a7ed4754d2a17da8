"""A stored graph (flat arrays in a memory-mapped file) answers every graph question as the graph it was
stored from: built fresh, and after edits; an edit to a graph opened from it builds the graph in memory
first; arrays that do not fit together are refused. A graph that reads each file's uses from its row (as a
cold index builds it) is the graph built from decoded records, and keeps few files' references alive. Real
files, the real structural pass, real mapping, real encoded rows."""

from __future__ import annotations

import gc
import re
import shutil
from collections import Counter
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fourfold.engine.graph import graph as graph_module
from fourfold.engine.graph.centrality import StoredRank
from fourfold.engine.graph.graph import SOURCE_SUFFIXES, CodeGraph
from fourfold.engine.graph.stored import REFS_CACHED, DamagedGraph, OlderGraph, StoredGraph
from fourfold.engine.index.mapped import open_arrays, write_arrays
from fourfold.engine.index.store import StoredParsed, encode_parsed
from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.languages import detect_language
from fourfold.engine.model.profiles import OVERLAY_MAX_RERESOLVED
from fourfold.engine.model.records import ParsedFile, Reference

POLYGLOT = Path(__file__).resolve().parents[2] / "fixtures" / "polyglot"


def parsed_tree(root: Path) -> dict[str, ParsedFile]:
    files: dict[str, ParsedFile] = {}
    for file in sorted(root.rglob("*")):
        path = file.relative_to(root).as_posix()
        if file.is_file() and detect_language(path):
            files[path] = parse_file(path, file.read_text(encoding="utf-8"), detect_language(path))
    return files


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(POLYGLOT, root)
    return root


def stored_and_opened(graph: CodeGraph, files: dict[str, ParsedFile], folder: Path) -> CodeGraph:
    """`graph` written to a mapped file as a workspace stores it, and opened from that file."""
    graph.refresh_centrality()
    # written one array at a time as each is made, as a workspace stores it: the arrays `stored_arrays` holds
    pointer = graph.stored(partial(write_arrays, folder / "graph.edges"))
    arrays = graph.stored_arrays()
    assert pointer is not None and arrays is not None
    written = open_arrays(folder, pointer)
    assert list(written) == list(arrays)
    assert all(written[name].dtype == array.dtype and np.array_equal(written[name], array)
               for name, array in arrays.items())
    rank = graph.stored_rank()
    assert rank is not None
    reread = StoredRank.from_arrays(rank.arrays())
    return CodeGraph.opened(dict(files), reread, StoredGraph(open_arrays(folder, pointer)))


def answers(graph: CodeGraph) -> dict[str, Any]:
    """Every graph question about every definition and file the graph has (names, qualified names, ids)."""
    questions: dict[str, Any] = {"central": graph.most_central()}
    targets = sorted(graph.graph.nodes) if graph.built else []
    assert targets or not graph.built
    return questions | {f"{kind} {target}": answer for target in targets for kind, answer in about(graph, target)}


def about(graph: CodeGraph, node: str) -> list[tuple[str, Any]]:
    path, _, qualified = node.partition(":")[2].partition("#")
    names = [node, path] + ([qualified, qualified.rsplit(".", 1)[-1], f"{path}#{qualified}"] if qualified else [])
    found: list[tuple[str, Any]] = [("siblings", graph.siblings(path, qualified or None)),
                                    ("centrality", graph.centrality_of(path, qualified or None))]
    if qualified:
        found.append(("symbol", graph.symbol_node(path, qualified)))
    for name in names:
        found += [(f"resolve {name}", graph.resolve(name)), (f"callers {name}", graph.callers(name)),
                  (f"callees {name}", graph.callees(name)), (f"impact {name}", graph.impact(name)),
                  (f"related {name}", graph.related([name]))]
    return found


def same_answers(built: CodeGraph, opened: CodeGraph) -> None:
    """The opened graph answers every question `built` is asked as `built` does, without being built, both
    ranked afresh (an opened graph ranks itself over the edits it holds, as one built in memory does)."""
    for graph in (built, opened):
        graph.refresh_centrality()
    expected = answers(built)
    questions = [key.partition(" ")[2] for key in expected if key != "central"]
    assert len(questions) > 500
    got: dict[str, Any] = {"central": opened.most_central()}
    for node in sorted({key.split(" ", 1)[1] for key in expected if key.startswith("siblings ")}):
        got |= {f"{kind} {node}": answer for kind, answer in about(opened, node)}
    assert opened.mapped and not opened.built
    assert got.keys() == expected.keys()
    differing = [key for key in expected if got[key] != expected[key]]
    assert not differing, differing[:5]
    assert any(expected[key] for key in expected if key.startswith("callers "))
    assert any(expected[key] for key in expected if key.startswith("impact "))


def test_a_stored_graph_answers_every_question_as_the_graph_it_was_stored_from(tree: Path, tmp_path: Path) -> None:
    files = parsed_tree(tree)
    built = CodeGraph.build(files)
    builds = CodeGraph.builds
    opened = stored_and_opened(built, files, tmp_path)
    same_answers(built, opened)
    assert CodeGraph.builds == builds  # every answer came from the stored arrays


def test_a_graph_stored_after_edits_answers_as_the_edited_graph(tree: Path, tmp_path: Path) -> None:
    """Edits reorder nodes and edges (a re-added node goes last, an edge re-added after a removal too) and
    leave the interning table with ids no node has: the stored form keeps the orders the answers show."""
    files = parsed_tree(tree)
    graph = CodeGraph.build(files)
    models = tree / "inventory" / "models.py"
    models.write_text(models.read_text() + "\n\ndef restocked(item):\n    return item.is_available()\n")
    report = "inventory/report.py"
    for path in ("inventory/models.py",):
        files[path] = parse_file(path, (tree / path).read_text(encoding="utf-8"), "python")
        graph.with_file(path, files[path])
    graph.without_file(report)
    del files[report]
    (tree / "inventory" / "audit.py").write_text("from inventory.models import restocked\n\n\n"
                                                 "def audit(item):\n    return restocked(item)\n")
    files["inventory/audit.py"] = parse_file("inventory/audit.py", (tree / "inventory" / "audit.py").read_text(),
                                             "python")
    graph.with_file("inventory/audit.py", files["inventory/audit.py"])
    graph.refresh_centrality()
    assert graph.callers("restocked")
    same_answers(graph, stored_and_opened(graph, files, tmp_path))


def test_a_new_file_in_an_opened_graph_with_definitions_in_a_c_source_builds_it_in_memory(tree: Path,
                                                                                         tmp_path: Path) -> None:
    """A created C-family source file with definitions builds the graph in memory (the headers it implements are
    linked again there), as a cold graph edited so; one without definitions is held as an overlay."""
    files = parsed_tree(tree)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    cold.rank_on_query = False
    builds = CodeGraph.builds
    for path, text in (("native/empty.c", "/* nothing yet */\n"),
                       ("native/extra.c", "int extra_sum(int a) { return a; }\n")):
        (tree / path).write_text(text)
        files[path] = parse_file(path, text, "c")
        for graph in (cold, opened):
            graph.with_file(path, files[path])
        if path == "native/empty.c":
            assert opened.mapped and opened.edited_in_place == [path] and CodeGraph.builds == builds
            same_answers(cold, opened)
    assert CodeGraph.builds == builds + 1 and opened.built and not opened.mapped
    assert opened.symbol_node("native/extra.c", "extra_sum")
    for graph in (cold, opened):
        graph.refresh_centrality()
    assert answers(opened) == answers(cold)
    assert opened.stored_arrays() is not None  # built in memory: it can be stored again


def test_a_stored_graph_counts_each_names_definitions_without_a_container_as_its_symbols_say(
        tree: Path, tmp_path: Path) -> None:
    files = parsed_tree(tree)
    opened = stored_and_opened(CodeGraph.build(files), files, tmp_path)
    stored = opened._mapped
    assert stored is not None
    decoded = [opened._symbols[node] for node in opened._symbols]  # each definition node, read back whole
    free = Counter(symbol.name for symbol in decoded if symbol.container is None)
    names = {symbol.name for symbol in decoded}
    assert any(free[name] > 1 for name in names) and any(free[name] == 0 for name in names)
    for name in names | {"no_such_name"}:
        assert stored.free_definitions(name) == free[name], name


def test_an_opened_graph_is_not_stored_again(tree: Path, tmp_path: Path) -> None:
    files = parsed_tree(tree)
    opened = stored_and_opened(CodeGraph.build(files), files, tmp_path)
    assert opened.stored_arrays() is None  # unchanged since it was stored


def arrays_of(tree: Path) -> dict[str, np.ndarray]:
    arrays = CodeGraph.build(parsed_tree(tree)).stored_arrays()
    assert arrays is not None
    return arrays


@pytest.mark.parametrize("damage", ["format", "cut evidence", "node out of range", "order", "index", "missing"])
def test_stored_arrays_that_do_not_fit_together_are_refused(tree: Path, damage: str) -> None:
    arrays = arrays_of(tree)
    StoredGraph(arrays)  # whole, it reads
    if damage == "format":
        arrays["format"] = np.array([99], dtype=np.int32)
    elif damage == "cut evidence":
        arrays["evidence"] = arrays["evidence"][:-1]
    elif damage == "node out of range":
        arrays["succ_values"] = arrays["succ_values"].copy()
        arrays["succ_values"][0] = len(arrays["node_order"])
    elif damage == "order":
        arrays["node_order"] = np.zeros_like(arrays["node_order"])
    elif damage == "index":
        arrays["words_ptr"] = arrays["words_ptr"][:-1]
    else:
        del arrays["pred_kind"]
    with pytest.raises(DamagedGraph) as refused:
        StoredGraph(arrays)
    # Another layout is an earlier release's index, said as such in `repairs`, not as damage.
    assert isinstance(refused.value, OlderGraph) == (damage == "format")


def folded_and_reopened(opened: CodeGraph, files: dict[str, ParsedFile], folder: Path) -> CodeGraph:
    """The graph a restart maps after `opened`'s overlay is folded into the next save's arrays."""
    arrays = opened.stored_arrays()
    assert arrays is not None  # the overlay folded in (nodes added and removed too), for the next save
    rank = opened.stored_rank()
    assert rank is not None
    pointer = write_arrays(folder / "again.edges", arrays)
    return CodeGraph.opened(dict(files), StoredRank.from_arrays(rank.arrays()),
                            StoredGraph(open_arrays(folder, pointer)))


# A new file that uses a definition of another (the edit an overlay does not hold)
AUDIT = "from inventory.models import Item\n\n\ndef restocked(item: Item):\n    return item.is_available()\n"


def body_edited(tree: Path) -> tuple[str, ParsedFile]:
    """inventory/report.py with a new import and a new body for `low_stock`, its definitions kept (moved down
    two lines): the edit an overlay holds."""
    path = "inventory/report.py"
    report = tree / path
    text = report.read_text(encoding="utf-8").replace(
        "from inventory.service import InventoryService\n",
        "\n\nfrom inventory.models import Item\nfrom inventory.service import InventoryService\n")
    text = text.replace("if item.quantity < threshold)",
                        "if isinstance(item, Item) and not item.is_available() or item.quantity < threshold)")
    report.write_text(text, encoding="utf-8")
    return path, parse_file(path, text, "python")


def test_an_edit_that_keeps_the_files_definitions_is_held_over_the_stored_arrays(tree: Path, tmp_path: Path) -> None:
    """No build: the opened graph answers every question as a cold graph edited so (ranked as stored, as a
    server ranks between an edit and its refresh), twice edited too, and so do the arrays it stores next."""
    files = parsed_tree(tree)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    cold.rank_on_query = False  # keeps the ranking the opened graph was stored with
    builds = CodeGraph.builds
    path, changed = body_edited(tree)
    files[path] = changed
    for graph in (cold, opened):
        graph.with_file(path, changed)
    assert CodeGraph.builds == builds and opened.edited_in_place == [path]
    assert any(hit.path == path for hit in cold.callers("is_available"))  # the edit added this call
    same_answers(cold, opened)
    again = parse_file(path, changed_text := (tree / path).read_text().replace("not item.is_available()", "True"),
                       "python")
    (tree / path).write_text(changed_text)
    files[path] = again
    for graph in (cold, opened):
        graph.with_file(path, again)
    assert CodeGraph.builds == builds
    same_answers(cold, opened)
    reopened = folded_and_reopened(opened, files, tmp_path)
    same_answers(cold, reopened)
    assert CodeGraph.builds == builds


def test_every_file_edited_in_place_resolves_its_uses_as_a_graph_in_memory(tree: Path, tmp_path: Path) -> None:
    """An overlaid edit resolves its file's uses over the stored arrays (`_stored_candidates`): each file of
    every language the fixture has, edited in turn with its definitions kept, links every use to what a cold
    graph edited so links it to (same tiers, same nodes, same order), and the graph is never built."""
    files = parsed_tree(tree)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    cold.rank_on_query = False
    builds = CodeGraph.builds
    for path in sorted(files):
        text = (tree / path).read_text(encoding="utf-8") + "\n"
        files[path] = parse_file(path, text, detect_language(path))
        for graph in (cold, opened):
            graph.with_file(path, files[path])
    assert CodeGraph.builds == builds and opened.edited_in_place == sorted(files)
    assert len({detect_language(path) for path in files}) > 5
    same_answers(cold, opened)


def test_a_new_file_after_an_overlaid_edit_is_held_over_it_too(tree: Path, tmp_path: Path) -> None:
    """A file created after an overlaid edit, importing the edited one, which the edit made import it: the file
    joins the same overlay and the edited one's import resolves to it (its specifiers as edited, not as stored),
    with no build, answering as a cold graph edited so."""
    files = parsed_tree(tree)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    cold.rank_on_query = False
    builds = CodeGraph.builds
    path, _ = body_edited(tree)
    text = (tree / path).read_text(encoding="utf-8") + "\nimport inventory.audit\n"
    (tree / path).write_text(text, encoding="utf-8")
    changed = parse_file(path, text, "python")
    audit = tree / "inventory" / "audit.py"
    audit.write_text("from inventory.report import low_stock\n\n\ndef audit(items):\n    return low_stock(items)\n")
    added = parse_file("inventory/audit.py", audit.read_text(encoding="utf-8"), "python")
    for graph in (cold, opened):
        graph.with_file(path, changed)
    assert opened.edited_in_place == [path] and not opened.built
    for graph in (cold, opened):
        graph.with_file("inventory/audit.py", added)
    assert CodeGraph.builds == builds and opened.edited_in_place == ["inventory/audit.py", path]
    assert [hit.path for hit in cold.callers("low_stock")] == ["inventory/audit.py"]
    assert ("file:inventory/report.py", "file:inventory/audit.py") in cold.graph.edges
    same_answers(cold, opened)


# Files that wait for `inventory/audit.py`: one imports it and calls what it defines, one calls a top-level
# name it defines from the same folder (no import), one in another folder only imports it (no use of its names).
WAITING = {"inventory/checks.py": ("from inventory.audit import restocked\n\n\n"
                                   "def check(item):\n    return restocked(item)\n"),
           "inventory/tally.py": "def tally(items):\n    return audited_total(items)\n",
           "tools/run_audit.py": "import inventory.audit\n\n\ndef run_audit():\n    return 0\n"}
AUDITED = AUDIT + "\n\ndef audited_total(items):\n    return len(items)\n"


def test_a_created_file_is_held_over_the_stored_arrays_and_what_waited_for_it_resolves_to_it(tree: Path,
                                                                                            tmp_path: Path) -> None:
    """A created file: its nodes come last, the file that imports it resolves its import and call to it, the one
    beside it its call, and the opened graph answers every question as a cold graph edited so, without a build;
    so does the graph stored next, and over that one (a restart) the file deleted again, stored again, and
    created once more over that."""
    for path, text in WAITING.items():
        (tree / path).parent.mkdir(exist_ok=True)
        (tree / path).write_text(text)
    files = parsed_tree(tree)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    cold.rank_on_query = False
    builds = CodeGraph.builds
    assert not cold.callers("restocked") and not cold.callers("audited_total")
    path = "inventory/audit.py"
    (tree / path).write_text(AUDITED)
    files[path] = parse_file(path, AUDITED, "python")
    for graph in (cold, opened):
        graph.with_file(path, files[path])
    assert CodeGraph.builds == builds and opened.mapped and path in opened.edited_in_place
    assert [hit.path for hit in cold.callers("restocked")] == ["inventory/checks.py"]
    assert [hit.path for hit in cold.callers("audited_total")] == ["inventory/tally.py"]
    assert {("file:inventory/checks.py", "file:inventory/audit.py"),
            ("file:tools/run_audit.py", "file:inventory/audit.py")} <= set(cold.graph.edges)
    same_answers(cold, opened)
    (tmp_path / "saved").mkdir()
    reopened = folded_and_reopened(opened, files, tmp_path / "saved")
    same_answers(cold, reopened)
    del files[path]
    for graph in (cold, reopened):
        graph.without_file(path)
    assert CodeGraph.builds == builds and path in reopened.edited_in_place
    assert not cold.callers("restocked") and not reopened.resolve("restocked")
    same_answers(cold, reopened)
    (tmp_path / "saved again").mkdir()
    third = folded_and_reopened(reopened, files, tmp_path / "saved again")
    same_answers(cold, third)
    files[path] = parse_file(path, AUDITED, "python")  # created again where the stored graph keeps its path
    for graph in (cold, third):
        graph.with_file(path, files[path])
    assert [hit.path for hit in third.callers("restocked")] == ["inventory/checks.py"]
    same_answers(cold, third)
    assert CodeGraph.builds == builds


def test_a_created_file_that_only_shares_a_name_with_what_files_import_resolves_none_of_them_again(
        tree: Path, tmp_path: Path) -> None:
    """tools/models.py has the name `from inventory.models import Item` could mean, but that import still means
    inventory/models.py: its importers are not resolved again (their imports are what they were), and the graph
    answers as a cold graph edited so."""
    files = parsed_tree(tree)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    cold.rank_on_query = False
    path, text = "tools/models.py", "def tool_model():\n    return 0\n"
    (tree / "tools").mkdir()
    (tree / path).write_text(text)
    files[path] = parse_file(path, text, "python")
    for graph in (cold, opened):
        graph.with_file(path, files[path])
    assert "file:inventory/service.py" in {source for source, _ in cold.graph.in_edges("file:inventory/models.py")}
    assert opened.mapped and opened.edited_in_place == [path]
    same_answers(cold, opened)


def test_a_deleted_file_others_import_is_held_over_the_stored_arrays_and_may_come_back(tree: Path,
                                                                                      tmp_path: Path) -> None:
    """inventory/models.py deleted: its nodes and every edge to them go, its importers resolve their imports and
    uses to what is left, as in a cold graph edited so, without a build; created again, it is linked as before
    (its nodes last), and the graph stored next answers so too."""
    files = parsed_tree(tree)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    cold.rank_on_query = False
    builds = CodeGraph.builds
    path = "inventory/models.py"
    kept = files.pop(path)
    importers = {source for source, _ in cold.graph.in_edges(f"file:{path}")}
    assert "file:inventory/service.py" in importers and cold.callers("Item.is_available")
    for graph in (cold, opened):
        graph.without_file(path)
    assert CodeGraph.builds == builds and opened.mapped and path in opened.edited_in_place
    assert f"file:{path}" not in cold.graph and opened.resolve("Item") == ["sym:web/src/types.ts#Item"]
    assert not cold.callers("Item.is_available")
    same_answers(cold, opened)
    files[path] = kept
    for graph in (cold, opened):
        graph.with_file(path, kept)
    assert {source for source, _ in cold.graph.in_edges(f"file:{path}")} == importers
    assert CodeGraph.builds == builds and f"sym:{path}#Item" in opened.resolve("Item")
    same_answers(cold, opened)
    same_answers(cold, folded_and_reopened(opened, files, tmp_path))
    assert CodeGraph.builds == builds


@pytest.mark.parametrize("deleted", ["pkg_a/utils.py", "pkg_b/utils.py"])
def test_a_deleted_python_module_resolves_again_only_the_imports_that_resolved_to_it(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deleted: str) -> None:
    """Beside the fixture, files that each import some `utils` (so each is an importer by key), but only
    pkg_a/user.py's import resolves to pkg_a/utils.py: deleting that module resolves no other file's imports
    again, and deleting the other resolves those of its own users; either way the graph answers as a cold one
    edited so."""
    root = tree
    for package in ("pkg_a", "pkg_b"):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text("")
        (root / package / "utils.py").write_text(f"def {package}_util():\n    return 0\n")
    (root / "pkg_a" / "user.py").write_text("from pkg_a.utils import pkg_a_util\n\ndef a():\n    return pkg_a_util()\n")
    for at in range(4):
        (root / "pkg_b" / f"user_{at}.py").write_text(
            f"from pkg_b.utils import pkg_b_util\n\ndef b_{at}():\n    return pkg_b_util()\n")
    files = parsed_tree(root)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    cold.rank_on_query = False
    resolved: list[str] = []
    resolve = graph_module.resolve_import

    def counted(spec: str, from_path: str, language: str, known: Any) -> list[str]:
        resolved.append(from_path)
        return resolve(spec, from_path, language, known)

    cold.without_file(deleted)
    monkeypatch.setattr(graph_module, "resolve_import", counted)
    opened.without_file(deleted)
    monkeypatch.undo()
    assert opened.mapped and not opened.built
    users = {"pkg_a/utils.py": {"pkg_a/user.py"}, "pkg_b/utils.py": {f"pkg_b/user_{at}.py" for at in range(4)}}
    assert set(resolved) == users[deleted]
    same_answers(cold, opened)


def renamed(tree: Path, files: dict[str, ParsedFile], path: str) -> ParsedFile | None:
    """`path` with the definition other files use most renamed wherever the file says its name (its uses in
    other files stay, so they resolve elsewhere or nowhere): a definition removed and one added, in any
    language. None when the file defines nothing such a rename can reach."""
    used = Counter(ref.name.rsplit(".", 1)[-1] for other, parsed in files.items() if other != path
                   for ref in parsed.references)
    names = sorted({symbol.name for symbol in files[path].symbols if re.fullmatch(r"[A-Za-z_]\w{2,}", symbol.name)},
                   key=lambda name: (-used[name], name))
    text = (tree / path).read_text(encoding="utf-8")
    for name in names:
        edited = re.sub(rf"\b{name}\b", f"{name}Renamed", text)
        parsed = parse_file(path, edited, detect_language(path))
        if {s.name for s in parsed.symbols} != {s.name for s in files[path].symbols}:
            (tree / path).write_text(edited, encoding="utf-8")
            return parsed
    return None


def test_edits_that_add_and_remove_definitions_are_held_over_the_stored_arrays(tree: Path, tmp_path: Path) -> None:
    """Each file of every language the fixture has (but C-family sources, whose headers are linked again in
    memory) renames in turn the definition other files use most: its node goes, a new one comes last, and the
    other files whose uses of either name may resolve differently are resolved again. The opened graph is
    never built and answers every question as a cold graph edited so; the uses that moved show it; and so does
    the graph stored next with the overlay folded in."""
    files = parsed_tree(tree)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    cold.rank_on_query = False
    builds = CodeGraph.builds
    before = answers(cold)
    edited: list[str] = []
    for path in sorted(files):
        if path.lower().endswith(SOURCE_SUFFIXES):
            continue
        parsed = renamed(tree, files, path)
        if parsed is None:
            continue
        files[path] = parsed
        edited.append(path)
        for graph in (cold, opened):
            graph.with_file(path, parsed)
        if len(edited) == 3:  # some edits over a graph already edited so, and the answers halfway
            same_answers(cold, opened)
    assert CodeGraph.builds == builds and set(edited) <= set(opened.edited_in_place)
    assert len({detect_language(path) for path in edited}) > 5
    same_answers(cold, opened)
    after = answers(cold)
    moved = [key for key in before.keys() & after.keys() if key.startswith("callers ") and before[key] != after[key]]
    assert any(hit.path not in key for key in moved for hit in before[key])  # a use in another file resolved anew
    reopened = folded_and_reopened(opened, files, tmp_path)
    same_answers(cold, reopened)
    for path in sorted(files):  # edited again over the folded graph: its stored flags, homes and name indexes
        if path.lower().endswith(SOURCE_SUFFIXES):
            continue
        again = renamed(tree, files, path) if path in edited[:2] else parse_file(
            path, (tree / path).read_text(encoding="utf-8") + "\n", detect_language(path))
        if again is not None:
            files[path] = again
            for graph in (cold, reopened):
                graph.with_file(path, again)
    same_answers(cold, reopened)
    assert CodeGraph.builds == builds


def test_a_removed_definition_leaves_no_edge_to_it_and_an_added_one_is_used(tree: Path, tmp_path: Path) -> None:
    """`Item.is_available` removed: its callers in other files link to what is left (the subclass's, or
    nothing), in the opened graph as in a cold one, and a node added in its place is found by name. A new
    `create_connection` beside `service.py`, which calls a name of that name, is now what that call means."""
    files = parsed_tree(tree)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    cold.rank_on_query = False
    models = tree / "inventory" / "models.py"
    text = models.read_text(encoding="utf-8").replace("    def is_available(self):\n        return self.quantity > 0\n",
                                                      "    def in_stock(self):\n        return self.quantity > 0\n")
    text += "\n\ndef create_connection(address, timeout=None):\n    return address\n"
    path = "inventory/models.py"
    files[path] = parse_file(path, text, "python")
    assert "sym:inventory/models.py#Item.is_available" in cold.graph
    for graph in (cold, opened):
        graph.with_file(path, files[path])
    assert "sym:inventory/models.py#Item.is_available" not in cold.graph
    assert opened.resolve("Item.in_stock") == cold.resolve("Item.in_stock") == ["sym:inventory/models.py#Item.in_stock"]
    assert [hit.path for hit in cold.callers("create_connection")] == ["inventory/service.py"]
    same_answers(cold, opened)


@pytest.mark.parametrize("users", [3, OVERLAY_MAX_RERESOLVED + 1])
@pytest.mark.parametrize("change", ["created", "deleted"])
def test_a_file_defining_a_name_that_many_files_may_use_builds_the_graph_in_memory(tmp_path: Path, users: int,
                                                                                 change: str) -> None:
    """A file defining `helper` created beside more files that call it than an overlay re-resolves, or deleted
    from there: the graph is built in memory; below it, an overlay. Either way every caller links to it, or to
    nothing, as in a cold graph edited so."""
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "helpers.py").write_text("def other():\n    return 0\n")
    for at in range(users):
        (root / "pkg" / f"user_{at}.py").write_text(f"def use_{at}():\n    return helper()\n")
    path, text = "pkg/extra.py", "def helper():\n    return 1\n"
    if change == "deleted":
        (root / path).write_text(text)
    files = parsed_tree(root)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    cold.rank_on_query = False
    for graph in (cold, opened):
        if change == "created":
            graph.with_file(path, parse_file(path, text, "python"))
        else:
            graph.without_file(path)
    assert opened.built == (users > OVERLAY_MAX_RERESOLVED)
    for graph in (cold, opened):
        graph.refresh_centrality()
    callers = cold.callers("helper", limit=1000)
    assert opened.callers("helper", limit=1000) == callers and len(callers) == (users if change == "created" else 0)
    if not opened.built:
        assert len(opened.edited_in_place) == users + 1


@pytest.mark.parametrize("users", [3, OVERLAY_MAX_RERESOLVED + 1])
def test_a_definition_that_many_files_may_use_builds_the_graph_in_memory(tmp_path: Path, users: int) -> None:
    """A name used by more files than an overlay re-resolves (`OVERLAY_MAX_RERESOLVED`) gains a definition
    beside them: the graph is built in memory (its settling re-resolves only the stale names); below it, an
    overlay. Either way every caller now links to it, as in a cold graph edited so."""
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "helpers.py").write_text("def other():\n    return 0\n")
    for at in range(users):
        (root / "pkg" / f"user_{at}.py").write_text(f"def use_{at}():\n    return helper()\n")
    files = parsed_tree(root)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    cold.rank_on_query = False
    path = "pkg/helpers.py"
    files[path] = parse_file(path, "def other():\n    return 0\n\n\ndef helper():\n    return 1\n", "python")
    for graph in (cold, opened):
        graph.with_file(path, files[path])
    assert opened.built == (users > OVERLAY_MAX_RERESOLVED)
    assert len(cold.callers("helper", limit=1000)) == len(opened.callers("helper", limit=1000)) == users
    if not opened.built:
        assert len(opened.edited_in_place) == users + 1


def lean_graph(files: dict[str, ParsedFile]) -> tuple[CodeGraph, StoredParsed]:
    """The graph of `files` as a cold index builds it: definitions and imports from records without
    references, each file's uses read from its encoded row."""
    rows = StoredParsed({path: encode_parsed(parsed) for path, parsed in files.items()})
    stripped = {path: replace(parsed, references=()) for path, parsed in files.items()}
    return CodeGraph.build(stripped, rows.unkept(chunks=False)), rows


def same_graph(lean: CodeGraph, eager: CodeGraph) -> None:
    lean.refresh_centrality()
    eager.refresh_centrality()
    stored, expected = lean.stored_arrays(), eager.stored_arrays()
    assert stored is not None and expected is not None and stored.keys() == expected.keys()
    differing = [key for key in expected if not np.array_equal(stored[key], expected[key])]
    assert not differing, differing
    assert answers(lean) == answers(eager)


def test_a_graph_reading_uses_from_rows_is_the_graph_built_from_records(tree: Path) -> None:
    files = parsed_tree(tree)
    assert sum(len(parsed.references) for parsed in files.values()) > 100
    lean, rows = lean_graph(files)
    eager = CodeGraph.build(files)
    assert eager.callers("is_available")
    same_graph(lean, eager)
    assert rows.kept == 0  # every row read was let go


def test_edits_to_a_graph_reading_uses_from_rows_answer_as_edits_to_one_built_from_records(tree: Path) -> None:
    files = parsed_tree(tree)
    lean, _ = lean_graph(files)
    eager = CodeGraph.build(files)
    models = tree / "inventory" / "models.py"
    models.write_text(models.read_text() + "\n\ndef restocked(item):\n    return item.is_available()\n")
    audit = "inventory/audit.py"
    (tree / audit).write_text("from inventory.models import restocked\n\n\ndef audit(item):\n"
                              "    return restocked(item)\n")
    edited = {path: parse_file(path, (tree / path).read_text(encoding="utf-8"), "python")
              for path in ("inventory/models.py", audit)}
    for graph in (lean, eager):
        for path, parsed in edited.items():
            graph.with_file(path, parsed)
        graph.without_file("inventory/report.py")
    assert eager.callers("restocked")
    same_graph(lean, eager)


def alive_references() -> int:
    gc.collect()
    return sum(1 for item in gc.get_objects() if isinstance(item, Reference))


def chained_files(count: int) -> dict[str, ParsedFile]:
    """`count` modules, each importing and calling the next one's function."""
    files: dict[str, ParsedFile] = {}
    for number in range(count):
        following = (number + 1) % count
        path = f"pkg/mod{number}.py"
        text = (f"from pkg.mod{following} import f{following}\n\n\n"
                f"def f{number}():\n    return f{following}() + len([]) + max(1, 2)\n")
        files[path] = parse_file(path, text, "python")
    return files


def test_a_graph_reading_uses_from_rows_keeps_few_files_references() -> None:
    files = chained_files(3 * REFS_CACHED)
    most = max(len(parsed.references) for parsed in files.values())
    total = sum(len(parsed.references) for parsed in files.values())
    rows = StoredParsed({path: encode_parsed(parsed) for path, parsed in files.items()})
    stripped = {path: replace(parsed, references=()) for path, parsed in files.items()}
    del files
    before = alive_references()
    lean = CodeGraph.build(stripped, rows.unkept(chunks=False))
    assert [hit.symbol for hit in lean.callers("f1")] == ["f0"]
    assert alive_references() - before <= REFS_CACHED * most < total  # the last files resolved, no more
    eager = CodeGraph.build(dict(rows.unkept()))
    assert alive_references() - before >= total  # a graph built from records keeps every file's
    assert [hit.symbol for hit in eager.callers("f1")] == ["f0"]


def test_an_opened_graph_ranks_what_edits_added_as_a_graph_built_in_memory_and_stores_that_ranking(
        tree: Path, tmp_path: Path) -> None:
    """A created file's definitions have no place in the stored ranking: an opened graph ranks itself again
    over the edits it holds (a server does so after a burst of edits), as a graph built in memory does, with
    no build; folded into its arrays at the next save, that ranking is the one a restart maps."""
    files = parsed_tree(tree)
    cold = CodeGraph.build(files)
    opened = stored_and_opened(cold, files, tmp_path)
    for graph in (cold, opened):
        graph.rank_on_query = False  # ranked only when asked to, as a server ranks behind the edits
    builds = CodeGraph.builds
    path = "inventory/extra.py"
    text = ("from inventory.retry import retry\n\n\ndef extra_retry():\n    return retry(1)\n\n\n"
            "def extra_caller():\n    return extra_retry()\n")
    files[path] = parse_file(path, text, "python")
    (tree / path).write_text("")
    for graph in (cold, opened):
        graph.with_file(path, files[path])
    assert opened.mapped and opened.edited_in_place == [path]
    assert opened.centrality_of(path, "extra_retry") == 0.0  # not ranked yet: the stored ranking has no place for it
    for graph in (cold, opened):
        graph.refresh_centrality()
    assert CodeGraph.builds == builds and opened.mapped and not opened.built
    ranked = opened.centrality_of(path, "extra_retry")
    assert ranked > 0 and ranked == cold.centrality_of(path, "extra_retry")
    assert opened.centrality_of("inventory/retry.py", "retry") == cold.centrality_of("inventory/retry.py", "retry")
    assert opened.most_central() == cold.most_central()
    reopened = folded_and_reopened(opened, files, tmp_path)
    assert reopened.centrality_of(path, "extra_retry") == ranked and reopened.most_central() == cold.most_central()
    assert CodeGraph.builds == builds
