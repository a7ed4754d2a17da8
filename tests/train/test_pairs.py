"""The training-pair miner (train/pairs.py) on a real package tree in a tmp dir: each of its three
tasks comes out of real files parsed with Fourfold's grammars."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

MEMORY = """class MemoryQueue:
    def push(self, item):
        self.items.append(item)

    def pop(self):
        return self.items.pop(0)

    def size_of_queue(self):
        count = len(self.items)
        log(count)
        return count
"""
REDIS = """class RedisQueue:
    def push(self, item):
        self.client.rpush(self.key, item)

    def pop(self):
        return self.client.lpop(self.key)

    def size_of_queue(self):
        count = self.client.llen(self.key)
        log(count)
        return int(count)
"""
# Classes longer than the index's split length (80 lines), so that each method is a chunk of its own.
HELPERS = "".join(f"\n    def helper_{n}(self):\n        return {n}\n" for n in range(30))
HASKELL = """module Retry where

-- | Retry a failing action with exponential backoff between attempts.
retryWithBackoff :: Int -> IO a -> IO a
retryWithBackoff attempts action = go 0
  where
    go n = action
"""


@pytest.fixture
def pairs(train_module: Callable[[str], ModuleType]) -> ModuleType:
    """train/pairs.py imported as build_model.py imports it (train/ first on sys.path)."""
    return train_module("pairs")


def package(root: Path) -> Path:
    """An unpacked source package: one top folder, as an sdist or a Debian source unpacks."""
    top = root / "queues-1.0"
    (top / "queues").mkdir(parents=True)
    (top / "queues" / "memory.py").write_text(MEMORY + HELPERS)
    (top / "queues" / "redis.py").write_text(REDIS + HELPERS)
    (top / "Retry.hs").write_text(HASKELL)
    return root


def test_every_task_is_mined_from_real_files(pairs: ModuleType, tmp_path: Path) -> None:
    mined = pairs.package_pairs("queues", package(tmp_path), 0)
    by_task: dict[str, list] = {}
    for pair in mined:
        by_task.setdefault(pair.task, []).append(pair)

    (doc,) = by_task["doc"]
    assert doc.language == "haskell", "a Haddock comment the parser leaves unattached is read above"
    assert doc.description.startswith("Retry a failing action with exponential backoff")
    assert doc.code.startswith("Retry.hs\n"), "the path as a checkout shows it, without the archive folder"
    assert "exponential" not in doc.code, "the doc is taken out of the code side"

    names = {pair.description: pair for pair in by_task["name"]}
    assert "retry with backoff" in names
    size = names.get("memory queue size of queue") or names["redis queue size of queue"]
    assert "def size_of_queue" not in size.code, "the definition line, which spells the name, is dropped"
    assert "log(count)" in size.code

    similar = by_task["similar"]
    paths = {frozenset((pair.description.split("\n", 1)[0], pair.code.split("\n", 1)[0])) for pair in similar}
    assert paths == {frozenset(("queues/memory.py", "queues/redis.py"))}, "siblings pair across the two classes"
    methods = {pair.description.split("\n")[1] for pair in similar}
    assert any(line.endswith(" push") for line in methods), methods
    assert any(line.startswith("class ") for line in methods), "classes sharing their methods pair too"


def test_a_lone_implementation_has_no_sibling(pairs: ModuleType, tmp_path: Path) -> None:
    top = tmp_path / "solo"
    top.mkdir()
    (top / "memory.py").write_text(MEMORY + HELPERS)
    mined = pairs.package_pairs("solo", tmp_path, 0)
    assert mined, "its name pairs are mined"
    assert not [pair for pair in mined if pair.task == "similar"]


def test_classes_short_enough_to_be_one_chunk_pair_by_their_methods(pairs: ModuleType, tmp_path: Path) -> None:
    """A class of under 80 lines is one index chunk, and find_similar compares that chunk: two such
    classes with the same methods are a sibling pair although no method is a chunk of its own."""
    top = tmp_path / "short" / "queues"
    top.mkdir(parents=True)
    (top / "memory.py").write_text(MEMORY)
    (top / "redis.py").write_text(REDIS)
    similar = [pair for pair in pairs.package_pairs("short", tmp_path / "short", 0) if pair.task == "similar"]
    assert len(similar) == 1
    (pair,) = similar
    assert {pair.description.split("\n")[1], pair.code.split("\n")[1]} == {"class memory queue", "class redis queue"}


def test_a_base_class_is_not_a_sibling_of_its_subclasses(pairs: ModuleType, tmp_path: Path) -> None:
    """The base shares every method name with its subclasses; find_similar wants the other
    implementations, so only the two subclasses pair."""
    top = tmp_path / "based" / "queues-1.0" / "queues"
    top.mkdir(parents=True)
    base = "class BaseQueue:\n    def push(self, item):\n        raise NotImplementedError\n\n"
    base += "    def pop(self):\n        raise NotImplementedError\n\n    def size_of_queue(self):\n        return 0\n"
    (top / "base.py").write_text(base)
    (top / "memory.py").write_text(MEMORY.replace("class MemoryQueue:", "class MemoryQueue(BaseQueue):"))
    (top / "redis.py").write_text(REDIS.replace("class RedisQueue:", "class RedisQueue(BaseQueue):"))
    similar = [pair for pair in pairs.package_pairs("based", tmp_path / "based", 0) if pair.task == "similar"]
    files = {frozenset((pair.description.split("\n", 1)[0], pair.code.split("\n", 1)[0])) for pair in similar}
    assert files == {frozenset(("queues/memory.py", "queues/redis.py"))}, files
