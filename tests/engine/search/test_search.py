"""Searcher: request validation, direct / rescued / fused routing, and failure isolation per retriever."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tree import indexed_workspace

from fourfold.engine import QueryError, SearchError, SearchRequest, Settings, Workspace
from fourfold.engine.index.snapshot import Snapshot
from fourfold.engine.model.profiles import (
    DOC_PRIOR,
    FILE_COHERENCE,
    FUSED_PATH_TERM_BOOST,
    PROSE_PRIOR,
    SAID_FILE_BOOST,
    TEST_PRIOR,
)
from fourfold.engine.model.records import Hit, Span
from fourfold.engine.query.parsedquery import ParsedQuery
from fourfold.engine.query.request import Ranking
from fourfold.engine.search.answer import ModalityReport, SearchResponse
from fourfold.engine.search.search import Searcher

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "polyglot"


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Snapshot]:
    root = tmp_path_factory.mktemp("ws") / "polyglot"
    shutil.copytree(FIXTURE, root)
    workspace = Workspace(root, Settings(index_dir=str(tmp_path_factory.mktemp("index")), semantic_backend="none"))
    workspace.refresh()
    yield workspace.snapshot()
    workspace.close()  # its threads must not outlive the module (a later test traces allocations)


def hit(path: str, line: int) -> Hit:
    return Hit(path, Span(line, 0, line + 1, 0), 1.0)


def fixed(*hits: Hit):  # type: ignore[no-untyped-def]
    def retriever(snapshot: Snapshot, query: ParsedQuery, ranking: Ranking, depth: int) -> list[Hit]:
        return list(hits)

    return retriever


def broken(snapshot: Snapshot, query: ParsedQuery, ranking: Ranking, depth: int) -> list[Hit]:
    raise RuntimeError("index file vanished")


def test_failing_retriever_is_left_out_and_reported(snapshot: Snapshot) -> None:
    searcher = Searcher({"text": broken, "structural": fixed(hit("inventory/retry.py", 5))},
                        semantic_available=lambda: False)
    response = searcher.search(snapshot, SearchRequest("how does retry work"))
    assert response.fusion_strategy == "rrf"
    assert [r.path for r in response.results] == ["inventory/retry.py"]
    text = response.modalities["text"]
    assert text.ran is False and "index file vanished" in (text.error or "")
    assert response.notes == ["text left out: failed: index file vanished"]


def test_slow_retriever_is_left_out_after_its_budget(snapshot: Snapshot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fourfold.engine.search.search.RETRIEVER_BUDGET_S", 0.2)
    release = threading.Event()

    def stuck(snapshot: Snapshot, query: ParsedQuery, ranking: Ranking, depth: int) -> list[Hit]:
        release.wait(10)
        return []

    searcher = Searcher({"text": stuck, "structural": fixed(hit("inventory/retry.py", 5))},
                        semantic_available=lambda: False)
    try:
        response = searcher.search(snapshot, SearchRequest("how does retry work"))
    finally:
        release.set()
    assert [r.path for r in response.results] == ["inventory/retry.py"]
    assert "budget" in (response.modalities["text"].error or "")


def test_direct_route_is_rescued_when_it_finds_nothing(snapshot: Snapshot) -> None:
    searcher = Searcher({"structural": fixed(), "text": fixed(hit("README.md", 3))}, semantic_available=lambda: False)
    response = searcher.search(snapshot, SearchRequest("where is parseConfig defined"))
    assert response.confidence == 0.90
    assert response.fusion_strategy == "rescued"
    assert [r.path for r in response.results] == ["README.md"]


def test_direct_route_keeps_the_retrievers_order(snapshot: Snapshot) -> None:
    order = [hit("native/cache.cpp", 1), hit("inventory/service.py", 10), hit("web/src/store.ts", 13)]
    searcher = Searcher({"structural": fixed(*order)}, semantic_available=lambda: False)
    response = searcher.search(snapshot, SearchRequest("where is Cache defined"))
    assert response.fusion_strategy == "direct"
    assert [r.path for r in response.results] == [h.path for h in order]
    assert all(r.boost == 1.0 for r in response.results)


def test_zero_weight_modalities_never_run(snapshot: Snapshot) -> None:
    calls: list[str] = []

    def spy(name: str):  # type: ignore[no-untyped-def]
        def retriever(snapshot: Snapshot, query: ParsedQuery, ranking: Ranking, depth: int) -> list[Hit]:
            calls.append(name)
            return [hit("inventory/service.py", 32)]
        return retriever

    searcher = Searcher({m: spy(m) for m in ("semantic", "text", "structural", "graph")})
    response = searcher.search(snapshot, SearchRequest('"connection refused"', preset="thorough"))
    assert response.intent == "exact_match"
    assert sorted(calls) == ["structural", "text"]  # exact_match gives semantic and graph weight 0


@pytest.mark.parametrize(("arguments", "message"), [
    ({}, '"query" is required'),
    ({"query": 3}, '"query" is required and must be a string'),
    ({"query": "x", "limit": "ten"}, '"limit" must be an integer'),
    ({"query": "x", "limit": 0}, '"limit" must be between 1 and 500'),
    ({"query": "x", "preset": "fast"}, '"preset" must be one of quick, default, thorough'),
    ({"query": "x", "modes": ["vector"]}, '"modes" must be one of semantic, text, structural, graph'),
    ({"query": "x", "intent": "guess"}, '"intent" must be one of'),
    ({"query": "x", "colour": "red"}, "unknown argument(s) colour"),
    ({"query": "x" * 40_000}, "the limit is 32000"),
])
def test_bad_requests_say_what_to_fix(arguments: dict, message: str) -> None:
    with pytest.raises(SearchError, match=message.replace("(", r"\(").replace(")", r"\)")):
        SearchRequest.from_mapping(arguments)


def test_invalid_regex_is_a_query_error_with_position(snapshot: Snapshot) -> None:
    searcher = Searcher({}, semantic_available=lambda: False)
    with pytest.raises(QueryError) as caught:
        searcher.search(snapshot, SearchRequest("re:load_(settings"))
    assert caught.value.position == 8


def test_catastrophic_regex_is_answered_through_the_workspace(snapshot: Snapshot) -> None:
    """The whole path (router, budget, RE2) answers; its linear time is tested in test_textsearch."""
    root = snapshot.root
    (root / "evil.txt").write_text("a" * 100_000 + "b\n" + "aaa\n")
    workspace = Workspace(root, Settings(index_dir=str(root.parent / "evil-index"), semantic_backend="none"))
    try:
        workspace.refresh()
        response = workspace.search(SearchRequest("re:(a+)+$"))
    finally:
        workspace.close()
    assert response.intent == "exact_match"
    assert response.results  # a line of the fixture ends in "a"; the 100 KB line is skipped as minified


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "polyglot"
    shutil.copytree(FIXTURE, root)
    opened = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=False)
    opened.refresh()
    yield opened
    opened.close()


def test_an_ablation_without_text_leaves_text_out_of_the_response(workspace: Workspace) -> None:
    request = SearchRequest("how does retry work")
    full = workspace.search(request)
    assert full.modalities["text"].ran and full.modalities["text"].weight > 0
    ablated = workspace.search(replace(request, ranking=Ranking(without=frozenset({"text"}))))
    assert ablated.modalities["text"] == ModalityReport(weight=0.0, ran=False)
    assert ablated.modalities["structural"].ran or ablated.modalities["graph"].ran
    assert all("text" not in result.contributions for result in ablated.results)


def test_an_ablations_k_overrides_the_presets(workspace: Workspace) -> None:
    request = SearchRequest("how does retry work")
    assert workspace.search(request).k == 40
    response = workspace.search(replace(request, ranking=Ranking(k=60)))
    assert response.k == 60
    top = response.results[0]
    for modality, value in top.contributions.items():  # every contribution is computed with k = 60
        weight = response.modalities[modality].weight
        assert value == pytest.approx(weight * top.boost / (60 + top.ranks[modality] + 1))
    assert workspace.search(SearchRequest("how does retry work", preset="thorough")).k == 60
    assert workspace.search(SearchRequest("how does retry work", preset="thorough", ranking=Ranking(k=5))).k == 5


def test_an_alternative_weight_row_replaces_the_tables_on_fused_routes_only(workspace: Workspace) -> None:
    question = SearchRequest("how does retry work")
    shipped = workspace.search(question)
    assert shipped.fusion_strategy == "rrf" and shipped.modalities["text"].weight == 0.2
    fitted = workspace.search(replace(question, ranking=Ranking(
        weights={"understand_code": {"semantic": 0.3, "text": 0.6, "structural": 0.0}})))
    assert fitted.modalities["text"].weight == 0.6
    assert fitted.modalities["structural"].ran is False  # weight 0 never runs
    direct = workspace.search(SearchRequest("who calls load_settings"))  # find_references: no row given
    assert direct.fusion_strategy == "direct" and direct.modalities["graph"].weight == 0.5


# --- file priors and file coherence per intent ---------------------------------------------------
# "how does retry work" has the keywords retry and work: `inventory/retry.py` names one of two.
NAMED_LIFT = 1.0 + FUSED_PATH_TERM_BOOST * 0.5
SAID_LIFT = NAMED_LIFT * (1.0 + SAID_FILE_BOOST)  # `retry.py`: the question says its whole stem
TEST_FILE = "inventory/tests/test_retry.py"
TEST_SOURCE = """from inventory.retry import retry


