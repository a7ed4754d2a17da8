"""The four modalities as retrievers: each turns a classified request into its own ranked hit list.

They adapt the indexes (trigram postings, BM25 chunks, symbol table, code graph, vectors) to one
signature so the Searcher can run them side by side and fuse only their ranks. Each one decides
what part of the query it understands: the text retriever searches a quoted string or identifier
literally and a question lexically; the structural one looks the named symbol up; the graph one
answers references and impact from edges.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import PurePosixPath

import numpy as np

from ..index.lexical import LexicalIndex
from ..index.snapshot import Snapshot
from ..index.textsearch import SearchText, TextQuery, candidate_plan, search_text
from ..model.profiles import (
    DEFINITION_KINDS,
    FIND_REFERENCES,
    IMPACT_ANALYSIS,
    IMPACT_DEPTH,
    LEXICAL_CANDIDATES,
    NAMED_TIERS,
    VECTOR_CANDIDATES,
)
from ..model.records import Chunk, Hit, ParsedFile, Span, Symbol
from ..query.intent import is_product_name
from ..query.parsedquery import ParsedQuery, named_file
from ..query.request import Ranking
from ..rank.ranking import boost_chunks, defining_paths, generic_names, literal_ranked, with_generic
from ..semantic.vectors import VectorIndex
from .similar import seed_text, structural_siblings

# What every retriever is: the snapshot, the query read once, the request's ranking switches (an
# ablation's, or all on) and how many hits to return. None of them reads the raw string again.
Retriever = Callable[[Snapshot, ParsedQuery, Ranking, int], list[Hit]]

# Files whose symbol lookup for literal hits stays cached (oldest evicted first): a few MB at most.
ENCLOSING_CACHE_FILES = 8192


class LexicalCache:
    """BM25 over the chunks of the latest snapshot.

    Building BM25 over a large repository takes seconds, so after the first build a newer snapshot
    is indexed in a background thread while queries keep using the previous index (a question's
    answer may lag an edit by that long; literal searches never lag). Only the very first build
    happens on the caller's thread.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = -1
        self._index: LexicalIndex | None = None
        self._chunks: list[Chunk] = []
        self._building: threading.Thread | None = None

    def get(self, snapshot: Snapshot) -> tuple[LexicalIndex, list[Chunk]]:
        with self._lock:
            if self._index is None:
                self._build(snapshot)
            elif self._generation < snapshot.generation:
                self.warm(snapshot)
            assert self._index is not None
            return self._index, self._chunks

    def warm(self, snapshot: Snapshot) -> None:
        """Start building for `snapshot` in the background, unless a build is already running."""
        if self._building is not None and self._building.is_alive():
            return
        self._building = threading.Thread(target=self._build_locked, args=(snapshot,), daemon=True,
                                          name="bm25-build")
        self._building.start()

    def ensure(self, snapshot: Snapshot) -> None:
        """Build now if nothing is built yet (so the first question does not spend its time budget on it)."""
        building = self._building
        if self._index is None and building is not None:
            building.join()
        with self._lock:
            if self._index is None:
                self._build(snapshot)

    def _build_locked(self, snapshot: Snapshot) -> None:
        chunks = snapshot.chunks()
        index = LexicalIndex.build(chunks)
        with self._lock:
            if snapshot.generation > self._generation:
                self._index, self._chunks, self._generation = index, chunks, snapshot.generation

    def _build(self, snapshot: Snapshot) -> None:
        self._chunks = snapshot.chunks()
        self._index = LexicalIndex.build(self._chunks)
        self._generation = snapshot.generation


def _chunk_hit(chunk: Chunk, score: float) -> Hit:
    first = next((line.strip() for line in chunk.text.splitlines()[3:] if line.strip()), "")
    return Hit(chunk.path, chunk.span, score, chunk.symbol, chunk.kind, first[:200], chunk.language)


