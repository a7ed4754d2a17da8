"""`fourfold eval`: how good the answers are, in numbers, next to the tools people already use.

A user points it at a labelled query set and a corpus and reads, per intent, MRR@10, Recall@10 and
nDCG@10 of the fused engine beside single retrievers (text, structural, semantic, graph), plain BM25
over the same chunks, ripgrep and universal-ctags (DESIGN §9). It exists so that a change to a
weight, a rule or a retriever is judged by a measured difference, not by an impression.

Two query-set formats are read. Ours: `id`, `query`, `intent` (label), `gold` as `{path, line}`
(1-based line or null), `match` ("any": one gold location answers the query; "all": each counts)
and `answerable`. Semble's public benchmark (`category`, `gold[].start_line`): its NDCG@10 is
computed exactly as its README states, per repository and as a mean over repositories, so our
figure can be set beside its published ones.

It lives beside `fourfold eval` (lsp/eval_cli.py), not in the engine: it runs ripgrep and
universal-ctags as subprocesses, and the library behind an editor must never spawn a benchmark.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from fourfold.engine.index.lexical import LexicalIndex
from fourfold.engine.model.profiles import INTENTS, MODALITIES
from fourfold.engine.model.records import Chunk, Span
from fourfold.engine.model.settings import Settings
from fourfold.engine.query.intent import classify
from fourfold.engine.query.request import FEATURES, Ranking, SearchRequest
from fourfold.engine.service.workspace import Workspace

__all__ = [
    "CUTOFF",
    "Corpus",
    "EvalOptions",
    "EvalQuery",
    "EvalReport",
    "Gold",
    "Outcome",
    "QueryScore",
    "Ranked",
    "Row",
    "baseline_target",
    "hits_gold",
    "is_false_result",
    "load_queries",
    "merge_reports",
    "report_of",
    "run_eval",
    "score_query",
    "semble_ndcg",
    "summarise",
]

# Metric numbers (DESIGN §9): everything is measured on the top 10, and a line-level gold location
# counts as found when a result's range contains it or starts at most this many lines away (a
# definition's decorator or doc comment above it is the same answer).
CUTOFF = 10
LINE_TOLERANCE = 3
# Semble's categories are not our intents; for pinning baselines and intent accuracy they map to the
# intent a person asking that kind of question means.
SEMBLE_INTENTS = {"symbol": "find_definition", "semantic": "understand_code", "architecture": "understand_code"}
# How deep each baseline ranks before the cut (the fused engine's own retrievers go 100 deep too).
BASELINE_DEPTH = 100
# A question that sends the text retriever to BM25. Asked twice: a build that overruns the retriever's
# budget keeps running, and the second ask waits for it under the cache's lock.
WARM_UP_QUESTION = "how does this work"
WARM_UP_QUERIES = 2
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FUSED_PREFIX = "fourfold"
# The RRF constants an ablation compares: DESIGN §4's default (40) and thorough (60) values.
ABLATION_KS = (40, 60)


@dataclass(frozen=True)
class Gold:
    """One labelled answer location: a file, optionally a 1-based line (ours) or line range (semble)."""

    path: str
    line: int | None = None
    end_line: int | None = None


@dataclass(frozen=True)
class EvalQuery:
    """One labelled query. `semble` marks the public benchmark's format and metric."""

    id: str
    query: str
    intent: str | None
    gold: tuple[Gold, ...]
    match: str = "any"
    answerable: bool = True
    repo: str | None = None
    semble: bool = False
    category: str | None = None
    language: str | None = None


@dataclass(frozen=True)
class Ranked:
    """One result of any system, reduced to what the metrics look at: file, range, other matching ranges."""

    path: str
    span: Span
    matches: tuple[Span, ...] = ()
    # The engine marked it a guess (the target is not in the workspace): not a false result.
    approximate: bool = False