def test_retry_gives_up_after_the_last_attempt():
    calls = []
    retry(lambda: calls.append(1), attempts=3)
    assert len(calls) == 3
"""


@pytest.fixture
def topic_workspace(tmp_path: Path) -> Iterator[Workspace]:
    """The polyglot fixture plus a test file about retries, which priors should demote for a question."""
    root = tmp_path / "polyglot"
    shutil.copytree(FIXTURE, root)
    (root / TEST_FILE).parent.mkdir()
    (root / TEST_FILE).write_text(TEST_SOURCE)
    opened = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=False)
    opened.refresh()
    yield opened
    opened.close()


def _rows(workspace: Workspace, request: SearchRequest) -> dict[str, dict[str, Any]]:
    response = workspace.search_dict(request)
    assert response["results"], f"no results for {request}"
    return {row["path"]: row for row in response["results"]}


def _assert_score_identity(row: dict[str, Any]) -> None:
    """score == (sum(contributions) + coherence) × prior × (demotion factor when demoted), up to rounding."""
    factor = 0.5 if row["demoted"] else 1.0
    expected = (sum(row["contributions"].values()) + row["coherence"]) * row["prior"] * factor
    assert row["score"] == pytest.approx(expected, abs=5e-6), row


# The named lifts below are counted word for word: `path_rarity` (a word by how few of the repository's stems
# say it) is off, since in a five-file repository `retry` is said by two of them (tests/engine/rank covers it).
WORD_FOR_WORD = Ranking(path_rarity=False)


def test_understand_code_results_carry_prior_coherence_and_defines(topic_workspace: Workspace) -> None:
    request = SearchRequest("how does retry work", ranking=WORD_FOR_WORD)
    response = topic_workspace.search(request)
    assert response.intent == "understand_code" and response.fusion_strategy == "rrf"
    rows = {row["path"]: row for row in topic_workspace.search_dict(request)["results"]}
    for row in rows.values():
        assert {"defines", "prior", "coherence"} <= row.keys()
        assert isinstance(row["defines"], bool)
        _assert_score_identity(row)
    assert rows["inventory/retry.py"]["prior"] == pytest.approx(SAID_LIFT)  # named after the question's words
    assert rows["README.md"]["prior"] == pytest.approx(DOC_PRIOR)  # documentation explains, code does
    assert rows[TEST_FILE]["prior"] == pytest.approx(TEST_PRIOR * NAMED_LIFT)
    assert any(row["coherence"] > 0 for row in rows.values())
    assert next(iter(rows)) == "inventory/retry.py"  # results come best first


def test_find_similar_has_path_priors_without_the_name_lift_or_coherence(topic_workspace: Workspace) -> None:
    rows = _rows(topic_workspace, SearchRequest("how does retry work", intent="find_similar"))
    assert rows["inventory/retry.py"]["prior"] == 1.0
    assert TEST_FILE not in rows  # the seed is `retry`, and a test of the seed is no answer (issue 14)
    for row in rows.values():
        assert row["coherence"] == 0.0
        _assert_score_identity(row)


def test_find_references_has_no_prior_and_no_coherence(topic_workspace: Workspace) -> None:
    rows = _rows(topic_workspace, SearchRequest("who calls retry", intent="find_references"))
    assert TEST_FILE in rows  # a test that calls retry is a reference, listed at full score
    for row in rows.values():
        assert row["prior"] == 1.0
        assert row["coherence"] == 0.0
        _assert_score_identity(row)


def test_file_aggregation_and_agreement_off_give_no_coherence(topic_workspace: Workspace) -> None:
    request = SearchRequest("how does retry work")
    assert any(row["coherence"] > 0 for row in _rows(topic_workspace, request).values())
    rows = _rows(topic_workspace, replace(request, ranking=Ranking(file_aggregation=False, file_agreement=False,
                                                                   path_rarity=False)))
    assert rows["inventory/retry.py"]["prior"] == pytest.approx(SAID_LIFT)  # the other features stay on
    for row in rows.values():
        assert row["coherence"] == 0.0
        _assert_score_identity(row)


def test_file_agreement_adds_at_least_each_files_best_chunk_rrf(topic_workspace: Workspace) -> None:
    """The file-level RRF uses the file's best rank per retriever over all its chunks: never worse than its
    best chunk's ranks, so it adds at least their unboosted RRF to the result's coherence."""
    request = SearchRequest("how does retry work")
    response = topic_workspace.search(request)
    assert response.fusion_strategy == "rrf"
    weights, k = {m: r.weight for m, r in response.modalities.items()}, response.k
    with_it = _rows(topic_workspace, request)
    without = _rows(topic_workspace, replace(request, ranking=Ranking(file_agreement=False)))
    assert set(with_it) == set(without)
    for path, row in with_it.items():
        own = sum(weights[m] / (k + rank + 1) for m, rank in row["ranks"].items())
        assert row["coherence"] - without[path]["coherence"] >= own - 1e-5, path
        _assert_score_identity(row)


# Two separate chunks of the test file lead, the named file follows: with a pinned intent the route is
# direct (text alone, no boosts), so every figure can be computed by hand.
TOPIC_HITS = (hit(TEST_FILE, 0), hit(TEST_FILE, 4), hit("inventory/retry.py", 1))


def _search(snapshot: Snapshot, query: str, intent: str, ranking: Ranking | None = None) -> dict[str, Any]:
    retrievers = {m: fixed(*TOPIC_HITS) for m in ("text", "structural", "graph")}
    searcher = Searcher(retrievers, semantic_available=lambda: False)
    response = searcher.search(snapshot, SearchRequest(query, intent=intent, ranking=ranking or WORD_FOR_WORD))
    assert response.fusion_strategy == "direct"
    (modality,) = [m for m, report in response.modalities.items() if report.ran]
    return {"k": response.k, "weight": response.modalities[modality].weight,
            "results": {r.path: r for r in response.results}}


def test_searcher_understand_code_applies_coherence_and_the_named_prior(snapshot: Snapshot) -> None:
    found = _search(snapshot, "how does retry work", "understand_code")
    weight, k, results = found["weight"], found["k"], found["results"]
    tests, named = results[TEST_FILE], results["inventory/retry.py"]
    assert tests.contributions == {"text": pytest.approx(weight / (k + 1))}
    assert tests.coherence == pytest.approx(FILE_COHERENCE * weight / (k + 2))  # its second chunk, rank 1
    assert tests.prior == pytest.approx(TEST_PRIOR * NAMED_LIFT)
    expected = (weight / (k + 1) + FILE_COHERENCE * weight / (k + 2)) * TEST_PRIOR * NAMED_LIFT
    assert tests.score == pytest.approx(expected)
    assert named.coherence == 0.0
    assert named.score == pytest.approx(weight / (k + 3) * SAID_LIFT)
    assert list(results) == ["inventory/retry.py", TEST_FILE]


def test_searcher_file_aggregation_off_keeps_the_prior_and_drops_coherence(snapshot: Snapshot) -> None:
    found = _search(snapshot, "how does retry work", "understand_code", Ranking(file_aggregation=False,
                                                                                path_rarity=False))
    weight, k, tests = found["weight"], found["k"], found["results"][TEST_FILE]
    assert tests.coherence == 0.0
    assert tests.prior == pytest.approx(TEST_PRIOR * NAMED_LIFT)
    assert tests.score == pytest.approx(weight / (k + 1) * TEST_PRIOR * NAMED_LIFT)


def test_searcher_find_similar_prior_has_no_name_lift(snapshot: Snapshot) -> None:
    results = _search(snapshot, "how does retry work", "find_similar")["results"]
    assert "inventory/retry.py" not in results  # the top code result is the seed, left out (issue 14)
    assert results[TEST_FILE].prior == pytest.approx(TEST_PRIOR)
    assert results[TEST_FILE].coherence == 0.0


def test_searcher_find_references_has_no_prior_and_no_coherence(snapshot: Snapshot) -> None:
    found = _search(snapshot, "who calls retry", "find_references")
    weight, k, results = found["weight"], found["k"], found["results"]
    assert results[TEST_FILE].prior == 1.0 and results[TEST_FILE].coherence == 0.0
    assert results[TEST_FILE].score == pytest.approx(weight / (k + 1))
    assert results["inventory/retry.py"].prior == 1.0
    assert list(results) == [TEST_FILE, "inventory/retry.py"]


@pytest.mark.parametrize("intent", ["find_references", "impact_analysis", "exact_match"])
def test_prose_is_lowered_in_every_intent_but_tests_only_for_understanding(snapshot: Snapshot, intent: str) -> None:
    """Issue 14: AGENTS.md, README.md and a changelog ahead of the code they describe, for any question."""
    hits = (hit("AGENTS.md", 0), hit("README.md", 0), hit("CHANGELOG.md", 0), hit(TEST_FILE, 0),
            hit("inventory/retry.py", 1))
    searcher = Searcher({m: fixed(*hits) for m in ("text", "structural", "graph")}, semantic_available=lambda: False)
    response = searcher.search(snapshot, SearchRequest("retry", intent=intent))
    priors = {r.path: r.prior for r in response.results}
    assert priors == {"AGENTS.md": pytest.approx(PROSE_PRIOR), "README.md": pytest.approx(DOC_PRIOR),
                      "CHANGELOG.md": pytest.approx(PROSE_PRIOR), TEST_FILE: 1.0, "inventory/retry.py": 1.0}
    assert [r.path for r in response.results][:2] == [TEST_FILE, "inventory/retry.py"]


def test_a_definition_question_lowers_prose_and_tests(snapshot: Snapshot) -> None:
    """A definition is not in a test: where the name is found nowhere, the tests that call it must not
    lead (zod's `z.record`, asked in semble-more, put three test files first)."""
    hits = (hit("AGENTS.md", 0), hit(TEST_FILE, 0), hit("inventory/retry.py", 1))
    searcher = Searcher({m: fixed(*hits) for m in ("text", "structural", "graph")}, semantic_available=lambda: False)
    response = searcher.search(snapshot, SearchRequest("retry", intent="find_definition"))
    priors = {r.path: r.prior for r in response.results}
    assert priors == {"AGENTS.md": pytest.approx(PROSE_PRIOR), TEST_FILE: pytest.approx(TEST_PRIOR),
                      "inventory/retry.py": 1.0}
    assert response.results[0].path == "inventory/retry.py"


def test_a_question_about_docs_keeps_prose_at_full_score(snapshot: Snapshot) -> None:
    searcher = Searcher({"structural": fixed(hit("AGENTS.md", 0))}, semantic_available=lambda: False)
    response = searcher.search(snapshot, SearchRequest("retry docs", intent="find_definition"))
    assert [r.prior for r in response.results] == [1.0]


def test_every_match_carries_its_code_line(tmp_path: Path) -> None:
    """Issue 14, every call site visible: `match_lines[i]` is the code line of `matches[i]`, so a client
    lists each call site without reading the file."""
    root = tmp_path / "calls"
    root.mkdir()
    (root / "clock.py").write_text("def tick(step):\n    return step + 1\n")
    (root / "busy.py").write_text("from clock import tick\n\n\ndef run():\n"
                                  + "".join(f"    value_{n} = tick({n})\n" for n in range(9)))
    workspace = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"),
                          background=False)
    try:
        workspace.refresh()
        rows = workspace.search_dict(SearchRequest("who calls tick"))["results"]
    finally:
        workspace.close()
    busy = next(row for row in rows if row["path"] == "busy.py")
    lines = (root / "busy.py").read_text().split("\n")
    assert len(busy["match_lines"]) == len(busy["matches"]) >= 8
    assert busy["match_lines"] == [lines[m["start"]["line"]].strip() for m in busy["matches"]]
    assert all("tick(" in line for line in busy["match_lines"])
    assert busy["snippet"] == lines[busy["range"]["start"]["line"]].strip()  # a call site's snippet is its line