def make_text_retriever(lexical: LexicalCache) -> Retriever:
    """The text modality: literal search for a literal, ranked BM25 for a question."""

    def text(snapshot: Snapshot, query: ParsedQuery, features: Ranking, depth: int) -> list[Hit]:
        seed = query.classification.seed
        if seed is not None:
            index, chunks = lexical.get(snapshot)
            found = index.search(seed_text(seed), depth)
            return [_chunk_hit(chunks[position], score) for position, score in found]
        if query.literal_error is not None:
            raise query.literal_error
        if query.literal is not None:
            return literal_ranked(snapshot, query, features, literal_hits(snapshot, query.literal, depth), depth)
        index, chunks = lexical.get(snapshot)
        return _question_hits(index, chunks, query, features, depth)

    return text


def _question_hits(
    index: LexicalIndex, chunks: Sequence[Chunk], query: ParsedQuery, features: Ranking, depth: int
) -> list[Hit]:
    """BM25 candidates re-ranked by what the question names.

    The list stays one entry per chunk: where a file's chunks sit in it is evidence that fusion
    uses (measured: collapsing it to one entry per file before fusion cost 0.06 NDCG@10 on semble).
    """
    found = index.search_tokens(query.tokens, max(depth, LEXICAL_CANDIDATES))
    scored = [(chunks[position], score) for position, score in found]
    names = None
    if features.definitions:
        names = with_generic(query.stated,
                            lambda name: [chunks[p].path for p in index.definitions.get(name, ())])
    extra = [chunks[p] for name in (names.all if names else ()) for p in index.definitions.get(name, ())
             if names is not None and names.names_definition(name, chunks[p].path)]
    ranked = boost_chunks(scored, query, features, extra, names)
    return [_chunk_hit(chunk, score) for chunk, score in ranked[:depth]]


def literal_hits(snapshot: Snapshot, query: TextQuery, limit: int) -> list[Hit]:
    """Trigram candidates confirmed by the real matcher (RE2 for regexes)."""
    plan = candidate_plan(query)
    if plan is None:
        paths = sorted(snapshot.files)
    else:
        ids = np.unique(np.concatenate([snapshot.trigrams.candidates(grams) for grams in plan]))
        paths = sorted(path for doc in ids.tolist() if (path := snapshot.paths_by_id.get(doc)) is not None)
    files = ((path, text) for path in paths if (text := _searchable(snapshot, path)) is not None)
    result = search_text(query, files, limit=limit)
    return _with_symbols(snapshot, result.hits)


def _searchable(snapshot: Snapshot, path: str) -> SearchText | None:
    """The scan-ready bytes of what the user sees in `path`: cached for indexed files, fresh for buffers."""
    record = snapshot.files.get(path)
    if path not in snapshot.buffers and record is not None:
        cached = snapshot.contents.searchable(path, record.digest)
        if cached is not None:
            return cached
    text = snapshot.text(path)
    if text is None:
        return None
    if path not in snapshot.buffers and record is not None:
        return snapshot.contents.searchable(path, record.digest) or SearchText(text)
    return SearchText(text)


class _Enclosing:
    """Innermost definition around a line of one file, by bisection instead of a scan of every symbol.

    Symbols are sorted by start line (stably, so of two starting on the same line the later one wins,
    as before); `reach[i]` is the furthest end line among the first i + 1, which lets the backward
    walk stop as soon as no earlier symbol can still contain the line.
    """

    def __init__(self, symbols: Sequence[Symbol]) -> None:
        self.symbols = sorted(symbols, key=lambda symbol: symbol.span.start_line)
        self.starts = [symbol.span.start_line for symbol in self.symbols]
        self.reach = list(accumulate((symbol.span.end_line for symbol in self.symbols), max))

    def at(self, line: int) -> Symbol | None:
        index = bisect_right(self.starts, line) - 1
        while index >= 0 and self.reach[index] >= line:
            symbol = self.symbols[index]
            if symbol.span.end_line >= line:
                return symbol
            index -= 1
        return None


