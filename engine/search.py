"""One query interface in front of four retrievers: classify, route, run, fuse, explain.

The request and response here are the contract of DESIGN §7 (`fourfold.search` and
`fourfold search --json`). Retrievers of one query run concurrently, each within a time budget;
one that fails or runs late is left out of fusion and reported, and the query still answers.
"""

from __future__ import annotations

import concurrent.futures
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pathspec

from .absence import absence_note
from .decompose import respond, should_decompose
from .fusion import FusedResult, fuse
from .intent import RULES, Classification, classify, is_identifier, pin
from .profiles import (
    DEFINITION_INTENTS,
    FILE_COHERENCE,
    FIND_SIMILAR,
    INTENTS,
    MODALITIES,
    PRESETS,
    TOPIC_INTENTS,
    UNDERSTAND_CODE,
    UNDERSTANDING_INTENTS,
)
from .ranking import (
    DEFINITION_KINDS,
    Ranking,
    file_prior,
    generic_names,
    is_test_path,
    named_file,
    path_prior,
    prose_prior,
    stated_names,
)
from .records import Hit, Seed, Span
from .routing import Route, plan_route, rescue_route
from .similar import named_seed, seed_at, without_seed
from .snapshot import Snapshot
from .textsearch import parse_text_query

log = logging.getLogger(__name__)

# DESIGN §2 rule 8 (a name inside a longer question) and rule 9, the fallback it gives way to when
# the name is generic.
IDENTIFIER_IN_QUERY_RULE = "8:identifier-in-query"
FALLBACK = RULES[-1]
# Every retriever gets this long before it is left out (a slow model must not hold the query).
RETRIEVER_BUDGET_S = 5.0
# How many hits each retriever contributes to fusion.
RETRIEVER_DEPTH = 100
# Long enough for a whole pasted issue (the longest SWE-bench Lite issue is 24,770 characters); longer
# is refused with a message, never cut silently.
MAX_QUERY_LENGTH = 32_000
MAX_LIMIT = 500
# A match line longer than this is cut: a minified line would otherwise fill the answer.
MATCH_LINE_CHARS = 240


class SearchError(ValueError):
    """A request that cannot run as given, with a message that says how to fix it."""


@dataclass(frozen=True)
class SearchRequest:
    """The arguments of `fourfold.search` (DESIGN §7)."""

    query: str
    limit: int = 20
    preset: str | None = None
    modes: tuple[str, ...] | None = None
    intent: str | None = None
    paths: tuple[str, ...] | None = None
    languages: tuple[str, ...] | None = None

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> SearchRequest:
        """Validate protocol arguments; every problem is a SearchError a person can act on."""
        if not isinstance(values, Mapping):
            raise SearchError('fourfold.search takes one object argument, e.g. [{"query": "parse config"}]')
        unknown = set(values) - {"query", "limit", "preset", "modes", "intent", "paths", "languages"}
        if unknown:
            raise SearchError(f"unknown argument(s) {', '.join(sorted(unknown))} for fourfold.search")
        query = values.get("query")
        if not isinstance(query, str):
            raise SearchError('"query" is required and must be a string')
        request = cls(
            query=query,
            limit=_int_arg(values.get("limit", 20), "limit"),
            preset=_choice(values.get("preset"), tuple(PRESETS), "preset"),
            modes=_choices(values.get("modes"), MODALITIES, "modes"),
            intent=_choice(values.get("intent"), INTENTS, "intent"),
            paths=_strings(values.get("paths"), "paths"),
            languages=_strings(values.get("languages"), "languages"),
        )
        request.validate()
        return request

    def validate(self) -> None:
        if len(self.query) > MAX_QUERY_LENGTH:
            raise SearchError(f"query is {len(self.query)} characters; the limit is {MAX_QUERY_LENGTH}: "
                              "send the part that matters (an issue's title, description and traceback)")
        if not 1 <= self.limit <= MAX_LIMIT:
            raise SearchError(f'"limit" must be between 1 and {MAX_LIMIT}')


