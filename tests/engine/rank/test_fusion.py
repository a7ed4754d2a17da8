"""Weighted RRF (DESIGN §4) on hand-computed cases: arithmetic, agreement, boost cap, demotion, dedup."""

from __future__ import annotations

import math

import pytest

from fourfold.engine.model.profiles import COPY_PRIOR, FILE_COHERENCE_CHUNKS, NAMED_FILE_SCALE
from fourfold.engine.model.records import Hit, Span
from fourfold.engine.rank.fusion import FusedResult, boost, family_root, fuse, is_demoted_path


def _hit(path: str, start: int, end: int, symbol: str | None = None, kind: str | None = None) -> Hit:
    return Hit(path, Span(start, 0, end, 0), 1.0, symbol, kind, f"{path}:{start}", "python")


def _flat(hit: Hit) -> float:
    return 0.0


def _approx(value: float) -> object:
    return pytest.approx(value, rel=1e-12, abs=0.0)


def test_boost_formula_and_cap() -> None:
    assert boost(0.0) == 1.0
    assert boost(-3.0) == 1.0  # nodes outside the graph never lose
    assert boost(math.e - 1) == _approx(1.3)  # 1 + 0.3 × ln(e)
    assert boost(1.0) == _approx(1.2079441541679836)  # 1 + 0.3 × ln 2 = 1 + 0.3 × 0.6931471805599453
    assert boost(math.exp(5 / 3) - 1) == _approx(1.5)  # exactly at the cap
    assert boost(1000.0) == 1.5
    assert boost(1e300) == 1.5


def test_weighted_rrf_arithmetic_and_agreement() -> None:
    parse_def = _hit("a.py", 10, 20, "parse", "function")
    parse_line = _hit("a.py", 12, 12, "parse")
    load_def = _hit("b.py", 1, 5, "load", "function")
    load_line = _hit("b.py", 3, 3, "load")
    other = _hit("c.py", 0, 3, "other", "function")
    ranked = {
        "structural": [parse_def, load_def],
        "text": [load_line, parse_line],
        "semantic": [other],
    }
    weights = {"semantic": 0.2, "text": 0.1, "structural": 0.6, "graph": 0.1}
    results = fuse(ranked, weights, 40, _flat)

    assert [r.path for r in results] == ["a.py", "b.py", "c.py"]
    a, b, c = results
    # a.py: structural rank 0 -> 0.6/41, text rank 1 -> 0.1/42
    assert a.contributions == {
        "structural": _approx(0.014634146341463415),
        "text": _approx(0.002380952380952381),
    }
    assert a.score == _approx(0.017015098722415795)
    assert a.ranks == {"structural": 0, "text": 1}
    # b.py: structural rank 1 -> 0.6/42, text rank 0 -> 0.1/41
    assert b.score == _approx(0.016724738675958187)
    assert b.ranks == {"structural": 1, "text": 0}
    # c.py: semantic rank 0 -> 0.2/41
    assert c.score == _approx(0.004878048780487805)
    assert c.contributions == {"semantic": _approx(0.004878048780487805)}


def test_the_hit_that_contributes_most_gives_span_and_the_others_become_matches() -> None:
    ranked = {
        "structural": [_hit("a.py", 10, 20, "parse", "function")],
        "text": [_hit("a.py", 12, 12, "parse")],
    }
    (result,) = fuse(ranked, {"structural": 0.6, "text": 0.1}, 40, _flat)
    assert result.span == Span(10, 0, 20, 0)
    assert result.kind == "function"
    assert result.symbol == "parse"
    assert result.snippet == "a.py:10"
    assert result.matches == [Span(12, 0, 12, 0)]


def test_a_hit_without_symbol_merges_into_the_symbol_whose_lines_it_overlaps() -> None:
    ranked = {
        "structural": [_hit("a.py", 10, 20, "parse"), _hit("a.py", 30, 40, "dump")],
        "text": [_hit("a.py", 15, 15)],
    }
    results = fuse(ranked, {"structural": 0.6, "text": 0.1}, 40, _flat)
    assert len(results) == 1
    # parse: 0.6/41 + 0.1/41 = 0.7/41; dump: 0.6/42 travels as a match of the same file.
    assert results[0].symbol == "parse"
    assert results[0].score == _approx(0.01707317073170732)
    assert results[0].ranks == {"structural": 0, "text": 0}
    assert results[0].matches == [Span(15, 0, 15, 0), Span(30, 0, 40, 0)]


def test_a_hit_without_symbol_prefers_the_narrowest_enclosing_symbol() -> None:
    ranked = {
        "structural": [_hit("a.py", 0, 50, "Session"), _hit("a.py", 10, 20, "Session.send")],
        "text": [_hit("a.py", 12, 12)],
    }
    (result,) = fuse(ranked, {"structural": 0.5, "text": 0.5}, 0, _flat)
    # Session: 0.5/1 = 0.5; Session.send: 0.5/2 + text 0.5/1 = 0.75.
    assert result.symbol == "Session.send"
    assert result.score == _approx(0.75)


