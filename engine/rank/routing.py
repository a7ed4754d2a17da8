"""Decide which retrievers run for a classified query, with which weights, and whether to fuse.

A user sees the outcome as `fusion_strategy` (`direct`, `rrf` or `rescued`), `k`, and the
`modalities` block of every search response: which retrievers ran and with what weight. The rules
are DESIGN §4: a confident classifier skips fusion and asks only the retriever that best answers
its intent (so `who calls X` reaches the graph even in the default preset); otherwise the preset's
retrievers run and are fused; explicit `modes` override the preset; a modality whose weight is 0
never runs; a semantic backend that is off is dropped. A direct route that finds nothing is
rescued by the fused route, so a confident verdict never turns an answerable query into nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..model.profiles import (
    DIRECT_OR_FUSED,
    DIRECT_THRESHOLD,
    FALLBACK_K,
    FUSED,
    MODALITIES,
    PINNED_FLOOR_WEIGHT,
    PRESETS,
    QUICK_FALLBACK_MODALITY,
    SEMANTIC,
    WEIGHTS,
    Preset,
)
from ..query.intent import Classification

__all__ = [
    "DIRECT",
    "RESCUED",
    "RRF",
    "Route",
    "dominant_modality",
    "intent_weights",
    "plan_route",
    "rescue_route",
]

DIRECT = "direct"
RRF = "rrf"
RESCUED = "rescued"


@dataclass(frozen=True)
class Route:
    """What to run: the retrievers (in canonical order), their weights, the RRF k and how to combine.

    `strategy` is `direct` (one retriever, its ranking is the answer), `rrf` (weighted reciprocal
    rank fusion) or `rescued` (the fused route run after a direct route found nothing). `k` is the
    preset's RRF constant even on a direct route, so that a rescue fuses with the preset's k.
    """

    strategy: str
    modalities: tuple[str, ...]
    weights: dict[str, float]
    k: int
    preset: str

    @property
    def fused(self) -> bool:
        return self.strategy != DIRECT


def intent_weights(intent: str, semantic_available: bool) -> dict[str, float]:
    """The DESIGN §3 profile of `intent`, with semantic dropped to 0 when its backend is off."""
    weights = dict(WEIGHTS[intent])
    if not semantic_available:
        weights[SEMANTIC] = 0.0
    return weights


def dominant_modality(intent: str, semantic_available: bool) -> str:
    """The modality with the largest weight for `intent`; ties go to the earlier one in MODALITIES."""
    weights = intent_weights(intent, semantic_available)
    return max(MODALITIES, key=lambda m: (weights[m], -MODALITIES.index(m)))


def _preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; expected one of: {', '.join(PRESETS)}") from None


def _check_modes(modes: Sequence[str]) -> None:
    unknown = [m for m in modes if m not in MODALITIES]
    if unknown:
        raise ValueError(f"unknown modes {unknown!r}; expected any of: {', '.join(MODALITIES)}")


def _canonical(modalities: set[str]) -> tuple[str, ...]:
    return tuple(m for m in MODALITIES if m in modalities)


def _fused(modalities: set[str], weights: Mapping[str, float]) -> tuple[tuple[str, ...], dict[str, float]]:
    """Keep only the modalities that carry weight: DESIGN §3, weight 0 never runs."""
    running = _canonical({m for m in modalities if weights[m] > 0})
    return running, {m: weights[m] for m in running}


def _pinned_route(
    classification: Classification, preset: Preset, modes: Sequence[str], semantic: bool
) -> Route:
    """Explicit `modes`: always fused over exactly those modes, each with its profile weight.

    A pinned mode whose profile weight is 0 gets PINNED_FLOOR_WEIGHT, so it runs as the user asked
    without outweighing the modes the intent favours. Pinning only an unavailable semantic backend
    falls back to text, like `quick` does.
    """
    weights = intent_weights(classification.intent, semantic)
    wanted = {m for m in modes if semantic or m != SEMANTIC} or {QUICK_FALLBACK_MODALITY}
    running = _canonical(wanted)
    pinned = {m: weights[m] if weights[m] > 0 else PINNED_FLOOR_WEIGHT for m in running}
    return Route(RRF, running, pinned, preset.k or FALLBACK_K, preset.name)


def _single_route(classification: Classification, preset: Preset, semantic: bool) -> Route:
    """`quick`: one retriever, no fusion; text when semantic is off or the intent gives it no weight."""
    weights = intent_weights(classification.intent, semantic)
    modality = preset.modalities[0]
    if weights[modality] <= 0:
        modality = QUICK_FALLBACK_MODALITY
    return Route(DIRECT, (modality,), {modality: weights[modality]}, preset.k or FALLBACK_K, preset.name)


def _direct_route(classification: Classification, preset: Preset, semantic: bool) -> Route:
    weights = intent_weights(classification.intent, semantic)
    modality = dominant_modality(classification.intent, semantic)
    return Route(DIRECT, (modality,), {modality: weights[modality]}, preset.k or FALLBACK_K, preset.name)


def _fused_route(classification: Classification, preset: Preset, semantic: bool) -> Route:
    weights = intent_weights(classification.intent, semantic)
    running, kept = _fused(set(preset.modalities), weights)
    return Route(RRF, running, kept, preset.k or FALLBACK_K, preset.name)


def plan_route(
    classification: Classification,
    preset: str,
    modes: Sequence[str] | None,
    semantic_available: bool,
) -> Route:
    """The DESIGN §4 route for a query: direct, fused over the preset, or fused over pinned modes.

    Raises ValueError naming the accepted values when `preset` or a mode is unknown.
    """
    chosen = _preset(preset)
    if modes:
        _check_modes(modes)
        return _pinned_route(classification, chosen, modes, semantic_available)
    if chosen.routing == FUSED:
        return _fused_route(classification, chosen, semantic_available)
    if chosen.routing == DIRECT_OR_FUSED:
        if classification.confidence >= DIRECT_THRESHOLD:
            return _direct_route(classification, chosen, semantic_available)
        return _fused_route(classification, chosen, semantic_available)
    return _single_route(classification, chosen, semantic_available)


def rescue_route(route: Route, classification: Classification, semantic_available: bool) -> Route:
    """The fused route to run when the direct `route` returned nothing (DESIGN §4 "Rescue").

    It fuses the preset's modalities, the one the direct route ran and the intent's dominant one,
    which may lie outside the preset: graph for find_references in `default`, structural for a
    find_definition query that `quick` sent to semantic search alone.
    """
    if route.strategy != DIRECT:
        raise ValueError(f"only a direct route can be rescued, not a {route.strategy!r} one")
    chosen = _preset(route.preset)
    weights = intent_weights(classification.intent, semantic_available)
    dominant = dominant_modality(classification.intent, semantic_available)
    running, kept = _fused({*chosen.modalities, *route.modalities, dominant}, weights)
    return Route(RESCUED, running, kept, route.k, route.preset)
