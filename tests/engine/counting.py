"""A real embedding backend that counts the texts it is asked to embed (shared by the embedding tests).

Not a mock: every call reaches the wrapped model; the count is what the tests assert on (an unchanged
chunk must never be embedded twice).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


class Counting:
    """Wraps a backend; `embedded` is how many texts went through `embed_documents`."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.embedded = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"Counting({self.inner!r}, embedded={self.embedded})"

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += len(texts)
        return self.inner.embed_documents(texts)
