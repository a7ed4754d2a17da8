"""Fault suite, fast cases (issue 12, "Never down, never stale"): hostile trees, damaged indexes,
runaway regexes, edits after the first index, and a killed indexer's workers.

Every case builds real files in a temporary folder and runs the real engine on them. The long
kill -9 loops live in `bench/faults.py`.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.index.discovery import IGNORE_FILE_MAX, IgnoreSpec, Walker, read_file
from fourfold.engine.index.store import INDEX_FILE
from fourfold.engine.index.textsearch import REASON_TIME, QueryError, parse_text_query, search_text
from fourfold.engine.semantic.embedcache import CacheKey, EmbedCache
from fourfold.engine.service.embedder import CACHE_FILE
from fourfold.engine.service.workspace import _index_job

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "polyglot"
# Generous bound for "it finished": no test asserts speed, only that nothing hangs forever.
HANG_S = 120.0


def workspace(root: Path, index: Path, backend: str = "none", background: bool = False) -> Workspace:
    return Workspace(root, Settings(index_dir=str(index), semantic_backend=backend), background=background)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    return root


def wait_for(condition: Callable[[], bool], what: str) -> None:
    """Poll until `condition` holds (bounded only against a hang, never as a speed check)."""
    deadline = time.monotonic() + HANG_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting for {what}")
        time.sleep(0.02)


def walk_in_child(root: Path) -> subprocess.CompletedProcess[str]:
    """Walk `root` in a child process, so a walk that blocks fails the test instead of hanging it."""
    code = textwrap.dedent(f"""
        from pathlib import Path
        from fourfold.engine.index.discovery import Walker
        walker = Walker(Path({str(root)!r}))
        print(sorted(c.path for c in walker.walk()))
        print({{s.path: s.reason for s in walker.skipped}})
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_S)


# --- hostile trees ---------------------------------------------------------------------------

def test_a_file_name_that_is_not_utf8_is_skipped_with_a_reason(tree: Path, tmp_path: Path) -> None:
    (tree / ".gitignore").write_text("*.log\n")
    bad = os.path.join(os.fsencode(tree), b"latin1_\xe9.py")
    with open(bad, "wb") as handle:
        handle.write(b"def hidden_by_name():\n    pass\n")
    index = workspace(tree, tmp_path / "index")
    index.refresh()
    status = index.status()
    assert status["state"] == "ready" and status["files"] > 10
    assert status["skipped_by_reason"] == {"file name is not valid UTF-8": 1}
    assert status["skipped_files"] == [{"path": "latin1_\\xe9.py", "reason": "file name is not valid UTF-8"}]


def test_folders_nested_600_deep_are_walked_without_recursion(tmp_path: Path) -> None:
    deep = tmp_path
    for _ in range(600):
        deep = deep / "d"
    os.makedirs(deep)
    (deep / "bottom.py").write_text("def at_the_bottom():\n    pass\n")
    (tmp_path / "top.py").write_text("x = 1\n")
    found = [candidate.path for candidate in Walker(tmp_path).walk()]
    assert found == ["/".join(["d"] * 600 + ["bottom.py"]), "top.py"]


def test_a_fifo_named_gitignore_does_not_block_the_walk(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".gitignore")
    (tmp_path / "main.py").write_text("x = 1\n")
    done = walk_in_child(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "['main.py']", "{'.gitignore': 'ignore file not obeyed: not a regular file'}"
    ]


def test_a_fifo_put_where_a_file_was_is_refused_without_blocking(tree: Path, tmp_path: Path) -> None:
    index = workspace(tree, tmp_path / "index")
    index.refresh()
    target = tree / "inventory" / "retry.py"
    target.unlink()
    os.mkfifo(target)
    updating = threading.Thread(target=index.update_file, args=(target,), daemon=True)
    updating.start()  # opened non-blocking: a FIFO with no writer cannot hold the indexer
    updating.join(HANG_S)
    assert not updating.is_alive()
    assert "inventory/retry.py" not in index.snapshot().files
    assert index.snapshot().skipped["inventory/retry.py"] == "not a regular file"


def test_an_ignore_file_linked_out_of_the_root_is_not_obeyed(tmp_path: Path) -> None:
    outside, root = tmp_path / "outside", tmp_path / "root"
    outside.mkdir()
    root.mkdir()
    (outside / "rules").write_text("*.py\n")
    os.symlink(outside / "rules", root / ".ignore")
    (root / "main.py").write_text("x = 1\n")
    walker = Walker(root)
    assert [c.path for c in walker.walk()] == ["main.py"]
    assert {s.path: s.reason for s in walker.skipped} == {
        ".ignore": "ignore file not obeyed: it points outside the workspace"
    }


