"""BM25 over code chunks: the text retriever's answer to a question rather than a literal.

`how does retry work` or `where are settings loaded from env` is not a string any file contains.
Scored word by word over chunks (one per definition, doc section or window of module code), the
chunk whose words, file name and symbol name best cover the question ranks first. Words come
from `tokens.code_tokens`, so `load settings` meets `load_settings` and `loadSettings`.

A chunk's file stem, last folder names and symbol name are repeated into its token list: a
question's words found in the name of the thing are stronger evidence than the same words in a
comment deep inside a body. The weights are data below.

Tokenising Django's 46k chunks and building their BM25 takes about 8 s of CPU, most of a CLI
question's cost, so a built index is kept on disk (`save`/`load`) in bm25s's own format: `.npy`
arrays opened memory-mapped (a search touches pages, not Python objects) and JSON for the vocabulary
and parameters, no pickles. A manifest written last names the rows it was built from (the caller's
key), the tokenising it used, and the digest of every file, so a stale copy is ignored and a damaged
one is detected (`DamagedLexical`) and built again, never searched.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import xxhash

from ..model.profiles import BM25_B, BM25_K1, BM25_PATH_FOLDERS, BM25_PATH_WEIGHT, BM25_SYMBOL_WEIGHT, DEFINITION_KINDS
from ..model.records import Chunk
from ..model.tokens import code_tokens, last_name, query_tokens, token_bag

if TYPE_CHECKING:
    import bm25s

# Tokens remembered from one build to the next (`_Remembered`), at most this many in all: the index is
# rebuilt after every file change, and re-tokenising the unchanged 99% of a repository is half a rebuild's
# cost (Django: 5.4 s -> 2.6 s of CPU). 8M tokens are 64 MB of references, a copy and a half of Django
# (5.1M); a larger repository has its first 8M remembered and re-tokenises the rest.
TOKEN_CACHE_TOKENS = 1 << 23

# Bump when `chunk_tokens` changes what a chunk's tokens are: a stored index of other tokens is stale.
# 3: the definitions' chunk positions are stored beside the arrays (`DEFINITIONS`).
STORED_FORMAT = 3
MANIFEST = "fourfold.json"
# The definitions by name (`LexicalIndex.definitions`) as JSON: opening a stored index reads them here
# instead of walking every chunk, which had decoded every stored row for a restart's first question.
DEFINITIONS = "definitions.json"
_HASH_BLOCK = 1 << 20


class DamagedLexical(ValueError):
    """A stored BM25 index with files missing, garbled or not fitting together (it is built again)."""


def _bm25s() -> Any:
    """bm25s, imported when an index is built or opened: a search that asks BM25 nothing (an identifier,
    a literal) does not pay its import (0.1 s, tqdm and asyncio with it) on every CLI run. bm25s sets
    its own logger to DEBUG when imported and logs every index build there; a search engine's user does
    not care, so the level is set after the import (set before it, the import undoes it)."""
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


def _tuning() -> str:
    """What besides the rows decides a stored index's contents: a copy made under other values is stale."""
    weights = (STORED_FORMAT, BM25_K1, BM25_B, BM25_SYMBOL_WEIGHT, BM25_PATH_WEIGHT, BM25_PATH_FOLDERS)
    return ":".join(map(str, (*weights, _bm25s().__version__)))


def _file_digest(path: Path) -> str:
    digest = xxhash.xxh3_128()
    with path.open("rb") as stream:
        while block := stream.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def chunk_tokens(chunk: Chunk) -> list[str]:
    """The weighted token list of one chunk: its text, plus its symbol and path fields repeated."""
    return list(_fields_tokens(chunk.path, chunk.symbol, chunk.text))


class _Remembered:
    """The token lists of the latest build's chunks, by a digest of what decides them (path, symbol,
    text), at most TOKEN_CACHE_TOKENS tokens: the next build re-tokenises only the chunks that changed.

    Keyed by digest, not by the fields (an lru_cache of them once kept up to 131k chunk texts alive,
    rows a closed workspace or a one-pass build had let go); each build keeps only what it read, so an
    edited chunk's old tokens go with the build after the edit; and a repository larger than the bound
    keeps its first chunks' tokens rather than evicting in a loop that a scan in order never hits.
    """

    latest: ClassVar[dict[bytes, tuple[str, ...]]] = {}

    @staticmethod
    def key(chunk: Chunk) -> bytes:
        fields = f"{chunk.path}\0{chunk.symbol or ''}\0{chunk.text}"  # no path or symbol holds a NUL
        return xxhash.xxh3_128_digest(fields.encode("utf-8", "surrogatepass"))