def test_only_the_best_rank_of_a_modality_counts_within_one_result() -> None:
    ranked = {"text": [_hit("a.py", 3, 3, "f"), _hit("z.py", 1, 1, "g"), _hit("a.py", 5, 5, "f")]}
    results = fuse(ranked, {"text": 1.0}, 0, _flat)
    assert results[0].path == "a.py"
    assert results[0].score == _approx(1.0)  # 1/(0+0+1), not 1 + 1/3
    assert results[0].ranks == {"text": 0}
    assert results[0].matches == [Span(5, 0, 5, 0)]


def test_dedup_keeps_the_best_chunk_of_each_file() -> None:
    ranked = {
        "semantic": [_hit("a.py", 40, 50, "late"), _hit("b.py", 0, 9, "solo"), _hit("a.py", 1, 9, "early")],
    }
    results = fuse(ranked, {"semantic": 1.0}, 10, _flat)
    assert [(r.path, r.symbol) for r in results] == [("a.py", "late"), ("b.py", "solo")]
    assert results[0].score == _approx(0.09090909090909091)  # 1/11
    assert results[1].score == _approx(0.08333333333333333)  # 1/12
    assert results[0].matches == [Span(1, 0, 9, 0)]


def test_boost_multiplies_each_contribution_and_is_reported() -> None:
    hub = _hit("hub.py", 0, 9, "Hub")
    leaf = _hit("leaf.py", 0, 9, "leaf")
    centrality = {"Hub": math.e - 1, "leaf": 0.0}
    results = fuse({"semantic": [leaf, hub]}, {"semantic": 0.5}, 60, lambda h: centrality[h.symbol or ""])
    by_path = {r.path: r for r in results}
    assert by_path["hub.py"].boost == _approx(1.3)
    assert by_path["hub.py"].score == _approx(0.010483870967741936)  # 0.5/62 × 1.3
    assert by_path["leaf.py"].boost == 1.0
    assert by_path["leaf.py"].score == _approx(0.00819672131147541)  # 0.5/61
    assert [r.path for r in results] == ["hub.py", "leaf.py"]


def test_boost_cap_bounds_how_far_a_hub_can_climb() -> None:
    hub = _hit("hub.py", 0, 9, "Hub")
    leaf = _hit("leaf.py", 0, 9, "leaf")
    centrality = {"Hub": 1e9, "leaf": 0.0}
    # The leaf leads two lists, the hub trails in both; even an enormous centrality only gives 1.5.
    ranked = {"text": [leaf, hub], "structural": [leaf, hub]}
    results = fuse(ranked, {"text": 0.5, "structural": 0.5}, 0, lambda h: centrality[h.symbol or ""])
    assert [r.path for r in results] == ["leaf.py", "hub.py"]
    assert results[0].score == _approx(1.0)  # 0.5/1 + 0.5/1
    assert results[1].score == _approx(0.75)  # (0.5/2 + 0.5/2) × 1.5
    assert results[1].boost == 1.5


def test_demotion_halves_vendor_scores() -> None:
    ranked = {"text": [_hit("vendor/lib.py", 0, 1, "f"), _hit("src/app.py", 0, 1, "g")]}
    results = fuse(ranked, {"text": 0.9}, 40, _flat)
    assert [r.path for r in results] == ["src/app.py", "vendor/lib.py"]
    assert results[0].score == _approx(0.02142857142857143)  # 0.9/42
    assert not results[0].demoted
    assert results[1].score == _approx(0.010975609756097561)  # 0.9/41 × 0.5
    assert results[1].demoted
    # contributions stay undemoted so the explanation shows what the retrievers said
    assert results[1].contributions == {"text": _approx(0.02195121951219512)}


def test_demotion_factor_and_predicate_are_configurable() -> None:
    ranked = {"text": [_hit("gen/x.py", 0, 1, "f")]}
    (result,) = fuse(
        ranked, {"text": 1.0}, 0, _flat, demote_factor=0.25, is_demoted=lambda p: p.startswith("gen/")
    )
    assert result.demoted
    assert result.score == _approx(0.25)


def test_modalities_without_weight_contribute_nothing_but_report_their_rank() -> None:
    ranked = {"text": [_hit("a.py", 0, 1, "f")], "graph": [_hit("a.py", 0, 1, "f")]}
    (result,) = fuse(ranked, {"text": 1.0}, 0, _flat)
    assert result.contributions == {"text": 1.0, "graph": 0.0}
    assert result.ranks == {"text": 0, "graph": 0}


def test_ties_are_broken_by_path_then_position_whatever_the_input_order() -> None:
    first = {"text": [_hit("b.py", 0, 1, "f")], "structural": [_hit("a.py", 0, 1, "g")]}
    second = {"structural": [_hit("a.py", 0, 1, "g")], "text": [_hit("b.py", 0, 1, "f")]}
    weights = {"text": 0.5, "structural": 0.5}
    assert [r.path for r in fuse(first, weights, 40, _flat)] == ["a.py", "b.py"]
    assert fuse(first, weights, 40, _flat) == fuse(second, weights, 40, _flat)


