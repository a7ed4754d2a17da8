"""BM25 over code chunks: the text retriever's answer to a question rather than a literal.

`how does retry work` or `where are settings loaded from env` is not a string any file contains.
Scored word by word over chunks (one per definition, doc section or window of module code), the
chunk whose words, file name and symbol name best cover the question ranks first. Words come
from `tokens.code_tokens`, so `load settings` meets `load_settings` and `loadSettings`.

A chunk's file stem, last folder names and symbol name are repeated into its token list: a
question's words found in the name of the thing are stronger evidence than the same words in a
comment deep inside a body. The weights are data below.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath

import bm25s
import numpy as np

from ..model.profiles import BM25_B, BM25_K1, BM25_PATH_FOLDERS, BM25_PATH_WEIGHT, BM25_SYMBOL_WEIGHT, DEFINITION_KINDS
from ..model.records import Chunk
from ..model.tokens import code_tokens, last_name, query_tokens, token_bag

# bm25s logs every index build at DEBUG through its own handler; a search engine's user does not care.
logging.getLogger("bm25s").setLevel(logging.WARNING)

# Chunks whose tokens are remembered between builds: the index is rebuilt after every file change,
# and re-tokenising the unchanged 99% of a repository is most of a rebuild's cost.
TOKEN_CACHE_SIZE = 1 << 17


def chunk_tokens(chunk: Chunk) -> list[str]:
    """The weighted token list of one chunk: its text, plus its symbol and path fields repeated."""
    return list(_fields_tokens(chunk.path, chunk.symbol, chunk.text))


@lru_cache(maxsize=TOKEN_CACHE_SIZE)
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

    @classmethod
    def build(cls, chunks: Sequence[Chunk]) -> LexicalIndex:
        """Index the chunks; positions in `search` results are positions in `chunks`."""
        corpus = [_fields_tokens(chunk.path, chunk.symbol, chunk.text) for chunk in chunks]
        definitions = _definitions(chunks)
        if not any(corpus):
            return cls(None, len(chunks), definitions)
        model = bm25s.BM25(k1=BM25_K1, b=BM25_B)
        model.index(corpus, show_progress=False)
        return cls(model, len(chunks), definitions)

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


def _definitions(chunks: Sequence[Chunk]) -> dict[str, tuple[int, ...]]:
    found: dict[str, list[int]] = {}
    for position, chunk in enumerate(chunks):
        name = last_name(chunk.symbol) if chunk.kind in DEFINITION_KINDS else None
        if name:
            found.setdefault(name, []).append(position)
    return {name: tuple(positions) for name, positions in found.items()}