@dataclass(frozen=True)
class Outcome:
    """What one system returned for one query, and (for the fused engine) how it routed it."""

    query: EvalQuery
    system: str
    ranked: tuple[Ranked, ...]
    ms: float
    intent: str | None = None
    strategy: str | None = None
    notes: tuple[str, ...] = ()
    rule: str | None = None


@dataclass(frozen=True)
class QueryScore:
    reciprocal_rank: float
    recall: float
    ndcg: float
    semble_ndcg: float | None
    returned: bool


@dataclass(frozen=True)
class Row:
    """The figures of one system over one group of queries (an intent label, or "overall")."""

    system: str
    group: str
    queries: int
    mrr: float | None
    recall: float | None
    ndcg: float | None
    semble_ndcg: float | None
    zero_rate: float | None
    false_rate: float | None
    intent_accuracy: float | None
    strategies: dict[str, int]
    p50_ms: float
    p95_ms: float


@dataclass
class EvalReport:
    """Everything `fourfold eval` prints and writes: rows, semble per-repo means, what was missing."""

    rows: list[Row]
    per_repo: dict[str, dict[str, float]] = field(default_factory=dict)
    per_category: dict[str, dict[str, float]] = field(default_factory=dict)
    per_language: dict[str, dict[str, float]] = field(default_factory=dict)
    missing_gold: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": [vars(row) for row in self.rows],
            "semble_per_repo": self.per_repo,
            "semble_mean_over_repos": {
                system: _mean(list(repos.values())) for system, repos in self.per_repo.items()
            },
            "semble_per_category": self.per_category,
            "semble_per_language": self.per_language,
            "missing_gold": self.missing_gold,
            "skipped": self.skipped,
            "queries": [_outcome_dict(outcome) for outcome in self.outcomes],
        }


def _outcome_dict(outcome: Outcome) -> dict[str, Any]:
    score = score_query(outcome.query, outcome.ranked)
    return {
        "id": outcome.query.id,
        "system": outcome.system,
        "label": outcome.query.intent,
        "intent": outcome.intent,
        "rule": outcome.rule,
        "strategy": outcome.strategy,
        "reciprocal_rank": score.reciprocal_rank,
        "recall": score.recall,
        "ndcg": score.ndcg,
        "semble_ndcg": score.semble_ndcg,
        "ms": round(outcome.ms, 3),
        "notes": list(outcome.notes),
        "top": [f"{r.path}:{r.span.start_line + 1}" for r in outcome.ranked[:3]],
    }


# --- query sets --------------------------------------------------------------------------------
def load_queries(path: Path) -> list[EvalQuery]:
    """Read a JSONL query set in our format or semble's (told apart line by line)."""
    queries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            queries.append(parse_query(json.loads(line)))
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}:{number}: not a query ({error})") from error
    return queries


def parse_query(row: Mapping[str, Any]) -> EvalQuery:
    gold_rows = row.get("gold") or []
    if "category" in row or any("start_line" in item for item in gold_rows):
        return _semble_query(row)
    intent = row.get("intent")
    if intent is not None and intent not in INTENTS:
        raise ValueError(f"unknown intent {intent!r}")
    match = row.get("match", "any")
    if match not in ("any", "all"):
        raise ValueError(f'"match" must be "any" or "all", not {match!r}')
    return EvalQuery(
        id=str(row["id"]),
        query=str(row["query"]),
        intent=intent,
        gold=tuple(Gold(str(item["path"]), item.get("line")) for item in gold_rows),
        match=match,
        answerable=bool(row.get("answerable", True)) and not row.get("unanswerable", False),
        repo=row.get("repo"),
    )


def _semble_query(row: Mapping[str, Any]) -> EvalQuery:
    gold = tuple(
        Gold(str(item["path"]), item.get("start_line"), item.get("end_line"))
        for item in row["gold"]
        if item.get("kind", "relevant") in ("relevant", "secondary")
    )
    return EvalQuery(
        id=str(row["id"]),
        query=str(row["query"]),
        intent=SEMBLE_INTENTS.get(str(row.get("category"))),
        gold=gold,
        match="all",
        repo=row.get("repo"),
        semble=True,
        category=row.get("category"),
        language=row.get("language"),
    )


