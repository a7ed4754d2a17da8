"""Combine the retrievers' rankings into the one list a user reads.

Every result a user sees carries `score`, per-modality `contributions` and `ranks`, the graph
`boost`, whether it was `demoted`, and the file's other matching ranges as `matches`; this module
computes all of them. It is weighted Reciprocal Rank Fusion (DESIGN §4): retrievers' raw scores are
never compared, only their ranks, so a BM25 score and a cosine similarity cannot drown each other;
a hit found by several retrievers sums their contributions and rises; central symbols get a capped
boost; vendored, built, archived, minified and generated files are demoted; and each file appears
once, at its best chunk, so one file cannot fill the page.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from ..model.profiles import (
    BOOST_CAP,
    BOOST_SLOPE,
    CALLABLE_KINDS,
    COPY_MIN_DEFINITIONS,
    COPY_OVERLAP,
    COPY_PRIOR,
    COPY_WINDOW,
    DEFINITION_KINDS,
    DEMOTE_FACTOR,
    DEMOTED_DIRS,
    DEMOTED_NAME_MARKERS,
    DEMOTED_SUFFIXES,
    FILE_COHERENCE_CHUNKS,
    FUSED_DEFINITION_BOOST,
    HEAD_OF_FILE_KINDS,
    LINE_LEVEL_SHARE,
    MODALITIES,
    NAMED_FILE_SCALE,
)
from ..model.records import Hit, Span
from ..model.tokens import last_name
from ..query.parsedquery import named_file
from .ranking import defines

__all__ = ["FusedResult", "boost", "family_root", "fuse", "is_demoted_path"]


@dataclass(frozen=True)
class FusedResult:
    """One file's best chunk after fusion, with everything needed to explain its place in the list.

    `contributions` are boosted (centrality `boost`, and FUSED_DEFINITION_BOOST when `defines`: the
    result is the definition of a name the query states, NAMED_FILE_SCALE more in the file named
    after it) and undemoted, so
    `score == (sum(contributions) + coherence) × prior`, times the demotion factor when `demoted`.
    `coherence` is what the rest of the file adds to its best chunk for an understanding question: the
    share of its other chunks' scores, plus its file-level agreement (`fuse`'s `agreement`); `prior`
    what the file's path says about it as an answer to one (1 otherwise). `ranks` are 0-based
    positions in each retriever's list.
    """

    path: str
    span: Span
    symbol: str | None
    kind: str | None
    language: str | None
    snippet: str
    score: float
    contributions: dict[str, float]
    ranks: dict[str, int]
    boost: float
    demoted: bool
    matches: list[Span] = field(default_factory=list)
    defines: bool = False
    prior: float = 1.0
    coherence: float = 0.0
    # A guess, not an answer: the query's target is not in the workspace (engine/search/absence.py).
    approximate: bool = False
    # How the result depends on the query's target (impact, references): the chain of names.
    via: tuple[str, ...] = ()
    # References: whether the use resolves to the target (None where the question does not arise).
    resolved: bool | None = None


def boost(centrality: float) -> float:
    """DESIGN §4: min(1 + 0.3 ln(1 + centrality), 1.5). A hub rises, but never past the cap."""
    return min(1.0 + BOOST_SLOPE * math.log1p(max(centrality, 0.0)), BOOST_CAP)


def is_demoted_path(path: str) -> bool:
    """Whether `path` (relative to its workspace root) is vendored, built, archived, minified or generated."""
    parts = path.replace("\\", "/").split("/")
    name = parts[-1].lower()
    if any(part.lower() in DEMOTED_DIRS for part in parts[:-1]):
        return True
    return name.endswith(DEMOTED_SUFFIXES) or any(marker in name for marker in DEMOTED_NAME_MARKERS)


@dataclass(frozen=True)
class _Entry:
    modality: str
    rank: int
    hit: Hit


@dataclass
class _Cluster:
    """The hits that are one result: same file and same enclosing symbol, or overlapping lines."""

    path: str
    symbol: str | None
    first_line: int
    last_line: int
    order: int
    entries: list[_Entry] = field(default_factory=list)

    def add(self, entry: _Entry) -> None:
        self.entries.append(entry)
        self.first_line = min(self.first_line, entry.hit.span.start_line)
        self.last_line = max(self.last_line, entry.hit.span.end_line)

    def overlap(self, span: Span) -> int:
        return min(self.last_line, span.end_line) - max(self.first_line, span.start_line) + 1


def _modality_order(names: Collection[str]) -> list[str]:
    """Canonical modalities first, then any other names sorted: fusion never depends on dict order."""
    return [m for m in MODALITIES if m in names] + sorted(m for m in names if m not in MODALITIES)


def _entries(ranked: Mapping[str, Sequence[Hit]]) -> Iterator[_Entry]:
    for modality in _modality_order(ranked):
        for rank, hit in enumerate(ranked[modality]):
            yield _Entry(modality, rank, hit)


@dataclass
class _Clusters:
    """Clusters in creation order, indexed by file so that placing a hit never scans other files."""

    ordered: list[_Cluster] = field(default_factory=list)
    by_path: dict[str, list[_Cluster]] = field(default_factory=dict)
    by_symbol: dict[tuple[str, str], _Cluster] = field(default_factory=dict)

    def new(self, entry: _Entry, symbol: str | None) -> _Cluster:
        span = entry.hit.span
        cluster = _Cluster(entry.hit.path, symbol, span.start_line, span.end_line, len(self.ordered))
        self.ordered.append(cluster)
        self.by_path.setdefault(cluster.path, []).append(cluster)
        return cluster

    def place_symbol(self, entry: _Entry, symbol: str) -> None:
        key = (entry.hit.path, symbol)
        cluster = self.by_symbol.get(key) or self.new(entry, symbol)
        self.by_symbol[key] = cluster
        cluster.add(entry)

    def place_loose(self, entry: _Entry) -> None:
        span = entry.hit.span
        overlapping = [c for c in self.by_path.get(entry.hit.path, []) if c.overlap(span) > 0]
        if not overlapping:
            self.new(entry, None).add(entry)
            return
        best = min(
            overlapping,
            key=lambda c: (c.symbol is None, -c.overlap(span), c.last_line - c.first_line, c.order),
        )
        best.add(entry)


def _cluster(ranked: Mapping[str, Sequence[Hit]]) -> list[_Cluster]:
    """Group hits that denote the same thing, so that their modalities' contributions add up.

    Identity: hits in the same file with the same enclosing symbol are one result, whatever their
    exact ranges (a structural hit on a function's definition and a text hit on a line of its body).
    A hit without a symbol joins the cluster in its file whose lines it overlaps most (ties: the
    narrower, then the earlier cluster), symbol clusters first; with no overlap it stands alone.
    """
    clusters = _Clusters()
    loose: list[_Entry] = []
    for entry in _entries(ranked):
        if entry.hit.symbol is None:
            loose.append(entry)
        else:
            clusters.place_symbol(entry, entry.hit.symbol)
    for entry in loose:
        clusters.place_loose(entry)
    return clusters.ordered


@dataclass(frozen=True)
class _Scored:
    cluster: _Cluster
    representative: _Entry
    contributions: dict[str, float]
    ranks: dict[str, int]
    boost: float
    defines: bool
    total: float


# Hits that show a definition itself (its symbol, or the chunk that opens it) rather than a window
# of its body: a result that is a definition is shown at its head.
HEAD_KINDS = frozenset({"definition"}) | (DEFINITION_KINDS - {"module", "namespace"})


def _score(
    cluster: _Cluster, weights: Mapping[str, float], k: int, centrality: Callable[[Hit], float],
    names: frozenset[str], generic: frozenset[str] = frozenset(),
    symbol_prior: Callable[[str | None], float] | None = None,
) -> _Scored:
    """Weighted RRF over the cluster's best rank in each modality, times its symbol's boost and, with
    `symbol_prior`, what its enclosing symbol says of it as an answer (a test module's code lower).

    The boost is the centrality boost, times FUSED_DEFINITION_BOOST when the cluster is the
    definition of a name the query states (`ClientResponse`: the class, not the classes near it);
    of a `generic` name (one too many files define), only the definition in the file named after it.
    """
    ranks: dict[str, int] = {}
    for entry in cluster.entries:
        ranks[entry.modality] = min(ranks.get(entry.modality, entry.rank), entry.rank)
    anchor = next((e.hit for e in cluster.entries if e.hit.symbol is not None), cluster.entries[0].hit)
    lift = boost(centrality(anchor))
    defining = [e.hit for e in cluster.entries if names and defines(e.hit.symbol, e.hit.kind, names)
                and (last_name(e.hit.symbol) not in generic or named_file(e.hit.path, last_name(e.hit.symbol) or ""))]
    defined = bool(defining)
    # Of several definitions of the name (Swift extensions, C# partial classes, overloads), the one in
    # the file named after it is the home: `Application.swift`, not `Application+HTTP+Server.swift`.
    home = any(named_file(hit.path, last_name(hit.symbol) or "") for hit in defining)
    factor = lift * (FUSED_DEFINITION_BOOST * (NAMED_FILE_SCALE if home else 1.0) if defined else 1.0)
    if symbol_prior is not None:
        factor *= symbol_prior(anchor.symbol)
    contributions = {m: weights.get(m, 0.0) * factor / (k + r + 1) for m, r in ranks.items()}
    order = _modality_order(ranks)
    heads = [e for e in cluster.entries if e.hit.kind in HEAD_KINDS] if cluster.symbol is not None else []
    representative = min(
        heads or cluster.entries,
        key=lambda e: (-contributions[e.modality], order.index(e.modality), e.rank),
    )
    return _Scored(cluster, representative, contributions, ranks, lift, defined, sum(contributions.values()))


def _score_key(scored: _Scored) -> tuple[float, str, Span, str]:
    """Highest score first; ties broken by path, position and symbol so equal inputs give equal output."""
    hit = scored.representative.hit
    return (-scored.total, hit.path, hit.span, scored.cluster.symbol or "")


def _result(
    best: _Scored, others: Sequence[_Scored], demote: float | None, prior: float, coherence: float,
    agreement: float = 0.0,
) -> FusedResult:
    """The file's result at its best cluster; `demote` is the demotion factor when the file is demoted,
    `agreement` the file-level RRF score added to it (`_file_agreement`)."""
    hit = best.representative.hit
    added = coherence * sum(other.total for other in others[:FILE_COHERENCE_CHUNKS]) + agreement
    spans = {e.hit.span for s in (best, *others) for e in s.cluster.entries}
    spans.discard(hit.span)
    kind = hit.kind or next((e.hit.kind for e in best.cluster.entries if e.hit.kind), None)
    language = hit.language or next((e.hit.language for e in best.cluster.entries if e.hit.language), None)
    return FusedResult(
        path=hit.path,
        span=hit.span,
        symbol=best.cluster.symbol,
        kind=kind,
        language=language,
        snippet=hit.snippet,
        score=(best.total + added) * prior * (demote if demote is not None else 1.0),
        contributions=best.contributions,
        ranks=best.ranks,
        boost=best.boost,
        demoted=demote is not None,
        matches=sorted(spans),
        defines=best.defines,
        prior=prior,
        coherence=added,
        via=hit.via or next((e.hit.via for e in best.cluster.entries if e.hit.via), ()),
        resolved=hit.resolved if hit.resolved is not None else next(
            (e.hit.resolved for e in best.cluster.entries if e.hit.resolved is not None), None),
    )




def _file_agreement(items: Sequence[_Scored], weights: Mapping[str, float], k: int) -> float:
    """Weighted RRF of the file as one item: its best rank in each modality, over all its clusters.

    Chunk-level fusion rewards agreement only when the retrievers find the same chunk: a small file
    whose one class both find sums two contributions, while a hub file found by the embeddings at
    its dispatch function and by BM25 at its class docstring gets the better of the two. Counted at
    file level, the hub's two findings agree as well.
    """
    best: dict[str, int] = {}
    for item in items:
        for modality, rank in item.ranks.items():
            best[modality] = min(best.get(modality, rank), rank)
    return sum(weights.get(modality, 0.0) / (k + rank + 1) for modality, rank in best.items())


# A file named as a part of another: `SqlMapper.Async.cs` (a C# partial class), `RoutesBuilder+WebSocket.swift`
# (a Swift extension), `index.browser.js`: the root's stem, a `.` or `+`, more name, the same extension.
_FAMILY_PART = re.compile(r"^(?P<folder>(?:.*/)?)(?P<root>[^/.+]+)[.+][^/]+(?P<suffix>\.[A-Za-z0-9]+)$")


def family_root(path: str) -> str | None:
    """The file a part's name says it belongs to, in the same folder: `Dapper/SqlMapper.Async.cs` ->
    `Dapper/SqlMapper.cs`, `Routing/RoutesBuilder+WebSocket.swift` -> `Routing/RoutesBuilder.swift`;
    None for a name that is no part of another."""
    match = _FAMILY_PART.match(path.replace("\\", "/"))
    return f"{match['folder']}{match['root']}{match['suffix']}" if match else None


def _family_parts(groups: Mapping[tuple[str, int], list[_Scored]],
                  prior: Callable[[str], float] | None) -> dict[str, list[_Scored]]:
    """For each listed file whose parts are listed too, its parts' clusters (issue 14: a C# class split into
    `SqlMapper.*.cs`, a Swift type into `Request+*.swift`). A question about the class is found at its
    parts, each a small file that wins its own place, while the root file holds the class and its state;
    the root's agreement then counts its parts' ranks as its own. A part its path lowers (a test, a
    `.d.ts`) is no part of the code: `schemas.test.ts` tells nothing for `schemas.ts`."""
    listed = {path for path, _ in groups}
    parts: dict[str, list[_Scored]] = {}
    for (path, _), items in groups.items():
        root = family_root(path)
        if root is not None and root != path and root in listed and (prior is None or prior(path) >= 1.0):
            parts.setdefault(root, []).extend(items)
    return parts


def _spread_copies(results: list[FusedResult], names_of: Callable[[str], frozenset[str]],
                   twin: Callable[[str, str], bool] | None = None) -> list[FusedResult]:
    """`results` (best first) with each copy of a file listed above it lowered by COPY_PRIOR, best first
    again. A copy defines mostly the same names (COPY_OVERLAP of both files' names, each with at least
    COPY_MIN_DEFINITIONS): a legacy copy of a module, an async twin of a class. With `twin` (`Layout.twin`),
    the same-named file of a twin folder is a copy when COPY_OVERLAP of the smaller file's names are the
    other's: zod's `v4/mini/schemas.ts` below `v4/classic/schemas.ts`. Its `prior` carries the factor, so
    the score still reads (sum(contributions) + coherence) × prior."""
    listed: list[tuple[str, frozenset[str]]] = []
    spread = list(results)
    for position, result in enumerate(results[:COPY_WINDOW]):
        names = names_of(result.path)
        if len(names) < COPY_MIN_DEFINITIONS:
            continue
        if any(_copy_of(result.path, names, path, other, twin) for path, other in listed):
            spread[position] = replace(result, score=result.score * COPY_PRIOR, prior=result.prior * COPY_PRIOR)
        listed.append((result.path, names))
    spread.sort(key=lambda r: (-r.score, r.path, r.span))
    return spread


def _copy_of(path: str, names: frozenset[str], other_path: str, other: frozenset[str],
             twin: Callable[[str, str], bool] | None) -> bool:
    """Whether the file `path` (defining `names`) is a copy of `other_path` (defining `other`), listed above it."""
    shared = len(names & other)
    if shared >= COPY_OVERLAP * len(names | other):
        return True
    return twin is not None and shared >= COPY_OVERLAP * min(len(names), len(other)) and twin(path, other_path)


def _function_shown(items: Sequence[_Scored]) -> _Scored | None:
    """The function to show a file at when its best cluster is the file's head (issue 14: "how does X
    work" answered by the function in a 4,700-line file, not by its imports), or None."""
    best = items[0]
    if best.cluster.symbol is not None and best.representative.hit.kind not in HEAD_OF_FILE_KINDS:
        return None
    for item in items[1:]:
        if item.total < LINE_LEVEL_SHARE * best.total:
            return None
        if item.representative.hit.kind in CALLABLE_KINDS or (
                item.cluster.symbol is not None and item.representative.hit.kind == "definition"):
            return item
    return None


def _shown_at(result: FusedResult, shown: _Scored) -> FusedResult:
    """The same result (same score and explanation) displayed at another of its file's clusters."""
    hit = shown.representative.hit
    matches = sorted({*result.matches, result.span} - {hit.span})
    return replace(result, span=hit.span, symbol=shown.cluster.symbol, kind=hit.kind or result.kind,
                   snippet=hit.snippet, matches=matches)


def fuse(
    ranked: Mapping[str, Sequence[Hit]],
    weights: Mapping[str, float],
    k: int,
    centrality: Callable[[Hit], float],
    demote_factor: float = DEMOTE_FACTOR,
    is_demoted: Callable[[str], bool] = is_demoted_path,
    *,
    names: frozenset[str] = frozenset(),
    generic: frozenset[str] = frozenset(),
    prior: Callable[[str], float] | None = None,
    symbol_prior: Callable[[str | None], float] | None = None,
    one_per_file: bool = True,
    coherence: float = 0.0,
    agreement: float = 0.0,
    line_level: bool = False,
    families: bool = False,
    copies: Callable[[str], frozenset[str]] | None = None,
    twin: Callable[[str, str], bool] | None = None,
) -> list[FusedResult]:
    """Fuse each modality's ranked hits into one list, best first, one result per file.

    A hit at 0-based rank r in modality m contributes weights[m] / (k + r + 1), times the boost of
    its enclosing symbol (`centrality` gives PageRank scaled so the average node has 1), doubled for
    a definition of one of `names` (of a `generic` one only in the file named after it). A modality
    missing from `weights` weighs 0. Within one result only the best rank of each modality counts,
    as in RRF each item appears once per list. `prior`
    multiplies a file's score by what its path says (tests and examples lower for an understanding
    question), `symbol_prior` a cluster's by what its enclosing symbol says (an inline test module).
    `one_per_file` off lists every cluster on its own (the ablation of the file spread).
    `coherence` adds that share of a file's next FILE_COHERENCE_CHUNKS clusters' scores to its best,
    `agreement` that share of the file's own RRF score, its best rank in each modality over all its
    clusters (`_file_agreement`; both count in the result's `coherence`).
    `line_level` (understanding questions) shows a file whose best cluster is its head (module code,
    imports, a docstring) at its best function instead, when that scores at least LINE_LEVEL_SHARE of it.
    `families` (with `agreement`) counts in a file's agreement the clusters of the files named as its
    parts (`_family_parts`: `SqlMapper.Async.cs` for `SqlMapper.cs`). `copies` (a file -> the names it
    defines) lowers a copy of a file listed above it (`_spread_copies`), `twin` (two paths -> whether the
    second is the first's same-named file in a twin folder) with a lower share of names in a twin folder.
    """
    if k < 0:
        raise ValueError(f"RRF k must be >= 0, got {k}")
    negative = sorted(m for m, w in weights.items() if w < 0)
    if negative:
        raise ValueError(f"weights must be >= 0, got negative weights for {negative}")
    scored = sorted((_score(c, weights, k, centrality, names, generic, symbol_prior) for c in _cluster(ranked)),
                    key=_score_key)
    groups: dict[tuple[str, int], list[_Scored]] = {}
    for position, item in enumerate(scored):
        groups.setdefault((item.cluster.path, 0 if one_per_file else position), []).append(item)
    parts = _family_parts(groups, prior) if agreement and families and one_per_file else {}
    results = []
    for (path, _), items in groups.items():
        demote = demote_factor if is_demoted(path) else None
        agreed = agreement * _file_agreement([*items, *parts.get(path, ())], weights, k) if agreement else 0.0
        result = _result(items[0], items[1:], demote, prior(path) if prior is not None else 1.0, coherence, agreed)
        shown = _function_shown(items) if line_level else None
        results.append(_shown_at(result, shown) if shown is not None else result)
    results.sort(key=lambda r: (-r.score, r.path, r.span))
    return _spread_copies(results, copies, twin) if copies is not None else results
