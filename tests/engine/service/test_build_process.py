"""A server's large first index is built in processes of its own and opened from what they stored (issue 17).

The build processes are real spawned processes running the real engine: these tests lower the size at which
a server builds elsewhere (`ELSEWHERE_MIN_FILES`) and the publishing rules the build process takes from the
server, and watch what the server does: which processes ran, what it built itself, what it answered.
"""

from __future__ import annotations

import multiprocessing
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from processes import kill_session, many_modules

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.index.lexical import LexicalIndex
from fourfold.engine.index.store import StoredParsed
from fourfold.engine.service import workspace as workspace_module

QUERIES = ("BaseJob.with_retry", "Item", "class Item", '"retry"', "/def \\w+_retry/", "how does retry work",
           "who calls with_retry", "what depends on Item", "similar to with_retry")


def settings(index: Path) -> Settings:
    return Settings(index_dir=str(index), semantic_backend="none")


def answers(workspace: Workspace) -> list[list[tuple[Any, ...]]]:
    """Every query's ranked results, with their scores (timings left out)."""
    found = []
    for query in QUERIES:
        result = workspace.search_dict(SearchRequest(query=query))
        found.append([(hit["path"], str(hit["range"]), hit["symbol"], hit["score"]) for hit in result["results"]])
    return found


def built_here(root: Path, index: Path) -> list[list[tuple[Any, ...]]]:
    """The answers of a first index built in this process, as a one-shot CLI builds it."""
    workspace = Workspace(root, settings(index), background=False)
    workspace.refresh()
    found = answers(workspace)
    workspace.close()
    return found


def build_processes() -> list[str]:
    return [child.name for child in multiprocessing.active_children() if child.name == "fourfold-build"]


@pytest.fixture
def elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixture's few files are a first index large enough to build elsewhere."""
    monkeypatch.setattr(workspace_module, "ELSEWHERE_MIN_FILES", 1)