def test_hits_in_different_files_never_merge() -> None:
    ranked = {"text": [_hit("a.py", 0, 9, "f")], "structural": [_hit("b.py", 0, 9, "f")]}
    assert len(fuse(ranked, {"text": 0.5, "structural": 0.5}, 40, _flat)) == 2


def test_empty_input_gives_no_results() -> None:
    assert fuse({}, {"text": 1.0}, 40, _flat) == []
    assert fuse({"text": []}, {"text": 1.0}, 40, _flat) == []


def test_bad_k_and_weights_are_rejected() -> None:
    with pytest.raises(ValueError, match="k"):
        fuse({}, {}, -1, _flat)
    with pytest.raises(ValueError, match="text"):
        fuse({}, {"text": -0.1}, 40, _flat)


def test_result_is_a_record_with_the_protocol_fields() -> None:
    (result,) = fuse({"text": [_hit("a.py", 0, 1, "f", "function")]}, {"text": 1.0}, 0, _flat)
    assert result == FusedResult(
        path="a.py",
        span=Span(0, 0, 1, 0),
        symbol="f",
        kind="function",
        language="python",
        snippet="a.py:0",
        score=1.0,
        contributions={"text": 1.0},
        ranks={"text": 0},
        boost=1.0,
        demoted=False,
        matches=[],
    )


@pytest.mark.parametrize(
    ("path", "demoted"),
    [
        ("vendor/lib/x.py", True),
        ("web/node_modules/react/index.js", True),
        ("third_party/zlib/inflate.c", True),
        ("build/lib/fourfold/x.py", True),
        ("dist/bundle.js", True),
        ("out/main.js", True),
        ("target/debug/build.rs", True),
        ("docs/archive/old.md", True),
        ("static/js/app.min.js", True),
        ("proto/api_pb2.py", True),
        ("api/service.pb.go", True),
        ("client/api.generated.ts", True),
        ("pkg/apis/zz_generated.deepcopy.go", True),
        ("Vendor\\lib\\x.cs", True),
        ("src/app.py", False),
        ("src/build.py", False),
        ("django/core/management/commands/runserver.py", False),
        ("src/distribution/target_store.py", False),
        ("src/minify.js", False),
    ],
)
def test_is_demoted_path(path: str, demoted: bool) -> None:
    assert is_demoted_path(path) is demoted


def test_names_double_a_definition_cluster_and_lift_it_above_a_better_hit() -> None:
    usage = _hit("app/pipeline.py", 0, 9, "run", "function")
    definition = _hit("text/lexing.py", 3, 9, "text.Tokenizer", "class")
    ranked = {"text": [usage, definition]}
    plain = fuse(ranked, {"text": 1.0}, 10, _flat)
    assert [r.path for r in plain] == ["app/pipeline.py", "text/lexing.py"]
    named = fuse(ranked, {"text": 1.0}, 10, _flat, names=frozenset({"Tokenizer"}))
    assert [r.path for r in named] == ["text/lexing.py", "app/pipeline.py"]
    assert named[0].boost == 1.0 and named[0].defines  # `boost` stays the centrality boost alone
    assert named[0].score == _approx(2.0 / 12)  # 1/(10 + 1 + 1), doubled
    assert named[0].contributions == {"text": _approx(2.0 / 12)}
    assert named[1].boost == 1.0 and not named[1].defines and named[1].score == _approx(1.0 / 11)


def test_names_boost_only_definitions_and_multiply_the_centrality_boost() -> None:
    field_hit = _hit("a.py", 0, 1, "Config.Tokenizer", "field")  # a field named like it is not its definition
    definition = _hit("b.py", 0, 1, "Tokenizer", "class")
    centrality = {"Config.Tokenizer": 0.0, "Tokenizer": math.e - 1}
    results = fuse({"structural": [field_hit, definition]}, {"structural": 1.0}, 0,
                   lambda h: centrality[h.symbol or ""], names=frozenset({"Tokenizer"}))
    by_path = {r.path: r for r in results}
    assert by_path["a.py"].boost == 1.0 and not by_path["a.py"].defines
    assert by_path["b.py"].boost == _approx(1.3) and by_path["b.py"].defines
    assert by_path["b.py"].score == _approx(1.3 * 2.0 / 2)


def test_prior_multiplies_a_files_score_and_changes_the_order() -> None:
    ranked = {"text": [_hit("tests/test_retry.py", 0, 9, "test_retry", "function"),
                       _hit("pkg/retry.py", 0, 9, "retry", "function")]}
    assert [r.path for r in fuse(ranked, {"text": 1.0}, 10, _flat)] == ["tests/test_retry.py", "pkg/retry.py"]
    results = fuse(ranked, {"text": 1.0}, 10, _flat, prior=lambda path: 0.3 if path.startswith("tests/") else 1.0)
    assert [r.path for r in results] == ["pkg/retry.py", "tests/test_retry.py"]
    assert results[0].score == _approx(1.0 / 12)
    assert results[1].score == _approx(0.3 / 11)
    assert results[1].contributions == {"text": _approx(1.0 / 11)}  # the explanation keeps what the retriever said
    assert not results[1].demoted


