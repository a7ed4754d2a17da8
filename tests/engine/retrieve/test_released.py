"""A closed workspace's decoded rows are freed: no cache of the retrievers keeps them (a localisation
run opens and closes one workspace per release, and held rows added up to gigabytes)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from tree import indexed_workspace

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.model.memory import IdentityCache
from fourfold.engine.model.records import ParsedFile

FILES = {
    "cache/base.py": "class BaseCache:\n    def get(self, key):\n        raise NotImplementedError\n",
    "cache/locmem.py": "from cache.base import BaseCache\n\n\nclass LocMemCache(BaseCache):\n"
                       "    def get(self, key):\n        return self.store[key]\n",
    "cache/redis.py": "from cache.base import BaseCache\n\n\nclass RedisCache(BaseCache):\n"
                      "    def get(self, key):\n        return self.client.get(key)\n",
    "docs/settings.md": "# Settings\n\nHow the cache reads its store settings.\n",
}
QUESTIONS = ("how does the cache read from its store", "self.store[key]", "code similar to LocMemCache",
             "who calls get")


def _asked_and_closed(root: Path, index: Path) -> list[weakref.ref[ParsedFile]]:
    """Reopen the index (rows decoded on demand), ask, and close: weak references to every decoded row."""
    workspace = Workspace(root, Settings(index_dir=str(index), semantic_backend="none"), background=False)
    for question in QUESTIONS:
        assert workspace.search(SearchRequest(question)).results
    snapshot = workspace.snapshot()
    rows = [weakref.ref(snapshot.parsed[path]) for path in snapshot.parsed]
    workspace.close()
    return rows


def test_a_closed_workspace_leaves_no_decoded_row_alive(tmp_path: Path) -> None:
    root, index = tmp_path / "repo", tmp_path / "index"
    indexed_workspace(root, FILES, index).close()
    rows = _asked_and_closed(root, index)
    gc.collect()
    assert len(rows) == len(FILES)
    assert [ref for ref in rows if ref() is not None] == []


def test_an_identity_cache_keeps_values_while_their_object_lives() -> None:
    cache: IdentityCache[ParsedFile, str] = IdentityCache(2)
    first, second, third = ParsedFile(imports=("a",)), ParsedFile(imports=("b",)), ParsedFile(imports=("c",))
    cache.put(first, "first")
    cache.put(second, "second")
    assert (cache.get(first), cache.get(second), cache.get(ParsedFile(imports=("a",)))) == ("first", "second", None)
    del first
    gc.collect()
    assert len(cache) == 1  # freed: its entry went with it
    cache.put(third, "third")
    assert (cache.get(second), cache.get(third), len(cache)) == ("second", "third", 2)
    cache.put(ParsedFile(), "gone at once")  # full: the oldest (second) makes room, then this one is freed
    assert (cache.get(second), cache.get(third), len(cache)) == (None, "third", 1)