def no_lexical_build_here(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the BM25 builds of this process (a build process imports its own, unpatched)."""
    builds: list[int] = []
    build = LexicalIndex.build

    def counted(*args: Any, **kwargs: Any) -> LexicalIndex:
        builds.append(1)
        return build(*args, **kwargs)

    monkeypatch.setattr(LexicalIndex, "build", staticmethod(counted))
    return builds


def test_a_servers_first_index_is_built_in_a_process_of_its_own_and_answers_as_one_built_here(
        tree: Path, tmp_path: Path, elsewhere: None, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = built_here(tree, tmp_path / "here")
    seen: list[list[str]] = []
    server = Workspace(tree, settings(tmp_path / "index"), background=True)
    lexical_builds = no_lexical_build_here(monkeypatch)
    stats = server.refresh(lambda done, total: seen.append(build_processes()))
    assert seen and all(seen), "the files were not read by a build process"
    snapshot = server.snapshot()
    assert server.ready and stats.indexed == len(snapshot.files) > 0
    # Served as a restart serves it: the rows encoded, the graph read in place.
    assert isinstance(snapshot.parsed, StoredParsed) and snapshot.parsed.decoded == 0
    assert snapshot.graph.mapped and not snapshot.graph.built
    assert answers(server) == expected
    assert lexical_builds == []  # BM25 came from the second build process, stored
    assert not build_processes()  # both have ended, and were waited for
    server.close()


def test_while_the_build_process_runs_the_server_answers_from_the_parts_it_has_published(
        tree: Path, tmp_path: Path, elsewhere: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workspace_module, "WRITE_BATCH", 1)  # the build process takes these rules from here
    monkeypatch.setattr(workspace_module, "PUBLISH_INTERVAL_S", 0.0)
    server = Workspace(tree, settings(tmp_path / "index"), background=True)
    parts: list[tuple[int, bool, int]] = []

    def progress(done: int, total: int) -> None:
        snapshot = server.snapshot()
        if snapshot.files and not server.ready and build_processes():
            found = server.search_dict(SearchRequest(query="Item", modes=("structural",)))
            parts.append((len(snapshot.files), found["partial"], len(found["results"])))

    server.refresh(progress)
    total = len(server.snapshot().files)
    assert parts, "no partial snapshot was served while the build process ran"
    assert all(partial for _, partial, _ in parts)
    assert any(0 < files < total for files, _, _ in parts)
    assert any(results for _, _, results in parts)
    assert not (tmp_path / "index" / workspace_module.PART_FILE).exists()  # removed once the index is whole
    server.close()


def test_a_build_process_that_dies_leaves_the_server_to_index_the_rest_itself(
        tree: Path, tmp_path: Path, elsewhere: None, caplog: pytest.LogCaptureFixture) -> None:
    expected = built_here(tree, tmp_path / "here")
    server = Workspace(tree, settings(tmp_path / "index"), background=True)
    killed: list[str] = []

    def progress(done: int, total: int) -> None:
        for child in multiprocessing.active_children():
            if child.name == "fourfold-build" and not killed:
                child.kill()
                killed.append(child.name)

    server.refresh(progress)
    assert killed and "indexing in this process" in caplog.text
    assert server.ready and answers(server) == expected
    server.close()


def test_a_cancelled_build_process_keeps_what_it_stored_and_the_next_refresh_finishes_it(
        tree: Path, tmp_path: Path, elsewhere: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workspace_module, "WRITE_BATCH", 1)
    expected = built_here(tree, tmp_path / "here")
    server = Workspace(tree, settings(tmp_path / "index"), background=True)
    cancel = threading.Event()
    seen: list[list[str]] = []

    def progress(done: int, total: int) -> None:
        seen.append(build_processes())
        cancel.set()

    first = server.refresh(progress, cancel)
    assert seen and all(seen)
    assert not server.ready and first.indexed < first.scanned
    assert not build_processes()
    server.refresh()
    assert server.ready and answers(server) == expected
    server.close()


def test_a_server_closed_while_bm25_is_built_elsewhere_stops_that_process_and_a_restart_builds_it(
        tree: Path, tmp_path: Path, elsewhere: None) -> None:
    server = Workspace(tree, settings(tmp_path / "index"), background=True)
    server.refresh()
    assert build_processes()  # BM25's, started as the first one ended
    server.close()  # at once: the BM25 process is still starting
    assert not build_processes()
    restarted = Workspace(tree, settings(tmp_path / "index"), background=False)
    found = restarted.search_dict(SearchRequest(query="how does retry work"))
    assert found["results"]
    restarted.close()


SERVER = """
import multiprocessing, sys
from pathlib import Path
from fourfold.engine import Settings, Workspace
from fourfold.engine.service import workspace as workspace_module
workspace_module.ELSEWHERE_MIN_FILES = 1
workspace = Workspace(Path(sys.argv[1]), Settings(index_dir=sys.argv[2], semantic_backend="none"), background=True)
def progress(done, total):
    if done == 1:
        print(*[c.pid for c in multiprocessing.active_children() if c.name == "fourfold-build"], flush=True)
        sys.stdin.readline()  # wait here until killed
workspace.refresh(progress)
"""


def dead(pid: int) -> bool:
    """Whether `pid` has exited (gone, or a zombie nobody has reaped yet)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to see the build process exit")
def test_a_server_killed_mid_build_takes_its_build_process_with_it_and_the_index_stays_consistent(
        tmp_path: Path) -> None:
    root = tmp_path / "big"
    many_modules(root, 1500, 15)
    index = tmp_path / "index"
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(root), str(index)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert server.stdout is not None
        builder = int(server.stdout.readline())
        assert not dead(builder)
        server.send_signal(signal.SIGKILL)  # the server alone, as the OOM killer does
        server.wait()
        deadline = time.monotonic() + 10
        while not dead(builder) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert dead(builder), "the build process outlived its server"
        survivor = Workspace(root, settings(index), background=False)
        kept = len(survivor.snapshot().files)
        assert kept < 1500
        stats = survivor.refresh()
        assert stats.indexed == 1500 - kept and len(survivor.snapshot().files) == 1500
        hits = survivor.every_line('"marker 1499"')
        assert [tuple(line) for line in hits.lines] == [("pkg14/mod1499.py", 1)]
        survivor.close()
    finally:
        kill_session(server)


def test_after_an_edit_bm25_is_built_again_in_a_process_of_its_own_and_served_from_what_it_stored(
        tree: Path, tmp_path: Path, elsewhere: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit leaves BM25 behind the rows. A server of a large repository builds it again elsewhere (built
    here, it held the GIL for seconds after every edit), asking meanwhile starts no build here, and once that
    process has stored it, questions find what the edit wrote."""
    server = Workspace(tree, settings(tmp_path / "index"), background=True)
    lexical_builds = no_lexical_build_here(monkeypatch)
    server.refresh()
    question = SearchRequest(query="where is the zanzibar quokka gateway", modes=("text",))
    assert server.search_dict(question)["results"] == []  # BM25, opened from the first index's build process
    target = sorted(tree.rglob("*.py"))[0]
    target.write_text(target.read_text() + "\n\ndef zanzibar_quokka_gateway():\n    return 'zanzibar quokka'\n")
    server.update_file(target)
    server.search_dict(question)  # asked while BM25 is behind: answered from the old one, no build started here
    deadline = time.monotonic() + 120
    while server.modality_status()["lexical"] != "ready" and time.monotonic() < deadline:
        time.sleep(0.2)
    paths = [hit["path"] for hit in server.search_dict(question)["results"]]
    assert paths and paths[0] == target.relative_to(tree).as_posix()
    assert lexical_builds == []
    server.close()
    assert not build_processes()


def test_a_bm25_build_process_that_dies_after_an_edit_leaves_the_server_to_build_it_itself(
        tree: Path, tmp_path: Path, elsewhere: None, monkeypatch: pytest.MonkeyPatch) -> None:
    server = Workspace(tree, settings(tmp_path / "index"), background=True)
    server.refresh()
    question = SearchRequest(query="where is the zanzibar quokka gateway", modes=("text",))
    assert server.search_dict(question)["results"] == []
    started = workspace_module.start_build

    def dying(target: Any, args: tuple[object, ...]) -> Any:
        finishing = started(target, args)
        for child in multiprocessing.active_children():
            if child.name == "fourfold-build":
                child.kill()
        return finishing

    monkeypatch.setattr(workspace_module, "start_build", dying)
    lexical_builds = no_lexical_build_here(monkeypatch)
    target = sorted(tree.rglob("*.py"))[0]
    target.write_text(target.read_text() + "\n\ndef zanzibar_quokka_gateway():\n    return 'zanzibar quokka'\n")
    server.update_file(target)
    deadline = time.monotonic() + 120
    while server.modality_status()["lexical"] != "ready" and time.monotonic() < deadline:
        time.sleep(0.2)
    paths = [hit["path"] for hit in server.search_dict(question)["results"]]
    assert paths and paths[0] == target.relative_to(tree).as_posix()
    assert lexical_builds == [1]  # built here once the process had died
    server.close()