def test_symbol_prior_lowers_an_inline_test_module_below_the_code_of_its_own_file() -> None:
    ranked = {"text": [_hit("src/path.rs", 800, 820, "tests.two_path_extractors", "function"),
                       _hit("src/path.rs", 10, 40, "Path.from_request", "method")]}
    plain = fuse(ranked, {"text": 1.0}, 10, _flat)
    assert [r.symbol for r in plain] == ["tests.two_path_extractors"]
    lowered = fuse(ranked, {"text": 1.0}, 10, _flat,
                   symbol_prior=lambda symbol: 0.3 if (symbol or "").startswith("tests.") else 1.0)
    assert [r.symbol for r in lowered] == ["Path.from_request"]
    assert lowered[0].score == _approx(1.0 / 12)


def test_prior_and_demotion_multiply() -> None:
    ranked = {"text": [_hit("vendor/tests/x.py", 0, 1, "f")]}
    (result,) = fuse(ranked, {"text": 1.0}, 0, _flat, prior=lambda path: 0.3)
    assert result.demoted
    assert result.score == _approx(0.5 * 0.3)


def test_one_per_file_off_lists_each_cluster_of_a_file() -> None:
    ranked = {"text": [_hit("a.py", 0, 5, "first", "function"), _hit("b.py", 0, 5, "other", "function"),
                       _hit("a.py", 10, 15, "second", "function")]}
    spread = fuse(ranked, {"text": 1.0}, 0, _flat, one_per_file=False)
    assert [(r.path, r.symbol) for r in spread] == [("a.py", "first"), ("b.py", "other"), ("a.py", "second")]
    assert [r.score for r in spread] == [_approx(1.0), _approx(0.5), _approx(1 / 3)]
    assert all(r.matches == [] for r in spread)
    merged = fuse(ranked, {"text": 1.0}, 0, _flat, one_per_file=True)
    assert [(r.path, r.symbol) for r in merged] == [("a.py", "first"), ("b.py", "other")]
    assert merged[0].matches == [Span(10, 0, 15, 0)]
    assert merged[0].score == _approx(1.0)


# --- file coherence ------------------------------------------------------------------------------
# With k = 10 and one modality of weight 1, rank r scores 1/(11 + r).


def _chunks(path: str, count: int, start: int = 0) -> list[Hit]:
    """`count` separate functions of `path` (one cluster each)."""
    return [_hit(path, 10 * i, 10 * i + 5, f"f{i}", "function") for i in range(start, start + count)]


def test_profile_numbers_these_tests_rely_on() -> None:
    assert FILE_COHERENCE_CHUNKS == 3


def test_coherence_adds_its_share_of_the_next_three_chunks() -> None:
    (result,) = fuse({"text": _chunks("a.py", 6)}, {"text": 1.0}, 10, _flat, coherence=0.1)
    added = 0.1 * (1 / 12 + 1 / 13 + 1 / 14)  # ranks 1-3; ranks 4 and 5 are beyond the three that count
    assert result.coherence == _approx(added)
    assert result.score == _approx(1 / 11 + added)
    assert result.contributions == {"text": _approx(1 / 11)}  # the best chunk's own contributions are untouched
    assert result.symbol == "f0"
    assert len(result.matches) == 5


def test_coherence_counts_at_most_three_chunks() -> None:
    four = fuse({"text": _chunks("a.py", 4)}, {"text": 1.0}, 10, _flat, coherence=0.1)[0]
    five = fuse({"text": _chunks("a.py", 5)}, {"text": 1.0}, 10, _flat, coherence=0.1)[0]
    assert four.coherence == _approx(0.1 * (1 / 12 + 1 / 13 + 1 / 14))
    assert five.coherence == four.coherence


def test_coherence_counts_a_files_weaker_chunks_too() -> None:
    # a.py at ranks 0 and 5, b.py in between: a.py's rank-5 chunk still adds its share
    hits = _chunks("a.py", 1) + _chunks("b.py", 4) + _chunks("a.py", 1, start=1)
    by_path = {r.path: r for r in fuse({"text": hits}, {"text": 1.0}, 10, _flat, coherence=0.1)}
    assert by_path["a.py"].coherence == _approx(0.1 / 16)
    assert by_path["a.py"].score == _approx(1 / 11 + 0.1 / 16)
    assert by_path["b.py"].coherence == _approx(0.1 * (1 / 13 + 1 / 14 + 1 / 15))