def _int_arg(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SearchError(f'"{name}" must be an integer')
    return value


def _choice(value: Any, allowed: Sequence[str], name: str) -> str | None:
    if value is None:
        return None
    if value not in allowed:
        raise SearchError(f'"{name}" must be one of {", ".join(allowed)} (got {value!r})')
    return str(value)


def _strings(value: Any, name: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not all(isinstance(item, str) for item in value):
        raise SearchError(f'"{name}" must be a list of strings')
    return tuple(value)


def _choices(value: Any, allowed: Sequence[str], name: str) -> tuple[str, ...] | None:
    items = _strings(value, name)
    for item in items or ():
        _choice(item, allowed, name)
    return items


@dataclass(frozen=True)
class ModalityReport:
    """How one modality took part in a query: its weight, whether it ran, its hit count and time."""

    weight: float
    ran: bool
    hits: int = 0
    ms: float = 0.0
    error: str | None = None


@dataclass(frozen=True)
class SearchResponse:
    """The result object of DESIGN §7; `to_dict` is exactly what the protocol and `--json` carry."""

    query: str
    intent: str
    confidence: float
    rule: str
    target: str | None
    fusion_strategy: str
    preset: str
    k: int
    modalities: dict[str, ModalityReport]
    results: list[FusedResult]
    timings_ms: dict[str, float]
    notes: list[str] = field(default_factory=list)
    seed: Seed | None = None
    # The parts a long text was split into (engine/decompose.py), each with its own hits; else empty.
    decomposition: list[dict[str, Any]] = field(default_factory=list)
    # A decomposed answer's functions, best first (engine/localisation.py): which ones the text is about.
    functions: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self, snapshot: Snapshot | None = None, folder: str | None = None) -> dict[str, Any]:
        return {
            "query": self.query,
            "intent": self.intent,
            "confidence": self.confidence,
            "rule": self.rule,
            "target": self.target,
            "fusion_strategy": self.fusion_strategy,
            "preset": self.preset,
            "k": self.k,
            "modalities": {
                name: {key: value for key, value in vars(report).items() if key != "error" or value}
                for name, report in self.modalities.items()
            },
            "results": [result_dict(result, snapshot, folder) for result in self.results],
            "timings_ms": self.timings_ms,
            "notes": self.notes,
            "seed": seed_dict(self.seed) if self.seed is not None else None,
            **({"decomposition": self.decomposition} if self.decomposition else {}),
            **({"functions": self.functions} if self.functions else {}),
        }


def seed_dict(seed: Seed) -> dict[str, Any]:
    """The seed a find_similar answer is about, as the response's `seed` field."""
    return {"path": seed.path, "range": range_dict(seed.span), "symbol": seed.symbol, "kind": seed.kind,
            "how": seed.how}


def range_dict(span: Span) -> dict[str, dict[str, int]]:
    return {
        "start": {"line": span.start_line, "character": span.start_col},
        "end": {"line": span.end_line, "character": span.end_col},
    }


def result_dict(result: FusedResult, snapshot: Snapshot | None, folder: str | None) -> dict[str, Any]:
    symbol = snapshot.symbol(result.path, result.symbol) if snapshot is not None else None
    container = symbol.container if symbol is not None else None
    row: dict[str, Any] = {
        "path": result.path,
        "range": range_dict(result.span),
        "symbol": result.symbol,
        "kind": result.kind,
        "container": container,
        "language": result.language,
        # a graph hit (a call or use site) has no snippet of its own: its code line is one
        "snippet": result.snippet or (snapshot.line(result.path, result.span.start_line).strip()[:MATCH_LINE_CHARS]
                                      if snapshot is not None else ""),
        "score": round(result.score, 6),
        "contributions": {m: round(v, 6) for m, v in result.contributions.items()},
        "ranks": dict(result.ranks),
        "boost": round(result.boost, 4),
        "defines": result.defines,
        "prior": round(result.prior, 4),
        "coherence": round(result.coherence, 6),
        "demoted": result.demoted,
        "matches": [range_dict(span) for span in result.matches],
        "approximate": result.approximate,
        "via": list(result.via),
    }
    if result.resolved is not None:
        row["resolved"] = result.resolved
    if snapshot is not None:
        row["uri"] = (snapshot.root / result.path).as_uri()
        # The code line of each of `matches` (same order), so clients show every call site without
        # reading the file (issue 14: "every call site is visible").
        row["match_lines"] = [snapshot.line(result.path, span.start_line).strip()[:MATCH_LINE_CHARS]
                              for span in result.matches]
    if folder is not None:
        row["folder"] = folder
    return row


Retriever = Callable[[Snapshot, SearchRequest, Classification, int], list[Hit]]


class Searcher:
    """Runs requests against snapshots with a set of retrievers (one callable per modality)."""

    def __init__(
        self,
        retrievers: Mapping[str, Retriever],
        default_preset: str = "default",
        semantic_available: Callable[[], bool] = lambda: True,
        demote_factor: float = 0.5,
        ranking: Ranking | None = None,
        decompose: bool = True,
    ) -> None:
        self.retrievers = dict(retrievers)
        self.default_preset = default_preset
        self.semantic_available = semantic_available
        self.demote_factor = demote_factor
        # Read once per query; replaced whole (never mutated) when an ablation switches a feature.
        self.ranking = ranking or Ranking()
        # Long texts (issues, tracebacks) are split into parts, each searched alone (engine/decompose.py).
        self.decompose = decompose
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="retriever")

    def search(self, snapshot: Snapshot, request: SearchRequest) -> SearchResponse:
        started = time.perf_counter()
        request.validate()
        if self.decompose and request.intent is None and not request.modes and should_decompose(request.query):
            return respond(request, snapshot, lambda part: self.search(snapshot, part),
                           request.preset or self.default_preset, self.semantic_available(), started)
        if _looks_like_regex(request.query):
            parse_text_query(request.query.strip())  # an invalid regex is the user's to fix: QueryError, with position
        known = _known_names(snapshot)
        classification = (pin(request.intent, request.query, known) if request.intent
                          else _unless_generic(snapshot, classify(request.query, known)))
        classified = time.perf_counter()
        ranking = self.ranking
        preset = request.preset or self.default_preset
        route = _adjusted(plan_route(classification, preset, request.modes, self.semantic_available()), ranking,
                          classification.intent)
        notes: list[str] = []
        if classification.intent == FIND_SIMILAR:
            seed = self._seed(snapshot, request, classification, preset)
            classification = replace(classification, seed=seed)
            notes.append(_seed_note(seed))
        reports, ranked = self._run(snapshot, request, classification, route)
        strategy = route.strategy
        if route.strategy == "direct" and not any(ranked.values()):
            route = _adjusted(rescue_route(route, classification, self.semantic_available()), ranking,
                              classification.intent)
            strategy = "rescued"
            more_reports, ranked = self._run(snapshot, request, classification, route)
            reports.update(more_reports)
        fused = self._fuse(snapshot, request.query, classification.intent, route, strategy, ranked)
        fused = fused[: request.limit]
        absent = absence_note(snapshot, request.query, classification, strategy)
        if absent is not None:
            notes.append(absent)
            fused = [replace(result, approximate=True) for result in fused]
        done = time.perf_counter()
        for modality in MODALITIES:
            reports.setdefault(modality, ModalityReport(weight=route.weights.get(modality, 0.0), ran=False))
        return SearchResponse(
            query=request.query,
            intent=classification.intent,
            confidence=classification.confidence,
            rule=classification.rule,
            target=classification.target,
            fusion_strategy=strategy,
            preset=preset,
            k=route.k,
            modalities=reports,
            results=fused,
            timings_ms={"classify": _ms(started, classified), "total": _ms(started, done)},
            notes=notes + [f"{m} left out: {r.error}" for m, r in reports.items() if r.error],
            seed=classification.seed,
        )

    def _seed(self, snapshot: Snapshot, request: SearchRequest, classification: Classification,
              preset: str) -> Seed | None:
        """What a find_similar query is similar to: the definition or file it names, else the top
        code result (not a test, not prose) of the ordinary search for what it describes."""
        target = classification.target
        known = _known_names(snapshot)
        words = request.query.split()
        if target and (is_identifier(target, known) or target[:1].isupper() or "." in target
                       or (words and words[-1].strip("?`'\"") == target)):
            named = named_seed(snapshot, target, request.query)
            if named is not None:
                return named
        described = Classification(UNDERSTAND_CODE, classification.confidence, classification.rule)
        route = _adjusted(plan_route(described, preset, request.modes, self.semantic_available()), self.ranking,
                          UNDERSTAND_CODE)
        _, ranked = self._run(snapshot, request, described, route)
        # Fused as find_similar (path priors, no lift for file names the words match): "the backoff in
        # the web client" describes the backoff code, not whatever file is called client.
        results = self._fuse(snapshot, request.query, FIND_SIMILAR, route, route.strategy, ranked)
        code = [r for r in results[:10] if path_prior(r.path, request.query) >= 1.0 and not is_test_path(r.path)]
        best = code[0] if code else (results[0] if results else None)
        if best is None:
            return None
        return seed_at(snapshot, best.path, best.span.start_line, best.symbol, best.kind)

    def _fuse(self, snapshot: Snapshot, query: str, intent: str, route: Route, strategy: str,
              ranked: Mapping[str, Sequence[Hit]]) -> list[FusedResult]:
        """Weighted RRF with the ranking features in force. The direct path skips fusion (DESIGN §4):
        the retriever's own order stands, unboosted; path priors and the file spread still apply."""
        ranking = self.ranking
        boosted = strategy != "direct"
        understanding = intent in UNDERSTANDING_INTENTS
        topical = intent in TOPIC_INTENTS
        stated = stated_names(query)
        names = stated.all if boosted and ranking.definitions and intent in DEFINITION_INTENTS else frozenset()
        generic = generic_names(stated.embedded - stated.whole, lambda name: defining_paths(snapshot, name)) \
            if names and stated.embedded else frozenset()
        return fuse(
            ranked, route.weights, route.k,
            centrality=(lambda hit: _centrality(snapshot, hit)) if boosted and ranking.centrality else _flat,
            demote_factor=self.demote_factor,
            names=names,
            generic=generic,
            prior=file_prior(query, ranking, named=topical, indexed=snapshot.files.__contains__) if understanding
            else prose_prior(query, ranking),
            one_per_file=ranking.one_per_file,
            coherence=FILE_COHERENCE if topical and ranking.file_aggregation else 0.0,
            line_level=topical,
        )

    def _run(
        self, snapshot: Snapshot, request: SearchRequest, classification: Classification, route: Route
    ) -> tuple[dict[str, ModalityReport], dict[str, list[Hit]]]:
        futures = {}
        for modality in route.modalities:
            retriever = self.retrievers.get(modality)
            if retriever is not None and route.weights.get(modality, 0.0) > 0:
                futures[modality] = (
                    time.perf_counter(),
                    self._pool.submit(retriever, snapshot, request, classification, RETRIEVER_DEPTH),
                )
        reports: dict[str, ModalityReport] = {}
        ranked: dict[str, list[Hit]] = {}
        deadline = time.perf_counter() + RETRIEVER_BUDGET_S
        for modality, (began, future) in futures.items():
            weight = route.weights.get(modality, 0.0)
            try:
                hits = _filter_hits(
                    snapshot, future.result(timeout=max(deadline - time.perf_counter(), 0.0)), request
                )
                if classification.seed is not None:
                    hits = without_seed(snapshot, classification.seed, hits)
            except concurrent.futures.TimeoutError:
                reports[modality] = ModalityReport(
                    weight, False, error=f"over its {RETRIEVER_BUDGET_S:g} s budget"
                )
                continue
            except Exception as error:  # one broken retriever must not take the query down
                log.exception("retriever %s failed", modality)
                reports[modality] = ModalityReport(weight, False, error=f"failed: {error}")
                continue
            ranked[modality] = hits
            reports[modality] = ModalityReport(weight, True, len(hits), _ms(began, time.perf_counter()))
        return reports, ranked


