"""Voyage backend through the real voyageai client against a local fake API: batching, retries, fallback."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from voyage_server import FakeVoyage, serve

from fourfold.engine.semantic.backends import make_backend
from fourfold.engine.semantic.embedcache import EmbedCache, embed_cached
from fourfold.engine.semantic.embedding import (
    Backend,
    EmbeddingError,
    RetryPolicy,
    VoyageBackend,
    VoyageLimits,
)

KEY = "pa-test-SECRET-key-0123456789"
FAST = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05, timeout=5.0)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeVoyage]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.delenv("VOYAGE_API_KEY", raising=False)
    with serve(FakeVoyage()) as server:
        yield server


def voyage(fake: FakeVoyage, sleeps: list[float] | None = None, **limits: int) -> Backend:
    record = sleeps.append if sleeps is not None else (lambda _: None)
    return make_backend(
        "voyage", KEY, base_url=fake.url, limits=VoyageLimits(**limits), retry=FAST, sleep=record
    )


def texts(count: int) -> list[str]:
    return [f"def handler_{i}(request):\n    return respond({i})" for i in range(count)]


def test_documents_as_unpacked_bits_and_queries_as_floats(fake: FakeVoyage) -> None:
    backend = voyage(fake)
    documents = backend.embed_documents(texts(3))
    query = backend.embed_query(texts(3)[1])
    assert backend.name == "voyage" and backend.fallback_reason is None
    assert documents.shape == (3, 1024) and documents.dtype == np.float32
    assert set(np.unique(documents)) == {-1 / 32, 1 / 32}
    assert np.allclose(np.linalg.norm(documents, axis=1), 1.0)
    assert np.linalg.norm(query) == pytest.approx(1.0, abs=1e-5)
    assert np.array_equal(np.sign(documents[1]), np.sign(query)), "bit order of unpacking is wrong"
    assert int(np.argmax(documents @ query)) == 1
    first, second = fake.requests
    assert (first["model"], first["input_type"]) == ("voyage-code-3", "document")
    assert (first["output_dtype"], first["output_dimension"]) == ("ubinary", 1024)
    assert (second["input_type"], second.get("output_dtype")) == ("query", None)
    assert fake.authorizations == [f"Bearer {KEY}"] * 2


def test_the_key_can_come_from_the_environment(fake: FakeVoyage, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    backend = make_backend("voyage", base_url=fake.url, retry=FAST)
    assert backend.embed_query("retry").shape == (1024,)
    assert fake.authorizations == [f"Bearer {KEY}"]


def test_batches_respect_text_and_token_caps_and_keep_order(fake: FakeVoyage) -> None:
    inputs = texts(7)
    documents = voyage(fake, max_texts_per_request=3).embed_documents(inputs)
    assert [len(r["input"]) for r in fake.requests] == [3, 3, 1]
    fake.requests.clear()
    per_text = math.ceil(len(inputs[0]) / 4)
    again = voyage(fake, max_tokens_per_request=per_text * 2).embed_documents(inputs)
    assert [len(r["input"]) for r in fake.requests] == [2, 2, 2, 1]
    assert np.array_equal(documents, again)
    for row, text in zip(documents, inputs, strict=True):
        assert np.array_equal(np.sign(row), np.sign(fake.answer_vector(text)))


def test_rate_limit_is_retried_with_backoff(fake: FakeVoyage) -> None:
    fake.script = [429, 429]
    sleeps: list[float] = []
    backend = voyage(fake, sleeps)
    assert backend.embed_documents(texts(2)).shape == (2, 1024)
    assert backend.fallback_reason is None
    assert len(fake.requests) == 3
    assert sleeps == [0.01, 0.02]


def test_repeated_server_errors_fall_back_to_local_with_a_reason(fake: FakeVoyage) -> None:
    fake.script = [500] * 5
    sleeps: list[float] = []
    backend = voyage(fake, sleeps)
    vectors = backend.embed_documents(texts(2))
    assert vectors.shape == (2, 256)
    assert (backend.name, backend.dims) == ("local", 256)
    assert "ServerError" in (backend.fallback_reason or "")
    assert "after 3 attempts" in (backend.fallback_reason or "")
    assert len(fake.requests) == 3 and sleeps == [0.01, 0.02]
    assert backend.embed_query("retry").shape == (256,)
    assert len(fake.requests) == 3, "the rest of the run stays local"
    backend.begin_run()
    assert backend.name == "voyage" and backend.fallback_reason is None
    assert backend.embed_query("retry").shape == (1024,)


def test_timeout_falls_back(fake: FakeVoyage) -> None:
    fake.script = ["hang"]
    backend = make_backend(
        "voyage", KEY, base_url=fake.url, retry=RetryPolicy(attempts=1, timeout=0.2), sleep=lambda _: None
    )
    assert backend.embed_documents(texts(1)).shape == (1, 256)
    assert "Timeout" in (backend.fallback_reason or "")


def test_malformed_json_falls_back_without_retrying(fake: FakeVoyage) -> None:
    fake.script = ["garbage"]
    backend = voyage(fake)
    assert backend.embed_documents(texts(2)).shape == (2, 256)
    assert "APIError" in (backend.fallback_reason or "")
    assert len(fake.requests) == 1


def test_token_budget_stops_voyage_and_says_so(fake: FakeVoyage) -> None:
    inputs = texts(6)
    per_text = math.ceil(len(inputs[0]) / 4)
    backend = voyage(fake, max_texts_per_request=2, token_budget=per_text * 4)
    assert backend.embed_documents(inputs).shape == (6, 256)
    assert "budget" in (backend.fallback_reason or "")
    assert [len(r["input"]) for r in fake.requests] == [2, 2]


def test_budget_counts_billed_tokens_and_resets_per_run(fake: FakeVoyage) -> None:
    direct = VoyageBackend(KEY, base_url=fake.url, retry=FAST)
    direct.embed_documents(texts(4))
    billed = sum(len(text) // 4 + 1 for text in texts(4))
    assert direct.tokens_spent == billed
    direct.begin_run()
    assert direct.tokens_spent == 0


def test_fallback_mid_run_re_embeds_everything_with_one_model(fake: FakeVoyage, tmp_path: Path) -> None:
    fake.script = [500] * 3
    backend = voyage(fake)
    cache = EmbedCache(tmp_path / "cache.sqlite")
    inputs = {f"d{i}": text for i, text in enumerate(texts(5))}
    vectors = embed_cached(backend, cache, inputs)
    assert backend.name == "local"
    assert {vector.shape for vector in vectors.values()} == {(256,)}
    assert set(vectors) == set(inputs)
    cache.close()


def test_the_key_never_reaches_logs_reprs_or_errors(
    fake: FakeVoyage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake.script = [429, 500, 500, 500, "garbage", "hang"]
    backend = voyage(fake)
    backend.embed_documents(texts(2))
    reasons = [backend.fallback_reason or ""]
    backend.begin_run()
    backend.embed_documents(texts(2))
    reasons.append(backend.fallback_reason or "")
    backend.begin_run()
    timing_out = make_backend("voyage", KEY, base_url=fake.url, retry=RetryPolicy(attempts=1, timeout=0.2))
    timing_out.embed_query("retry")
    reasons.append(timing_out.fallback_reason or "")
    assert all(reasons), reasons
    assert "fell back to local" in caplog.text, "nothing was logged, so nothing was checked"
    assert KEY not in caplog.text
    assert all(KEY not in reason for reason in reasons)
    assert KEY not in repr(backend) and KEY not in str(backend)
    assert KEY not in repr(VoyageBackend(KEY, base_url=fake.url))


def test_an_error_body_echoing_the_key_is_scrubbed(fake: FakeVoyage) -> None:
    fake.detail = f"invalid key {KEY}"
    fake.script = [403]
    direct = VoyageBackend(KEY, base_url=fake.url, retry=FAST)
    with pytest.raises(EmbeddingError) as caught:
        direct.embed_query("retry")
    assert "***" in str(caught.value)
    assert KEY not in str(caught.value) and KEY not in repr(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__, "no chained original"