def test_coherence_never_takes_other_files_chunks() -> None:
    hits = _chunks("a.py", 1) + _chunks("b.py", 1) + _chunks("c.py", 1)
    results = fuse({"text": hits}, {"text": 1.0}, 10, _flat, coherence=0.1)
    assert [r.coherence for r in results] == [0.0, 0.0, 0.0]


def test_coherence_zero_adds_nothing() -> None:
    default = fuse({"text": _chunks("a.py", 4)}, {"text": 1.0}, 10, _flat)[0]
    zero = fuse({"text": _chunks("a.py", 4)}, {"text": 1.0}, 10, _flat, coherence=0.0)[0]
    assert default == zero
    assert zero.coherence == 0.0
    assert zero.score == _approx(1 / 11)


def test_coherence_lets_a_file_about_the_topic_overtake_one_good_chunk() -> None:
    # lone.py holds rank 0; topic.py ranks 1-3: 1/12 + 0.5 × (1/13 + 1/14) = 0.1574 > 1/11
    hits = _chunks("lone.py", 1) + _chunks("topic.py", 3)
    assert [r.path for r in fuse({"text": hits}, {"text": 1.0}, 10, _flat)] == ["lone.py", "topic.py"]
    results = fuse({"text": hits}, {"text": 1.0}, 10, _flat, coherence=0.5)
    assert [r.path for r in results] == ["topic.py", "lone.py"]
    assert results[0].score == _approx(1 / 12 + 0.5 * (1 / 13 + 1 / 14))


def test_coherence_counts_the_other_chunks_boosted_totals() -> None:
    best = _hit("a.py", 0, 5, "best", "function")
    hub = _hit("a.py", 10, 15, "Hub", "function")
    centrality = {"best": 0.0, "Hub": math.e - 1}  # boost 1.3
    (result,) = fuse({"text": [best, hub]}, {"text": 1.0}, 10, lambda h: centrality[h.symbol or ""], coherence=0.1)
    # best 1/11; Hub 1.3/12 = 0.1083 is the better cluster, so it leads and best adds its share
    assert result.symbol == "Hub"
    assert result.coherence == _approx(0.1 / 11)
    assert result.score == _approx(1.3 / 12 + 0.1 / 11)


def test_one_cluster_per_result_has_no_coherence() -> None:
    spread = fuse({"text": _chunks("a.py", 4)}, {"text": 1.0}, 10, _flat, one_per_file=False, coherence=0.1)
    assert len(spread) == 4
    assert all(r.coherence == 0.0 for r in spread)
    assert [r.score for r in spread] == [_approx(1 / 11), _approx(1 / 12), _approx(1 / 13), _approx(1 / 14)]


def test_score_is_contributions_plus_coherence_times_prior_and_demotion() -> None:
    hits = _chunks("vendor/a.py", 3) + _chunks("src/b.py", 2)
    results = fuse({"text": hits}, {"text": 1.0}, 10, _flat, coherence=0.2,
                   prior=lambda path: 0.3 if path.startswith("vendor/") else 1.5)
    by_path = {r.path: r for r in results}
    vendored, plain = by_path["vendor/a.py"], by_path["src/b.py"]
    assert vendored.demoted and vendored.prior == 0.3
    assert vendored.coherence == _approx(0.2 * (1 / 12 + 1 / 13))
    assert vendored.score == _approx((1 / 11 + 0.2 * (1 / 12 + 1 / 13)) * 0.3 * 0.5)
    assert not plain.demoted and plain.prior == 1.5
    assert plain.score == _approx((1 / 14 + 0.2 / 15) * 1.5)
    for result in results:
        factor = 0.5 if result.demoted else 1.0
        assert result.score == _approx((sum(result.contributions.values()) + result.coherence) * result.prior * factor)


# --- file-level agreement (issue 14: hub files) ----------------------------------------------------
# k = 10, two modalities of weight 1: rank r scores 1/(11 + r) in each.


def _hub_and_leaf() -> dict[str, list[Hit]]:
    """hub.py is first in both lists, at two different chunks; leaf.py's one function is fourth in both
    (between them, files that one retriever finds)."""
    dispatch, docstring = _hit("hub.py", 0, 5, "dispatch", "function"), _hit("hub.py", 40, 45, "Hub", "class")
    seen, read = ([_hit(f"{m}{i}.py", 0, 5, f"g{i}", "function") for i in range(3)] for m in ("s", "t"))
    leaf = _hit("leaf.py", 0, 5, "handle", "function")
    return {"semantic": [dispatch, *seen, leaf], "text": [docstring, *read, leaf]}


def test_chunk_level_fusion_prefers_the_leaf_both_find_at_one_chunk() -> None:
    by_path = {r.path: r for r in fuse(_hub_and_leaf(), {"semantic": 1.0, "text": 1.0}, 10, _flat)}
    assert by_path["leaf.py"].score == _approx(2 / 15)  # both agree on its one function
    assert by_path["hub.py"].score == _approx(1 / 11)  # the better of two chunks, each found by one retriever
    assert by_path["leaf.py"].score > by_path["hub.py"].score


