"""A model2vec-style distillation of the packaged MiniLM into one vector per vocabulary token.

MiniLM (engine/semantic/minilm.py, int8 on onnxruntime) embeds a whole chunk at ~10 a CPU-second,
far too slow to label a training corpus on two cores. A token's usual word form, though, is a
three- to six-WordPiece input: all 50,000 vocabulary tokens embed in a few CPU-minutes. Each form
goes through the engine's own MiniLM pipeline (WordPiece, mean pooling, L2 norm; 384 dimensions),
and the 384-d vectors are reduced to the model's dimensions by PCA, as model2vec does: centring
takes out the direction every short input shares, so what is left tells tokens apart.

The vectors are cached under the corpus folder by a digest of the forms, so a rebuild with the same
vocabulary reads them back instead of running MiniLM again. Needs the `minilm` extra.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fourfold.engine.semantic.minilm import MiniLMBackend, MiniLMLimits

# Short inputs pad to a few WordPiece tokens, so unlike whole chunks they batch well: 256 forms a
# call ran ~330 forms per CPU-second (one form a call: the session's fixed cost dominates).
DISTIL_BATCH = 256


def minilm_vectors(forms: Sequence[str], cache: Path) -> np.ndarray:
    """MiniLM's unit 384-d sentence vector of each form (float32), read from `cache` when a run
    with the same forms made it before."""
    digest = hashlib.sha256("\n".join(forms).encode("utf-8")).hexdigest()[:16]
    path = cache / f"minilm.{digest}.npy"
    if path.exists():
        return np.load(path, allow_pickle=False)
    vectors = MiniLMBackend(MiniLMLimits(batch_size=DISTIL_BATCH)).embed_documents(list(forms))
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors, allow_pickle=False)
    return vectors


def principal_components(vectors: np.ndarray, dims: int) -> np.ndarray:
    """`vectors` centred and projected on their first `dims` principal axes (float32); the sign
    of each axis is fixed so that the result does not depend on the SVD routine's choice."""
    centred = vectors - vectors.mean(axis=0)
    _, _, axes = np.linalg.svd(centred.astype(np.float64), full_matrices=False)
    axes = axes[:dims]
    projected = centred @ axes.T
    signs = np.sign(projected[np.abs(projected).argmax(axis=0), np.arange(projected.shape[1])])
    return (projected * signs).astype(np.float32)
