"""Staged embedding: `local` answers first, MiniLM takes over whole, cancel keeps local, work is never redone."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from counting import Counting

from fourfold.engine.index.snapshot import Snapshot
from fourfold.engine.model.settings import Settings
from fourfold.engine.semantic.embedding import LocalBackend
from fourfold.engine.semantic.minilm import MiniLMBackend
from fourfold.engine.service.embedder import Embedder, StageLimits
from fourfold.engine.service.workspace import Workspace

MINILM_MODEL = "all-MiniLM-L6-v2-int8"
FILES = {
    "config.py": "import json\n\n\ndef load_config(path):\n    with open(path) as handle:\n"
    "        return json.load(handle)\n\n\ndef save_config(path, values):\n"
    "    with open(path, 'w') as handle:\n        json.dump(values, handle)\n",
    "thumbs.py": "def make_thumbnail(image, width):\n    height = image.height * width // image.width\n"
    "    return image.resize((width, height))\n\n\ndef crop_square(image):\n"
    "    side = min(image.size)\n    return image.crop((0, 0, side, side))\n",
    "net.py": "import time\n\n\ndef retry(call, attempts=3):\n    for attempt in range(attempts):\n"
    "        try:\n            return call()\n        except OSError:\n            time.sleep(2 ** attempt)\n\n\n"
    "class Session:\n    def get(self, url):\n        return self.send('GET', url)\n\n"
    "    def post(self, url, body):\n        return self.send('POST', url, body)\n",
    "users.py": "def find_user(db, name):\n    return db.execute('SELECT * FROM users WHERE name = ?', (name,))\n\n\n"
    "def delete_user(db, user_id):\n    db.execute('DELETE FROM users WHERE id = ?', (user_id,))\n",
    "README.md": "# Tools\n\nSmall helpers.\n\n## Config\n\nJSON files.\n\n## Images\n\nThumbnails.\n",
}


@dataclass
class Seen:
    """What one progress report saw: the stage, the model answering queries, and the counts."""

    phase: str
    answering: str | None
    query_matches_index: bool
    done: int
    total: int


def watch(embedder: Embedder, seen: list[Seen], cancel_after: int | None = None,
          cancel: threading.Event | None = None) -> Callable[[int, int], None]:
    def progress(done: int, total: int) -> None:
        view = embedder.state.view
        matches = view is None or view.vectors.dims == np.asarray(view.embed_query("json", {})).shape[0]
        seen.append(Seen(embedder.phase, embedder.active_backend, matches, done, total))
        if cancel is not None and cancel_after is not None and embedder.phase == "minilm" and done >= cancel_after:
            cancel.set()
    return progress


@pytest.fixture
def corpus(tmp_path: Path) -> Iterator[tuple[Workspace, Path]]:
    root = tmp_path / "repo"
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text)
    index = tmp_path / "index"
    workspace = Workspace(root, Settings(semantic_backend="none", index_dir=str(index)), background=False)
    workspace.refresh()
    yield workspace, index
    workspace.close()


SMALL_STEPS = StageLimits(step=3)


def staged(index: Path, limits: StageLimits = SMALL_STEPS) -> tuple[Embedder, Counting, Counting]:
    slow, fast = Counting(MiniLMBackend()), Counting(LocalBackend())
    settings = Settings(semantic_backend="minilm", index_dir=str(index))
    return Embedder(settings, index, backend=slow, local=fast, limits=limits), slow, fast


def chunk_count(snapshot: Snapshot) -> int:
    return len({chunk.digest for chunk in snapshot.chunks()})


def test_local_answers_first_then_minilm_takes_over_whole(corpus: tuple[Workspace, Path]) -> None:
    workspace, index = corpus
    embedder, slow, fast = staged(index)
    seen: list[Seen] = []
    total = chunk_count(workspace.snapshot())
    assert total >= 10
    added = embedder.run(workspace.snapshot(), watch(embedder, seen))

    assert (fast.embedded, slow.embedded, added) == (total, total, total)
    phases = [item.phase for item in seen]
    assert phases[0] == "local" and phases[-1] == "minilm" and phases == sorted(phases, key=["local", "minilm"].index)
    during = [item for item in seen if item.phase == "minilm"]
    assert len(during) >= 3, "a staged pass reports every step"
    assert all(item.answering == "local" for item in during), "local was published before MiniLM began"
    assert all(item.query_matches_index for item in seen)
    assert [item.done for item in during] == sorted(item.done for item in during) and during[-1].done == total

    view = embedder.state.view
    assert view is not None and (view.backend, view.model, view.vectors.dims) == ("minilm", MINILM_MODEL, 384)
    assert (embedder.active_model, embedder.phase, embedder.pending, embedder.embedded) == (
        MINILM_MODEL, "ready", None, total,
    )
    query = np.asarray(view.embed_query("read settings from a json file", {}))
    scores = {view.chunks_by_digest[key].path: score for key, score in view.vectors.search_keys(query, limit=3)}
    assert next(iter(scores)) == "config.py", scores


def test_cancel_keeps_local_and_the_next_run_finishes_without_redoing_work(corpus: tuple[Workspace, Path]) -> None:
    workspace, index = corpus
    total = chunk_count(workspace.snapshot())
    embedder, slow, _ = staged(index)
    cancel = threading.Event()
    embedder.run(workspace.snapshot(), watch(embedder, [], cancel_after=3, cancel=cancel), cancel)

    assert (embedder.active_backend, embedder.phase) == ("local", "cancelled")
    assert embedder.embedded == total, "local covers every chunk while MiniLM is unfinished"
    first = slow.embedded
    assert 0 < first < total
    assert embedder.pending is not None and (embedder.pending.backend, embedder.pending.done) == ("minilm", first)

    restarted, slow_again, fast_again = staged(index)  # a new server process: only the cache survives
    restarted.run(workspace.snapshot())
    assert fast_again.embedded == 0, "local vectors came from the cache"
    assert slow_again.embedded == total - first, "MiniLM embedded only what the cancelled run had not"
    assert (restarted.active_model, restarted.phase, restarted.embedded) == (MINILM_MODEL, "ready", total)


def test_an_edit_is_embedded_by_minilm_directly_while_it_answers(corpus: tuple[Workspace, Path]) -> None:
    workspace, index = corpus
    embedder, slow, fast = staged(index)
    embedder.run(workspace.snapshot())
    before_slow, before_fast = slow.embedded, fast.embedded
    old = {chunk.digest for chunk in workspace.snapshot().chunks()}
    workspace.set_buffer("users.py", FILES["users.py"] + "\n\ndef count_users(db):\n    return db.count('users')\n")
    new = {chunk.digest for chunk in workspace.snapshot().chunks()} - old
    seen: list[Seen] = []
    embedder.run(workspace.snapshot(), watch(embedder, seen))

    assert fast.embedded == before_fast, "no local stage once MiniLM answers and few chunks are new"
    assert slow.embedded - before_slow == len(new) > 0
    assert seen and all(item.answering == "minilm" and item.phase == "minilm" for item in seen)
    assert (embedder.active_model, embedder.embedded) == (MINILM_MODEL, chunk_count(workspace.snapshot()))


def test_many_new_chunks_send_search_back_to_local_until_minilm_is_through(corpus: tuple[Workspace, Path]) -> None:
    workspace, index = corpus
    embedder, _, fast = staged(index, StageLimits(step=3, restage_min_chunks=0))
    embedder.run(workspace.snapshot())
    before = fast.embedded
    workspace.set_buffer("extra.py", "def parse_yaml(text):\n    return yaml.safe_load(text)\n")
    seen: list[Seen] = []
    embedder.run(workspace.snapshot(), watch(embedder, seen))
    assert fast.embedded - before == 1, "local ran again, for the new chunk only (the rest is cached)"
    assert any(item.phase == "minilm" and item.answering == "local" for item in seen)
    assert embedder.active_model == MINILM_MODEL


def test_status_shows_the_answering_model_and_the_pending_progress(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text)
    workspace = Workspace(root, Settings(semantic_backend="minilm", index_dir=str(tmp_path / "index")),
                          background=False)
    workspace.refresh()
    before = workspace.status()
    assert (before["semantic_model"], before["semantic_progress"]) == (None, None)
    reports: list[tuple[str | None, dict[str, int] | None, int, int]] = []

    def progress(done: int, total: int) -> None:
        status = workspace.status()
        reports.append((status["semantic_model"], status["semantic_progress"], done, total))

    workspace.embed_pending(progress)
    local = [report for report in reports if report[1] is not None and report[1]["backend"] == "local"]
    slow = [report for report in reports if report[1] is not None and report[1]["backend"] == "minilm"]
    assert local and slow and reports.index(local[-1]) < reports.index(slow[0])
    assert all(model == "wordllama-l2_supercat" for model, *_ in slow)
    assert all(pending == {"backend": "minilm", "done": done, "total": total} for _, pending, done, total in slow)
    after = workspace.status()
    assert (after["semantic_model"], after["semantic_progress"]) == (MINILM_MODEL, None)
    assert after["backend"] == "minilm" and after["embedded"] == after["chunks"] > 0
    workspace.close()


def test_local_backend_is_one_stage_as_before(corpus: tuple[Workspace, Path]) -> None:
    workspace, index = corpus
    fast = Counting(LocalBackend())
    embedder = Embedder(Settings(semantic_backend="local"), index, backend=fast)
    seen: list[Seen] = []
    embedder.run(workspace.snapshot(), watch(embedder, seen))
    assert {item.phase for item in seen} == {"local"}
    answering = (embedder.active_backend, embedder.active_model, embedder.phase)
    assert answering == ("local", "wordllama-l2_supercat", "ready")
    assert embedder.state.view is not None and embedder.state.view.vectors.dims == 256