def test_agreement_adds_the_files_own_rrf_over_all_its_chunks() -> None:
    results = fuse(_hub_and_leaf(), {"semantic": 1.0, "text": 1.0}, 10, _flat, agreement=1.0)
    by_path = {r.path: r for r in results}
    hub, leaf = by_path["hub.py"], by_path["leaf.py"]
    assert hub.coherence == _approx(2 / 11)  # rank 0 in both lists, as a file
    assert hub.score == _approx(1 / 11 + 2 / 11)
    assert hub.contributions == {"semantic": _approx(1 / 11)}  # its best chunk's own contributions are untouched
    assert leaf.coherence == _approx(2 / 15)
    assert leaf.score == _approx(2 / 15 + 2 / 15)
    assert results[0].path == "hub.py"
    for result in results:
        assert result.score == _approx(sum(result.contributions.values()) + result.coherence)


def test_agreement_scales_with_its_share_and_sums_with_coherence() -> None:
    half = {r.path: r for r in fuse(_hub_and_leaf(), {"semantic": 1.0, "text": 1.0}, 10, _flat,
                                    agreement=0.5, coherence=0.1)}
    assert half["hub.py"].coherence == _approx(0.5 * 2 / 11 + 0.1 / 11)  # its second chunk (text rank 0) adds 0.1 of it
    assert half["leaf.py"].coherence == _approx(0.5 * 2 / 15)


def test_agreement_uses_the_weights_and_never_other_files_ranks() -> None:
    ranked = {"semantic": [_hit("a.py", 0, 5, "f", "function")], "text": [_hit("b.py", 0, 5, "g", "function")]}
    by_path = {r.path: r for r in fuse(ranked, {"semantic": 0.5, "text": 0.2}, 10, _flat, agreement=1.0)}
    assert by_path["a.py"].coherence == _approx(0.5 / 11)
    assert by_path["b.py"].coherence == _approx(0.2 / 11)


def test_agreement_zero_is_plain_chunk_level_fusion() -> None:
    default = fuse(_hub_and_leaf(), {"semantic": 1.0, "text": 1.0}, 10, _flat)
    assert fuse(_hub_and_leaf(), {"semantic": 1.0, "text": 1.0}, 10, _flat, agreement=0.0) == default
    assert all(r.coherence == 0.0 for r in default)


def test_a_definition_sets_defines_and_doubles_its_contributions_not_boost() -> None:
    definition = _hit("a.py", 0, 5, "Tokenizer", "class")
    (result,) = fuse({"text": [definition]}, {"text": 1.0}, 0, _flat, names=frozenset({"Tokenizer"}), coherence=0.1)
    assert result.defines and result.boost == 1.0 and result.prior == 1.0 and result.coherence == 0.0
    assert result.score == _approx(2.0)


def test_a_definition_result_is_shown_at_its_head_not_at_a_window_of_its_body() -> None:
    body = _hit("core/Axios.js", 230, 240, "Axios", "gap")  # a window of the class body, ranked first
    head = _hit("core/Axios.js", 14, 21, "Axios", "definition")  # the chunk that opens the class
    (result,) = fuse({"semantic": [body], "text": [head]}, {"semantic": 0.5, "text": 0.2}, 40, _flat)
    assert result.span == head.span
    assert result.matches == [body.span]
    (loose,) = fuse({"semantic": [_hit("a.js", 230, 240, None, "gap"), _hit("a.js", 235, 236, None, "gap")]},
                    {"semantic": 1.0}, 40, _flat)
    assert loose.span == Span(230, 0, 240, 0)  # no definition in the cluster: the best hit stands


def _line_level_hits(function_rank: int) -> dict[str, list[Hit]]:
    head = Hit("big.py", Span(0, 0, 12, 0), 1.0, None, "gap")
    method = Hit("big.py", Span(480, 0, 530, 0), 1.0, "Engine.run", "method")
    others = [Hit(f"other{i}.py", Span(0, 0, 1, 0), 1.0) for i in range(function_rank - 1)]
    return {"text": [head, *others, method]}


def test_an_understanding_answer_is_shown_at_its_function_not_the_file_head() -> None:
    """Issue 14: the function inside a large file is the result's range, with the same score."""
    ranked = _line_level_hits(function_rank=1)
    flat = fuse(ranked, {"text": 1.0}, 40, lambda hit: 0.0)
    shown = fuse(ranked, {"text": 1.0}, 40, lambda hit: 0.0, line_level=True)
    assert flat[0].span == Span(0, 0, 12, 0)
    assert (shown[0].span, shown[0].symbol) == (Span(480, 0, 530, 0), "Engine.run")
    assert Span(0, 0, 12, 0) in shown[0].matches
    assert shown[0].score == flat[0].score


def test_a_weak_function_does_not_replace_the_file_head() -> None:
    ranked = _line_level_hits(function_rank=60)  # 1/(k+61) is under half of 1/(k+1)
    shown = fuse(ranked, {"text": 1.0}, 40, lambda hit: 0.0, line_level=True)
    assert next(r for r in shown if r.path == "big.py").span == Span(0, 0, 12, 0)


