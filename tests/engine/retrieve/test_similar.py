"""find_similar as its own retrieval (issue 14): seed first, then its neighbours, seed and its tests left out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tree import indexed_workspace

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.model.profiles import (
    SIBLING_BASE,
    SIBLING_CONTAINER,
    SIBLING_FOLDER,
    SIBLING_MEMBERS,
    SIBLING_NAME_WORDS,
    SIBLING_PARAMETERS,
)
from fourfold.engine.query.parsedquery import query_keywords
from fourfold.engine.retrieve.similar import named_seed, structural_siblings

FILES = {
    "cache/base.py": "class BaseCache:\n    def get(self, key):\n        raise NotImplementedError\n\n"
                     "    def set(self, key, value):\n        raise NotImplementedError\n",
    "cache/filebased.py": "from cache.base import BaseCache\n\n\nclass FileBasedCache(BaseCache):\n"
                          "    def get(self, key):\n        return open(key).read()\n\n"
                          "    def set(self, key, value):\n        open(key, 'w').write(value)\n\n"
                          "    def delete(self, key):\n        pass\n",
    "cache/locmem.py": "from cache.base import BaseCache\n\n\nclass LocMemCache(BaseCache):\n"
                       "    def get(self, key):\n        return self.store[key]\n\n"
                       "    def set(self, key, value):\n        self.store[key] = value\n\n"
                       "    def delete(self, key):\n        del self.store[key]\n",
    "cache/redis.py": "from cache.base import BaseCache\n\n\nclass RedisCache(BaseCache):\n"
                      "    def get(self, key):\n        return self.client.get(key)\n\n"
                      "    def set(self, key, value):\n        self.client.set(key, value)\n",
    "parsing/parser.py": "class Parser:\n    def parse(self, text):\n        return text.split()\n",
    "tests/test_filebased.py": "from cache.filebased import FileBasedCache\n\n\n"
                               "def test_get():\n    assert FileBasedCache().get('k') is None\n",
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    opened = indexed_workspace(tmp_path_factory.mktemp("similar"), FILES, tmp_path_factory.mktemp("index"))
    yield opened
    opened.close()


def test_a_named_seed_is_found_first_and_left_out_with_its_tests(workspace: Workspace) -> None:
    response = workspace.search(SearchRequest("code similar to FileBasedCache"))
    assert response.intent == "find_similar"
    assert response.seed is not None
    assert (response.seed.path, response.seed.symbol, response.seed.how) == ("cache/filebased.py", "FileBasedCache",
                                                                              "named")
    paths = [r.path for r in response.results]
    assert set(paths[:2]) == {"cache/locmem.py", "cache/redis.py"}
    assert "tests/test_filebased.py" not in paths
    assert all(r.symbol is None or not r.symbol.startswith("FileBasedCache") for r in response.results)
    assert any("similar to FileBasedCache" in note for note in response.notes)
    seed = workspace.search_dict(SearchRequest("code similar to FileBasedCache"))["seed"]
    assert seed["path"] == "cache/filebased.py" and seed["how"] == "named"


def test_a_described_seed_is_the_top_code_result(workspace: Workspace) -> None:
    response = workspace.search(SearchRequest("code similar to the cache that reads and writes with open"))
    assert response.seed is not None and response.seed.how == "described"
    assert response.seed.path == "cache/filebased.py"
    assert "cache/locmem.py" in [r.path for r in response.results[:3]]


def test_structural_siblings_rank_shared_bases_and_members_above_strangers(workspace: Workspace) -> None:
    snapshot = workspace.snapshot()
    seed = named_seed(snapshot, "FileBasedCache", query_keywords("FileBasedCache"))
    assert seed is not None
    siblings = structural_siblings(snapshot, seed, 10)
    names = [hit.symbol for hit in siblings]
    assert names[0] == "LocMemCache"  # same base, all three members shared
    assert names[1] == "RedisCache"  # same base, two members shared
    assert "BaseCache" not in names  # what the seed specialises is not another one of its kind
    assert "Parser" not in names and "FileBasedCache" not in names


def test_graph_siblings_share_a_base_class(workspace: Workspace) -> None:
    hits = workspace.snapshot().graph.siblings("cache/filebased.py", "FileBasedCache", limit=10)
    assert {"LocMemCache", "RedisCache"} <= {hit.symbol for hit in hits}
    assert "FileBasedCache" not in {hit.symbol for hit in hits}
    assert all(hit.via for hit in hits)


def test_the_seed_named_by_path_words_wins_among_namesakes(tmp_path: Path) -> None:
    for backend in ("mysql", "postgresql"):
        folder = tmp_path / "backends" / backend
        folder.mkdir(parents=True)
        source = "class DatabaseOperations:\n    def quote(self, name):\n        return name\n"
        (folder / "operations.py").write_text(source)
    opened = Workspace(tmp_path, Settings(index_dir=str(tmp_path / ".index"), semantic_backend="none"),
                       background=False)
    try:
        opened.refresh()
        seed = named_seed(opened.snapshot(), "DatabaseOperations",
                          query_keywords("similar to the PostgreSQL DatabaseOperations"))
        assert seed is not None and seed.path == "backends/postgresql/operations.py"
        response = opened.search(SearchRequest("similar to the PostgreSQL DatabaseOperations"))
        assert [r.path for r in response.results][:1] == ["backends/mysql/operations.py"]
    finally:
        opened.close()


def test_structural_siblings_scores_add_up_the_shared_base_members_parameters_and_folder(
        workspace: Workspace) -> None:
    """Every definition of the seed's family is scored at once over arrays; the points are the documented
    sums: LocMemCache shares the base and all three members, RedisCache the base and two of three, both a
    name word and the seed's folder. A method scores for the parameter count and the class it belongs to."""
    snapshot = workspace.snapshot()
    seed = named_seed(snapshot, "FileBasedCache", query_keywords("FileBasedCache"))
    assert seed is not None
    scores = {hit.symbol: hit.score for hit in structural_siblings(snapshot, seed, 10)}
    shared_word = SIBLING_NAME_WORDS * 1 / 3  # "cache" of file, based, cache
    assert scores["LocMemCache"] == SIBLING_BASE + SIBLING_MEMBERS * 3 / 3 + shared_word + SIBLING_FOLDER
    assert scores["RedisCache"] == SIBLING_BASE + SIBLING_MEMBERS * 2 / 3 + shared_word + SIBLING_FOLDER
    method = named_seed(snapshot, "FileBasedCache.get", frozenset())
    assert method is not None and method.symbol == "FileBasedCache.get"
    ranked = structural_siblings(snapshot, method, 20)
    by_name = {hit.symbol: hit.score for hit in ranked}
    assert by_name["FileBasedCache.set"] == SIBLING_CONTAINER + SIBLING_FOLDER  # same class; 2 parameters, not 1
    assert by_name["LocMemCache.get"] == SIBLING_PARAMETERS + SIBLING_NAME_WORDS + SIBLING_FOLDER
    assert "FileBasedCache.get" not in by_name
    assert structural_siblings(snapshot, method, 0) == []
    assert [hit.score for hit in ranked] == sorted((hit.score for hit in ranked), reverse=True)


def test_structural_siblings_see_a_file_added_since_the_last_query(tmp_path: Path) -> None:
    """The scoring table is kept per snapshot: a new sibling is ranked by the next query, a removed one is gone."""
    source = {"a/one.py": "class One(Base):\n    def run(self, job):\n        pass\n",
              "a/two.py": "class Two(Base):\n    def run(self, job):\n        pass\n"}
    opened = indexed_workspace(tmp_path / "tree", source, tmp_path / "index")
    try:
        seed = named_seed(opened.snapshot(), "One", frozenset())
        assert seed is not None
        assert [hit.symbol for hit in structural_siblings(opened.snapshot(), seed, 10)] == ["Two"]
        added = tmp_path / "tree" / "a" / "three.py"
        added.write_text("class Three(Base):\n    def run(self, job):\n        pass\n")
        opened.update_file(added)
        assert [hit.symbol for hit in structural_siblings(opened.snapshot(), seed, 10)] == ["Three", "Two"]
        (tmp_path / "tree" / "a" / "two.py").unlink()
        opened.update_file(tmp_path / "tree" / "a" / "two.py")
        assert [hit.symbol for hit in structural_siblings(opened.snapshot(), seed, 10)] == ["Three"]
    finally:
        opened.close()