def test_an_ignore_file_linked_to_dev_zero_is_not_read(tmp_path: Path) -> None:
    os.symlink("/dev/zero", tmp_path / ".fourfoldignore")
    (tmp_path / "main.py").write_text("x = 1\n")
    walker = Walker(tmp_path)
    assert [c.path for c in walker.walk()] == ["main.py"]
    assert "not obeyed" in walker.skipped[0].reason


def test_an_oversized_ignore_file_is_not_obeyed(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.py\n" + "#" * IGNORE_FILE_MAX)
    (tmp_path / "main.py").write_text("x = 1\n")
    walker = Walker(tmp_path)
    assert "main.py" in [c.path for c in walker.walk()]
    assert walker.skipped[0].reason == f"ignore file not obeyed: larger than {IGNORE_FILE_MAX} bytes"


def test_three_thousand_ignore_patterns_are_matched_with_last_match_winning(tmp_path: Path) -> None:
    # Character classes make each pattern big for RE2: one set of all of them fails to compile.
    lines = [f"**/[!.]*_{i}.py" for i in range(3000)] + ["!keep_7.py"]
    (tmp_path / ".gitignore").write_text("\n".join(lines) + "\n")
    for name in ("drop_5.py", "keep_7.py", "other.py", "sub/drop_2999.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    spec = IgnoreSpec(lines)
    assert len(spec.parts) > 1  # split: one RE2 set would not compile
    assert sorted(c.path for c in Walker(tmp_path).walk()) == [".gitignore", "keep_7.py", "other.py"]


def test_utf16_and_utf32_files_with_a_bom_are_decoded(tmp_path: Path) -> None:
    source = "def from_windows():\n    return 'café'\n"
    root = tmp_path / "root"
    root.mkdir()
    for encoding in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"):
        name = f"{encoding}.py"
        (root / name).write_bytes(("\ufeff" + source).encode(encoding))
        record, text = read_file(root, name)
        assert text == source and record.language == "python"
    index = workspace(root, tmp_path / "index")
    index.refresh()
    assert len(index.snapshot().symbols.definitions("from_windows")) == 4
    assert index.status()["skipped"] == 0


def test_a_failed_refresh_says_error_with_its_cause(tree: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    index = workspace(tree, tmp_path / "index")

    def broken(self: Walker) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(Walker, "walk", broken)
    with pytest.raises(RuntimeError):
        index.refresh()
    status = index.status()
    assert (status["state"], status["ready"]) == ("error", False)
    assert status["last_error"] == "indexing failed: RuntimeError: disk on fire"
    monkeypatch.undo()
    index.refresh()
    assert (index.status()["state"], index.status()["last_error"]) == ("ready", None)


# --- damaged indexes -------------------------------------------------------------------------

QUERIES = ("retry", "Inventory", "how are items stored", '"gave up after"', "re:def \\w+_item")


def answers(index: Workspace, presets: tuple[str, ...] = ("quick", "default", "thorough")) -> list[Any]:
    """What every preset answers to every query: the ranked (path, symbol, range) and scores."""
    found = []
    for preset in presets:
        for query in QUERIES:
            result = index.search_dict(SearchRequest(query, preset=preset))
            found.append([(row["path"], row["symbol"], row["range"], row["score"]) for row in result["results"]])
    return found


def garble(index_dir: Path, sql: str) -> None:
    db = sqlite3.connect(index_dir / INDEX_FILE)
    with db:
        db.execute(sql)
    db.close()


@pytest.mark.parametrize(("column", "damage"), [
    ("trigrams", "x'789c0000deadbeef'"),  # zlib header, then garbage
    ("trigrams", "x'00'"),
    ("parsed", "x'789c4b4c4a0600024d0127'"),  # valid zlib of b"abc": not a pickle
    ("parsed", "'not even bytes'"),
    ("size", "'twelve'"),
])
def test_a_damaged_row_is_reindexed_and_answers_as_a_fresh_index(tree: Path, tmp_path: Path, column: str,
                                                                 damage: str) -> None:
    first = workspace(tree, tmp_path / "index")
    first.refresh()
    expected = answers(first, ("default",))
    first.close()
    garble(tmp_path / "index", f"UPDATE files SET {column} = {damage} WHERE path = 'inventory/retry.py'")
    again = workspace(tree, tmp_path / "index")
    assert "inventory/retry.py" not in again.snapshot().files
    assert "damaged row" in again.status()["repairs"][0] and "inventory/retry.py" in again.status()["repairs"][0]
    stats = again.refresh()
    assert stats.indexed == 1
    assert answers(again, ("default",)) == expected
    again.close()
    clean = workspace(tree, tmp_path / "index")
    assert clean.status()["repairs"] == []  # the damaged row was replaced, not kept


def test_a_damaged_index_file_is_rebuilt_with_a_true_message(tree: Path, tmp_path: Path) -> None:
    first = workspace(tree, tmp_path / "index")
    first.refresh()
    expected = answers(first, ("default",))
    first.close()
    path = tmp_path / "index" / INDEX_FILE
    data = bytearray(path.read_bytes())
    data[100:4096] = os.urandom(4096 - 100)  # the header's tail and the schema page
    path.write_bytes(bytes(data))
    again = workspace(tree, tmp_path / "index")
    reason = again.status()["last_error"] or ""
    assert reason.startswith("index file is damaged") and "schema" not in reason
    again.refresh()
    assert answers(again, ("default",)) == expected


def test_a_damaged_embedding_is_reembedded(tree: Path, tmp_path: Path) -> None:
    first = workspace(tree, tmp_path / "index", backend="local")
    first.refresh()
    first.embed_pending()
    expected = answers(first, ("quick",))
    first.close()
    db = sqlite3.connect(tmp_path / "index" / CACHE_FILE)
    with db:
        rows = db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
        db.execute("UPDATE vectors SET vector = zeroblob(length(vector)) WHERE digest IN"
                   " (SELECT digest FROM vectors ORDER BY digest LIMIT 3)")
    db.close()
    again = workspace(tree, tmp_path / "index", backend="local")
    again.refresh()
    assert again.embed_pending() == rows
    assert again.status()["repairs"] == ["3 damaged cached vector(s) re-embedded"]
    assert answers(again, ("quick",)) == expected


def test_a_vector_with_a_bad_checksum_is_never_served(tmp_path: Path) -> None:
    import numpy as np

    cache = EmbedCache(tmp_path / "cache.sqlite")
    key = CacheKey("local", "m", 4, "abc")
    cache.put_many([(key, np.array([1, 2, 3, 4], dtype=np.float16))])
    raw = sqlite3.connect(tmp_path / "cache.sqlite")
    with raw:
        raw.execute("UPDATE vectors SET vector = x'0000803f0000803f' || substr(vector, 9)")
    raw.close()
    assert cache.get_many([key]) == {} and cache.damaged == 1


# --- runaway regexes -------------------------------------------------------------------------

ALTERNATION_149 = "re:(" + "|".join(f"x{{{n}}}y" for n in range(1, 150)) + ")"
NESTED_990 = "re:" + "(" * 990 + "x" + ")" * 990


@pytest.mark.parametrize("query", [ALTERNATION_149, NESTED_990])
def test_pathological_regexes_answer(tmp_path: Path, query: str) -> None:
    root = tmp_path / "root"
    root.mkdir()
    for n in range(20):
        (root / f"f{n}.txt").write_text(("x" * 60 + "y ok\n") * 2000)
    index = workspace(root, tmp_path / "index")
    index.refresh()
    result = index.search_dict(SearchRequest(query, modes=("text",)))
    assert result["modalities"]["text"]["ran"] and result["results"]
    assert result["notes"] == []


def test_a_scan_over_its_budget_stops_between_slices(tmp_path: Path) -> None:
    files = [(f"f{n}.txt", ("x" * 60 + "y\n") * 5000) for n in range(10)]
    query = parse_text_query(ALTERNATION_149)
    complete = search_text(query, files, limit=10**6, budget_s=None)
    stopped = search_text(query, files, limit=10**6, budget_s=0.0)
    assert not complete.truncated and len(complete.hits) == 50000
    assert stopped.reason == REASON_TIME and len(stopped.hits) < len(complete.hits)
    cancel = threading.Event()
    cancel.set()
    assert search_text(query, files, limit=10**6, cancel=cancel).reason == REASON_TIME


@pytest.mark.parametrize(("query", "message"), [
    ("re:\\pL{1000}", "pattern too large"),  # a program over REGEX_MAX_MEM: refused at compile time
    ("re:((((a{1000}){1000}){1000}){1000})", "invalid repetition size"),
])
def test_a_regex_too_big_to_run_fails_fast_with_a_query_error(query: str, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        parse_text_query(query)


# --- edits after the first index ------------------------------------------------------------

def _edit(root: Path, index: Workspace, step: int, live: list[str], rng: random.Random) -> None:
    """One random edit of the kind an editor sends: create, modify, rename or delete a file."""
    kind = rng.choice(["create", "modify", "rename", "delete"] if live else ["create"])
    if kind == "create":
        name = f"gen/mod_{step}.py"
        (root / "gen").mkdir(exist_ok=True)
        (root / name).write_text(f"def handler_{step}(order):\n    \"\"\"Ship order {step}.\"\"\"\n"
                                 f"    return retry(order, {step})\n")
        live.append(name)
        index.update_file(root / name)
    elif kind == "modify":
        name = rng.choice(live)
        with open(root / name, "a") as handle:
            handle.write(f"\n\ndef audit_{step}(items):\n    return [item for item in items if item]\n")
        index.update_file(root / name)
    elif kind == "rename":
        name = live.pop(rng.randrange(len(live)))
        new = f"gen/renamed_{step}.py"
        os.rename(root / name, root / new)
        live.append(new)
        index.rename_file(root / name, root / new)
    else:
        name = live.pop(rng.randrange(len(live)))
        (root / name).unlink()
        index.update_file(root / name)


def test_after_200_edits_every_preset_answers_as_a_fresh_index(tree: Path, tmp_path: Path) -> None:
    live = workspace(tree, tmp_path / "live", backend="local", background=True)
    live.refresh()
    live.embed_pending()
    before = answers(live)  # builds BM25 now, so it too has to catch up with the edits
    rng = random.Random(12)
    names: list[str] = []
    for step in range(200):
        _edit(tree, live, step, names, rng)
    assert live.status()["semantic"]["state"] in ("embedding", "ready")
    wait_for(lambda: live.status()["current"], "the live index to catch up")
    status = live.status()
    assert status["semantic"]["state"] == "ready" and status["semantic"]["done"] == status["semantic"]["total"]
    fresh = workspace(tree, tmp_path / "fresh", backend="local", background=True)
    fresh.refresh()
    fresh.embed_pending()
    wait_for(lambda: fresh.status()["current"], "the fresh index")
    after = answers(live)
    assert after == answers(fresh) and after != before
    live.close()
    fresh.close()


def test_a_search_before_vectors_catch_up_says_so(tree: Path, tmp_path: Path) -> None:
    index = workspace(tree, tmp_path / "index", backend="local", background=False)
    index.refresh()
    index.embed_pending()
    (tree / "late.py").write_text("def arrived_late():\n    return 'after the first pass'\n")
    index.update_file(tree / "late.py")  # no background thread here: the vectors stay behind
    status = index.status()["semantic"]
    assert status["state"] == "embedding" and status["done"] == status["total"] - 1
    notes = index.search_dict(SearchRequest("how does it arrive late", preset="quick"))["notes"]
    assert notes == [f"semantic is not current: {status['done']} of {status['total']} chunks embedded"]
    index.embed_pending()
    assert index.search_dict(SearchRequest("how does it arrive late", preset="quick"))["notes"] == []


# --- worker processes ------------------------------------------------------------------------

def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def crash_on_poison(job: tuple[Path, str, int]) -> Any:
    """A worker's per-file job that dies the way a crashing grammar would, on one file only."""
    if job[1] == "poison.py":
        os.kill(os.getpid(), signal.SIGKILL)
    return _index_job(job)


def test_a_file_that_kills_its_worker_costs_that_file_only(tmp_path: Path) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for n in range(300):
        (root / f"m{n:03}.py").write_text(f"def f{n}():\n    return {n}\n")
    (root / "poison.py").write_text("def poison():\n    pass\n")
    index = workspace(root, tmp_path / "index")
    index.index_job = crash_on_poison  # type: ignore[method-assign]
    index.refresh()
    status = index.status()
    assert (status["state"], status["files"]) == ("ready", 300)
    assert status["skipped_files"] == [{"path": "poison.py", "reason": "crashed the indexing worker process"}]
    assert len(index.snapshot().symbols.definitions("f299")) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_die_with_a_killed_indexer(tmp_path: Path) -> None:
    root = tmp_path / "big"
    root.mkdir()
    for n in range(1200):
        (root / f"m{n}.py").write_text("".join(f"def f{n}_{k}(a, b):\n    return a + b * {k}\n" for k in range(40)))
    code = textwrap.dedent(f"""
        from pathlib import Path
        from fourfold.engine import Settings, Workspace
        Workspace(Path({str(root)!r}), Settings(index_dir={str(tmp_path / 'index')!r}, semantic_backend="none"),
                  background=False).refresh()
    """)
    indexer = subprocess.Popen([sys.executable, "-c", code])
    try:
        wait_for(lambda: len(_children(indexer.pid)) >= 2, "the pool's workers")
        workers = _children(indexer.pid)
        os.kill(indexer.pid, signal.SIGKILL)
        indexer.wait(timeout=HANG_S)
        wait_for(lambda: not any(_alive(pid) for pid in workers), "the workers to exit")
    finally:
        if indexer.poll() is None:
            indexer.kill()


def test_merged_status_is_current_only_when_every_folder_is() -> None:
    from fourfold.lsp.folders import _merged_semantic

    assert _merged_semantic([{"state": "ready", "done": 3, "total": 3}, {"state": "off"}]) == {
        "state": "ready", "done": 3, "total": 3}
    assert _merged_semantic([{"state": "ready", "done": 3, "total": 3},
                             {"state": "embedding", "done": 1, "total": 4}])["state"] == "embedding"
    assert _merged_semantic([{"state": "off"}, {"state": "off"}])["state"] == "off"