def _adjusted(route: Route, ranking: Ranking, intent: str) -> Route:
    """The route with the modalities an ablation removed taken out, its k overridden, and (fused
    routes only) its weights taken from an alternative table's row for `intent`."""
    row = ranking.weights.get(intent)
    if not ranking.without and ranking.k is None and (row is None or not route.fused):
        return route
    modalities = tuple(m for m in route.modalities if m not in ranking.without)
    weights = {m: (row.get(m, 0.0) if row is not None and route.fused else w)
               for m, w in route.weights.items() if m in modalities}
    return replace(route, modalities=modalities, weights=weights, k=ranking.k if ranking.k is not None else route.k)


def _seed_note(seed: Seed | None) -> str:
    if seed is None:
        return "no seed found for find_similar: results are code matching the description"
    label = seed.symbol or seed.path
    how = "named in the query" if seed.how == "named" else "the top code result for the description"
    return f"similar to {label} ({seed.path}:{seed.span.start_line + 1}, {how}); the seed and its tests are left out"


def _known_names(snapshot: Snapshot) -> Callable[[str], bool]:
    """The classifier's view of the symbol table: does a symbol of exactly this name exist?"""
    return lambda name: bool(snapshot.symbols.definitions(name))


def _unless_generic(snapshot: Snapshot, classification: Classification) -> Classification:
    """A name inside a question sends it to find_definition (DESIGN §2 rule 8) only when the name picks
    definitions: `toString builder for readable descriptions` names one of forty `toString` methods,
    none of them the answer, so it is the question rule 9 reads (a generic name, `generic_names`),
    unless a file is named after it."""
    target = classification.target
    if classification.rule != IDENTIFIER_IN_QUERY_RULE or not target:
        return classification
    paths = defining_paths(snapshot, target)
    if not generic_names([target], lambda _: paths) or any(named_file(path, target) for path in paths):
        return classification
    return Classification(UNDERSTAND_CODE, FALLBACK.confidence, FALLBACK.id)


