"""Fourfold's own code model: the shipped files load offline, embed deterministically, carry meaning
across natural language and code, and serve search end to end as the `code` backend."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from fourfold.engine.model.settings import BACKENDS, Settings
from fourfold.engine.model.tokens import code_tokens
from fourfold.engine.query.request import SearchRequest
from fourfold.engine.semantic.backends import make_backend
from fourfold.engine.semantic.embedding import (
    CODE_MODEL_FOLDER,
    CodeBackend,
    CodeModel,
    code_bag,
    load_code_model,
)
from fourfold.engine.service.workspace import Workspace

RETRY = (
    "net/retry.py\nfunction retry with backoff\ndef retry_with_backoff(call, attempts)\n"
    "def retry_with_backoff(call, attempts):\n    for attempt in range(attempts):\n        try:\n"
    "            return call()\n        except TimeoutError:\n            time.sleep(2 ** attempt)\n"
)
TEMPLATE = (
    "web/render.py\nfunction render template\ndef render_template(name, context)\n"
    "def render_template(name, context):\n    html = env.get_template(name)\n    return html.render(context)\n"
)
PARSE = (
    "src/config.ts\nfunction parse config file\nexport function parseConfigFile(path: string): Config\n"
    "export function parseConfigFile(path: string): Config {\n  const raw = fs.readFileSync(path, 'utf8');\n"
    "  return JSON.parse(raw) as Config;\n}\n"
)


def test_shipped_files_load_and_agree() -> None:
    config = json.loads((CODE_MODEL_FOLDER / "config.json").read_text())
    model = load_code_model()
    assert model.vectors.dtype == np.float32
    assert model.vectors.shape == (config["vocabulary"], config["dims"]) == (len(model.vocabulary), model.dims)
    assert (CODE_MODEL_FOLDER / "MODEL_CARD.md").read_text().strip()
    assert sum(path.stat().st_size for path in CODE_MODEL_FOLDER.iterdir()) <= 30 * 1024 * 1024
    shipped = np.load(CODE_MODEL_FOLDER / "vectors.npy")
    assert shipped.dtype == np.float16
    digest = hashlib.sha256(shipped.tobytes()).hexdigest()[:12]
    assert model.name.startswith(f"{config['name']}-{digest}"), "a retrained model gets a new cache identity"


def test_embeddings_are_normalised_and_deterministic() -> None:
    backend = CodeBackend()
    texts = [RETRY, TEMPLATE, ""]
    first = backend.embed_documents(texts)
    assert first.dtype == np.float32 and first.shape == (3, backend.dims)
    assert np.allclose(np.linalg.norm(first[:2], axis=1), 1.0, atol=1e-5)
    assert not first[2].any(), "an empty text has no direction"
    assert np.array_equal(first, CodeBackend().embed_documents(texts))
    assert np.allclose(backend.embed_query(RETRY), first[0], atol=1e-6)
    assert backend.embed_documents([]).shape == (0, backend.dims)


def test_identifiers_are_split_the_same_way_at_index_and_query_time() -> None:
    model = load_code_model()
    ids, weights, _ = code_bag("parseConfigFile parse_config_file", model.lookup)
    words, _, _ = code_bag("parse config file", model.lookup)
    assert set(words) <= set(ids), "the words of a camelCase and a snake_case name are the query's words"
    assert max(weights) > 1.0, "a repeated token weighs more than one said once"


def test_the_vocabulary_was_mined_with_the_tokenizer_the_index_uses_now() -> None:
    """Common code words, nominalisations and agent nouns among them, reach vocabulary tokens
    through today's stemmer: a model mined with older stems (`exception` once stayed whole, now it
    is `except`) reads another token's vector or the fallback for them (fourfold-code-v2 lacked
    `descript` and `implementat`), so a stemmer change must come with a retrain."""
    model = load_code_model()
    words = [
        "exception", "option", "function", "connection", "iterator", "configuration", "serialization",
        "validator", "description", "implementation", "collection", "generator", "expression", "session",
    ]  # fmt: skip
    missing = {word: token for word in words for token in code_tokens(word) if token not in model.vocabulary}
    assert not missing, missing


def test_a_description_is_nearest_its_own_definition() -> None:
    backend = CodeBackend()
    chunks = backend.embed_documents([RETRY, TEMPLATE, PARSE])
    for question, own in (
        ("retry a failing call with exponential backoff", 0),
        ("render an html template with a context", 1),
        ("read and parse the configuration file", 2),
    ):
        scores = chunks @ backend.embed_query(question)
        assert int(np.argmax(scores)) == own, (question, scores)


def test_a_definition_is_nearest_its_sibling_implementation() -> None:
    """find_similar ranks by the seed's own vector: two implementations of one interface (here, a
    queue's `push` over a list and over Redis) must be nearer each other than to unrelated code."""
    seed = (
        "queues/memory.py\nmethod memory queue push\ndef push(self, item)\n    def push(self, item):\n"
        "        with self.lock:\n            self.items.append(item)\n            self.not_empty.notify()\n"
    )
    sibling = (
        "queues/redis.py\nmethod redis queue push\ndef push(self, item)\n    def push(self, item):\n"
        "        payload = json.dumps(item)\n        self.client.rpush(self.key, payload)\n"
    )
    backend = CodeBackend()
    candidates = backend.embed_documents([sibling, RETRY, TEMPLATE, PARSE])
    scores = candidates @ backend.embed_query(seed)
    assert int(np.argmax(scores)) == 0, scores