# --- metrics -----------------------------------------------------------------------------------
def hits_gold(result: Ranked, gold: Gold) -> bool:
    """Our rule: same path and, for a line label, a range (result or its matches) on or near the line."""
    if result.path != gold.path:
        return False
    if gold.line is None:
        return True
    line = gold.line - 1
    return any(
        span.contains_line(line) or abs(span.start_line - line) <= LINE_TOLERANCE
        for span in (result.span, *result.matches)
    )


def _semble_hits(result: Ranked, gold: Gold) -> bool:
    """Semble's rule: same path and, when the target has lines, overlapping (1-based, inclusive) lines."""
    if result.path != gold.path:
        return False
    if gold.line is None:
        return True
    end = gold.end_line if gold.end_line is not None else gold.line
    return result.span.start_line + 1 <= end and result.span.end_line + 1 >= gold.line


def _dcg(ranks: Iterable[int]) -> float:
    return sum(1.0 / math.log2(rank + 1) for rank in ranks)


def semble_ndcg(ranked: Sequence[Ranked], gold: Sequence[Gold], cutoff: int = CUTOFF) -> float:
    """Semble's NDCG@10: a result gains 1 for the first target it is the first to hit; ideal over min(10, targets)."""
    if not gold:
        return 0.0
    found: set[int] = set()
    ranks = []
    for rank, result in enumerate(ranked[:cutoff], 1):
        target = next((i for i, g in enumerate(gold) if i not in found and _semble_hits(result, g)), None)
        if target is not None:
            found.add(target)
            ranks.append(rank)
    return _dcg(ranks) / _dcg(range(1, min(cutoff, len(gold)) + 1))


