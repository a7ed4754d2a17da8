"""Trigram postings: candidates are a superset of the real matches, updates are copy-on-write."""

from __future__ import annotations

import numpy as np
import pytest

from fourfold.engine.index.trigram import COMPACT_MIN_DOCS, TrigramIndex, file_trigrams, pack, unpack


def codes(*grams: bytes) -> set[int]:
    return {(g[0] << 16) | (g[1] << 8) | g[2] for g in grams}


def test_file_trigrams_are_sorted_unique_casefolded_bytes() -> None:
    grams = file_trigrams("AbCabc")
    assert grams.dtype == np.uint32
    assert list(grams) == sorted(codes(b"abc", b"bca", b"cab"))


def test_file_trigrams_of_short_and_empty_text() -> None:
    assert file_trigrams("").size == 0
    assert file_trigrams("ab").size == 0
    assert file_trigrams("abc").size == 1


def test_file_trigrams_use_utf8_bytes_and_full_casefolding() -> None:
    # "ß" casefolds to "ss", so "STRASSE" and "straße" share every trigram.
    assert set(file_trigrams("straße")) == set(file_trigrams("STRASSE"))
    assert set(file_trigrams("é")) == set()  # two bytes: no trigram
    assert len(file_trigrams("在")) == 1  # three bytes: one trigram


@pytest.mark.parametrize("text", ["", "a", "hello world", "x" * 5000, "混合 text ünïcode " * 50])
def test_pack_round_trips(text: str) -> None:
    grams = file_trigrams(text)
    restored = unpack(pack(grams))
    assert restored.dtype == np.uint32
    assert np.array_equal(restored, grams)


def test_packed_grams_are_smaller_than_the_text() -> None:
    text = "\n".join(
        f"def handler_{i}(request, response):\n    return render(request, {i})" for i in range(400)
    )
    assert len(pack(file_trigrams(text))) < len(text.encode()) / 4


def build(texts: dict[int, str]) -> TrigramIndex:
    return TrigramIndex.build({doc: file_trigrams(text) for doc, text in texts.items()})


TEXTS = {
    0: "def load_settings(path): pass",
    1: "function parseConfig(text) {}",
    2: "raise ConnectionError('connection refused')",
    5: "LOAD_SETTINGS = 1",
}


def test_candidates_are_docs_holding_every_trigram() -> None:
    index = build(TEXTS)
    assert list(index.candidates(file_trigrams("load_settings"))) == [0, 5]
    assert list(index.candidates(file_trigrams("Connection Refused"))) == [2]
    assert list(index.candidates(file_trigrams("nothing like this"))) == []


def test_empty_query_matches_every_doc() -> None:
    index = build(TEXTS)
    assert list(index.candidates(np.zeros(0, dtype=np.uint32))) == [0, 1, 2, 5]
    assert list(index.doc_ids()) == [0, 1, 2, 5]


def test_candidates_never_miss_a_substring() -> None:
    rng = np.random.default_rng(7)
    alphabet = list("abcdeé_ ")
    texts = {doc: "".join(rng.choice(alphabet, 80)) for doc in range(60)}
    index = build(texts)
    for doc, text in texts.items():
        for start in range(0, 70, 9):
            needle = text[start : start + 6]
            found = set(index.candidates(file_trigrams(needle)).tolist())
            assert doc in found
            assert found >= {d for d, t in texts.items() if needle.casefold() in t.casefold()}


def test_with_doc_and_without_doc_leave_the_original_untouched() -> None:
    index = build(TEXTS)
    changed = index.with_doc(1, file_trigrams("def load_settings_v2(): ..."))
    removed = changed.without_doc(0)
    added = removed.with_doc(9, file_trigrams("load_settings again"))
    query = file_trigrams("load_settings")
    assert list(index.candidates(query)) == [0, 5]
    assert list(changed.candidates(query)) == [0, 1, 5]
    assert list(removed.candidates(query)) == [1, 5]
    assert list(added.candidates(query)) == [1, 5, 9]
    assert list(added.doc_ids()) == [1, 2, 5, 9]
    assert list(added.candidates(file_trigrams("parseConfig"))) == []
    assert list(added.without_doc(9).without_doc(1).candidates(query)) == [5]


def test_compaction_keeps_the_same_answers() -> None:
    base = {doc: f"common text number {doc} " + ("rare" if doc % 10 == 0 else "") for doc in range(50)}
    index = build(base)
    live = set(base)
    for doc in range(COMPACT_MIN_DOCS + 10):
        index = index.with_doc(1000 + doc, file_trigrams(f"fresh {doc} rare"))
        live.add(1000 + doc)
        if doc % 3 == 0:
            index = index.without_doc(doc % 50)
            live.discard(doc % 50)
    assert len(index.overlay) < COMPACT_MIN_DOCS  # it compacted on the way
    compacted = index.compacted()
    assert not compacted.overlay and not compacted.tombstones
    for needle in ("rare", "common", "fresh 7", "number 3"):
        grams = file_trigrams(needle)
        assert np.array_equal(index.candidates(grams), compacted.candidates(grams))
    assert set(index.doc_ids().tolist()) == live
    rare = {doc for doc in live if doc >= 1000 or doc % 10 == 0}
    assert set(index.candidates(file_trigrams("rare")).tolist()) == rare


def test_candidates_for_plan_is_an_or_of_ands() -> None:
    index = build(TEXTS)
    assert list(index.candidates_for_plan([["load_"], ["parseconfig"]])) == [0, 1, 5]
    assert list(index.candidates_for_plan([["def ", "settings"]])) == [0]
    assert list(index.candidates_for_plan(None)) == [0, 1, 2, 5]


def test_intersection_of_many_postings_equals_a_brute_force_check() -> None:
    rng = np.random.default_rng(3)
    docs = {doc: np.unique(rng.integers(0, 400, size=120).astype(np.uint32)) for doc in range(300)}
    index = TrigramIndex.build(docs)
    for _ in range(50):
        wanted = np.unique(rng.integers(0, 400, size=int(rng.integers(1, 4))).astype(np.uint32))
        expected = [doc for doc, grams in docs.items() if np.isin(wanted, grams).all()]
        assert index.candidates(wanted).tolist() == expected
    assert index.candidates(np.asarray([401], dtype=np.uint32)).size == 0


def test_replaced_equals_a_fresh_build_of_the_same_documents() -> None:
    texts = {doc: f"def handler_{doc}(request): return status_{doc * 7}" for doc in range(1, 40)}
    index = TrigramIndex.build({doc: file_trigrams(text) for doc, text in texts.items()})
    index = index.with_doc(50, file_trigrams("class Overlay: pass"))  # one doc only in the overlay
    changed = {3: file_trigrams("entirely different words"), 60: file_trigrams("a new file appears")}
    replaced = index.replaced({5, 50}, changed)
    expected = {doc: file_trigrams(text) for doc, text in texts.items() if doc != 5} | changed
    fresh = TrigramIndex.build(expected)
    assert not replaced.overlay and not replaced.tombstones
    assert np.array_equal(replaced.doc_ids(), fresh.doc_ids())
    for probe in ("handler_3", "different", "new file", "Overlay", "status_35", "def"):
        assert np.array_equal(replaced.candidates(file_trigrams(probe)), fresh.candidates(file_trigrams(probe))), probe