def test_of_several_definitions_the_one_in_the_file_named_after_it_leads() -> None:
    """Swift extensions and C# partial classes define the name in many files; its home file is one."""
    extension = _hit("Sources/Application+HTTP.swift", 0, 9, "Application", "class")
    home = _hit("Sources/Application.swift", 0, 9, "Application", "class")
    named = fuse({"text": [extension, home]}, {"text": 1.0}, 10, _flat, names=frozenset({"Application"}))
    assert [r.path for r in named] == ["Sources/Application.swift", "Sources/Application+HTTP.swift"]
    assert named[0].score == _approx(2.0 * NAMED_FILE_SCALE / 12)


def test_a_generic_name_lifts_only_its_definition_in_the_file_named_after_it() -> None:
    """`Dapper`, the namespace every file opens, names none of them; `Dapper.cs` would be its home."""
    namespace = _hit("src/SqlMapper.Cache.cs", 0, 9, "Dapper", "namespace")
    home = _hit("src/Dapper.cs", 0, 9, "Dapper", "namespace")
    fused = fuse({"text": [namespace, home]}, {"text": 1.0}, 10, _flat, names=frozenset({"Dapper"}),
                 generic=frozenset({"Dapper"}))
    assert {r.path: r.defines for r in fused} == {"src/SqlMapper.Cache.cs": False, "src/Dapper.cs": True}
    assert fused[0].path == "src/Dapper.cs"


# --- file families (issue 14: a class split into parts) ------------------------------------------


@pytest.mark.parametrize(
    ("path", "root"),
    [
        ("Dapper/SqlMapper.Async.cs", "Dapper/SqlMapper.cs"),  # a C# partial class
        ("Dapper/SqlMapper.GridReader.Async.cs", "Dapper/SqlMapper.cs"),
        ("Sources/Vapor/Routing/RoutesBuilder+WebSocket.swift", "Sources/Vapor/Routing/RoutesBuilder.swift"),
        ("Dapper/SqlMapper.cs", None),
        (".eslintrc.js", None),
        ("src/schemas.test.ts", "src/schemas.ts"),  # named as a part; fusion leaves it out by its prior
    ],
)
def test_family_root(path: str, root: str | None) -> None:
    assert family_root(path) == root


def _partial_class() -> dict[str, list[Hit]]:
    """SqlMapper.cs is found at one method by each retriever, deep (ranks 5 and 6); its parts first, each
    at its one class; DefaultTypeMap.cs at two classes, second in one list and sixth in the other."""
    root_a, root_b = _hit("SqlMapper.cs", 100, 120, "SqlMapper.Query", "method"), _hit("SqlMapper.cs", 300, 320,
                                                                                        "SqlMapper.Read", "method")
    async_part = _hit("SqlMapper.Async.cs", 0, 40, "SqlMapper.QueryAsync", "method")
    reader_part = _hit("SqlMapper.GridReader.cs", 0, 40, "SqlMapper.GridReader", "class")
    leaf_a = _hit("DefaultTypeMap.cs", 0, 40, "DefaultTypeMap", "class")
    leaf_b = _hit("DefaultTypeMap.cs", 50, 90, "DefaultTypeMap.Member", "class")
    filler = [_hit(f"F{i}.cs", 0, 5, f"F{i}", "class") for i in range(7)]
    return {"semantic": [async_part, leaf_a, *filler[:3], root_a],
            "text": [reader_part, *filler[3:], leaf_b, root_b]}


def test_a_root_file_counts_its_parts_ranks_in_its_agreement() -> None:
    weights = {"semantic": 1.0, "text": 1.0}
    alone = {r.path: r for r in fuse(_partial_class(), weights, 10, _flat, agreement=1.0)}
    pooled = {r.path: r for r in fuse(_partial_class(), weights, 10, _flat, agreement=1.0, families=True)}
    assert alone["SqlMapper.cs"].coherence == _approx(1 / 16 + 1 / 17)  # its own best ranks: 5 and 6
    assert pooled["SqlMapper.cs"].coherence == _approx(2 / 11)  # its parts' ranks: 0 and 0
    assert alone["SqlMapper.cs"].score < alone["DefaultTypeMap.cs"].score < pooled["SqlMapper.cs"].score
    for path in ("SqlMapper.Async.cs", "SqlMapper.GridReader.cs", "DefaultTypeMap.cs"):
        assert pooled[path] == alone[path]  # a part keeps its own place; only the root gains
    assert fuse(_partial_class(), weights, 10, _flat, families=True) == fuse(_partial_class(), weights, 10, _flat)


