"""DESIGN §4 routing: direct versus fused, presets, semantic off, pinned modes and the rescue."""

from __future__ import annotations

import pytest

from fourfold.engine.query.intent import Classification, classify, pin
from fourfold.engine.rank.routing import Route, dominant_modality, plan_route, rescue_route


def _verdict(intent: str, confidence: float) -> Classification:
    return Classification(intent, confidence, "test", None)


@pytest.mark.parametrize(
    ("query", "modality", "weight"),
    [
        ("class Session", "structural", 0.6),
        ("where is parseConfig defined", "structural", 0.6),
        ("who calls load_settings", "graph", 0.5),
        ("what depends on Session.send", "graph", 0.7),
        ('"connection refused"', "text", 0.9),
        ("ECONNREFUSED", "text", 0.9),
    ],
)
def test_default_goes_direct_at_high_confidence(query: str, modality: str, weight: float) -> None:
    route = plan_route(classify(query), "default", None, semantic_available=True)
    assert route == Route("direct", (modality,), {modality: weight}, 40, "default")
    assert not route.fused


def test_direct_threshold_is_inclusive_at_085() -> None:
    assert plan_route(_verdict("exact_match", 0.85), "default", None, True).strategy == "direct"
    assert plan_route(_verdict("exact_match", 0.84), "default", None, True) == Route(
        "rrf", ("text", "structural"), {"text": 0.9, "structural": 0.1}, 40, "default"
    )


@pytest.mark.parametrize(
    ("query", "weights"),
    [
        ("parseConfig", {"semantic": 0.2, "text": 0.1, "structural": 0.6}),
        ("how does retry work", {"semantic": 0.5, "text": 0.2, "structural": 0.2}),
        ("similar to retry", {"semantic": 0.4, "text": 0.3, "structural": 0.2}),
        ("retry logic", {"semantic": 0.5, "text": 0.2, "structural": 0.2}),
    ],
)
def test_default_fuses_its_three_modalities_below_the_threshold(
    query: str, weights: dict[str, float]
) -> None:
    route = plan_route(classify(query), "default", None, semantic_available=True)
    assert route == Route("rrf", ("semantic", "text", "structural"), weights, 40, "default")
    assert route.fused


def test_thorough_always_fuses_all_four_with_k_60() -> None:
    route = plan_route(classify("who calls load_settings"), "thorough", None, True)
    assert route == Route(
        "rrf",
        ("semantic", "text", "structural", "graph"),
        {"semantic": 0.1, "text": 0.2, "structural": 0.2, "graph": 0.5},
        60,
        "thorough",
    )


def test_zero_weight_modalities_never_run() -> None:
    route = plan_route(classify('"connection refused"'), "thorough", None, True)
    assert route.modalities == ("text", "structural")
    assert "semantic" not in route.weights and "graph" not in route.weights


def test_quick_runs_semantic_alone() -> None:
    route = plan_route(classify("who calls load_settings"), "quick", None, True)
    assert route == Route("direct", ("semantic",), {"semantic": 0.1}, 60, "quick")


def test_quick_falls_back_to_text_when_semantic_is_off() -> None:
    route = plan_route(classify("how does retry work"), "quick", None, False)
    assert route == Route("direct", ("text",), {"text": 0.2}, 60, "quick")


def test_quick_never_embeds_an_exact_string() -> None:
    route = plan_route(classify('"connection refused"'), "quick", None, True)
    assert route.modalities == ("text",)
    assert route.weights == {"text": 0.9}


def test_semantic_off_drops_its_weight_from_fusion() -> None:
    route = plan_route(classify("how does retry work"), "default", None, False)
    assert route == Route("rrf", ("text", "structural"), {"text": 0.2, "structural": 0.2}, 40, "default")


def test_semantic_off_changes_the_dominant_modality_of_understand_code() -> None:
    assert dominant_modality("understand_code", True) == "semantic"
    # text and structural tie at 0.2: the earlier modality in the canonical order wins.
    assert dominant_modality("understand_code", False) == "text"
    route = plan_route(pin("understand_code"), "default", None, False)
    assert route == Route("direct", ("text",), {"text": 0.2}, 40, "default")


