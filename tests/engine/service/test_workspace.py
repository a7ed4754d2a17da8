"""Workspace: restart re-checks, one-file updates, unsaved buffers, bad files and a killed indexer."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path

import pytest
from processes import kill_session, many_modules

from fourfold.engine import SearchRequest, Settings, Workspace, WorkspaceError
from fourfold.engine.index.textsearch import QueryError, parse_text_query
from fourfold.engine.model.records import ParsedFile
from fourfold.engine.retrieve.text import literal_hits


def open_workspace(root: Path, index: Path) -> Workspace:
    return Workspace(root, Settings(index_dir=str(index), semantic_backend="none"))


def lines(workspace: Workspace, text: str) -> list[tuple[str, int]]:
    return [(h.path, h.span.start_line) for h in literal_hits(workspace.snapshot(), parse_text_query(text), 100)]


def test_restart_reindexes_only_what_changed(tree: Path, tmp_path: Path) -> None:
    first = open_workspace(tree, tmp_path / "index")
    stats = first.refresh()
    assert stats.indexed == stats.scanned == sum(1 for p in tree.rglob("*") if p.is_file())
    first.close()
    (tree / "inventory" / "models.py").write_text("class Pallet:\n    pass\n")
    (tree / "web" / "src" / "constants.js").unlink()
    second = open_workspace(tree, tmp_path / "index")
    assert len(second.snapshot().files) == stats.scanned  # loaded from disk before any re-check
    again = second.refresh()
    assert (again.indexed, again.removed, again.unchanged) == (1, 1, stats.scanned - 2)
    assert [s.path for s in second.snapshot().symbols.definitions("Pallet")] == ["inventory/models.py"]
    assert "inventory/models.py" not in {s.path for s in second.snapshot().symbols.definitions("Item")}


def test_update_file_touches_one_file(tree: Path, tmp_path: Path) -> None:
    workspace = open_workspace(tree, tmp_path / "index")
    workspace.refresh()
    before = workspace.snapshot()
    target = tree / "inventory" / "retry.py"
    target.write_text(target.read_text().replace("gave up after", "abandoned after"))
    workspace.update_file(target)
    after = workspace.snapshot()
    assert lines(workspace, "abandoned after") == [("inventory/retry.py", 9)]
    assert lines(workspace, "gave up after") == []
    assert before.files["inventory/retry.py"] != after.files["inventory/retry.py"]
    assert {p: r for p, r in before.files.items() if p != "inventory/retry.py"} == {
        p: r for p, r in after.files.items() if p != "inventory/retry.py"}
    assert before.symbols is not after.symbols and "inventory/retry.py" in before.files


def test_created_deleted_and_renamed_files(tree: Path, tmp_path: Path) -> None:
    workspace = open_workspace(tree, tmp_path / "index")
    workspace.refresh()
    created = tree / "inventory" / "audit.py"
    created.write_text("def audit_trail():\n    return 'stocktake'\n")
    workspace.update_file(created)
    assert lines(workspace, "stocktake") == [("inventory/audit.py", 1)]
    renamed = tree / "inventory" / "ledger.py"
    created.rename(renamed)
    workspace.rename_file(created, renamed)
    assert lines(workspace, "stocktake") == [("inventory/ledger.py", 1)]
    renamed.unlink()
    workspace.update_file(renamed)
    assert lines(workspace, "stocktake") == []
    assert "inventory/ledger.py" not in workspace.snapshot().files


def test_unsaved_buffer_is_searchable_then_disk_wins_again(tree: Path, tmp_path: Path) -> None:
    workspace = open_workspace(tree, tmp_path / "index")
    workspace.refresh()
    path = tree / "inventory" / "models.py"
    original = path.read_text()
    workspace.set_buffer(path, original + "\nUNSAVED_MARKER = 'só na tela'\n")
    expected = [("inventory/models.py", len(original.splitlines()) + 1)]
    assert lines(workspace, "UNSAVED_MARKER") == expected
    workspace.refresh()  # the disk has not changed: the buffer still wins
    assert lines(workspace, "UNSAVED_MARKER") == expected
    workspace.clear_buffer(path)
    assert lines(workspace, "UNSAVED_MARKER") == []


def test_bad_files_are_skipped_with_reasons(tree: Path, tmp_path: Path) -> None:
    (tree / "blob.bin").write_bytes(bytes(range(256)) * 10)
    (tree / "huge.txt").write_bytes(b"x" * (5 * 1024 * 1024))
    (tree / "latin1.py").write_bytes(b"name = 'caf\xe9 cr\xe8me'\n")
    (tree / "crlf.py").write_bytes(b"def windows_line():\r\n    return 1\r\n")
    (tree / "empty.py").write_bytes(b"")
    os.symlink(tree, tree / "loop")
    workspace = open_workspace(tree, tmp_path / "index")
    workspace.refresh()
    snapshot = workspace.snapshot()
    assert "blob.bin" not in snapshot.files and "binary" in snapshot.skipped["blob.bin"]
    assert "huge.txt" not in snapshot.files and "larger than" in snapshot.skipped["huge.txt"]
    assert lines(workspace, "cr\ufffdme") == [("latin1.py", 0)]
    assert [s.name for s in snapshot.symbols.definitions("windows_line")] == ["windows_line"]
    assert "empty.py" in snapshot.files
    assert workspace.status()["skipped"] == 2


def test_file_deleted_between_scan_and_read(tree: Path, tmp_path: Path) -> None:
    workspace = open_workspace(tree, tmp_path / "index")
    doomed = tree / "web" / "src" / "types.ts"

    def progress(done: int, total: int) -> None:
        doomed.unlink(missing_ok=True)

    workspace.refresh(progress)
    assert "web/src/types.ts" not in workspace.snapshot().files
    assert "No such file" in workspace.snapshot().skipped["web/src/types.ts"]


def test_missing_root_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="does not exist"):
        Workspace(tmp_path / "absent", Settings(index_dir=str(tmp_path / "index")))


def test_corrupted_index_is_rebuilt_and_reported(tree: Path, tmp_path: Path) -> None:
    open_workspace(tree, tmp_path / "index").refresh()
    (tmp_path / "index" / "index.sqlite").write_bytes(b"\x00garbage" * 1000)
    for suffix in ("-wal", "-shm"):
        (tmp_path / "index" / f"index.sqlite{suffix}").unlink(missing_ok=True)
    workspace = open_workspace(tree, tmp_path / "index")
    assert workspace.status()["last_error"] and "rebuilt" in workspace.status()["last_error"]
    workspace.refresh()
    assert ("inventory/service.py", 33) in lines(workspace, "connection refused by warehouse")


def test_search_during_and_after_indexing(tree: Path, tmp_path: Path) -> None:
    workspace = open_workspace(tree, tmp_path / "index")
    assert workspace.status()["ready"] is False
    workspace.refresh()
    result = workspace.search_dict(SearchRequest("where is parseConfig defined"))
    assert result["index"]["ready"] is True and result["partial"] is False
    assert result["results"][0]["path"] == "web/src/config.js"


KILLER = """
import sys
from pathlib import Path
from fourfold.engine import Settings, Workspace
# The indexer in this process, as a one-shot CLI runs it (a server builds a first index this large in a
# process of its own: tests/engine/service/test_build_process.py kills that server).
workspace = Workspace(Path(sys.argv[1]), Settings(index_dir=sys.argv[2], semantic_backend="none"), background=False)
def progress(done, total):
    if done == int(sys.argv[3]):
        print("midway", flush=True)
        sys.stdin.readline()  # wait here until killed
