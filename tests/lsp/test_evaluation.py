"""Metric arithmetic on hand-computed cases, query-set parsing, the baselines, and one real run."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from fourfold.engine import Settings, Span, Workspace
from fourfold.engine.model.records import Chunk
from fourfold.engine.query.request import FEATURES, Ranking
from fourfold.lsp.evaluation import (
    BM25Baseline,
    Corpus,
    CtagsBaseline,
    EvalOptions,
    EvalQuery,
    Gold,
    Outcome,
    Ranked,
    _ablated,
    _fused,
    ablations,
    baseline_target,
    hits_gold,
    is_false_result,
    load_queries,
    merge_reports,
    parse_query,
    report_of,
    ripgrep,
    run_eval,
    score_query,
    semble_ndcg,
    semble_per_group,
    semble_roots,
    summarise,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def at(path: str, start: int, end: int | None = None, *matches: int) -> Ranked:
    """A result at 0-based lines start..end, with extra one-line matches."""
    return Ranked(path, Span(start, 0, start if end is None else end, 0), tuple(Span(m, 0, m, 0) for m in matches))


def query(gold: list[Gold], match: str = "any", answerable: bool = True, intent: str = "find_definition",
          semble: bool = False) -> EvalQuery:
    return EvalQuery("q", "text", intent, tuple(gold), match, answerable, None, semble)


@pytest.mark.parametrize(
    ("result", "gold", "expected"),
    [
        (at("a.py", 10, 20), Gold("a.py", 15), True),  # 1-based 15 = 0-based 14, inside
        (at("a.py", 10, 20), Gold("a.py", 11), True),  # first line
        (at("a.py", 10, 20), Gold("a.py", 22), False),  # 0-based 21, outside and start 11 away
        (at("a.py", 10, 10), Gold("a.py", 14), True),  # starts 3 lines before 0-based 13
        (at("a.py", 10, 10), Gold("a.py", 15), False),  # 4 lines away
        (at("a.py", 0, 1, 40), Gold("a.py", 41), True),  # a match range counts
        (at("b.py", 10, 20), Gold("a.py", 15), False),  # other file
        (at("a.py", 100, 200), Gold("a.py", None), True),  # file-level gold
    ],
)
def test_hit_rule(result: Ranked, gold: Gold, expected: bool) -> None:
    assert hits_gold(result, gold) is expected


def test_any_match_scores_first_hit_only() -> None:
    score = score_query(query([Gold("x.py"), Gold("y.py")]), [at("z.py", 0), at("y.py", 0), at("x.py", 0)])
    assert score.reciprocal_rank == 0.5
    assert score.recall == 1.0
    assert score.ndcg == pytest.approx(1 / math.log2(3))


def test_all_match_recall_counts_gold_locations_and_ndcg_gold_files() -> None:
    gold = [Gold("a.py", 5), Gold("a.py", 50), Gold("b.py", 1), Gold("c.py", 1)]
    ranked = [at("z.py", 0), at("a.py", 4, 4, 49), at("b.py", 0), at("a.py", 4)]
    score = score_query(query(gold, "all"), ranked)
    assert score.reciprocal_rank == 0.5
    assert score.recall == 0.75  # a.py:5, a.py:50 (a match), b.py:1; not c.py
    # gains at ranks 2 and 3 (rank 4 repeats a.py); ideal: 3 gold files at ranks 1..3
    expected = (1 / math.log2(3) + 1 / math.log2(4)) / (1 + 1 / math.log2(3) + 1 / math.log2(4))
    assert score.ndcg == pytest.approx(expected)


def test_nothing_found_scores_zero_and_cutoff_is_ten() -> None:
    ranked = [at(f"f{i}.py", 0) for i in range(10)] + [at("gold.py", 0)]
    score = score_query(query([Gold("gold.py")]), ranked)
    assert (score.reciprocal_rank, score.recall, score.ndcg, score.returned) == (0.0, 0.0, 0.0, True)
    assert score_query(query([Gold("gold.py")]), []).returned is False


def test_semble_ndcg_first_hit_per_target_and_ideal_over_targets() -> None:
    gold = [Gold("a.py"), Gold("b.py")]
    # a.py twice: the second gains nothing; b.py at rank 3
    value = semble_ndcg([at("a.py", 0), at("a.py", 9), at("b.py", 0)], gold)
    assert value == pytest.approx((1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)))
    assert semble_ndcg([at("b.py", 0), at("a.py", 0)], gold) == pytest.approx(1.0)
    assert semble_ndcg([at("c.py", 0), at("a.py", 0)], [Gold("a.py")]) == pytest.approx(1 / math.log2(3))


def test_semble_ndcg_line_targets_need_overlap() -> None:
    gold = [Gold("a.py", 10, 20)]  # 1-based inclusive
    assert semble_ndcg([at("a.py", 0, 8)], gold) == 0.0  # lines 1..9
    assert semble_ndcg([at("a.py", 0, 9)], gold) == 1.0  # lines 1..10 touch 10
    assert semble_ndcg([at("a.py", 20, 30)], gold) == 0.0  # lines 21..31


def test_semble_ideal_caps_at_ten_targets() -> None:
    gold = [Gold(f"{i}.py") for i in range(12)]
    assert semble_ndcg([at(f"{i}.py", 0) for i in range(10)], gold) == pytest.approx(1.0)


def test_parse_formats() -> None:
    ours = parse_query({"id": 1, "query": "def f", "intent": "find_definition",
                        "gold": [{"path": "a.py", "line": 3}], "match": "all"})
    assert (ours.gold, ours.match, ours.semble, ours.answerable) == ((Gold("a.py", 3),), "all", False, True)
    semble = parse_query({"id": "r-1", "repo": "r", "query": "ClientSession", "category": "symbol",
                          "gold": [{"path": "a.py", "start_line": None, "end_line": None, "kind": "relevant"},
                                   {"path": "b.py", "start_line": 3, "end_line": 9, "kind": "secondary"}]})
    assert semble.semble and semble.repo == "r" and semble.intent == "find_definition"
    assert semble.gold == (Gold("a.py"), Gold("b.py", 3, 9))
    with pytest.raises(ValueError, match="unknown intent"):
        parse_query({"id": 1, "query": "x", "intent": "guess", "gold": []})


def test_load_queries_names_the_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": 1, "query": "x", "gold": []}\n\n{"id": 2}\n')
    with pytest.raises(ValueError, match=":3:"):
        load_queries(path)


def test_summarise_rates_accuracy_and_latency() -> None:
    answerable = query([Gold("a.py")], intent="exact_match")
    unanswerable = query([], answerable=False, intent="exact_match")
    outcomes = [
        Outcome(answerable, "sys", (at("a.py", 0),), 1.0, "exact_match", "direct"),
        Outcome(answerable, "sys", (), 3.0, "find_definition", "rescued"),
        Outcome(unanswerable, "sys", (at("b.py", 0),), 5.0, "exact_match", "direct"),
        Outcome(unanswerable, "sys", (), 7.0, "exact_match", "rescued"),
    ]
    rows = summarise(outcomes)
    assert [(row.group, row.system) for row in rows] == [("exact_match", "sys"), ("overall", "sys")]
    row = rows[-1]
    assert row.mrr == 0.5 and row.zero_rate == 0.5 and row.false_rate == 0.5
    assert row.intent_accuracy == 0.75
    assert row.strategies == {"direct": 2, "rescued": 2}
    assert (row.p50_ms, row.p95_ms) == (3.0, 7.0)


@pytest.mark.parametrize(
    ("text", "target"),
    [('"connection refused"', "connection refused"), ("who calls load_settings", "load_settings"),
     ("how does the cache evict entries", "entries")],
)
def test_baseline_target(text: str, target: str) -> None:
    assert baseline_target(text) == target


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep not installed")
def test_ripgrep_ranks_files_by_match_count(tmp_path: Path) -> None:
    write(tmp_path, {"one.py": "token\n", "many.py": "x\ntoken\ntoken token\ntoken\n", "none.py": "nothing\n"})
    ranked = ripgrep(tmp_path, '"token"', 10)
    assert [r.path for r in ranked] == ["many.py", "one.py"]
    assert ranked[0].span.start_line == 1 and [m.start_line for m in ranked[0].matches] == [2, 3]


@pytest.mark.skipif(shutil.which("ctags") is None, reason="universal-ctags not installed")
def test_ctags_ranks_exact_names_before_partial(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": "def load_settings_cached():\n    pass\n", "b.py": "\n\ndef load_settings():\n    pass\n"})
    ranked = CtagsBaseline(tmp_path).search("where is load_settings defined", 10)
    assert [(r.path, r.span.start_line) for r in ranked] == [("b.py", 2), ("a.py", 0)]


def test_bm25_baseline_merges_chunks_per_file() -> None:
    chunks = [
        Chunk("a.py", Span(0, 0, 3, 0), "function", "warehouse_retry", "warehouse retry backoff", "1"),
        Chunk("a.py", Span(10, 0, 13, 0), "function", "warehouse_ping", "warehouse retry ping", "2"),
        Chunk("b.py", Span(0, 0, 3, 0), "function", "parse", "parse the config", "3"),
    ]
    ranked = BM25Baseline(chunks).search("warehouse retry", 10)
    assert [r.path for r in ranked] == ["a.py"]
    assert len(ranked[0].matches) == 1


def test_semble_roots_use_benchmark_root(tmp_path: Path) -> None:
    repos = tmp_path / "repos.json"
    repos.write_text(json.dumps({"repos": [{"name": "flask", "benchmark_root": "src/flask"}]}))
    queries = [EvalQuery("1", "x", None, (), repo="flask", semble=True),
               EvalQuery("2", "y", None, (), repo="other", semble=True)]
    assert semble_roots(tmp_path, queries, repos) == {"flask": Corpus(tmp_path / "flask/src/flask", "src/flask/"),
                                                      "other": Corpus(tmp_path / "other")}


def test_runner_on_polyglot_fixture(tmp_path: Path) -> None:
    queries = load_queries(FIXTURES / "queries" / "polyglot.jsonl")
    settings = Settings(index_dir=str(tmp_path / "index"), semantic_backend="none")
    corpora = {None: Corpus(FIXTURES / "polyglot")}
    report = run_eval(queries, corpora, settings, EvalOptions(("default",), baseline=True))
    groups = {row.group for row in report.rows}
    assert groups == {"find_definition", "find_references", "understand_code", "find_similar", "impact_analysis",
                      "exact_match", "overall"}
    assert {row.system for row in report.rows} >= {"fourfold default", "text", "structural", "graph", "bm25"}
    for row in report.rows:
        for value in (row.mrr, row.recall, row.ndcg, row.zero_rate, row.false_rate, row.intent_accuracy):
            assert value is None or 0.0 <= value <= 1.0
    fused = {o.query.id: o for o in report.outcomes if o.system == "fourfold default"}
    first = fused["def-load-settings"]
    assert first.ranked[0].path == "inventory/config.py"
    assert score_query(first.query, first.ranked).reciprocal_rank == 1.0
    assert report.missing_gold == [] and report.skipped == []
    assert report.to_dict()["queries"]


def test_runner_relabels_benchmark_root_and_reports_missing_gold(tmp_path: Path) -> None:
    write(tmp_path / "corpus" / "r", {"src/a.py": "def alpha():\n    return 1\n", "docs/x.md": "# alpha\n"})
    queries = [EvalQuery("r-1", "alpha", "find_definition", (Gold("src/a.py"), Gold("docs/x.md"), Gold("src/gone.py")),
                         "all", repo="r", semble=True),
               EvalQuery("s-1", "beta", "find_definition", (Gold("b.py"),), repo="s", semble=True)]
    roots = {"r": Corpus(tmp_path / "corpus" / "r" / "src", "src/"), "s": Corpus(tmp_path / "corpus" / "s")}
    report = run_eval(queries, roots, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"),
                      EvalOptions())
    assert report.missing_gold == ["r-1: docs/x.md", "r-1: src/gone.py"]
    assert report.skipped == ["s-1"]
    assert report.outcomes[0].ranked[0].path == "src/a.py"
    # one hit at rank 1 of three targets: 1 / (1 + 1/log2(3) + 1/log2(4))
    expected = 1 / (1 + 1 / math.log2(3) + 1 / math.log2(4))
    assert report.per_repo["fourfold default"]["r"] == pytest.approx(expected, abs=1e-4)


def test_ablations_name_every_variant_with_its_switches() -> None:
    variants = ablations()
    switched_features = [feature for feature in FEATURES if feature != "binary_vectors"]
    assert list(variants) == [
        "-semantic", "-text", "-structural", "-graph",
        *(f"-{feature}" for feature in switched_features),
        "float vectors", "k=40", "k=60",
    ]
    assert {"-definitions", "-path_terms", "-one_per_file", "-path_priors", "-centrality"} <= set(variants)
    for modality in ("semantic", "text", "structural", "graph"):
        assert variants[f"-{modality}"] == Ranking(without=frozenset({modality}))
    for feature in switched_features:
        switched = variants[f"-{feature}"]
        assert getattr(switched, feature) is False
        assert [f for f in FEATURES if not getattr(switched, f)] == [feature]  # only that one is off
        assert switched.k is None and switched.without == frozenset()
    assert variants["float vectors"] == Ranking(binary_vectors=False)
    assert variants["k=40"] == Ranking(k=40) and variants["k=60"] == Ranking(k=60)


def test_runner_with_ablations_names_each_variant_system(tmp_path: Path) -> None:
    queries = load_queries(FIXTURES / "queries" / "polyglot.jsonl")
    settings = Settings(index_dir=str(tmp_path / "index"), semantic_backend="none")
    report = run_eval(queries, {None: Corpus(FIXTURES / "polyglot")}, settings, EvalOptions(ablations=True))
    systems = list(dict.fromkeys(outcome.system for outcome in report.outcomes))
    assert systems == ["fourfold default"] + [f"fourfold default {name}" for name in ablations()]
    assert all(sum(o.system == system for o in report.outcomes) == len(queries) for system in systems)
    overall = {row.system for row in report.rows if row.group == "overall"}
    assert overall == set(systems)
    # without text, the literal queries of the fixture lose their answers
    lost = {o.query.id: o for o in report.outcomes if o.system == "fourfold default -text"}
    full = {o.query.id: o for o in report.outcomes if o.system == "fourfold default"}
    assert any(lost[key].ranked != full[key].ranked for key in full)


def test_ablations_leave_the_full_engine_in_force(tmp_path: Path) -> None:
    """An ablation travels in its requests: a search after the ablations answers as one before them."""
    workspace = Workspace(FIXTURES / "polyglot", Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"),
                          background=False)
    try:
        workspace.refresh()
        queries = load_queries(FIXTURES / "queries" / "polyglot.jsonl")[:2]
        before = [_fused(workspace, query, "default", 10) for query in queries]
        outcomes = _ablated(workspace, queries, EvalOptions(label="local"))
        after = [_fused(workspace, query, "default", 10) for query in queries]
    finally:
        workspace.close()
    assert {o.system for o in outcomes} == {f"fourfold default local {name}" for name in ablations()}
    assert [o.ranked for o in after] == [o.ranked for o in before]
    assert any(o.ranked != before[0].ranked for o in outcomes if o.query == queries[0])  # ablations did differ


def _semble(query_id: str, category: str, language: str, gold: str) -> EvalQuery:
    return EvalQuery(query_id, "q", None, (Gold(gold),), "all", semble=True, category=category, language=language)


def test_semble_per_group_means_by_category_and_language() -> None:
    first = _semble("1", "symbol", "python", "a.py")
    second = _semble("2", "symbol", "go", "b.go")
    third = _semble("3", "architecture", "python", "c.py")
    ours = EvalQuery("4", "q", "find_definition", (Gold("a.py"),), category=None)
    outcomes = [
        Outcome(first, "sys", (at("a.py", 0),), 1.0),  # 1.0
        Outcome(second, "sys", (at("x.go", 0), at("b.go", 0)), 1.0),  # 1 / log2(3)
        Outcome(third, "sys", (), 1.0),  # 0.0
        Outcome(first, "other", (), 1.0),
        Outcome(ours, "sys", (at("a.py", 0),), 1.0),  # not semble: in no group
    ]
    by_category = semble_per_group(outcomes, lambda q: q.category)
    assert by_category == {"sys": {"architecture": 0.0, "symbol": round((1.0 + 1 / math.log2(3)) / 2, 4)},
                           "other": {"symbol": 0.0}}
    by_language = semble_per_group(outcomes, lambda q: q.language)
    assert by_language["sys"] == {"go": round(1 / math.log2(3), 4), "python": 0.5}
    assert list(by_language["sys"]) == ["go", "python"]  # sorted


def test_merge_reports_concatenates_the_runs() -> None:
    semble = _semble("1", "symbol", "python", "a.py")
    one = report_of([Outcome(semble, "fourfold default none", (at("a.py", 0),), 1.0)], ["x: gone.py"], ["s"])
    two = report_of([Outcome(semble, "fourfold default local", (), 2.0)], ["x: gone.py", "y: lost.py"], [])
    assert merge_reports([one]) is one
    merged = merge_reports([one, two])
    assert merged.outcomes == one.outcomes + two.outcomes
    assert [(row.system, row.group) for row in merged.rows if row.group == "overall"] == [
        ("fourfold default none", "overall"), ("fourfold default local", "overall")]
    assert merged.missing_gold == ["x: gone.py", "y: lost.py"] and merged.skipped == ["s"]
    assert merged.per_category == {"fourfold default none": {"symbol": 1.0}, "fourfold default local": {"symbol": 0.0}}
    assert merged.per_language == {"fourfold default none": {"python": 1.0}, "fourfold default local": {"python": 0.0}}


def test_an_unanswerable_query_is_a_false_result_unless_every_result_says_it_is_a_guess() -> None:
    """Issue 14: a confident list for a name that does not exist is a failure; marked guesses are not."""
    unanswerable = query([], answerable=False, intent="find_definition")
    guess = Ranked("b.py", Span(0, 0, 0, 0), approximate=True)
    outcomes = [
        Outcome(unanswerable, "sys", (at("b.py", 0),), 1.0, "find_definition", "direct"),
        Outcome(unanswerable, "sys", (guess, guess), 1.0, "find_definition", "direct"),
        Outcome(unanswerable, "sys", (guess, at("c.py", 0)), 1.0, "find_definition", "direct"),
        Outcome(unanswerable, "sys", (), 1.0, "find_definition", "direct"),
    ]
    assert [is_false_result(o) for o in outcomes] == [True, False, True, False]
    assert summarise(outcomes)[-1].false_rate == 0.5


def test_unanswerable_rows_are_read_from_either_flag() -> None:
    assert parse_query({"id": "u", "query": "class Nope", "gold": [], "unanswerable": True}).answerable is False
    assert parse_query({"id": "u", "query": "class Nope", "gold": [], "answerable": False}).answerable is False
    assert parse_query({"id": "a", "query": "class Yes", "gold": [{"path": "a.py"}]}).answerable is True