def defining_paths(snapshot: Snapshot, name: str) -> list[str]:
    """The files that define `name` (a field or a variable of that name is no definition of it)."""
    return [symbol.path for symbol in snapshot.symbols.definitions(name) if symbol.kind in DEFINITION_KINDS]


def _flat(hit: Hit) -> float:
    return 0.0


def _looks_like_regex(query: str) -> bool:
    text = query.strip()
    return text.startswith("re:") or (len(text) > 2 and text.startswith("/") and text.endswith("/"))


def _centrality(snapshot: Snapshot, hit: Hit) -> float:
    return snapshot.graph.centrality_of(hit.path, hit.symbol)


def _ms(start: float, end: float) -> float:
    return round((end - start) * 1000, 3)


def _filter_hits(snapshot: Snapshot, hits: list[Hit], request: SearchRequest) -> list[Hit]:
    """Apply the request's `paths` globs and `languages` ids to one retriever's hits."""
    if not request.paths and not request.languages:
        return hits
    spec = pathspec.GitIgnoreSpec.from_lines(request.paths or ["*"])
    languages = set(request.languages or ())

    def language(path: str) -> str | None:
        record = snapshot.files.get(path)
        return record.language if record else None

    return [
        hit
        for hit in hits
        if spec.match_file(hit.path) and (not languages or language(hit.path) in languages)
    ]
