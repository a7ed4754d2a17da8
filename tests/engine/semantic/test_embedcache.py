"""Embedding cache: vectors survive restarts, models never mix, damaged files are rebuilt, not fatal."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from counting import Counting

from fourfold.engine.semantic.embedcache import SCHEMA_VERSION, CacheKey, EmbedCache, embed_cached
from fourfold.engine.semantic.embedding import LocalBackend


def corpus(count: int = 20) -> dict[str, str]:
    return {f"digest{i}": f"def task_{i}(queue):\n    return queue.pop({i})" for i in range(count)}


def key(digest: str, backend: str = "local", model: str = "m", dims: int = 4) -> CacheKey:
    return CacheKey(backend, model, dims, digest)


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[EmbedCache]:
    opened = EmbedCache(tmp_path / "index" / "embeddings.sqlite")
    yield opened
    opened.close()


def test_round_trip_as_float16_and_identity_is_part_of_the_key(cache: EmbedCache) -> None:
    vector = np.array([0.5, -0.25, 0.125, 1.0], dtype=np.float32)
    cache.put_many([(key("a"), vector), (key("a", model="other"), -vector)])
    found = cache.get_many([key("a"), key("a", model="other"), key("a", backend="voyage"), key("b")])
    assert set(found) == {key("a"), key("a", model="other")}
    assert found[key("a")].dtype == np.float16
    assert np.array_equal(found[key("a")], vector.astype(np.float16))
    assert np.array_equal(found[key("a", model="other")], -vector.astype(np.float16))
    assert cache.recovered is None
    assert len(cache) == 2


def test_vectors_of_the_wrong_width_are_neither_stored_nor_served(cache: EmbedCache) -> None:
    cache.put_many([(key("short"), np.ones(3, dtype=np.float32))])
    assert len(cache) == 0
    with sqlite3.connect(cache.path) as raw:
        raw.execute("INSERT INTO vectors VALUES ('local', 'm', 4, 'bad', ?)", (b"\x00\x01",))
    assert cache.get_many([key("bad")]) == {}


def test_unchanged_chunks_are_not_re_embedded_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    texts = corpus()
    first_backend, first_cache = Counting(LocalBackend()), EmbedCache(path)
    first = embed_cached(first_backend, first_cache, texts)
    first_cache.close()
    assert first_backend.embedded == 20

    backend, cache = Counting(LocalBackend()), EmbedCache(path)
    texts["new"] = "class Worker: pass"
    progress: list[tuple[int, int]] = []
    second = embed_cached(backend, cache, texts, lambda done, total: progress.append((done, total)))
    cache.close()
    assert backend.embedded == 1, "only the new digest is embedded"
    assert progress == [(21, 21)]
    assert np.array_equal(second["digest0"], first["digest0"])
    assert np.allclose(second["new"], LocalBackend().embed_query("class Worker: pass"), atol=1e-3)


def test_a_garbage_file_is_replaced_by_an_empty_cache(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    path.write_bytes(b"this is not a database at all" * 100)
    cache = EmbedCache(path)
    assert cache.recovered is not None
    assert cache.get_many([key("a")]) == {}
    cache.put_many([(key("a"), np.ones(4))])
    assert key("a") in cache.get_many([key("a")])
    cache.close()
    healthy = EmbedCache(path)
    assert healthy.recovered is None, "the rebuilt file is healthy on the next start"
    assert key("a") in healthy.get_many([key("a")])
    healthy.close()


def test_a_truncated_file_never_crashes_and_is_usable_again(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    cache = EmbedCache(path)
    rng = np.random.default_rng(0)
    cache.put_many((key(f"d{i}", dims=256), rng.standard_normal(256)) for i in range(2000))
    cache.close()
    Path(f"{path}-wal").unlink(missing_ok=True)
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size // 3)
    reopened = EmbedCache(path)
    found = reopened.get_many(key(f"d{i}", dims=256) for i in range(2000))
    assert len(found) < 2000
    reopened.put_many([(key("fresh", dims=256), np.ones(256))])
    assert key("fresh", dims=256) in reopened.get_many([key("fresh", dims=256)])
    reopened.close()


def test_an_old_schema_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    cache = EmbedCache(path)
    cache.put_many([(key("a"), np.ones(4))])
    cache.close()
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION - 1),))
    reopened = EmbedCache(path)
    assert "schema version" in (reopened.recovered or "")
    assert reopened.get_many([key("a")]) == {}
    reopened.close()


def test_an_unusable_folder_keeps_the_cache_in_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    cache = EmbedCache(blocker / "embeddings.sqlite")
    cache.put_many([(key("a"), np.ones(4))])
    assert key("a") in cache.get_many([key("a")])
    cache.close()


def test_a_failing_batch_writes_nothing(cache: EmbedCache) -> None:
    def items() -> Iterator[tuple[CacheKey, np.ndarray]]:
        yield key("a"), np.ones(4)
        raise RuntimeError("embedding died mid-batch")

    with pytest.raises(RuntimeError):
        cache.put_many(items())
    assert cache.get_many([key("a")]) == {}


def test_concurrent_writers_and_readers(cache: EmbedCache) -> None:
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(50):
                cache.put_many([(key(f"w{worker}-{i}"), np.full(4, worker, dtype=np.float32))])
                cache.get_many([key(f"w{worker}-{i}")])
        except BaseException as error:  # collected for the assertion below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(cache) == 200


def test_many_keys_are_read_in_chunks(cache: EmbedCache) -> None:
    cache.put_many((key(f"d{i}"), np.full(4, i % 7, dtype=np.float32)) for i in range(2500))
    found = cache.get_many(key(f"d{i}") for i in range(2500))
    assert len(found) == 2500
    assert found[key("d2401")][0] == 2401 % 7


def test_a_cancelled_pass_returns_what_is_cached(cache: EmbedCache) -> None:
    backend = Counting(LocalBackend())
    embed_cached(backend, cache, dict(list(corpus().items())[:5]))
    stop = threading.Event()
    stop.set()
    vectors = embed_cached(backend, cache, corpus(), cancel=stop)
    assert set(vectors) == {f"digest{i}" for i in range(5)}
    assert backend.embedded == 5
