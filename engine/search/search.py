"""One query interface in front of four retrievers: classify, route, run, fuse, explain.

The request here is the contract of DESIGN §7 (`fourfold.search` and `fourfold search --json`); the
response becomes the protocol's answer in engine/search/answer.py. Retrievers of one query run
concurrently, each within a time budget; one that fails or runs late is left out of fusion and
reported, and the query still answers.
"""

from __future__ import annotations

import concurrent.futures
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from ..index.snapshot import Snapshot
from ..model.profiles import (
    DEMOTE_FACTOR,
    FIND_SIMILAR,
    MODALITIES,
    RETRIEVER_BUDGET_S,
    RETRIEVER_DEPTH,
    SEED_CANDIDATES,
    UNDERSTAND_CODE,
)
from ..model.records import Hit, Seed
from ..query.intent import IN_QUERY_RULE, RULES, Classification, classify, is_identifier, pin
from ..query.parsedquery import ParsedQuery, named_file, parse_query
from ..query.request import Ranking, SearchRequest
from ..rank.fusion import FusedResult, fuse
from ..rank.ranking import defining_paths, fusion_features, generic_names, is_test_path, query_path_prior
from ..rank.routing import Route, plan_route, rescue_route
from ..retrieve.retriever import Retriever
from ..retrieve.similar import named_seed, seed_at, without_seed
from ..retrieve.text import path_filter
from .absence import absence_note
from .answer import ModalityReport, SearchResponse
from .decompose import respond, should_decompose

log = logging.getLogger(__name__)