def score_query(query: EvalQuery, ranked: Sequence[Ranked], cutoff: int = CUTOFF) -> QueryScore:
    """MRR, recall and nDCG of one answerable query (binary relevance, first hit per gold file).

    "any": one gold location answers, so recall is 0 or 1 and the ideal DCG is one hit at rank 1.
    "all": recall is the share of gold locations any top result covers (matches included), and a
    result gains 1 when it is the first to hit a gold file; the ideal puts every gold file on top.
    """
    top = ranked[:cutoff]
    semble = semble_ndcg(top, query.gold, cutoff) if query.semble else None
    hit_sets = [{i for i, gold in enumerate(query.gold) if hits_gold(result, gold)} for result in top]
    first = next((rank for rank, hit in enumerate(hit_sets, 1) if hit), None)
    returned = bool(ranked)
    if first is None:
        return QueryScore(0.0, 0.0, 0.0, semble, returned)
    if query.match == "any":
        return QueryScore(1.0 / first, 1.0, 1.0 / math.log2(first + 1), semble, returned)
    covered = set().union(*hit_sets)
    credited: set[str] = set()
    gains = []
    for rank, (result, hit) in enumerate(zip(top, hit_sets, strict=True), 1):
        if hit and result.path not in credited:
            credited.add(result.path)
            gains.append(rank)
    ideal = _dcg(range(1, min(cutoff, len({gold.path for gold in query.gold})) + 1))
    return QueryScore(1.0 / first, len(covered) / len(query.gold), _dcg(gains) / ideal, semble, returned)


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile: the value below which `share` of the values lie (0 for no values).
    Every figure of `fourfold eval` and of the benchmarks in bench/ is computed with this one."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def summarise(outcomes: Sequence[Outcome]) -> list[Row]:
    """One row per system for every intent label present, then one "overall" row per system."""
    by_key: dict[tuple[str, str], list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_key[(outcome.system, outcome.query.intent or "unlabelled")].append(outcome)
        by_key[(outcome.system, "overall")].append(outcome)
    systems = list(dict.fromkeys(outcome.system for outcome in outcomes))
    groups = [g for g in (*INTENTS, "unlabelled") if any(key[1] == g for key in by_key)] + ["overall"]
    return [_row(system, group, by_key[(system, group)]) for group in groups for system in systems
            if by_key.get((system, group))]


def is_false_result(outcome: Outcome) -> bool:
    """An unanswerable query answered: any result the system did not mark as approximate (issue 14:
    a fuzzy list for a name that does not exist is a failure unless it says it is a guess)."""
    return any(not result.approximate for result in outcome.ranked)


def _row(system: str, group: str, outcomes: Sequence[Outcome]) -> Row:
    answerable = [o for o in outcomes if o.query.answerable]
    unanswerable = [o for o in outcomes if not o.query.answerable]
    scores = [score_query(o.query, o.ranked) for o in answerable]
    semble = [s.semble_ndcg for s in scores if s.semble_ndcg is not None]
    classified = [o for o in outcomes if o.intent is not None and o.query.intent is not None]
    latencies = [o.ms for o in outcomes]
    return Row(
        system=system,
        group=group,
        queries=len(outcomes),
        mrr=_mean([s.reciprocal_rank for s in scores]) if scores else None,
        recall=_mean([s.recall for s in scores]) if scores else None,
        ndcg=_mean([s.ndcg for s in scores]) if scores else None,
        semble_ndcg=_mean(semble) if semble else None,
        zero_rate=_mean([0.0 if s.returned else 1.0 for s in scores]) if scores else None,
        false_rate=_mean([1.0 if is_false_result(o) else 0.0 for o in unanswerable]) if unanswerable else None,
        intent_accuracy=_mean([1.0 if o.intent == o.query.intent else 0.0 for o in classified])
        if classified else None,
        strategies=dict(Counter(o.strategy for o in outcomes if o.strategy)),
        p50_ms=round(percentile(latencies, 0.50), 3),
        p95_ms=round(percentile(latencies, 0.95), 3),
    )


def semble_per_repo(outcomes: Sequence[Outcome]) -> dict[str, dict[str, float]]:
    """Semble's headline: per system, the mean NDCG@10 of each repository's queries."""
    return semble_per_group(outcomes, lambda query: query.repo)


def semble_per_group(
    outcomes: Sequence[Outcome], group: Callable[[EvalQuery], str | None]
) -> dict[str, dict[str, float]]:
    """Per system, the mean NDCG@10 of the semble queries in each group (category, language)."""
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for outcome in outcomes:
        name = group(outcome.query)
        if outcome.query.semble and name:
            per[outcome.system][name].append(semble_ndcg(outcome.ranked, outcome.query.gold))
    return {system: {name: _mean(values) for name, values in sorted(groups.items())} for system, groups in per.items()}


# --- systems -----------------------------------------------------------------------------------
def baseline_target(query: str) -> str:
    """What ripgrep and ctags look for: the classifier's target (quoted string, identifier), else the longest word."""
    target = classify(query).target
    if target:
        return target
    words = WORD.findall(query)
    return max(words, key=len) if words else query.strip()


def _merge_by_file(items: Iterable[tuple[str, Span]], limit: int) -> tuple[Ranked, ...]:
    """First range per file in rank order, later ranges of the same file as its matches (like fusion)."""
    order: dict[str, list[Span]] = {}
    for path, span in items:
        if path in order:
            order[path].append(span)
        elif len(order) < limit:
            order[path] = [span]
    return tuple(Ranked(path, spans[0], tuple(spans[1:])) for path, spans in order.items())


def _timed(query: EvalQuery, system: str, run: Callable[[str, int], tuple[Ranked, ...]], limit: int) -> Outcome:
    """Run one baseline on one query, timed by the wall clock (it has no timings of its own)."""
    started = time.perf_counter()
    ranked = run(query.query, limit)
    return Outcome(query, system, ranked, (time.perf_counter() - started) * 1000)


class BM25Baseline:
    """Plain BM25 (bm25s through LexicalIndex) over the snapshot's chunks: no routing, no fusion."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = chunks
        self.index = LexicalIndex.build(chunks)

    def search(self, query: str, limit: int) -> tuple[Ranked, ...]:
        found = self.index.search(query, BASELINE_DEPTH)
        return _merge_by_file(((self.chunks[i].path, self.chunks[i].span) for i, _ in found), limit)


@dataclass(frozen=True)
class RipgrepBaseline:
    """A real `rg -F -S` per query for its target, files ranked by how many lines match (ties by path).

    `-n` instead of `-c`: the count is the same (matching lines) and the line numbers let a
    line-level gold label be judged as fairly as for the engine.
    """

    root: Path

    def search(self, query: str, limit: int) -> tuple[Ranked, ...]:
        return ripgrep(self.root, query, limit)


def ripgrep(root: Path, query: str, limit: int) -> tuple[Ranked, ...]:
    completed = subprocess.run(
        ["rg", "-F", "-S", "-n", "--no-heading", "--with-filename", "--max-columns", "1", "--", baseline_target(query),
         "."],
        cwd=root, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace", check=False,
    )
    lines: dict[str, list[int]] = defaultdict(list)
    for row in completed.stdout.splitlines():
        path, _, rest = row.partition(":")
        number = rest.partition(":")[0]
        if number.isdigit():
            lines[path.removeprefix("./")].append(int(number) - 1)
    ordered = sorted(lines.items(), key=lambda item: (-len(item[1]), item[0]))[:limit]
    return tuple(
        Ranked(path, Span(found[0], 0, found[0], 0), tuple(Span(n, 0, n, 0) for n in found[1:]))
        for path, found in ordered
    )


@dataclass(frozen=True)
class Tag:
    name: str
    path: str
    line: int


class CtagsBaseline:
    """universal-ctags run once over the root; a query ranks definitions named like its target."""

    def __init__(self, root: Path) -> None:
        completed = subprocess.run(
            ["ctags", "-R", "-f", "-", "--fields=+n", "--output-format=u-ctags", "."],
            cwd=root, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace", check=False,
        )
        self.tags = [tag for row in completed.stdout.splitlines() if (tag := _parse_tag(row)) is not None]

    def search(self, query: str, limit: int) -> tuple[Ranked, ...]:
        target = baseline_target(query).rsplit(".", 1)[-1].lower()
        if not target:
            return ()
        exact = [t for t in self.tags if t.name.lower() == target]
        partial = [t for t in self.tags if target in t.name.lower() and t.name.lower() != target]
        ranked = sorted(exact, key=lambda t: (t.path, t.line)) + sorted(partial, key=lambda t: (len(t.name), t.path))
        return _merge_by_file(((t.path, Span(t.line, 0, t.line, 0)) for t in ranked), limit)


def _parse_tag(row: str) -> Tag | None:
    if row.startswith("!_"):
        return None
    parts = row.split("\t")
    if len(parts) < 3:
        return None
    line = next((int(p[5:]) for p in parts[3:] if p.startswith("line:") and p[5:].isdigit()), None)
    if line is None:
        return None
    return Tag(parts[0], parts[1].removeprefix("./"), line - 1)


# --- runner ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Corpus:
    """A folder to index, and the prefix that turns its result paths into the labels' paths.

    Semble labels paths from the repository root but indexes only its `benchmark_root`
    (`src/flask`), so results there are reported as `src/flask/...`.
    """

    root: Path
    prefix: str = ""

    def label_path(self, path: str) -> str:
        return f"{self.prefix}{path}"


@dataclass(frozen=True)
class EvalOptions:
    """What to run: presets of the fused engine, whether to add the baselines, the cut-off."""

    presets: tuple[str, ...] = ("default",)
    baseline: bool = False
    limit: int = CUTOFF
    ablations: bool = False
    label: str = ""


def fused_name(preset: str, label: str = "") -> str:
    return f"{FUSED_PREFIX} {preset}{f' {label}' if label else ''}"


def ablations() -> dict[str, Ranking]:
    """Every variant `--ablations` compares with the full engine: each modality removed, each ranking
    feature off, exact float vectors instead of the binary shortlist, and both RRF constants."""
    variants = {f"-{modality}": Ranking(without=frozenset({modality})) for modality in MODALITIES}
    variants.update({f"-{feature}": _without_feature(feature) for feature in FEATURES if feature != "binary_vectors"})
    variants["float vectors"] = Ranking(binary_vectors=False)
    variants.update({f"k={k}": Ranking(k=k) for k in ABLATION_KS})
    return variants


def run_eval(
    queries: Sequence[EvalQuery],
    roots: Mapping[str | None, Corpus],
    settings: Settings,
    options: EvalOptions,
    index_dirs: Mapping[str | None, str] | None = None,
) -> EvalReport:
    """Index each root, run every query through every system, and summarise.

    `roots` maps a query's repo (None for single-corpus sets) to the corpus to index; queries whose
    repo has no folder are skipped and listed. With a semantic backend, chunks are embedded first.
    """
    outcomes: list[Outcome] = []
    missing: list[str] = []
    skipped: list[str] = []
    by_repo: dict[str | None, list[EvalQuery]] = defaultdict(list)
    for query in queries:
        by_repo[query.repo if query.repo in roots else None].append(query)
    for repo, group in by_repo.items():
        corpus = roots.get(repo)
        if corpus is None or not corpus.root.is_dir():
            skipped.extend(query.id for query in group)
            continue
        missing.extend(_missing_gold(corpus, group))
        local = settings if index_dirs is None or repo not in index_dirs else _with_index(settings, index_dirs[repo])
        outcomes.extend(_relabelled(outcome, corpus) for outcome in _run_root(corpus.root, group, local, options))
    return report_of(outcomes, missing, skipped)


def report_of(outcomes: list[Outcome], missing: list[str], skipped: list[str]) -> EvalReport:
    """Every table of the report, computed from the outcomes."""
    return EvalReport(summarise(outcomes), semble_per_repo(outcomes),
                      semble_per_group(outcomes, lambda query: query.category),
                      semble_per_group(outcomes, lambda query: query.language), missing, skipped, outcomes)


def merge_reports(reports: Sequence[EvalReport]) -> EvalReport:
    """One report over several runs of the same queries (one per semantic backend, say)."""
    if len(reports) == 1:
        return reports[0]
    outcomes = [outcome for report in reports for outcome in report.outcomes]
    missing = sorted({item for report in reports for item in report.missing_gold})
    skipped = sorted({item for report in reports for item in report.skipped})
    return report_of(outcomes, missing, skipped)


def _with_index(settings: Settings, folder: str) -> Settings:
    return replace(settings, index_dir=folder)


def _missing_gold(corpus: Corpus, queries: Sequence[EvalQuery]) -> list[str]:
    """Labels naming a file this corpus does not index: reported, never silently dropped."""
    return sorted({f"{query.id}: {gold.path}" for query in queries for gold in query.gold
                   if not gold.path.startswith(corpus.prefix)
                   or not (corpus.root / gold.path.removeprefix(corpus.prefix)).is_file()})


def _relabelled(outcome: Outcome, corpus: Corpus) -> Outcome:
    if not corpus.prefix:
        return outcome
    ranked = tuple(replace(r, path=corpus.label_path(r.path)) for r in outcome.ranked)
    return replace(outcome, ranked=ranked)


def _run_root(root: Path, queries: Sequence[EvalQuery], settings: Settings, options: EvalOptions) -> list[Outcome]:
    workspace = Workspace(root, settings)
    try:
        workspace.refresh()
        if settings.semantic_backend != "none":
            workspace.embed_pending()
        _warm(workspace)
        outcomes = [
            _fused(workspace, query, preset, options.limit, options.label)
            for preset in options.presets for query in queries
        ]
        if options.ablations:
            outcomes.extend(_ablated(workspace, queries, options))
        if options.baseline:
            outcomes.extend(_baselines(workspace, root, queries, settings, options.limit))
        return outcomes
    finally:
        workspace.close()


def _warm(workspace: Workspace) -> None:
    """Build the lazily built indexes (BM25 over chunks) before the clock runs, so the first question
    measures the search and not a one-off build that may even overrun a retriever's time budget."""
    for _ in range(WARM_UP_QUERIES):
        workspace.search(SearchRequest(query=WARM_UP_QUESTION, limit=1, modes=("text",)))


def _fused(workspace: Workspace, query: EvalQuery, preset: str, limit: int, label: str = "",
           ranking: Ranking | None = None) -> Outcome:
    response = workspace.search(SearchRequest(query=query.query, limit=limit, preset=preset,
                                              ranking=ranking or Ranking()))
    ranked = tuple(Ranked(r.path, r.span, tuple(r.matches), r.approximate) for r in response.results)
    return Outcome(query, fused_name(preset, label), ranked, response.timings_ms["total"], response.intent,
                   response.fusion_strategy, tuple(response.notes), response.rule)


def _without_feature(feature: str) -> Ranking:
    switches: dict[str, Any] = {feature: False}
    return replace(Ranking(), **switches)


def _ablated(workspace: Workspace, queries: Sequence[EvalQuery], options: EvalOptions) -> list[Outcome]:
    """The same queries with one variant at a time, each request carrying its own switches."""
    outcomes: list[Outcome] = []
    for name, ranking in ablations().items():
        label = f"{options.label} {name}".strip()
        outcomes.extend(_fused(workspace, query, preset, options.limit, label, ranking)
                        for preset in options.presets for query in queries)
    return outcomes


def _single(workspace: Workspace, query: EvalQuery, modality: str, limit: int) -> Outcome:
    request = SearchRequest(query=query.query, limit=limit, modes=(modality,), intent=query.intent)
    response = workspace.search(request)
    ranked = tuple(Ranked(r.path, r.span, tuple(r.matches)) for r in response.results)
    return Outcome(query, modality, ranked, response.timings_ms["total"], notes=tuple(response.notes))


def _baselines(workspace: Workspace, root: Path, queries: Sequence[EvalQuery], settings: Settings,
               limit: int) -> list[Outcome]:
    modalities = [m for m in MODALITIES if m != "semantic" or settings.semantic_backend != "none"]
    outcomes = [_single(workspace, query, m, limit) for m in modalities for query in queries]
    systems: dict[str, Callable[[str, int], tuple[Ranked, ...]]] = {
        "bm25": BM25Baseline(workspace.snapshot().chunks()).search
    }
    if shutil.which("rg"):
        systems["ripgrep"] = RipgrepBaseline(root).search
    if shutil.which("ctags"):
        systems["ctags"] = CtagsBaseline(root).search
    outcomes.extend(_timed(query, name, run, limit) for name, run in systems.items() for query in queries)
    return outcomes


def semble_roots(root: Path, queries: Sequence[EvalQuery], repos_file: Path | None) -> dict[str | None, Corpus]:
    """Each semble repo's corpus: ROOT/<repo>/<benchmark_root> (from repos.json), else ROOT/<repo>."""
    benchmark_roots: dict[str, str] = {}
    if repos_file is not None and repos_file.is_file():
        data = json.loads(repos_file.read_text(encoding="utf-8"))
        benchmark_roots = {item["name"]: item.get("benchmark_root", ".") for item in data.get("repos", [])}
    repos = sorted({query.repo for query in queries if query.repo})
    corpora: dict[str | None, Corpus] = {}
    for repo in repos:
        inner = benchmark_roots.get(repo, ".").strip("/")
        prefix = "" if inner in ("", ".") else inner + "/"
        corpora[repo] = Corpus(root / repo / inner if prefix else root / repo, prefix)
    return corpora
