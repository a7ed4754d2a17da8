"""Per-keystroke costs of Ctrl+T: column conversion, the one-search-at-a-time gate, merged answers."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path

import pytest
from lsprotocol import types

from fourfold.engine import Answer, IndexState, ModalityReport, Result, Span, Workspace, merge_answers, parse_settings
from fourfold.engine.search.answer import merged_index
from fourfold.lsp.folders import Folder
from fourfold.lsp.positions import UTF8, UTF16, UTF32, LineSource
from fourfold.lsp.search import to_completion, workspace_symbol
from fourfold.lsp.server import FourfoldServer

# A bound on waits that must end at once; a hang fails the test instead of the suite.
WAIT_S = 10.0
# Event-loop turns given to a task before checking that it is still waiting (no clock involved).
TURNS = 50


async def turns(count: int = TURNS) -> None:
    """Let the event loop run every ready callback `count` times over."""
    for _ in range(count):
        await asyncio.sleep(0)


def counting_source(texts: dict[str, str]) -> tuple[LineSource, list[str]]:
    reads: list[str] = []

    def read(path: str) -> str:
        reads.append(path)
        return texts[path]

    return LineSource(read), reads


def test_ascii_file_columns_pass_through_and_the_file_is_read_once() -> None:
    lines, reads = counting_source({"a.py": "def f():\r\n    return g()\n"})
    assert lines.to_client("a.py", 1, 11, UTF16) == 11
    assert lines.to_client("a.py", 0, 4, UTF8) == 4
    assert lines.to_client("a.py", 0, -3, UTF16) == 0
    assert lines.line("a.py", 0) == "def f():"  # a CRLF file's rows as tree-sitter counts them
    assert reads == ["a.py"]


def test_non_ascii_file_columns_are_converted_per_line() -> None:
    lines, reads = counting_source({"b.py": "x = 1\ns = '🚀'; go()\n"})
    assert lines.to_client("b.py", 1, 10, UTF16) == 11
    assert lines.to_client("b.py", 1, 10, UTF8) == 13
    assert lines.to_client("b.py", 1, 10, UTF32) == 10
    assert lines.to_client("b.py", 0, 3, UTF16) == 3
    assert reads == ["b.py"]


def test_a_missing_file_converts_nothing() -> None:
    lines = LineSource(lambda path: None)
    assert lines.to_client("gone.py", 4, 7, UTF16) == 7
    assert lines.line("gone.py", 4) == ""


def answer(workspace: Workspace, state: str, files: int, scores: list[float]) -> Answer:
    span = Span(0, 0, 0, 1)
    results = tuple(Result(path="config.py", uri="file:///config.py", folder="file:///", span=span, selection=span,
                           symbol=None, kind=None, container=None, language=None, snippet="", score=score,
                           contributions={"text": score}, ranks={"text": 0}, boost=1.0, defines=False, prior=1.0,
                           coherence=0.0, demoted=False, matches=(), match_lines=(), approximate=False, via=(),
                           source=workspace.snapshot())
                    for score in scores)
    return Answer(query="q", intent="exact_match", confidence=0.9, rule="4:quoted", target=None,
                  fusion_strategy="direct", preset="default", k=40,
                  modalities={"text": ModalityReport(weight=1.0, ran=True, hits=len(scores), ms=1.0)},
                  results=results, timings_ms={"total": 2.0}, notes=(), seed=None,
                  index=IndexState(ready=state == "ready", state=state, files=files), partial=state != "ready")


@pytest.mark.parametrize(("states", "merged"), [
    (("ready", "ready"), "ready"),
    (("ready", "indexing"), "indexing"),
    (("error", "ready"), "error"),
])
def test_merged_index_comes_from_the_answers(server: FourfoldServer, states: tuple[str, str], merged: str) -> None:
    workspace = server.folders[0].workspace
    assert workspace is not None
    answers = [answer(workspace, states[0], 3, [0.2]), answer(workspace, states[1], 4, [0.9, 0.1])]
    assert merged_index([a.index for a in answers]) == IndexState(ready=merged == "ready", state=merged, files=7)
    combined = merge_answers(answers, 2)
    assert [result.score for result in combined.results] == [0.9, 0.2]
    assert combined.modalities["text"].hits == 3
    assert combined.to_dict()["index"] == {"ready": merged == "ready", "state": merged, "files": 7}
    assert combined.partial is (merged != "ready")
    workspace.close()


async def test_a_cancelled_search_holds_on_until_its_thread_ends() -> None:
    started, release, finished = threading.Event(), threading.Event(), threading.Event()

    def work() -> int:
        started.set()
        release.wait(WAIT_S)
        finished.set()
        return 1

    task = asyncio.ensure_future(to_completion(asyncio.to_thread(work)))
    assert await asyncio.to_thread(started.wait, WAIT_S)
    task.cancel()
    await turns()
    assert not task.done()  # still waiting for the thread it cannot stop
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, WAIT_S)
    assert finished.is_set()


@pytest.fixture
def server(tmp_path: Path) -> FourfoldServer:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "config.py").write_text("def parse_config(path):\n    return path\n", encoding="utf-8")
    settings, _ = parse_settings({"indexDir": str(tmp_path / "index"), "semanticBackend": "none"})
    workspace = Workspace(root, settings)
    workspace.refresh()
    ls = FourfoldServer()
    with contextlib.suppress(StopIteration):  # pygls's own initialize: sets up the client's encoding
        next(ls.protocol.lsp_initialize(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=root.as_uri())))
    ls.folders.append(Folder(uri=root.as_uri(), name="repo", path=workspace.root, workspace=workspace))
    return ls


async def test_a_keystroke_cancelled_while_waiting_never_runs_and_the_latest_is_answered(
        server: FourfoldServer) -> None:
    await server.symbol_gate.acquire()
    stale = asyncio.ensure_future(workspace_symbol(server, types.WorkspaceSymbolParams(query="parse_conf")))
    latest = asyncio.ensure_future(workspace_symbol(server, types.WorkspaceSymbolParams(query="parse_config")))
    await turns()
    assert not stale.done() and not latest.done()  # both queue behind the search in progress
    stale.cancel()
    server.symbol_gate.release()
    symbols = await asyncio.wait_for(latest, WAIT_S)
    assert stale.cancelled()
    assert symbols and symbols[0].name == "parse_config"
    assert not server.symbol_gate.locked()
    for folder in server.folders:
        assert folder.workspace is not None
        folder.workspace.close()
