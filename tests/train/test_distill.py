"""The MiniLM token distillation (train/distill.py): the real int8 MiniLM, a real cache folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest


@pytest.fixture
def distill(train_module: Callable[[str], ModuleType]) -> ModuleType:
    """train/distill.py imported as build_model.py imports it (train/ first on sys.path)."""
    return train_module("distill")


def test_word_forms_get_minilm_sentence_vectors_that_keep_related_words_close(
    distill: ModuleType, tmp_path: Path
) -> None:
    forms = ["parse", "parser", "socket", "connection"]
    vectors = distill.minilm_vectors(forms, tmp_path)
    assert vectors.shape == (4, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosine = vectors @ vectors.T
    assert cosine[0, 1] > cosine[0, 2], "parse is nearer parser than socket"
    assert cosine[2, 3] > cosine[2, 1], "socket is nearer connection than parser"


def test_a_second_run_with_the_same_forms_reads_the_cache(distill: ModuleType, tmp_path: Path) -> None:
    forms = ["retry", "backoff"]
    first = distill.minilm_vectors(forms, tmp_path)
    (cached,) = tmp_path.glob("minilm.*.npy")
    np.save(cached, first * 2, allow_pickle=False)
    assert np.array_equal(distill.minilm_vectors(forms, tmp_path), first * 2), "the cached file is read back"
    other = distill.minilm_vectors(["retry"], tmp_path)
    assert np.allclose(other[0], first[0], atol=1e-5), "other forms are embedded afresh"
    assert len(list(tmp_path.glob("minilm.*.npy"))) == 2


def test_principal_components_keep_the_spread_and_a_fixed_sign(distill: ModuleType) -> None:
    rng = np.random.default_rng(0)
    # Points on a tilted 3-d plane inside 20 dimensions, plus a common offset every row shares.
    basis = np.linalg.qr(rng.standard_normal((20, 3)))[0].T
    points = rng.standard_normal((200, 3)) * [5.0, 2.0, 1.0] @ basis + rng.standard_normal(20)
    projected = distill.principal_components(points, 3)
    assert projected.shape == (200, 3)
    assert projected.dtype == np.float32
    assert np.allclose(projected.mean(axis=0), 0.0, atol=1e-4), "the shared offset is taken out"
    centred = points - points.mean(axis=0)
    assert np.allclose(centred @ centred.T, projected @ projected.T, atol=1e-3), "no spread is lost"
    spread = projected.var(axis=0)
    assert spread[0] > spread[1] > spread[2], "axes come in order of spread"
    flipped = distill.principal_components(-points, 3)
    assert np.allclose(np.abs(flipped), np.abs(projected), atol=1e-4)
    largest = np.abs(flipped).argmax(axis=0)
    assert (flipped[largest, np.arange(3)] > 0).all(), "each axis points toward its largest coordinate"
