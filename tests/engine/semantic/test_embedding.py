"""Local and 'none' backends, and the factory: offline by construction, normalised, never a crash."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fourfold.engine.semantic import embedding as embedding_module
from fourfold.engine.semantic.backends import make_backend
from fourfold.engine.semantic.embedding import LocalBackend, LocalLimits, NoneBackend

NO_NETWORK_SCRIPT = textwrap.dedent(
    """
    import json, logging, socket
    attempts = []
    def refuse(*args, **kwargs):
        attempts.append(repr(args)[:80])
        raise OSError("network disabled by test")
    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    from fourfold.engine.semantic.embedding import LocalBackend
    backend = LocalBackend()
    vectors = backend.embed_documents(["def retry(call):\\n    return call()", "class Session: pass"])
    query = backend.embed_query("how does retry work")
    print(json.dumps({
        "attempts": attempts,
        "shape": list(vectors.shape),
        "query": list(query.shape),
        "root_handlers": len(logging.getLogger().handlers),
    }))
    """
)


def test_local_backend_loads_and_embeds_with_the_network_cut(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "HF_HUB_OFFLINE": "1", "XDG_CACHE_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", NO_NETWORK_SCRIPT], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["attempts"] == []
    assert report["shape"] == [2, 256]
    assert report["query"] == [256]
    assert report["root_handlers"] == 0, "wordllama's logging.basicConfig leaked into the host"
    assert not (tmp_path / ".cache" / "wordllama").exists()


def test_local_vectors_are_normalised_float32_and_deterministic() -> None:
    backend = LocalBackend()
    texts = ["def parse_config(path):\n    return toml.load(path)", "SELECT * FROM users", ""]
    first = backend.embed_documents(texts)
    assert first.dtype == np.float32
    assert first.shape == (3, 256)
    assert np.allclose(np.linalg.norm(first[:2], axis=1), 1.0, atol=1e-5)
    assert not first[2].any(), "an empty text has no direction"
    assert np.array_equal(first, backend.embed_documents(texts))
    assert np.allclose(backend.embed_query(texts[0]), first[0], atol=1e-6)


def test_local_vectors_carry_meaning() -> None:
    backend = LocalBackend()
    chunks = backend.embed_documents(
        [
            "def retry_with_backoff(call, attempts):\n    for attempt in range(attempts):\n"
            "        try:\n            return call()\n        except TimeoutError:\n"
            "            time.sleep(2 ** attempt)",
            "def render_template(name, context):\n    html = env.get_template(name)\n"
            "    return html.render(context)",
        ]
    )
    scores = chunks @ backend.embed_query("retry a failing call with exponential backoff")
    assert scores[0] > scores[1]


def test_batches_do_not_change_vectors() -> None:
    texts = [f"def handler_{i}(request):\n    return respond({i})" for i in range(7)]
    whole = LocalBackend().embed_documents(texts)
    batched = LocalBackend(LocalLimits(batch_size=2)).embed_documents(texts)
    assert np.allclose(whole, batched, atol=1e-6)


def test_long_texts_are_truncated_to_the_model_limit() -> None:
    backend = LocalBackend(LocalLimits(max_tokens=64))
    head = "def connect(host, port):\n    return socket.create_connection((host, port))\n" * 4
    short, huge = backend.embed_documents([head + "omega " * 200, head + "omega " * 200_000])
    assert np.allclose(short, huge, atol=1e-6)


def test_a_huge_text_is_cut_before_the_tokenizer_sees_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tokenizer's work is bounded by the limit, not by the chunk (3 MB here), counted in characters."""
    limits = LocalLimits(max_tokens=64)
    embedding, tokenizer = embedding_module._wordllama_model(limits.max_tokens)
    seen: list[int] = []

    class Spy:
        def encode_batch_fast(self, texts: list[str], **options: Any) -> Any:
            seen.extend(len(text) for text in texts)
            return tokenizer.encode_batch_fast(texts, **options)

    monkeypatch.setattr(embedding_module, "_wordllama_model", lambda max_tokens: (embedding, Spy()))
    vectors = LocalBackend(limits).embed_documents(["x = 1\n" * 500_000, "y = 2\n"])
    assert vectors.shape == (2, 256) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert seen == [limits.max_tokens * limits.max_chars_per_token, 6]


def test_local_embeds_real_code() -> None:
    source = Path(json.__file__).parent.parent
    texts = [
        "\n".join(lines[start : start + 40])
        for path in sorted((source / "email").glob("*.py"))
        for lines in [path.read_text(encoding="utf-8").splitlines()]
        for start in range(0, len(lines), 40)
    ]
    vectors = LocalBackend().embed_documents(texts)  # throughput: bench/search_bench.py reports chunks/s
    assert vectors.shape == (len(texts), 256)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert len({vector.tobytes() for vector in vectors}) > 0.9 * len(texts)  # real code: distinct vectors


def test_none_backend_is_zero_width() -> None:
    backend = NoneBackend()
    assert backend.embed_documents(["a", "b"]).shape == (2, 0)
    assert backend.embed_query("q").shape == (0,)
    assert backend.fallback_reason is None


@pytest.mark.parametrize(
    ("setting", "name", "reason"),
    [
        ("local", "local", None),
        ("none", "none", None),
        ("off", "none", None),
        (" Local ", "local", None),
        ("voyage", "local", "API key"),
        ("openai", "local", "unknown semantic backend 'openai'"),
    ],
)
def test_make_backend_maps_settings_and_explains_fallbacks(
    monkeypatch: pytest.MonkeyPatch, setting: str, name: str, reason: str | None
) -> None:
    monkeypatch.delenv("VOYAGE_API_KEY", raising=False)
    backend = make_backend(setting)
    assert backend.name == name
    if reason is None:
        assert backend.fallback_reason is None
    else:
        assert reason in (backend.fallback_reason or "")
        backend.begin_run()
        assert reason in (backend.fallback_reason or ""), "a missing key is not fixed by a new run"
        assert backend.embed_query("retry").shape == (256,)


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_a_weighted_query_with_unit_weights_is_the_plain_query() -> None:
    backend = LocalBackend()
    text = "how the lockfile pins plugin commits"
    assert np.allclose(backend.embed_weighted(text, {"plugin": 1.0}), backend.embed_query(text), atol=1e-5)


def test_a_word_weighted_down_pulls_the_query_less() -> None:
    backend = LocalBackend()
    text = "how the lockfile pins plugin commits"
    plain = backend.embed_query(text)
    discounted = backend.embed_weighted(text, {"plugin": 0.05})
    assert abs(float(np.linalg.norm(discounted)) - 1.0) < 1e-5
    plugin, lockfile = backend.embed_query("plugin"), backend.embed_query("lockfile")
    assert _cosine(discounted, plugin) < _cosine(plain, plugin)
    assert _cosine(discounted, lockfile) > _cosine(plain, lockfile)


def test_query_vector_weighs_words_only_where_the_model_pools_static_vectors() -> None:
    local, none = LocalBackend(), NoneBackend()
    text = "plugin lockfile"
    assert np.allclose(embedding_module.query_vector(local, text, {}), local.embed_query(text))
    assert not np.allclose(embedding_module.query_vector(local, text, {"plugin": 0.05}), local.embed_query(text))
    assert embedding_module.query_vector(none, text, {"plugin": 0.05}).shape == (0,)
