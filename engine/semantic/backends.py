"""Which embedding backend a setting asks for, and what stands in when it cannot be had.

Its own module because it is the one place that knows every backend: `embedding.py` holds the
backends themselves and `minilm.py` the optional one built on them, so neither imports the other's
dependent.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from .blend import BlendBackend
from .embedding import (
    VOYAGE_LIMITS,
    Backend,
    CodeBackend,
    FallbackBackend,
    LocalBackend,
    NoneBackend,
    RetryPolicy,
    VoyageBackend,
    VoyageLimits,
    scrubbed,
)
from .minilm import MiniLMBackend, missing_reason

__all__ = ["make_backend"]


def _minilm_backend(local: LocalBackend) -> Backend:
    """MiniLM when its extra is installed, else `local` saying what to install."""
    reason = missing_reason()
    if reason is not None:
        return FallbackBackend(None, local, f"{reason}; using the local model")
    return MiniLMBackend()


def make_backend(
    name: str,
    api_key: str | None = None,
    *,
    base_url: str | None = None,
    limits: VoyageLimits = VOYAGE_LIMITS,
    retry: RetryPolicy | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Backend:
    """The backend a setting asks for; anything unusable becomes `local` with a reason, never an error."""
    choice = name.strip().lower()
    if choice in ("none", "off"):
        return NoneBackend()
    local = LocalBackend()
    if choice in ("local", "wordllama"):
        return local
    if choice == "minilm":
        return _minilm_backend(local)
    if choice == "code":
        return CodeBackend()
    if choice == "blend":
        return BlendBackend(local)
    if choice != "voyage":
        return FallbackBackend(None, local, f"unknown semantic backend {name!r}; using the local model")
    key = api_key or os.environ.get("VOYAGE_API_KEY", "")
    if not key:
        return FallbackBackend(
            None,
            local,
            "voyage needs an API key (VOYAGE_API_KEY or the editor's secret storage); using the local model",
        )
    try:
        voyage = VoyageBackend(key, base_url=base_url, limits=limits, retry=retry, sleep=sleep)
    except Exception as error:
        reason = scrubbed(f"{type(error).__name__}: {error}", key)
        return FallbackBackend(None, local, f"voyage client unavailable ({reason}); using the local model")
    return FallbackBackend(voyage, local)
