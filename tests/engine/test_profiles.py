"""The design numbers of DESIGN §3 and §4, pinned: changing one must be a deliberate act."""

from __future__ import annotations

import math

import pytest

from fourfold.engine import profiles
from fourfold.engine.profiles import INTENTS, MODALITIES, PRESETS, WEIGHTS


def test_modalities_and_intents_are_the_design_ids() -> None:
    assert MODALITIES == ("semantic", "text", "structural", "graph")
    assert set(INTENTS) == {
        "find_definition",
        "find_references",
        "understand_code",
        "find_similar",
        "impact_analysis",
        "exact_match",
    }


@pytest.mark.parametrize(
    ("intent", "semantic", "text", "structural", "graph"),
    [
        ("find_definition", 0.2, 0.1, 0.6, 0.1),
        ("find_references", 0.1, 0.2, 0.2, 0.5),
        ("understand_code", 0.5, 0.2, 0.2, 0.1),
        ("find_similar", 0.4, 0.3, 0.2, 0.1),
        ("impact_analysis", 0.1, 0.1, 0.1, 0.7),
        ("exact_match", 0.0, 0.9, 0.1, 0.0),
    ],
)
def test_weight_profile(intent: str, semantic: float, text: float, structural: float, graph: float) -> None:
    assert dict(WEIGHTS[intent]) == {
        "semantic": semantic,
        "text": text,
        "structural": structural,
        "graph": graph,
    }


def test_every_profile_sums_to_one_and_covers_every_intent() -> None:
    assert set(WEIGHTS) == set(INTENTS)
    for intent, row in WEIGHTS.items():
        assert math.isclose(sum(row.values()), 1.0), intent


def test_weight_table_is_read_only() -> None:
    with pytest.raises(TypeError):
        WEIGHTS["exact_match"]["semantic"] = 0.5  # type: ignore[index]


@pytest.mark.parametrize(
    ("name", "modalities", "k", "routing"),
    [
        ("quick", ("semantic",), None, "single"),
        ("default", ("semantic", "text", "structural"), 40, "direct-or-fused"),
        ("thorough", ("semantic", "text", "structural", "graph"), 60, "fused"),
    ],
)
def test_preset(name: str, modalities: tuple[str, ...], k: int | None, routing: str) -> None:
    preset = PRESETS[name]
    assert (preset.name, preset.modalities, preset.k, preset.routing) == (name, modalities, k, routing)


def test_routing_and_fusion_constants() -> None:
    assert set(PRESETS) == {"quick", "default", "thorough"}
    assert profiles.DEFAULT_PRESET == "default"
    assert profiles.DIRECT_THRESHOLD == 0.85
    assert profiles.FALLBACK_K == 60
    assert profiles.QUICK_FALLBACK_MODALITY == "text"
    assert profiles.PINNED_FLOOR_WEIGHT == 0.1
    assert profiles.BOOST_SLOPE == 0.3
    assert profiles.BOOST_CAP == 1.5
    assert profiles.DEMOTE_FACTOR == 0.5


def test_pinned_floor_is_the_smallest_nonzero_weight() -> None:
    nonzero = [w for row in WEIGHTS.values() for w in row.values() if w > 0]
    assert min(nonzero) == profiles.PINNED_FLOOR_WEIGHT


def test_demoted_directories_are_the_design_list() -> None:
    assert {
        "vendor",
        "node_modules",
        "third_party",
        "build",
        "dist",
        "out",
        "target",
        "archive",
    } == profiles.DEMOTED_DIRS
    assert ".min.js" in profiles.DEMOTED_SUFFIXES
    assert "_pb2.py" in profiles.DEMOTED_SUFFIXES
    assert ".generated." in profiles.DEMOTED_NAME_MARKERS