def _with_symbols(snapshot: Snapshot, hits: list[Hit]) -> list[Hit]:
    """Every hit with its enclosing definition; each file's symbols are sorted once, not once per hit."""
    result = []
    for hit in hits:
        parsed = snapshot.parsed.get(hit.path)
        result.append(_with_symbol(snapshot, hit, _enclosing(parsed) if parsed is not None else None))
    return result


_ENCLOSING: dict[int, tuple[ParsedFile, _Enclosing]] = {}
_ENCLOSING_LOCK = threading.Lock()


def _enclosing(parsed: ParsedFile) -> _Enclosing:
    """The lookup for one parsed file, kept across searches (a file's symbols change only with the file).

    Keyed by identity: an entry holds its ParsedFile, so the id cannot be reused while cached.
    """
    entry = _ENCLOSING.get(id(parsed))
    if entry is not None and entry[0] is parsed:
        return entry[1]
    made = _Enclosing(parsed.symbols)
    with _ENCLOSING_LOCK:
        if len(_ENCLOSING) >= ENCLOSING_CACHE_FILES:
            del _ENCLOSING[next(iter(_ENCLOSING))]
        _ENCLOSING[id(parsed)] = (parsed, made)
    return made


def _with_symbol(snapshot: Snapshot, hit: Hit, enclosing: _Enclosing | None) -> Hit:
    """Attach the innermost enclosing definition, so fusion can merge this hit with other modalities'."""
    if enclosing is None:
        return hit
    best = enclosing.at(hit.span.start_line)
    record = snapshot.files.get(hit.path)
    return Hit(
        hit.path,
        hit.span,
        hit.score,
        best.qualified if best else None,
        best.kind if best else None,
        hit.snippet,
        record.language if record is not None else None,
    )


def _symbol_hit(symbol: Symbol, score: float) -> Hit:
    return Hit(
        symbol.path, symbol.span, score, symbol.qualified, symbol.kind, symbol.signature, symbol.language
    )


def structural(snapshot: Snapshot, query: ParsedQuery, features: Ranking, depth: int) -> list[Hit]:
    """Symbols named by the query: its target, the whole query, or each identifier a question states.

    For find_similar with a seed, the definitions shaped like the seed (engine/retrieve/similar.py).
    A question's plain words are not looked up (`how does routing work` is not about a symbol called
    `routing`; measured on semble's set, looking them up cost 0.02 NDCG@10): only the names it writes
    in code style or capitalised (`why does safeParse throw`, `how the Router matches`).
    """
    if query.classification.seed is not None:
        return structural_siblings(snapshot, query.classification.seed, depth)
    name, kinds = query.symbol.name, query.symbol.kinds
    if query.target or len(name.split()) <= 1:
        return [_symbol_hit(m.symbol, m.score) for m in snapshot.symbols.search(name, kinds, depth)]
    merged: dict[tuple[str, str], Hit] = {}
    words = query.symbol.words
    generic = generic_names(words, lambda word: defining_paths(snapshot, word))
    for word in sorted(words):
        if is_product_name(word) and not snapshot.symbols.definitions(word):
            continue  # `tRPC` in "how are tRPC links composed" names a product, not the `TRPC` classes
        for match in snapshot.symbols.search(word, kinds, depth):
            if match.tier not in NAMED_TIERS or match.symbol.kind not in DEFINITION_KINDS:
                continue  # a name matched by prefix, or naming a field, is noise, not evidence
            if word in generic and not named_file(match.symbol.path, word):
                continue  # `Dapper`, the namespace every file opens, names no one of them
            key = (match.symbol.path, match.symbol.qualified)
            if key not in merged or merged[key].score < match.score:
                merged[key] = _symbol_hit(match.symbol, match.score)
    return sorted(merged.values(), key=lambda hit: -hit.score)[:depth]