@pytest.fixture
def overrides_workspace(tmp_path: Path) -> Iterator[Workspace]:
    """Seven Java classes that each override `toString`, and the builder the question is about."""
    root = tmp_path / "lang"
    root.mkdir()
    for index in range(7):
        (root / f"Value{index}.java").write_text(
            f"public class Value{index} {{\n    public String toString() {{ return \"v{index}\"; }}\n}}\n")
    (root / "ToStringBuilder.java").write_text(
        "/** Builds readable descriptions of objects. */\npublic class ToStringBuilder {\n"
        "    public ToStringBuilder append(String field, Object value) { return this; }\n}\n")
    opened = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=False)
    opened.refresh()
    yield opened
    opened.close()


def test_a_generic_name_inside_a_question_does_not_make_it_a_definition_lookup(overrides_workspace: Workspace) -> None:
    """DESIGN §2 rule 8 needs a name that picks definitions; `toString` is one of seven overrides."""
    response = overrides_workspace.search(SearchRequest("toString builder for readable object descriptions"))
    assert (response.intent, response.rule) == ("understand_code", "9:fallback")
    assert response.results[0].path == "ToStringBuilder.java"
    assert not any(result.defines for result in response.results)


def test_a_name_a_few_files_define_still_routes_to_its_definition(overrides_workspace: Workspace) -> None:
    response = overrides_workspace.search(SearchRequest("append calls in ToStringBuilder for fields"))
    assert response.intent == "find_definition"