def test_words_outside_the_vocabulary_still_match_themselves() -> None:
    model = load_code_model()
    assert "kleislicompos" not in model.vocabulary and "zzyzx" not in model.vocabulary
    texts = ["object Kleisli:\n  def kleisliCompose(f, g) = f andThen g", "def zzyzx_handler(): pass"]
    with_fallback = model.embed(texts)
    assert np.allclose(np.linalg.norm(with_fallback, axis=1), 1.0, atol=1e-5)
    query = model.embed(["kleisliCompose"])[0]
    assert int(np.argmax(with_fallback @ query)) == 0
    plain = CodeModel(model.name, model.vocabulary, model.vectors, fallback=False).embed(["zzyzx"])
    assert not plain.any(), "without the fallback an unknown word has no vector"
    assert model.embed(["zzyzx"]).any(), "with it, WordLlama gives it one"


def test_make_backend_and_settings_know_the_code_backend() -> None:
    assert "code" in BACKENDS and "wordllama" in BACKENDS
    backend = make_backend("code")
    assert backend.name == "code" and backend.fallback_reason is None
    assert make_backend("wordllama").model == "wordllama-l2_supercat"


@pytest.mark.parametrize("backend", ["code", "blend"])
def test_code_backend_serves_search_through_a_workspace(tmp_path: Path, backend: str) -> None:
    root = tmp_path / "repo"
    (root / "net").mkdir(parents=True)
    (root / "web").mkdir()
    (root / "net" / "retry.py").write_text(
        "import time\n\n\ndef retry_with_backoff(call, attempts):\n    for attempt in range(attempts):\n"
        "        try:\n            return call()\n        except TimeoutError:\n            time.sleep(2 ** attempt)\n"
    )
    (root / "web" / "render.py").write_text(
        "def render_template(name, context):\n    html = env.get_template(name)\n    return html.render(context)\n"
    )
    settings = Settings(semantic_backend=backend, index_dir=str(tmp_path / "index"))
    workspace = Workspace(root, settings, background=False)
    try:
        workspace.refresh()
        workspace.embed_pending()
        status = workspace.status()
        assert status["backend"] == backend and status["embedded"] == status["chunks"] > 0
        result = workspace.search_dict(SearchRequest("sleep longer after each failed attempt", preset="quick"))
        assert result["modalities"]["semantic"]["ran"]
        assert result["results"][0]["path"] == "net/retry.py"
    finally:
        workspace.close()


def test_word_weights_scale_each_token_by_the_words_it_came_from() -> None:
    model = load_code_model()
    text = "retry the failing call, retry with backoff"
    ids, plain, _ = code_bag(text, model.lookup)
    same_ids, scaled, _ = code_bag(text, model.lookup, word_weights={"retry": 0.25})
    assert same_ids == ids
    retry = set(model.lookup("retry"))
    for index, before, after in zip(ids, plain, scaled, strict=True):
        assert after == (before * 0.25 if index in retry else before)


def test_a_weighted_code_query_with_unit_weights_is_the_plain_query() -> None:
    backend = CodeBackend()
    text = "retry a failing call with exponential backoff"
    assert np.allclose(backend.embed_weighted(text, {"retry": 1.0}), backend.embed_query(text), atol=1e-6)
    assert not np.allclose(backend.embed_weighted(text, {"retry": 0.1}), backend.embed_query(text), atol=1e-3)