# DESIGN §2 rule 9, the fallback rule 8 (IN_QUERY_RULE, a name inside a longer question) gives way to
# when the name is generic.
FALLBACK = RULES[-1]
class Searcher:
    """Runs requests against snapshots with a set of retrievers (one callable per modality).

    It holds no per-query state: the query is parsed once into a `ParsedQuery` and the ranking
    switches travel in the request, so concurrent searches never share either.
    """

    def __init__(
        self,
        retrievers: Mapping[str, Retriever],
        default_preset: str = "default",
        semantic_available: Callable[[], bool] = lambda: True,
        demote_factor: float = DEMOTE_FACTOR,
        decompose: bool = True,
        holds_word: Callable[[Snapshot, str], bool] | None = None,
    ) -> None:
        self.retrievers = dict(retrievers)
        self.default_preset = default_preset
        self.semantic_available = semantic_available
        self.demote_factor = demote_factor
        # Long texts (issues, tracebacks) are split into parts, each searched alone (engine/search/decompose.py).
        self.decompose = decompose
        # Whether any chunk of a snapshot holds a word (the BM25 vocabulary): the "not found" check of a
        # question's subject (engine/search/absence.py); None, as in tools without BM25, skips it.
        self.holds_word = holds_word
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="retriever")

    def close(self) -> None:
        """Stop the retriever threads: a closed workspace must not leave them (and the memory their
        allocator arenas hold) behind, one pair per workspace an LSP or eval session ever opened."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    def parse(self, snapshot: Snapshot, request: SearchRequest) -> ParsedQuery:
        """Read the request's query once: classified with the index's symbol table (`known` names, and
        a generic name inside a question read as the question, `_unless_generic`), or pinned."""
        known = _known_names(snapshot)
        classification = (pin(request.intent, request.query, known) if request.intent
                          else _unless_generic(snapshot, classify(request.query, known)))
        return parse_query(request.query, classification, known, pasted=should_decompose(request.query),
                           opening_names=request.ranking.opening_names)

    def search(self, snapshot: Snapshot, request: SearchRequest, parsed: ParsedQuery | None = None) -> SearchResponse:
        """Answer `request` on `snapshot`; `parsed` is its query as `parse` read it, when the caller has
        read it already (the workspace does, to decide what to build first)."""
        started = time.perf_counter()
        request.validate()
        query = parsed if parsed is not None else self.parse(snapshot, request)
        if self.decompose and request.intent is None and not request.modes and query.pasted:
            return respond(request, snapshot, lambda part: self.search(snapshot, part),
                           request.preset or self.default_preset, self.semantic_available(), started)
        if query.regex and query.whole_error is not None:
            raise query.whole_error  # an invalid regex is the user's to fix: QueryError, with position
        classified = time.perf_counter()
        ranking = request.ranking
        preset = request.preset or self.default_preset
        route = _adjusted(plan_route(query.classification, preset, request.modes, self.semantic_available()),
                          ranking, query.intent)
        notes: list[str] = []
        if query.intent == FIND_SIMILAR:
            seed = self._seed(snapshot, request, query, preset)
            query = query.classified(replace(query.classification, seed=seed))
            notes.append(_seed_note(seed))
        reports, ranked = self._run(snapshot, request, query, route)
        strategy = route.strategy
        if route.strategy == "direct" and not any(ranked.values()):
            route = _adjusted(rescue_route(route, query.classification, self.semantic_available()), ranking,
                              query.intent)
            strategy = "rescued"
            more_reports, ranked = self._run(snapshot, request, query, route)
            reports.update(more_reports)
        fused = self._fuse(snapshot, query, ranking, query.intent, route, strategy, ranked)
        fused = fused[: request.limit]
        holds = self.holds_word
        absent = absence_note(snapshot, query, strategy,
                              (lambda word: holds(snapshot, word)) if holds is not None else None)
        if absent is not None:
            notes.append(absent)
            fused = [replace(result, approximate=True) for result in fused]
        done = time.perf_counter()
        for modality in MODALITIES:
            reports.setdefault(modality, ModalityReport(weight=route.weights.get(modality, 0.0), ran=False))
        return SearchResponse(
            query=request.query,
            intent=query.intent,
            confidence=query.classification.confidence,
            rule=query.classification.rule,
            target=query.target,
            fusion_strategy=strategy,
            preset=preset,
            k=route.k,
            modalities=reports,
            results=fused,
            timings_ms={"classify": _ms(started, classified), "total": _ms(started, done)},
            notes=notes + [f"{m} left out: {r.error}" for m, r in reports.items() if r.error],
            seed=query.classification.seed,
        )

    def _seed(self, snapshot: Snapshot, request: SearchRequest, query: ParsedQuery, preset: str) -> Seed | None:
        """What a find_similar query is similar to: the definition or file it names, else the top
        code result (not a test, not prose) of the ordinary search for what it describes."""
        target = query.target
        known = _known_names(snapshot)
        if target and (is_identifier(target, known) or target[:1].isupper() or "." in target
                       or query.last_word == target):
            named = named_seed(snapshot, target, query.keywords)
            if named is not None:
                return named
        classification = query.classification
        described = query.classified(Classification(UNDERSTAND_CODE, classification.confidence, classification.rule))
        route = _adjusted(plan_route(described.classification, preset, request.modes, self.semantic_available()),
                          request.ranking, UNDERSTAND_CODE)
        _, ranked = self._run(snapshot, request, described, route)
        # Fused as find_similar (path priors, no lift for file names the words match): "the backoff in
        # the web client" describes the backoff code, not whatever file is called client.
        results = self._fuse(snapshot, query, request.ranking, FIND_SIMILAR, route, route.strategy, ranked)
        code = [r for r in results[:SEED_CANDIDATES]
                if query_path_prior(r.path, query) >= 1.0 and not is_test_path(r.path)]
        best = code[0] if code else (results[0] if results else None)
        if best is None:
            return None
        return seed_at(snapshot, best.path, best.span.start_line, best.symbol, best.kind)

    def _fuse(self, snapshot: Snapshot, query: ParsedQuery, ranking: Ranking, intent: str, route: Route,
              strategy: str, ranked: Mapping[str, Sequence[Hit]]) -> list[FusedResult]:
        """Weighted RRF with the ranking features the request's switches leave on (ranking.fusion_features)."""
        features = fusion_features(snapshot, query, ranking, intent, direct=strategy == "direct")
        return fuse(
            ranked, route.weights, route.k,
            centrality=features.centrality,
            demote_factor=self.demote_factor,
            names=features.names,
            generic=features.generic,
            prior=features.prior,
            symbol_prior=features.symbol_prior,
            one_per_file=features.one_per_file,
            coherence=features.coherence,
            agreement=features.agreement,
            line_level=features.line_level,
            families=features.families,
            copies=features.copies,
            twin=features.twin,
        )

    def _run(
        self, snapshot: Snapshot, request: SearchRequest, query: ParsedQuery, route: Route
    ) -> tuple[dict[str, ModalityReport], dict[str, list[Hit]]]:
        futures = {}
        for modality in route.modalities:
            retriever = self.retrievers.get(modality)
            if retriever is not None and route.weights.get(modality, 0.0) > 0:
                futures[modality] = (
                    time.perf_counter(),
                    self._pool.submit(retriever, snapshot, query, request.ranking, RETRIEVER_DEPTH),
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
                seed = query.classification.seed
                if seed is not None:
                    hits = without_seed(snapshot, seed, hits)
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
    if classification.rule != IN_QUERY_RULE or not target:
        return classification
    paths = defining_paths(snapshot, target)
    if not generic_names([target], lambda _: paths) or any(named_file(path, target) for path in paths):
        return classification
    return Classification(UNDERSTAND_CODE, FALLBACK.confidence, FALLBACK.id)


def _ms(start: float, end: float) -> float:
    return round((end - start) * 1000, 3)


def _filter_hits(snapshot: Snapshot, hits: list[Hit], request: SearchRequest) -> list[Hit]:
    """Apply the request's `paths` globs and `languages` ids to one retriever's hits (the test
    `fourfold grep` applies to its candidates)."""
    allowed = path_filter(snapshot, request.paths, request.languages)
    return hits if allowed is None else [hit for hit in hits if allowed(hit.path)]