# --- issue 11: ranking switches travel in the request --------------------------------------------
CONCURRENT_FILES = {
    "inventory/retry.py": "def retry(action, attempts=3):\n    \"\"\"Call action until it succeeds.\"\"\"\n"
                          "    for _ in range(attempts):\n        if action():\n            return True\n"
                          "    return False\n",
    "inventory/service.py": "from inventory.retry import retry\n\n\nclass Service:\n    def load(self):\n"
                            "        return retry(self.fetch)\n\n    def fetch(self):\n        return True\n",
    "inventory/tests/test_retry.py": "from inventory.retry import retry\n\n\ndef test_retry_retries():\n"
                                     "    assert retry(lambda: True)\n",
    "docs/retry.md": "# Retry\n\nHow retry works: the service retries a fetch three times.\n",
}
CONCURRENT_QUERY = "how does retry work"
ROUNDS = 15


def _answer(response: SearchResponse) -> tuple[object, ...]:
    """What an ablation can change in a response (timings left out)."""
    ran = tuple(sorted(m for m, report in response.modalities.items() if report.ran))
    return response.k, ran, tuple((r.path, r.span, round(r.score, 9)) for r in response.results)


def test_concurrent_queries_with_different_ablations_each_see_only_their_own(tmp_path: Path) -> None:
    workspace = indexed_workspace(tmp_path / "repo", CONCURRENT_FILES, tmp_path / "index")
    variants = {
        "full": Ranking(),
        "k=5": Ranking(k=5),
        "-text": Ranking(without=frozenset({"text"})),
        "-priors": Ranking(path_priors=False, centrality=False, file_aggregation=False),
    }
    try:
        alone = {name: _answer(workspace.search(SearchRequest(CONCURRENT_QUERY, ranking=ranking)))
                 for name, ranking in variants.items()}
        assert len(set(alone.values())) == len(variants)  # every variant answers differently
        barrier = threading.Barrier(len(variants))
        seen: dict[str, list[tuple[object, ...]]] = {name: [] for name in variants}

        def run(name: str) -> None:
            request = SearchRequest(CONCURRENT_QUERY, ranking=variants[name])
            barrier.wait()
            for _ in range(ROUNDS):
                seen[name].append(_answer(workspace.search(request)))

        threads = [threading.Thread(target=run, args=(name,)) for name in variants]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        workspace.close()
    for name, answers in seen.items():
        assert answers == [alone[name]] * ROUNDS, name