def graph(snapshot: Snapshot, query: ParsedQuery, features: Ranking, depth: int) -> list[Hit]:
    """Call sites for references, the reverse closure for impact, a seed's siblings for find_similar,
    personalized PageRank otherwise."""
    target = query.target
    seed = query.classification.seed
    if seed is not None:
        return snapshot.graph.siblings(seed.path, seed.symbol, limit=depth)
    if query.intent == FIND_REFERENCES and target:
        return snapshot.graph.callers(target, limit=depth)
    if query.intent == IMPACT_ANALYSIS and target:
        impact = snapshot.graph.impact(target, depth=IMPACT_DEPTH, limit=depth)
        return [_at_import_line(snapshot, hit, target) for hit in impact]
    words = [target] if target else list(query.tokens)
    return snapshot.graph.related(words, limit=depth)


# A line that imports: Python, JS/TS, Go, Rust, Java/Kotlin/Scala, C#, PHP, Ruby, C/C++.
_IMPORT_LINE = re.compile(r"^\s*(?:from\s|import\s|import\(|export\s.*\sfrom\s|use\s|using\s|require|#\s*include)"
                          r"|\brequire(?:_relative)?\s*\(?['\"]|\bimport\s*\(")


def _at_import_line(snapshot: Snapshot, hit: Hit, target: str) -> Hit:
    """An importing file without a recorded use is shown at the line that imports the target (its
    name, else its module's), not at line 1."""
    if hit.span != Span(0, 0, 0, 0) or hit.symbol is not None:
        return hit
    text = snapshot.text(hit.path)
    if text is None:
        return hit
    name = re.split(r"::|\.|#|->", target)[-1]
    defined = snapshot.symbols.definitions(name)
    modules = {PurePosixPath(symbol.path).stem for symbol in defined} - {"__init__", "index", "mod"}
    fallback: Span | None = None
    for number, line in enumerate(text.splitlines()):
        if not _IMPORT_LINE.search(line):
            continue
        found = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line)
        if found:
            span = Span(number, found.start(), number, found.end())
            return Hit(hit.path, span, hit.score, hit.symbol, hit.kind, line.strip()[:200], hit.language, hit.via)
        if fallback is None and any(re.search(rf"\b{re.escape(m)}\b", line) for m in modules):
            fallback = Span(number, 0, number, len(line))
    if fallback is None:
        return hit
    return Hit(hit.path, fallback, hit.score, hit.symbol, hit.kind, hit.snippet, hit.language, hit.via)


@dataclass(frozen=True)
class SemanticView:
    """One model's vectors, the chunks they embed and the function that embeds queries for them.

    Published as a whole: a query is always embedded by the model of the index it searches, even
    while the embedder swaps `local` for a slower model in the background.
    """

    vectors: VectorIndex
    chunks_by_digest: Mapping[str, Chunk]
    embed_query: Callable[[str], object]
    backend: str
    model: str


class SemanticState:
    """What the semantic retriever searches now; `view` is replaced in one assignment as embedding runs."""

    def __init__(self) -> None:
        self.view: SemanticView | None = None


def make_semantic_retriever(state: SemanticState) -> Retriever:
    """Nearest chunks by cosine: a binary shortlist rescored in float, or (ablation) every vector exactly.
    For find_similar with a seed, nearest to the seed's own stored vector instead of the query's."""

    def semantic(snapshot: Snapshot, query: ParsedQuery, features: Ranking, depth: int) -> list[Hit]:
        view = state.view
        if view is None or len(view.vectors) == 0:
            return []
        hits = []
        seed = query.classification.seed
        stored = view.vectors.vector(seed.chunk.digest) if seed is not None and seed.chunk is not None else None
        vector = stored if stored is not None else np.asarray(view.embed_query(query.raw))
        candidates = VECTOR_CANDIDATES if features.binary_vectors else len(view.vectors)
        for key, score in view.vectors.search_keys(vector, limit=depth, candidates=candidates):
            chunk = view.chunks_by_digest.get(key)
            if chunk is not None and chunk.path in snapshot.files:
                hits.append(_chunk_hit(chunk, score))
        return hits

    return semantic