workspace.refresh(progress)
"""


def test_indexer_killed_mid_refresh_leaves_a_consistent_index(tmp_path: Path) -> None:
    root = tmp_path / "big"
    many_modules(root, 1200, 12)
    index = tmp_path / "index"
    # A session of its own: whatever the indexer started (pool workers) is in its process group,
    # which the teardown kills, so the suite leaves nothing behind even if a worker outlives it.
    child = subprocess.Popen([sys.executable, "-c", KILLER, str(root), str(index), "900"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "midway"
        child.send_signal(signal.SIGKILL)  # kill -9 of the indexer alone, as a user or the OOM killer does
        child.wait()
        survivor = open_workspace(root, index)
        kept = len(survivor.snapshot().files)
        assert 0 < kept < 1200 and kept % 400 == 0  # whole batches only: each is one transaction
        stats = survivor.refresh()
        assert stats.indexed == 1200 - kept
        assert len(survivor.snapshot().files) == 1200
        assert lines(survivor, "marker 1199") == [("pkg11/mod1199.py", 1)]
    finally:
        kill_session(child)


def test_reopened_index_answers_as_the_one_that_built_it(tree: Path, tmp_path: Path) -> None:
    # Issue 2: a restart decodes pickled rows with the collector paused; no answer may change.
    first = open_workspace(tree, tmp_path / "index")
    first.refresh()
    names = ("BaseJob.with_retry", "ConfigLoader.loadSettings", "StockLevel.available")
    expected = {name: first.snapshot().graph.callers(name) for name in names}
    symbols = first.snapshot().symbols.definitions("Config")
    central = first.central_symbols(10)
    first.close()
    second = open_workspace(tree, tmp_path / "index")
    assert {name: second.snapshot().graph.callers(name) for name in names} == expected
    assert all(expected.values())
    assert second.snapshot().symbols.definitions("Config") == symbols
    assert second.central_symbols(10) == central


class _CountingRows(Mapping[str, ParsedFile]):
    """A snapshot's parsed rows that count lookups by path (a saved index decodes rows on lookup)."""

    def __init__(self, rows: Mapping[str, ParsedFile]) -> None:
        self.rows, self.asked = rows, Counter[str]()

    def __getitem__(self, path: str) -> ParsedFile:
        self.asked[path] += 1
        return self.rows[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


def test_every_line_lists_all_matching_lines_and_builds_the_page_with_definitions(tmp_path: Path) -> None:
    """Issue 17: a grep-like listing gives (path, line) of every matching line, full hits for the first page,
    and looks up each file's definitions once however many of its lines match."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("def first():\n    return marker(1)\n\n" * 30)
    (root / "b.py").write_text("class Holder:\n    def get(self):\n        return marker\n")
    workspace = open_workspace(root, tmp_path / "index")
    workspace.refresh()
    found = workspace.every_line("marker", page=5)
    assert found.lines == [("a.py", 1 + 3 * n) for n in range(30)] + [("b.py", 2)]
    assert not found.truncated and found.reason == ""
    assert [(h.path, h.span.start_line, h.symbol, h.kind) for h in found.page] == [
        ("a.py", 1 + 3 * n, "first", "function") for n in range(5)]
    counted = _CountingRows(workspace.snapshot().parsed)
    snapshot = replace(workspace.snapshot(), parsed=counted)
    hits = literal_hits(snapshot, parse_text_query("marker"), 100)
    assert [(h.path, h.span.start_line) for h in hits] == found.lines
    assert hits[-1].symbol == "Holder.get"
    assert counted.asked == Counter({"a.py": 1, "b.py": 1})
    with pytest.raises(QueryError):
        workspace.every_line("/a(?=b)/")
    workspace.close()


def test_every_line_keeps_to_the_paths_and_languages_asked_and_reads_back_the_lines_it_matched(
        tmp_path: Path) -> None:
    """A grep-like client filters before the scan and prints each line's text as it was matched,
    CRLF folded, even after the file changed on disk."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_bytes(b"marker = 1\r\nother = 2\r\nmarker_two = 3\r\n")
    (root / "src" / "b.js").write_text("// marker here\n")
    (root / "notes.md").write_text("no code, a marker\n")
    workspace = open_workspace(root, tmp_path / "index")
    workspace.refresh()
    found = workspace.every_line("marker", page=0, paths=["src/**"], languages=["python"])
    assert found.page == [] and found.lines == [("src/a.py", 0), ("src/a.py", 2)]
    (root / "src" / "a.py").write_text("changed\n")
    assert found.texts(found.lines) == ["marker = 1", "marker_two = 3"]
    assert sorted(workspace.every_line("marker", paths=["*.md", "*.js"]).lines) == [("notes.md", 0), ("src/b.js", 0)]
    workspace.close()


def test_after_a_restart_the_lines_matched_read_back_from_the_stored_positions_once_the_file_changed(
        tmp_path: Path) -> None:
    """A restart caches no text: a line listed before the file changed on disk is read from the positional
    index, which holds the indexed version, not from the disk (which no longer does)."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_bytes(b"marker = 1\r\nother = 2\r\nmarker_two = 3\r\n")
    first = open_workspace(root, tmp_path / "index")
    first.refresh()
    first.close()
    restarted = open_workspace(root, tmp_path / "index")
    assert restarted.snapshot().positions is not None and restarted.snapshot().contents.held == 0
    found = restarted.every_line("marker", page=0)
    (root / "a.py").write_text("changed\n")
    assert found.lines == [("a.py", 0), ("a.py", 2)]
    assert found.texts(found.lines) == ["marker = 1", "marker_two = 3"]
    restarted.close()


def test_closing_a_workspace_stops_its_retriever_threads(tree: Path, tmp_path: Path) -> None:
    """An LSP session or an eval run opens and closes workspaces for hours: each closed one used to
    leave its retriever threads running (two per workspace over SWE-bench's 65 releases)."""
    def retriever_threads() -> int:
        return sum(1 for thread in threading.enumerate() if thread.name.startswith("retriever"))

    before = retriever_threads()
    for round_ in range(3):
        workspace = open_workspace(tree, tmp_path / f"index{round_}")
        workspace.refresh()
        assert workspace.search(SearchRequest(query="how are items retried after a failure")).results
        assert retriever_threads() > before
        workspace.close()
    for thread in threading.enumerate():
        if thread.name.startswith("retriever"):
            thread.join(timeout=5)
    assert retriever_threads() == before


def test_a_results_line_is_the_line_the_user_sees_in_crlf_unicode_and_unsaved_files(tmp_path: Path) -> None:
    """`Snapshot.line` (a result's match line) reads an indexed file's line from its cached bytes' newline
    offsets: the same text as splitting the file at `\\n`, without its `\\r`, "" past the end."""
    root = tmp_path / "repo"
    root.mkdir()
    texts = {"crlf.py": "a = 1\r\nb = 'caf\u00e9'\r\n\r\nlast\r", "plain.py": "x\n\u65e5\u672c = 2\nfeed\x0cstill\n",
             "none.py": "no newline"}
    for name, text in texts.items():
        (root / name).write_bytes(text.encode("utf-8"))
    workspace = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"))
    workspace.refresh()
    workspace.set_buffer(root / "none.py", "first\nsecond unsaved\n")
    snapshot = workspace.snapshot()
    texts["none.py"] = "first\nsecond unsaved\n"
    for name, text in texts.items():
        lines = text.split("\n")
        for number in range(-1, len(lines) + 2):
            expected = lines[number].rstrip("\r") if 0 <= number < len(lines) else ""
            assert snapshot.line(name, number) == expected, (name, number)
    workspace.close()
