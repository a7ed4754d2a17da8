"""The `blend` backend: both real static models in one vector whose cosine is the mean of theirs,
query weights reaching both parts, cached under its own identity, and search through a workspace."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fourfold.engine.model.settings import BACKENDS
from fourfold.engine.semantic.backends import make_backend
from fourfold.engine.semantic.blend import BlendBackend
from fourfold.engine.semantic.embedcache import CacheKey, EmbedCache, embed_cached
from fourfold.engine.semantic.embedding import CodeBackend, LocalBackend
from fourfold.engine.semantic.vectors import VectorIndex

TEXTS = [
    "net/retry.py\nfunction retry with backoff\ndef retry_with_backoff(call, attempts):\n"
    "    for attempt in range(attempts):\n        try:\n            return call()\n"
    "        except TimeoutError:\n            time.sleep(2 ** attempt)\n",
    "web/render.py\nfunction render template\ndef render_template(name, context):\n"
    "    html = env.get_template(name)\n    return html.render(context)\n",
    "src/config.ts\nfunction parse config file\nexport function parseConfigFile(path: string): Config {\n"
    "  const raw = fs.readFileSync(path, 'utf8');\n  return JSON.parse(raw) as Config;\n}\n",
]
QUERY = "sleep longer after each failed attempt"


def test_the_blended_cosine_is_the_mean_of_the_two_models_cosines() -> None:
    blend, local, code = BlendBackend(), LocalBackend(), CodeBackend()
    documents = blend.embed_documents(TEXTS)
    query = blend.embed_query(QUERY)
    assert documents.shape == (len(TEXTS), local.dims + code.dims) == (len(TEXTS), blend.dims)
    assert np.allclose(np.linalg.norm(documents, axis=1), 1.0, atol=1e-5)
    local_cosines = local.embed_documents(TEXTS) @ local.embed_query(QUERY)
    code_cosines = code.embed_documents(TEXTS) @ code.embed_query(QUERY)
    assert np.allclose(documents @ query, (local_cosines + code_cosines) / 2, atol=1e-5)
    # The two models disagree on these texts, so the mean is neither model's cosine alone.
    assert not np.allclose(local_cosines, code_cosines, atol=1e-3)


def test_query_weights_reach_both_parts() -> None:
    blend, local, code = BlendBackend(), LocalBackend(), CodeBackend()
    weights = {"sleep": 0.1, "attempt": 0.2}
    weighted = blend.embed_weighted(QUERY, weights)
    scale = np.float32(1 / np.sqrt(2))
    assert np.allclose(weighted[: local.dims], local.embed_weighted(QUERY, weights) * scale, atol=1e-6)
    assert np.allclose(weighted[local.dims :], code.embed_weighted(QUERY, weights) * scale, atol=1e-6)
    assert not np.allclose(weighted, blend.embed_query(QUERY), atol=1e-3)
    assert np.allclose(blend.embed_weighted(QUERY, {"sleep": 1.0}), blend.embed_query(QUERY), atol=1e-6)


def test_other_weights_mix_the_cosines_in_that_proportion_and_name_the_mix() -> None:
    even, leaning = BlendBackend(), BlendBackend(weights=(1.0, 3.0))
    local, code = LocalBackend(), CodeBackend()
    expected = 0.1 * (local.embed_documents(TEXTS) @ local.embed_query(QUERY)) + 0.9 * (
        code.embed_documents(TEXTS) @ code.embed_query(QUERY)
    )
    assert np.allclose(leaning.embed_documents(TEXTS) @ leaning.embed_query(QUERY), expected, atol=1e-5)
    assert even.model != leaning.model, "the cache must not serve one mix's vectors to another"
    assert local.model in even.model and code.model in even.model
    with pytest.raises(ValueError):
        BlendBackend(weights=(0.0, 0.0))


def test_blended_vectors_round_trip_through_the_cache_and_the_vector_index(tmp_path: Path) -> None:
    blend = BlendBackend()
    cache = EmbedCache(tmp_path / "embeddings.sqlite")
    try:
        texts = {f"d{index}": text for index, text in enumerate(TEXTS)}
        first = embed_cached(blend, cache, texts)
        key = CacheKey(blend.name, blend.model, blend.dims, "d0")
        assert key in cache.get_many([key])
        assert not cache.get_many([CacheKey("local", LocalBackend().model, 256, "d0")])
        again = embed_cached(blend, cache, texts)
        assert all(np.array_equal(first[digest], again[digest]) for digest in texts)
    finally:
        cache.close()
    index = VectorIndex.build(list(first), np.stack([first[digest].astype(np.float32) for digest in first]))
    ranked = index.search_keys(blend.embed_query(QUERY), limit=3)
    assert ranked[0][0] == "d0"


def test_blend_is_a_setting() -> None:
    """It serves search through a workspace as `code` does (test_code_model.py, both backends)."""
    assert "blend" in BACKENDS
    assert make_backend("blend").name == "blend"
