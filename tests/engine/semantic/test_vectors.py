"""VectorIndex: binary candidates + float rescoring finds what exact search finds; snapshots are immutable."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fourfold.engine.semantic.embedding import LocalBackend
from fourfold.engine.semantic.vectors import MAX_SEGMENTS, VectorIndex


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def clustered(seed: int, count: int = 4000, dims: int = 256) -> np.ndarray:
    """Points around 200 centres: neighbourhoods exist, as they do for real embeddings."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((200, dims))
    return unit(centres[rng.integers(0, 200, count)] + 0.6 * rng.standard_normal((count, dims)))


def exact_top(matrix: np.ndarray, query: np.ndarray, k: int) -> set[int]:
    return set(np.argsort(-(matrix @ query), kind="stable")[:k].tolist())


def recall(index: VectorIndex, matrix: np.ndarray, queries: np.ndarray, candidates: int) -> float:
    k = 10
    found = 0
    for query in queries:
        got = {row for row, _ in index.search(query, limit=k, candidates=candidates)}
        found += len(got & exact_top(matrix, query, k))
    return found / (k * len(queries))


def keys_for(count: int, prefix: str = "k") -> list[str]:
    return [f"{prefix}{i}" for i in range(count)]


def real_chunks() -> list[str]:
    """40-line windows of real Python from standard-library packages."""
    stdlib = Path(json.__file__).parent.parent
    texts: list[str] = []
    for package in (stdlib / name for name in ("json", "email", "http", "logging", "asyncio")):
        for path in sorted(package.glob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            texts.extend("\n".join(lines[start : start + 40]) for start in range(0, len(lines), 40))
    return texts


def test_stored_vector_is_its_own_best_match() -> None:
    matrix = clustered(1, 500)
    index = VectorIndex.build(keys_for(500), matrix)
    (row, score), *_ = index.search(matrix[123], limit=3)
    assert index.key(row) == "k123"
    assert score == pytest.approx(1.0, abs=1e-2)


def test_recall_on_clustered_random_vectors_and_rescoring_matters() -> None:
    matrix = clustered(2)
    index = VectorIndex.build(keys_for(len(matrix)), matrix)
    queries = unit(matrix[:50] + 0.05 * np.random.default_rng(3).standard_normal((50, 256)))
    rescored = recall(index, matrix, queries, candidates=100)
    hamming_only = recall(index, matrix, queries, candidates=10)
    assert rescored >= 0.9
    assert rescored > hamming_only + 0.1


def test_recall_on_real_wordllama_vectors() -> None:
    texts = real_chunks()
    assert len(texts) > 800
    matrix = LocalBackend().embed_documents(texts)
    index = VectorIndex.build(keys_for(len(texts)), matrix)
    backend = LocalBackend()
    questions = ["parse a JSON document", "encode an email header", "decode base64 message body",
                 "split an address list", "scan a string literal", "handle charset conversion",
                 "serialize python objects to text", "build a MIME multipart message"]
    queries = np.stack([backend.embed_query(q) for q in questions] + list(matrix[::37][:40]))
    exact = matrix.astype(np.float16).astype(np.float32)
    rescored = recall(index, exact, queries, candidates=100)
    hamming_only = recall(index, exact, queries, candidates=10)
    assert rescored >= 0.9
    assert rescored > hamming_only


def test_scores_are_float_dot_products_in_descending_order() -> None:
    matrix = clustered(4, 300)
    index = VectorIndex.build(keys_for(300), matrix)
    query = matrix[7]
    results = index.search(query, limit=20, candidates=300)
    scores = [score for _, score in results]
    assert scores == sorted(scores, reverse=True)
    for row, score in results:
        assert score == pytest.approx(float(matrix[int(index.key(row)[1:])] @ query), abs=2e-3)


def test_with_vectors_replaces_a_key_and_leaves_the_old_snapshot_alone() -> None:
    matrix = clustered(5, 100)
    before = VectorIndex.build(keys_for(100), matrix)
    after = before.with_vectors(["k5"], matrix[60:61])
    assert len(after) == 100
    assert after.search_keys(matrix[60], limit=2)[0][0] in {"k5", "k60"}
    assert {key for key, _ in after.search_keys(matrix[60], limit=2)} == {"k5", "k60"}
    assert before.search_keys(matrix[5], limit=1)[0][0] == "k5"
    vector = after.vector("k5")
    assert vector is not None
    assert np.allclose(vector, matrix[60], atol=1e-3)


def test_without_removes_rows_from_results_but_not_from_older_snapshots() -> None:
    matrix = clustered(6, 200)
    before = VectorIndex.build(keys_for(200), matrix)
    after = before.without(["k10", "missing"])
    assert "k10" not in after and "k10" in before
    assert len(after) == 199
    assert all(key != "k10" for key, _ in after.search_keys(matrix[10], limit=50))
    assert before.search_keys(matrix[10], limit=1)[0][0] == "k10"


def test_tombstoned_rows_never_come_back_when_few_rows_are_live() -> None:
    matrix = clustered(7, 20)
    index = VectorIndex.build(keys_for(20), matrix).without(keys_for(4))
    keys = {key for key, _ in index.search_keys(matrix[0], limit=50, candidates=100)}
    assert keys == set(keys_for(20)) - set(keys_for(4))


def test_many_small_updates_compact_and_match_a_fresh_build() -> None:
    matrix = clustered(8, 400)
    index = VectorIndex(256)
    for start in range(0, 400, 10):
        index = index.with_vectors(keys_for(400)[start : start + 10], matrix[start : start + 10])
        index = index.without([f"k{start}"])
        assert index.segment_count <= MAX_SEGMENTS
    live = [k for k in keys_for(400) if int(k[1:]) % 10]
    fresh = VectorIndex.build(live, matrix[[int(k[1:]) for k in live]])
    assert sorted(index.keys()) == sorted(live)
    for query in matrix[:20]:
        assert index.search_keys(query, limit=5, candidates=400) == fresh.search_keys(query, 5, 400)


def test_duplicate_keys_in_one_call_keep_the_last_vector() -> None:
    matrix = clustered(9, 3)
    index = VectorIndex(256).with_vectors(["a", "a", "b"], matrix)
    assert len(index) == 2
    vector = index.vector("a")
    assert vector is not None
    assert np.allclose(vector, matrix[1], atol=1e-3)


def test_rejects_wrong_dimensions_and_handles_empty_indexes() -> None:
    index = VectorIndex(8)
    assert index.search(np.ones(8, dtype=np.float32)) == []
    with pytest.raises(ValueError, match="dims"):
        index.search(np.ones(4, dtype=np.float32))
    with pytest.raises(ValueError, match="expected 1 vectors"):
        index.with_vectors(["a"], np.ones((1, 4), dtype=np.float32))
    assert index.vector("nope") is None


def test_odd_dimensions_pack_into_whole_words() -> None:
    rng = np.random.default_rng(10)
    matrix = unit(rng.standard_normal((50, 70)))
    index = VectorIndex.build(keys_for(50), matrix)
    assert index.search_keys(matrix[3], limit=1)[0][0] == "k3"