def test_pinned_intent_is_certain_so_default_goes_direct() -> None:
    route = plan_route(pin("find_similar"), "default", None, True)
    assert route == Route("direct", ("semantic",), {"semantic": 0.4}, 40, "default")


def test_pinned_modes_override_the_preset_and_always_fuse() -> None:
    route = plan_route(classify("class Session"), "default", ["graph", "text"], True)
    assert route == Route("rrf", ("text", "graph"), {"text": 0.1, "graph": 0.1}, 40, "default")


def test_one_pinned_mode_is_still_fused() -> None:
    route = plan_route(classify("who calls load_settings"), "thorough", ["structural"], True)
    assert route == Route("rrf", ("structural",), {"structural": 0.2}, 60, "thorough")


def test_pinned_zero_weight_mode_gets_the_floor() -> None:
    route = plan_route(classify('"connection refused"'), "default", ["semantic", "text"], True)
    assert route.weights == {"semantic": 0.1, "text": 0.9}


def test_all_pinned_weights_zero_gives_equal_weights() -> None:
    route = plan_route(classify('"connection refused"'), "default", ["graph", "semantic"], True)
    assert route.weights == {"semantic": 0.1, "graph": 0.1}


def test_pinned_modes_in_quick_use_the_fallback_k() -> None:
    route = plan_route(classify("parseConfig"), "quick", ["text", "structural", "text"], True)
    assert route == Route("rrf", ("text", "structural"), {"text": 0.1, "structural": 0.6}, 60, "quick")


def test_pinning_only_semantic_while_it_is_off_falls_back_to_text() -> None:
    route = plan_route(classify("how does retry work"), "default", ["semantic"], False)
    assert route == Route("rrf", ("text",), {"text": 0.2}, 40, "default")


def test_pinned_semantic_is_dropped_when_off_but_others_stay() -> None:
    route = plan_route(classify("how does retry work"), "default", ["semantic", "graph"], False)
    assert route.modalities == ("graph",)


def test_unknown_preset_and_modes_are_rejected_with_the_valid_values() -> None:
    with pytest.raises(ValueError, match="quick, default, thorough"):
        plan_route(classify("x"), "fastest", None, True)
    with pytest.raises(ValueError, match="semantic, text, structural, graph"):
        plan_route(classify("x"), "default", ["vectors"], True)


def test_rescue_of_a_graph_direct_route_fuses_preset_plus_graph() -> None:
    verdict = classify("who calls load_settings")
    direct = plan_route(verdict, "default", None, True)
    assert rescue_route(direct, verdict, True) == Route(
        "rescued",
        ("semantic", "text", "structural", "graph"),
        {"semantic": 0.1, "text": 0.2, "structural": 0.2, "graph": 0.5},
        40,
        "default",
    )


def test_rescue_of_an_exact_match_never_embeds() -> None:
    verdict = classify('"connection refused"')
    direct = plan_route(verdict, "default", None, True)
    rescued = rescue_route(direct, verdict, True)
    assert rescued == Route(
        "rescued", ("text", "structural"), {"text": 0.9, "structural": 0.1}, 40, "default"
    )


def test_rescue_of_quick_adds_the_dominant_modality() -> None:
    verdict = classify("class Session")
    direct = plan_route(verdict, "quick", None, True)
    assert direct.modalities == ("semantic",)
    rescued = rescue_route(direct, verdict, True)
    assert rescued == Route(
        "rescued", ("semantic", "structural"), {"semantic": 0.2, "structural": 0.6}, 60, "quick"
    )


def test_rescue_with_semantic_off() -> None:
    verdict = classify("where is parseConfig defined")
    direct = plan_route(verdict, "default", None, False)
    rescued = rescue_route(direct, verdict, False)
    assert rescued.modalities == ("text", "structural")


def test_only_a_direct_route_can_be_rescued() -> None:
    verdict = classify("retry logic")
    fused = plan_route(verdict, "default", None, True)
    with pytest.raises(ValueError, match="direct"):
        rescue_route(fused, verdict, True)
