"""The `blend` backend: WordLlama and Fourfold's code model side by side in one vector.

The two static models were trained on different text (WordLlama on general English, the code model on
doc comments, names and sibling implementations mined from packages), so where one misreads a
question the other often does not. Each part of a blended vector is the model's own L2-normalised
vector times its mixing weight, and the weights' squares sum to 1: the blended vector is unit length,
and the dot product of two blended vectors is the weighted mean of the two models' cosines (with the
equal weights 1/sqrt(2) of the default, the plain mean). The binary shortlist packs both parts' sign
bits, so its Hamming distance is the sum of the two models' own distances.

A text one model cannot read (an empty part) keeps its zero part: its blended cosine is then the other
model's share alone, which ranks it below a text both models place well.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .embedding import CodeBackend, LocalBackend

__all__ = ["BLEND_WEIGHTS", "BlendBackend"]

# Equal weight for WordLlama and the code model: the two were never compared on a benchmark to pick
# the mix (that would tune it to the sets); both have 256 dimensions, so weighting by width is equal too.
BLEND_WEIGHTS: tuple[float, float] = (1.0, 1.0)


class BlendBackend:
    """WordLlama and the code model concatenated, each part normalised and weighted (see the module)."""

    name = "blend"
    fallback_reason: str | None = None

    def __init__(
        self,
        local: LocalBackend | None = None,
        code: CodeBackend | None = None,
        weights: tuple[float, float] = BLEND_WEIGHTS,
    ) -> None:
        self._local = local or LocalBackend()
        self._code = code or CodeBackend()
        norm = math.hypot(*weights)
        if norm <= 0 or min(weights) < 0:
            raise ValueError(f"blend weights must be non-negative and not both zero, got {weights}")
        self._scales = (np.float32(weights[0] / norm), np.float32(weights[1] / norm))

    def __repr__(self) -> str:
        return f"BlendBackend(model={self.model!r}, dims={self.dims})"

    @property
    def model(self) -> str:
        """Both models' names and the mix: the embedding cache is keyed by it, so a retrained part or
        another mix never serves an old vector."""
        local, code = self._scales
        return f"{self._local.model}+{self._code.model}@{float(local):.4f}:{float(code):.4f}"

    @property
    def dims(self) -> int:
        return int(self._local.dims) + int(self._code.dims)

    @property
    def part_dims(self) -> tuple[int, int]:
        """Widths of the WordLlama part (first) and the code part (second) of each vector."""
        return int(self._local.dims), int(self._code.dims)

    def begin_run(self) -> None:
        """Nothing to reset: both models are local and have no budget."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        return self._joined(self._local.embed_documents(texts), self._code.embed_documents(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return self._joined(self._local.embed_query(text)[None, :], self._code.embed_query(text)[None, :])[0]

    def embed_weighted(self, text: str, weights: Mapping[str, float]) -> np.ndarray:
        """`embed_query` with the query's word weights applied inside both models' pooling."""
        local = self._local.embed_weighted(text, weights)
        code = self._code.embed_weighted(text, weights)
        return self._joined(local[None, :], code[None, :])[0]

    def _joined(self, local: np.ndarray, code: np.ndarray) -> np.ndarray:
        """Both models' rows (each already unit length or zero), scaled by the mix and side by side."""
        local_scale, code_scale = self._scales
        return np.concatenate(
            [np.asarray(local, dtype=np.float32) * local_scale, np.asarray(code, dtype=np.float32) * code_scale],
            axis=1,
        )