def _fields_tokens(path: str, symbol: str | None, text: str) -> tuple[str, ...]:
    tokens = token_bag(text)
    if symbol:
        tokens.extend(code_tokens(symbol) * BM25_SYMBOL_WEIGHT)
    tokens.extend(code_tokens(_path_words(path)) * BM25_PATH_WEIGHT)
    return tuple(tokens)


def _path_words(path: str) -> str:
    pure = PurePosixPath(path)
    return " ".join([*pure.parent.parts[-BM25_PATH_FOLDERS:], pure.stem])


@dataclass(frozen=True)
class LexicalIndex:
    """An immutable BM25 index over chunk positions 0..n-1 of the sequence it was built from.

    `definitions` maps a definition's name to the positions of the chunks that define it, so a
    question naming `Tokenizer` reaches its class even when BM25 ranks the class's chunk low.
    """

    model: bm25s.BM25 | None
    size: int
    definitions: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    # Builds this process has run (a restart that opens its stored index runs none).
    builds: ClassVar[int] = 0

    @classmethod
    def build(cls, chunks: Sequence[Chunk]) -> LexicalIndex:
        """Index the chunks; positions in `search` results are positions in `chunks`."""
        LexicalIndex.builds += 1
        corpus: list[tuple[str, ...]] = []
        found: dict[str, list[int]] = {}
        previous, kept, room = _Remembered.latest, {}, TOKEN_CACHE_TOKENS
        for position, chunk in enumerate(chunks):  # one pass: a snapshot's chunks are read from its rows
            key = _Remembered.key(chunk)
            tokens = previous.get(key)
            if tokens is None:
                tokens = _fields_tokens(chunk.path, chunk.symbol, chunk.text)
            if len(tokens) <= room and key not in kept:
                kept[key] = tokens
                room -= len(tokens)
            corpus.append(tokens)
            _add_definition(found, position, chunk)
        _Remembered.latest = kept
        del previous
        definitions = {name: tuple(positions) for name, positions in found.items()}
        if not any(corpus):
            return cls(None, len(chunks), definitions)
        model = _bm25s().BM25(k1=BM25_K1, b=BM25_B)
        model.index(corpus, show_progress=False)
        return cls(model, len(chunks), definitions)

    def save(self, folder: Path, key: str) -> None:
        """Keep this index in `folder` for the rows named by `key`, replacing what is there.

        The files are written to a sibling folder that is renamed into place, with the manifest last:
        a process killed mid-save leaves the old copy or none, never a mix. An index without a model
        (no chunk has a token) is not stored: building it again costs nothing.
        """
        if self.model is None:
            return
        staging = folder.with_name(f"{folder.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        shutil.rmtree(staging, ignore_errors=True)
        try:
            self.model.save(staging, show_progress=False, raise_on_serialization_error=True)
            (staging / DEFINITIONS).write_text(json.dumps(self.definitions), encoding="utf-8")
            files = {path.name: _file_digest(path) for path in sorted(staging.iterdir())}
            manifest = {"key": key, "tuning": _tuning(), "size": self.size, "files": files}
            (staging / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
            shutil.rmtree(folder, ignore_errors=True)
            staging.rename(folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path, key: str, chunks: Sequence[Chunk]) -> LexicalIndex | None:
        """The index stored in `folder` for the rows named by `key`, its arrays memory-mapped; None when
        nothing is stored or the copy is of other rows or other tokenising. Raises DamagedLexical when
        the copy is for these rows but does not read back whole (missing, garbled or ill-fitting files).
        Only `len(chunks)` is read: the definitions' positions are stored with the index."""
        manifest_path = folder / MANIFEST
        if not manifest_path.exists():
            if folder.exists():
                raise DamagedLexical(f"{MANIFEST} is missing")
            return None
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            stored_key, tuning, size, files = manifest["key"], manifest["tuning"], manifest["size"], manifest["files"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise DamagedLexical(f"{MANIFEST} does not decode: {type(error).__name__}: {error}") from None
        if stored_key != key or tuning != _tuning():
            return None
        if size != len(chunks) or not isinstance(files, dict):
            raise DamagedLexical(f"stored for {size} chunks, the rows have {len(chunks)}")
        for name, digest in files.items():
            try:
                whole = _file_digest(folder / name) == digest
            except OSError as error:
                raise DamagedLexical(f"{name} does not read: {error.strerror or error}") from None
            if not whole:
                raise DamagedLexical(f"{name} does not match its digest")
        try:
            model = _bm25s().BM25.load(folder, mmap=True, load_corpus=False)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise DamagedLexical(f"stored BM25 does not load: {type(error).__name__}: {error}") from None
        _check_fits(model, size)
        return cls(model, size, _stored_definitions(folder / DEFINITIONS, size))

    def document_share(self, tokens: Sequence[str]) -> float:
        """The fraction of chunks that contain every one of `tokens` at most: the smallest share among
        them (a word's tokens are its parts, and the word is no commoner than its rarest part); 0 for a
        token no chunk has."""
        if self.model is None or not self.size or not tokens:
            return 0.0
        vocab, indptr = self.model.vocab_dict, self.model.scores["indptr"]
        counts = [int(indptr[vocab[token] + 1] - indptr[vocab[token]]) if token in vocab else 0 for token in tokens]
        return min(counts) / self.size

    def holds(self, word: str) -> bool:
        """Whether some chunk holds every token of `word` (its parts, stemmed as BM25 reads them): a
        word of a question that no chunk holds names nothing in the workspace. True when there is no
        model (an empty workspace) or the word has no token (a stop word), for nothing is known absent."""
        tokens = query_tokens(word)
        if self.model is None or not self.size or not tokens:
            return True
        return self.document_share(tokens) > 0

    def search(self, query: str, limit: int = 50) -> list[tuple[int, float]]:
        """(chunk position, score) of the best chunks for a text, best first; only positive scores."""
        return self.search_tokens(query_tokens(query), limit)

    def search_tokens(self, tokens: Sequence[str], limit: int = 50) -> list[tuple[int, float]]:
        """`search` for a query already tokenised (`ParsedQuery.tokens`, the same `query_tokens`)."""
        if self.model is None or limit <= 0:
            return []
        known = [token for token in tokens if token in self.model.vocab_dict]
        if not known:
            return []
        scores = np.asarray(self.model.get_scores(known), dtype=np.float64)
        count = min(limit, scores.size)
        top = np.argpartition(-scores, count - 1)[:count]
        ordered = top[np.lexsort((top, -scores[top]))]
        return [(int(position), float(scores[position])) for position in ordered if scores[position] > 0]


def _check_fits(model: bm25s.BM25, size: int) -> None:
    """Arrays that load but do not describe `size` documents over the vocabulary would score nonsense."""
    scores, vocab = model.scores, model.vocab_dict
    indptr, indices = scores["indptr"], scores["indices"]
    ids = list(vocab.values())
    if not (scores["num_docs"] == size and indptr.ndim == 1 and indptr.size > 0
            and scores["data"].shape == indices.shape and int(indptr[-1]) == indices.size
            and (not ids or (min(ids) >= 0 and max(ids) < indptr.size))
            and (not indices.size or int(indices.max()) < size)):
        raise DamagedLexical("stored BM25 arrays do not fit together")


def _stored_definitions(path: Path, size: int) -> dict[str, tuple[int, ...]]:
    """The definitions `save` wrote (their file's digest was checked with the others)."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DamagedLexical(f"{DEFINITIONS} does not decode: {type(error).__name__}: {error}") from None
    if not (isinstance(stored, dict) and all(
            isinstance(positions, list) and all(type(at) is int and 0 <= at < size for at in positions)
            for positions in stored.values())):
        raise DamagedLexical(f"{DEFINITIONS} does not describe chunk positions")
    return {str(name): tuple(positions) for name, positions in stored.items()}


def _add_definition(found: dict[str, list[int]], position: int, chunk: Chunk) -> None:
    name = last_name(chunk.symbol) if chunk.kind in DEFINITION_KINDS else None
    if name:
        found.setdefault(name, []).append(position)
