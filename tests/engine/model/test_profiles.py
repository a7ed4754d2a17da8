"""The design numbers of DESIGN §3 and §4, pinned: changing one must be a deliberate act."""

from __future__ import annotations

import math

import pytest

from fourfold.engine.model import profiles
from fourfold.engine.model.profiles import INTENTS, MODALITIES, PRESETS, WEIGHTS


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


# --- issue 11: one stop-word table, one kind vocabulary ------------------------------------------
def test_every_stop_word_sits_in_one_row_with_a_reason() -> None:
    words = [word for row in profiles.STOP_WORD_TABLE for word in row.words.split()]
    assert len(words) == len(set(words))
    readers = {profiles.STOP_WORDS_WORDS, profiles.STOP_WORDS_CODE, profiles.STOP_WORDS_GRAPH,
               profiles.STOP_WORDS_TARGET}
    for row in profiles.STOP_WORD_TABLE:
        assert row.reason and row.readers and row.readers <= readers


@pytest.mark.parametrize(
    ("word", "words", "code", "graph", "target"),
    [
        ("the", True, False, True, True),
        ("from", True, True, True, True),
        ("why", True, False, True, False),  # BM25 drops it; the classifier's phrase rule reads it first
        ("function", False, True, False, True),  # a keyword to BM25, a noun before a name to the classifier
        ("work", False, False, True, False),  # `how does X work`: names nothing in the graph
        ("self", False, True, False, False),
        ("della", False, False, False, True),
        ("hàm", False, False, False, True),
        ("retry", False, False, False, False),
    ],
)
def test_each_reader_drops_its_rows_of_the_table(word: str, words: bool, code: bool, graph: bool, target: bool) -> None:
    assert (word in profiles.stop_words(profiles.STOP_WORDS_WORDS)) is words
    assert (word in profiles.stop_words(profiles.STOP_WORDS_CODE)) is code
    assert (word in profiles.stop_words(profiles.STOP_WORDS_GRAPH)) is graph
    assert (word in profiles.stop_words(profiles.STOP_WORDS_TARGET)) is target


def test_the_readers_use_the_table() -> None:
    from fourfold.engine.graph import tuning
    from fourfold.engine.model import tokens
    from fourfold.engine.query import intent

    assert profiles.stop_words(profiles.STOP_WORDS_WORDS) | profiles.stop_words(
        profiles.STOP_WORDS_CODE) == tokens.STOP_WORDS
    assert profiles.stop_words(profiles.STOP_WORDS_GRAPH) == tuning.STOPWORDS
    assert profiles.stop_words(profiles.STOP_WORDS_TARGET) == intent._STOPWORDS


def test_every_kind_set_is_made_of_the_one_vocabulary() -> None:
    from fourfold.engine.index import chunks, structure, symbols
    from fourfold.engine.rank import fusion
    from fourfold.engine.retrieve import similar

    assert structure.KINDS == profiles.SYMBOL_KINDS  # the parser's vocabulary is the table's
    vocabulary = profiles.SYMBOL_KINDS | profiles.CHUNK_KINDS
    for kinds in (profiles.CALLABLE_KINDS, profiles.TYPE_KINDS, profiles.DEFINITION_KINDS, profiles.HEAD_OF_FILE_KINDS,
                  fusion.HEAD_KINDS, chunks.UNIT_KINDS, chunks.SPLITTABLE_KINDS, set(similar._FAMILY),
                  set(symbols.KIND_RANK), *symbols.KIND_WORDS.values()):
        assert kinds <= vocabulary, kinds - vocabulary
    named = profiles.CALLABLE_KINDS | profiles.TYPE_KINDS | {"module", "namespace", "definition"}
    assert named == profiles.DEFINITION_KINDS


def test_retrieval_budgets_are_the_design_numbers() -> None:
    assert (profiles.RETRIEVER_BUDGET_S, profiles.RETRIEVER_DEPTH, profiles.IMPACT_DEPTH) == (5.0, 100, 3)
    assert profiles.VECTOR_CANDIDATES == 1000 and 0 < profiles.SEMANTIC_WORD_SMOOTHING < 1
    assert (profiles.BM25_K1, profiles.BM25_B) == (1.5, 0.75)
    tiers = profiles.SYMBOL_TIERS
    assert sorted(tiers, key=tiers.__getitem__, reverse=True) == ["exact", "case", "words", "prefix", "fuzzy"]
    assert {"exact", "case", "words"} == profiles.NAMED_TIERS and profiles.SPELLING_TIERS < profiles.NAMED_TIERS