def test_a_part_its_path_lowers_is_no_part_of_the_root() -> None:
    ranked = {"semantic": [_hit("src/schemas.test.ts", 0, 5, "t", "function"),
                           _hit("src/schemas.ts", 0, 5, "s", "function")]}
    prior = {"src/schemas.test.ts": 0.3, "src/schemas.ts": 1.0}.__getitem__
    alone = {r.path: r for r in fuse(ranked, {"semantic": 1.0}, 10, _flat, agreement=1.0, prior=prior)}
    pooled = {r.path: r for r in fuse(ranked, {"semantic": 1.0}, 10, _flat, agreement=1.0, prior=prior, families=True)}
    assert pooled == alone


# --- copies on one page -------------------------------------------------------------------------


def _copies_ranked() -> dict[str, list[Hit]]:
    """fields.py first, its legacy copy v1/fields.py second, validators.py (the other answer) third."""
    return {"semantic": [_hit("fields.py", 0, 5, "Field", "class"), _hit("v1/fields.py", 0, 5, "Field", "class"),
                         _hit("validators.py", 0, 5, "validator", "function")]}


NAMES = {"fields.py": frozenset({"Field", "FieldInfo", "ModelField", "populate"}),
         "v1/fields.py": frozenset({"Field", "FieldInfo", "ModelField", "prepare"}),  # 3 of 5 names shared
         "validators.py": frozenset({"validator", "Field", "check"})}


def test_a_copy_of_a_file_listed_above_it_is_lowered() -> None:
    plain = fuse(_copies_ranked(), {"semantic": 1.0}, 10, _flat)
    spread = fuse(_copies_ranked(), {"semantic": 1.0}, 10, _flat, copies=lambda path: NAMES.get(path, frozenset()))
    assert [r.path for r in plain] == ["fields.py", "v1/fields.py", "validators.py"]
    assert [r.path for r in spread] == ["fields.py", "validators.py", "v1/fields.py"]
    by_path = {r.path: r for r in spread}
    assert by_path["v1/fields.py"].prior == _approx(COPY_PRIOR)
    assert by_path["v1/fields.py"].score == _approx(COPY_PRIOR / 12)
    assert by_path["validators.py"].prior == 1.0  # shares one name of six: no copy
    for result in spread:
        assert result.score == _approx((sum(result.contributions.values()) + result.coherence) * result.prior)


def test_a_file_with_too_few_definitions_is_no_copy() -> None:
    few = {"fields.py": frozenset({"Field", "x"}), "v1/fields.py": frozenset({"Field", "x"})}
    spread = fuse(_copies_ranked(), {"semantic": 1.0}, 10, _flat, copies=lambda path: few.get(path, frozenset()))
    assert spread == fuse(_copies_ranked(), {"semantic": 1.0}, 10, _flat)


# A flavour of a module in a twin folder (zod's `v4/classic/` and `v4/mini/`): the smaller file repeats most of
# the bigger one's names, yet under half of both files' names together.
TWINS = {"classic/schemas.ts": frozenset({"string", "number", "union", "ZodString", "ZodNumber", "ZodUnion"}),
         "mini/schemas.ts": frozenset({"string", "number", "union", "ZodMiniString"}),  # 3 of its 4, 3 of 7 in all
         "core/api.ts": frozenset({"_string", "_number", "_union"})}


def _twins_ranked() -> dict[str, list[Hit]]:
    return {"semantic": [_hit("classic/schemas.ts", 0, 5, "string", "function"),
                         _hit("mini/schemas.ts", 0, 5, "string", "function"),
                         _hit("core/api.ts", 0, 5, "_string", "function")]}


def _is_twin(path: str, other: str) -> bool:
    return {path, other} == {"classic/schemas.ts", "mini/schemas.ts"}


def test_a_file_repeating_most_names_of_its_twin_above_it_is_a_copy() -> None:
    def names(path: str) -> frozenset[str]:
        return TWINS.get(path, frozenset())

    plain = fuse(_twins_ranked(), {"semantic": 1.0}, 10, _flat, copies=names)
    twinned = fuse(_twins_ranked(), {"semantic": 1.0}, 10, _flat, copies=names, twin=_is_twin)
    assert [r.path for r in plain] == ["classic/schemas.ts", "mini/schemas.ts", "core/api.ts"]  # Jaccard 3/7
    assert [r.path for r in twinned] == ["classic/schemas.ts", "core/api.ts", "mini/schemas.ts"]
    assert {r.path: r.prior for r in twinned}["mini/schemas.ts"] == _approx(COPY_PRIOR)
    unrelated = fuse(_twins_ranked(), {"semantic": 1.0}, 10, _flat, copies=names, twin=lambda path, other: False)
    assert unrelated == plain  # the same share of names outside a twin folder is no copy
    fewer = {**TWINS, "mini/schemas.ts": frozenset({"string", "ZodMiniString", "ZodMiniNumber", "ZodMiniUnion"})}
    apart = fuse(_twins_ranked(), {"semantic": 1.0}, 10, _flat, copies=lambda path: fewer.get(path, frozenset()),
                 twin=_is_twin)
    assert [r.path for r in apart] == [r.path for r in plain]  # one name of four in the twin: no copy
