"""Ranking features: which names a query states, what a path says, and how BM25 candidates are re-scored."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from fourfold.engine import Settings, Workspace
from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.profiles import (
    COMPAT_PRIOR,
    COPY_OVERLAP,
    DEFINITION_BOOST,
    DOC_PRIOR,
    EMBEDDED_NAME_SCALE,
    EXAMPLE_PRIOR,
    FILE_AGREEMENT,
    FIND_DEFINITION,
    FIND_REFERENCES,
    FUSED_PATH_TERM_BOOST,
    GENERIC_NAME_FILES,
    LEGACY_VERSION_PRIOR,
    NAMED_FILE_SCALE,
    PATH_TERM_BOOST,
    PROSE_PRIOR,
    REEXPORT_PRIOR,
    SAID_FILE_BOOST,
    TEST_PRIOR,
    TYPE_STUB_PRIOR,
    UNDERSTAND_CODE,
)
from fourfold.engine.model.records import Chunk, Hit, Span
from fourfold.engine.model.tokens import last_name
from fourfold.engine.query.parsedquery import (
    ParsedQuery,
    StatedNames,
    asks_about_tests,
    parse_query,
    query_keywords,
    stated_names,
)
from fourfold.engine.query.request import FEATURES, Ranking
from fourfold.engine.rank.fusion import fuse
from fourfold.engine.rank.ranking import (
    FusionFeatures,
    asks_around_a_name,
    boost_chunks,
    defines,
    file_prior,
    fusion_features,
    generic_names,
    is_test_symbol,
    layout,
    names_folder,
    path_prior,
    path_term_ratio,
    prose_prior,
    said_in_passing,
    spelled_acronyms,
    stem_said,
    with_generic,
)

# The chunker gives every definition chunk kind "definition" (engine/index/chunks.py), never the symbol's kind:
# these tests use the chunks it makes, so a boost that only knows symbol kinds would fail them.
KIND_BUG = "a real definition chunk (kind 'definition') defining a stated name must gain DEFINITION_BOOST"

# --- stated_names --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("ClientSession", "ClientSession"),
        ("a.b.c", "c"),
        ("A::B", "B"),
        ("conn->close", "close"),
        ("_private", "_private"),
        ("Tokenizer", "Tokenizer"),
        ("URL", "URL"),
        ("parse_config", "parse_config"),
        ("safeParse", "safeParse"),
        ("  `Tokenizer`  ", "Tokenizer"),
        ("'ClientSession'", "ClientSession"),
    ],
)
def test_a_whole_symbol_query_states_its_last_name(query: str, name: str) -> None:
    assert stated_names(query) == StatedNames(whole=frozenset({name}))


@pytest.mark.parametrize("query", ["response", "how does routing work", "where are settings loaded from env", ""])
def test_plain_words_state_no_name(query: str) -> None:
    names = stated_names(query)
    assert not names
    assert names.all == frozenset()


@pytest.mark.parametrize(
    ("query", "embedded"),
    [
        ("why does safeParse throw", {"safeParse"}),  # camelCase
        ("what does the ClientSession do on close", {"ClientSession"}),  # PascalCase compound
        ("when is parse_config called", {"parse_config"}),  # snake_case
        ("how does the Router match paths", {"Router"}),  # capitalised word after the first
        ("how the Router hands requests to a ViewHandler via load_view", {"Router", "ViewHandler", "load_view"}),
        ("ClientSession reuse across requests", {"ClientSession"}),  # a compound counts even first
        ("res.send body encoding and ETag generation", {"send", "ETag"}),  # a qualified name: its last part
        ("how Foo::bar and node->next are used", {"Foo", "bar", "next"}),  # Foo: capitalised
        ("the Request type and HTTP request representation", {"Request"}),  # HTTP: an acronym, English
        ("how SSL is set up and FMT_COMPILE checks", {"FMT_COMPILE"}),  # with an underscore: a macro
    ],
)
def test_code_style_words_inside_a_question_are_embedded_names(query: str, embedded: set[str]) -> None:
    names = stated_names(query)
    assert names.whole == frozenset()
    assert names.embedded == embedded
    assert names.all == embedded
    assert names


@pytest.mark.parametrize("query", ["Where are routes matched", "Router matches paths", "How are retries configured"])
def test_the_first_word_of_a_sentence_is_not_a_name_for_its_capital(query: str) -> None:
    assert stated_names(query) == StatedNames()


@pytest.mark.parametrize("query", ["see e.g. the docs", "what changed in version 1.2.3", "i.e. the parser"])
def test_abbreviations_and_versions_are_not_qualified_names(query: str) -> None:
    assert stated_names(query) == StatedNames()


def test_stated_names_keep_the_case_as_written() -> None:
    assert stated_names("how does the tokenizer split") == StatedNames()
    assert stated_names("how does the Tokenizer split").embedded == {"Tokenizer"}


# --- defines / last_name -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("symbol", "name"),
    [("Client.send", "send"), ("std::vec::Vec", "Vec"), ("conn->close", "close"), ("App\\Http\\Kernel", "Kernel"),
     ("Foo#bar", "bar"), ("plain", "plain"), (None, None), ("", None)],
)
def test_last_name_is_what_a_definition_is_called_by(symbol: str | None, name: str | None) -> None:
    assert last_name(symbol) == name


def test_defines_needs_a_definition_kind_and_a_stated_last_name() -> None:
    assert defines("Client.send", "method", {"send"})
    assert defines("Tokenizer", "class", ["Tokenizer", "Other"])
    assert not defines("Client.send", "field", {"send"})  # a field is not what `send` asks for
    assert not defines("Client.send", "method", {"Client"})  # only the last name counts
    assert not defines("Tokenizer", None, {"Tokenizer"})
    assert not defines(None, "class", {"Tokenizer"})
    assert not defines("tokenizer", "class", {"Tokenizer"})  # case-sensitive


# --- path_term_ratio -----------------------------------------------------------------------------


def test_query_keywords_drop_stop_words_and_short_words() -> None:
    assert query_keywords("how are the retries configured in an app") == {"retries", "configured", "app"}
    assert query_keywords("how is it to be") == frozenset()


@pytest.mark.parametrize(
    ("query", "path", "ratio"),
    [
        ("how does the dispatcher work", "aiohttp/dispatcher.py", 0.5),  # exact stem; `work` is not in the path
        ("web dispatcher", "aiohttp/web_dispatcher.py", 1.0),  # stem words split
        ("how are dependencies resolved", "fastapi/dependencies/utils.py", 0.5),  # folder name
        ("how does depend work", "fastapi/dependencies/utils.py", 0.5),  # keyword is a prefix of a part
        ("dependencies", "fastapi/dep/utils.py", 1.0),  # a part of 3 letters is a prefix of the keyword
        ("how is the cache evicted", "store/cache.py", 0.5),
        ("how is the cache evicted", "store/memory.py", 0.0),
    ],
)
def test_path_term_ratio(query: str, path: str, ratio: float) -> None:
    assert path_term_ratio(query_keywords(query), path) == pytest.approx(ratio)


@pytest.mark.parametrize(
    ("query", "path", "said"),
    [
        ("path management for rails apps", "lib/rails/paths.rb", True),  # by its stem
        ("store creation and dispatch", "src/createStore.ts", True),  # every word, `creation` by its stem
        ("utility helpers for path detection", "gin/utils.go", True),  # a longer word the stem begins
        ("thread pool work queue", "src/threadpool.c", True),  # words run together
        ("command line dispatch", "src/cmd.go", True),  # a short form code writes for `command`
        ("model card generation", "model2vec/modelcards.py", True),
        ("rack integration for rails", "lib/rails/rack/silence_request.rb", False),  # `silence` unsaid
        ("run timers in tests without real time", "src/timeout.ts", False),  # `time` begins it: more
        ("how is the cache evicted", "store/memory.py", False),
        ("how does the dispatcher work", "pkg/__init__.py", False),  # a module file goes by its folder
        ("how middleware layers wrap the router", "axum/src/middleware/mod.rs", True),
        ("how the router matches routes", "src/router/index.ts", True),
        ("how the router matches routes", "src/index.ts", False),  # `src` is not said
    ],
)
def test_stem_said(query: str, path: str, said: bool) -> None:
    assert stem_said(query_keywords(query), path) is said


def test_an_acronym_is_said_by_the_words_that_spell_it() -> None:
    question = "how does the framework protect forms against cross-site request forgery"
    spelled = spelled_acronyms(question)
    assert spelled["csrf"] == frozenset({"cross", "site", "request", "forgery"})
    keywords = query_keywords(question)
    assert not stem_said(keywords, "django/middleware/csrf.py")  # the phrase alone never says the name
    assert stem_said(keywords, "django/middleware/csrf.py", spelled)
    assert path_term_ratio(keywords, "django/middleware/csrf.py") == 0.0
    assert path_term_ratio(keywords, "django/middleware/csrf.py", spelled) == pytest.approx(4 / len(keywords))
    assert path_term_ratio(keywords, "django/middleware/csrf_types.py", spelled) == 0.0  # only the acronym's file
    lru = spelled_acronyms("a cache of the least recently used entries")["lru"]
    assert lru == frozenset({"least", "recently", "used"})
    assert "jit" in spelled_acronyms("compiled just in time")  # a stop word may sit inside the run


def test_a_run_that_opens_or_closes_on_a_stop_word_spells_nothing() -> None:
    spelled = spelled_acronyms("how are routes registered")
    assert "har" not in spelled and "arr" not in spelled  # `how` and `are` are stop words
    assert "rr" not in spelled  # two letters: too many chance matches
    assert spelled_acronyms("routes") == {}


def test_file_prior_lifts_the_file_an_acronym_names() -> None:
    question = "how does the framework protect forms against cross-site request forgery"
    prior, without = _prior(question, Ranking()), _prior(question, Ranking(acronyms=False))
    assert prior("middleware/csrf.py") > prior("contrib/auth/forms.py") > prior("middleware/cache.py")
    assert without("middleware/csrf.py") == 1.0


STACK_QUESTION = "how are exception stack frames rendered with surrounding source lines"


@pytest.mark.parametrize(
    ("query", "path", "text", "passing"),
    [
        (STACK_QUESTION, "rich/_stack.py", "class Stack(List[T]):\n    def push(self, item): ...\n", True),
        (STACK_QUESTION, "rich/traceback.py", "class Stack:\n    frames: List[Frame]\n", False),  # says `frames`
        # inside a longer word (`getentropy`) still says it
        ("random number generation using OS entropy", "src/random.c", "int uv__random_getentropy(void);", False),
        ("how the observable pattern is used for subscriptions and operators", "src/observable.ts",
         "export function observable(subscribe) { return pipeFromArray(operators); }", False),
        # a short question is a name with a word or two: too few other words to judge by
        ("SSL certificate verification", "requests/certs.py", "def where(): return DEFAULT_CA_BUNDLE_PATH", False),
    ],
)
def test_a_file_whose_text_says_none_of_the_other_words_is_said_in_passing(
        query: str, path: str, text: str, passing: bool) -> None:
    assert said_in_passing(query_keywords(query), path, text) is passing


def test_a_file_said_in_passing_is_not_lifted_for_its_name(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "_stack.py").write_text("class Stack(list):\n    def push(self, item):\n        self.append(item)\n")
    (root / "traceback.py").write_text(
        'def render_stack(frames):\n    """Render exception frames with the source lines around them."""\n')
    opened = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=False)
    try:
        opened.refresh()
        snapshot, query = opened.snapshot(), parse_query(STACK_QUESTION)

        def prior(ranking: Ranking) -> Callable[[str], float]:
            found = fusion_features(snapshot, query, ranking, UNDERSTAND_CODE, direct=False).prior
            assert found is not None
            return found

        shipped, without = prior(Ranking()), prior(Ranking(said_text=False))
        named = 1.0 + FUSED_PATH_TERM_BOOST / len(query.keywords)  # `stack`, one of the question's words
        assert shipped("_stack.py") == pytest.approx(named)
        assert without("_stack.py") == pytest.approx(named * (1.0 + SAID_FILE_BOOST))
    finally:
        opened.close()


def test_path_term_prefixes_need_three_letters() -> None:
    assert path_term_ratio(frozenset({"de"}), "fastapi/dependencies/utils.py") == 0.0
    assert path_term_ratio(frozenset({"dep"}), "fastapi/dependencies/utils.py") == 1.0
    assert path_term_ratio(frozenset({"ab"}), "pkg/abc.py") == 0.0


def test_stop_words_never_count_and_no_keywords_is_zero() -> None:
    # `the` and `does` would match `the_does.py` exactly, but a question's stop words are not keywords
    assert path_term_ratio(query_keywords("how does the"), "pkg/the_does.py") == 0.0
    assert path_term_ratio(frozenset(), "pkg/anything.py") == 0.0


# --- path_prior ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_retry.py", "pkg/test_retry.py", "pkg/retry_test.go", "src/retry.test.ts", "src/retry.spec.jsx",
        "spec/retry_spec.rb", "src/test/java/RetryTest.java", "Sources/RetryTests.swift", "conftest.py",
        "src/__tests__/retry.js", "tests/helpers/build.rs", "pkg\\tests\\retry.py",
        "absl/container/raw_hash_set_benchmark.cc", "benches/retry.rs", "bench/bench_retry.py", "src/retry.bench.ts",
    ],
)
def test_test_files_and_test_folders_are_demoted(path: str) -> None:
    assert path_prior(path) == pytest.approx(TEST_PRIOR)


@pytest.mark.parametrize(
    "path",
    ["pkg/retry.py", "click/testing.py", "rxjs/internal/testing/TestScheduler.ts", "src/contest.py", "src/latest.go",
     "src/attestation.py", "docs/conf.py", "src/workbench.py", "lib/benchmarking_tools/timer.c"],
)
def test_ordinary_files_and_testing_utilities_keep_full_trust(path: str) -> None:
    assert path_prior(path) == 1.0


@pytest.mark.parametrize(
    ("path", "prior"),
    [
        ("examples/retry.py", EXAMPLE_PRIOR),
        ("_examples/retry.go", EXAMPLE_PRIOR),
        ("docs_src/tutorial/retry.py", EXAMPLE_PRIOR),
        ("pkg/compat/retry.py", COMPAT_PRIOR),
        ("pkg/__init__.py", REEXPORT_PRIOR),
        ("types/index.d.ts", TYPE_STUB_PRIOR),
        ("types/index.d.mts", TYPE_STUB_PRIOR),
    ],
)
def test_examples_compat_reexports_and_type_stubs(path: str, prior: float) -> None:
    assert path_prior(path) == pytest.approx(prior)


def test_factors_multiply() -> None:
    assert path_prior("examples/tests/test_retry.py") == pytest.approx(EXAMPLE_PRIOR * TEST_PRIOR)
    assert path_prior("pkg/_compat/__init__.py") == pytest.approx(COMPAT_PRIOR * REEXPORT_PRIOR)


def test_a_question_about_tests_lifts_only_the_test_prior() -> None:
    question = "how are the fixtures for retry set up"
    assert asks_about_tests(question)
    assert not asks_about_tests("how does retry work")
    assert path_prior("tests/test_retry.py", question) == 1.0
    assert path_prior("tests/test_retry.py", "how does retry work") == pytest.approx(TEST_PRIOR)
    assert path_prior("examples/tests/test_retry.py", "which Tests cover retry") == pytest.approx(EXAMPLE_PRIOR)


# --- boost_chunks --------------------------------------------------------------------------------

TOKENIZER_CLASS = '''class Tokenizer:
    """Splits a line into words."""

    def split(self, line):
        return line.split()
'''
PIPELINE = '''def run(documents):
    """Every document goes through a tokenizer; tokenizer output is counted."""
    tokenizer = make_tokenizer()
    return [len(tokenizer.split(doc)) for doc in documents]
'''


def _definition(path: str, source: str, symbol: str) -> Chunk:
    """The chunk the real parser and chunker make for `symbol` in `source`."""
    chunks = parse_file(path, source, "python").chunks
    return next(chunk for chunk in chunks if chunk.symbol == symbol)


@pytest.fixture(scope="module")
def lexer_class() -> Chunk:
    return _definition("text/lexer.py", TOKENIZER_CLASS, "Tokenizer")


@pytest.fixture(scope="module")
def named_class() -> Chunk:
    return _definition("text/tokenizer.py", TOKENIZER_CLASS, "Tokenizer")


@pytest.fixture(scope="module")
def usage() -> Chunk:
    return _definition("app/pipeline.py", PIPELINE, "run")


def _scores(ranked: list[tuple[Chunk, float]]) -> dict[str, float]:
    return {chunk.path: score for chunk, score in ranked}


def test_a_definition_of_the_stated_name_outranks_a_higher_bm25_chunk(lexer_class: Chunk, usage: Chunk) -> None:
    ranked = boost_chunks([(usage, 10.0), (lexer_class, 2.0)], parse_query("Tokenizer"), Ranking())
    assert ranked[0][0].path == "text/lexer.py", KIND_BUG
    assert _scores(ranked) == {"app/pipeline.py": 10.0, "text/lexer.py": pytest.approx(2.0 + 10.0 * DEFINITION_BOOST)}


def test_an_embedded_name_gains_a_smaller_boost(lexer_class: Chunk, usage: Chunk) -> None:
    query = "why does the Tokenizer drop tabs"  # no keyword names a part of either path
    ranked = boost_chunks([(usage, 10.0), (lexer_class, 2.0)], parse_query(query), Ranking())
    expected = 2.0 + 10.0 * DEFINITION_BOOST * EMBEDDED_NAME_SCALE
    assert _scores(ranked)["text/lexer.py"] == pytest.approx(expected), KIND_BUG


def test_a_file_named_after_the_name_ranks_above_another_definition(lexer_class: Chunk, named_class: Chunk) -> None:
    ranked = boost_chunks([(lexer_class, 5.0), (named_class, 4.0)], parse_query("Tokenizer"), Ranking())
    assert [chunk.path for chunk, _ in ranked] == ["text/tokenizer.py", "text/lexer.py"], KIND_BUG
    assert _scores(ranked)["text/tokenizer.py"] == pytest.approx(4.0 + 5.0 * DEFINITION_BOOST * NAMED_FILE_SCALE)


def test_extra_definitions_enter_with_their_boost_alone(lexer_class: Chunk, usage: Chunk) -> None:
    ranked = boost_chunks([(usage, 10.0)], parse_query("Tokenizer"), Ranking(), extra=[lexer_class])
    assert [chunk.path for chunk, _ in ranked] == ["text/lexer.py", "app/pipeline.py"], KIND_BUG
    assert _scores(ranked)["text/lexer.py"] == pytest.approx(10.0 * DEFINITION_BOOST)


def test_an_extra_chunk_already_scored_is_not_listed_twice(lexer_class: Chunk, usage: Chunk) -> None:
    query = parse_query("how is it done")
    ranked = boost_chunks([(usage, 10.0), (lexer_class, 2.0)], query, Ranking(), extra=[lexer_class])
    assert len(ranked) == 2
    assert boost_chunks([], parse_query("Tokenizer"), Ranking()) == []


def test_question_words_in_a_path_add_their_share_of_the_best_score(lexer_class: Chunk, usage: Chunk) -> None:
    query = "how does the lexer work"  # keywords lexer, work: text/lexer.py names one of two
    ranked = boost_chunks([(usage, 10.0), (lexer_class, 2.0)], parse_query(query), Ranking())
    expected = 2.0 + 10.0 * PATH_TERM_BOOST * 0.5
    assert _scores(ranked) == {"app/pipeline.py": 10.0, "text/lexer.py": pytest.approx(expected)}


def test_definitions_switch_turns_the_definition_boost_off(lexer_class: Chunk, usage: Chunk) -> None:
    scored = [(usage, 10.0), (lexer_class, 2.0)]
    query = "why does the Tokenizer drop tabs"
    assert _scores(boost_chunks(scored, parse_query(query), Ranking(definitions=False))) == {"app/pipeline.py": 10.0,
                                                                                 "text/lexer.py": 2.0}
    assert _scores(boost_chunks(scored, parse_query(query), Ranking()))["text/lexer.py"] > 2.0, KIND_BUG


def test_switching_definitions_off_does_not_switch_path_terms_on(named_class: Chunk, usage: Chunk) -> None:
    """The full engine gives a whole-symbol query no path-term boost; its `-definitions` ablation must not either."""
    scored = [(usage, 10.0), (named_class, 2.0)]
    assert _scores(boost_chunks(scored, parse_query("Tokenizer"), Ranking(definitions=False))) == {
        "app/pipeline.py": 10.0, "text/tokenizer.py": 2.0}, (
        "a whole-symbol query takes no path-term boost whatever the definitions switch says; otherwise the "
        "-definitions ablation measures definitions minus path terms (text/tokenizer.py 2.0 -> 12.0)")


def test_path_terms_switch_turns_the_path_boost_off(lexer_class: Chunk, usage: Chunk) -> None:
    scored = [(usage, 10.0), (lexer_class, 2.0)]
    assert _scores(boost_chunks(scored, parse_query("how does the lexer work"), Ranking(path_terms=False))) == {
        "app/pipeline.py": 10.0, "text/lexer.py": 2.0}


def test_features_lists_the_boolean_switches() -> None:
    switches = tuple(f.name for f in dataclasses.fields(Ranking) if isinstance(getattr(Ranking(), f.name), bool))
    assert switches == FEATURES
    assert {"definitions", "path_terms", "one_per_file", "file_aggregation", "path_priors", "centrality",
            "binary_vectors"} <= set(FEATURES)
    assert FEATURES[0] == "definitions" and FEATURES[-1] == "binary_vectors"
    assert {f.name for f in dataclasses.fields(Ranking)} - set(FEATURES) == {"k", "without", "weights"}
    assert all(getattr(Ranking(), feature) is True for feature in FEATURES)
    assert Ranking().k is None and Ranking().without == frozenset()


# --- file_prior ----------------------------------------------------------------------------------

CACHE_QUESTION = "how is the cache evicted"  # keywords cache, evicted


def _prior(query: str, ranking: Ranking, named: bool = True) -> Callable[[str], float]:
    prior = file_prior(parse_query(query), ranking, named)
    assert prior is not None
    return prior


def test_file_prior_demotes_a_test_file_that_names_no_question_word() -> None:
    assert _prior(CACHE_QUESTION, Ranking())("tests/test_retry.py") == pytest.approx(TEST_PRIOR)
    assert _prior(CACHE_QUESTION, Ranking())("store/memory.py") == 1.0


SAID = 1.0 + SAID_FILE_BOOST


def test_file_prior_lifts_a_file_named_after_the_question_words() -> None:
    prior = _prior(CACHE_QUESTION, Ranking())
    # names cache, not evicted; and the question says its whole stem
    assert prior("store/cache.py") == pytest.approx((1.0 + FUSED_PATH_TERM_BOOST * 0.5) * SAID)
    assert prior("cache/evicted.py") == pytest.approx((1.0 + FUSED_PATH_TERM_BOOST) * SAID)  # folder and stem
    assert prior("cache/lru_store.py") == pytest.approx(1.0 + FUSED_PATH_TERM_BOOST * 0.5)  # the folder only
    assert prior("store/cache.py") > prior("store/memory.py")


def test_file_prior_lifts_the_file_named_for_the_question_over_a_longer_name_that_says_more() -> None:
    prior = _prior("Request type and HTTP request representation", Ranking())
    assert prior("Request/Request.swift") > prior("HTTP/Server/HTTPServerRequestDecoder.swift")
    without = _prior("Request type and HTTP request representation", Ranking(said_files=False))
    assert without("Request/Request.swift") < without("HTTP/Server/HTTPServerRequestDecoder.swift")


def test_file_prior_multiplies_the_test_prior_and_the_name_lift() -> None:
    prior = _prior(CACHE_QUESTION, Ranking())
    assert prior("tests/cache.py") == pytest.approx(TEST_PRIOR * (1.0 + FUSED_PATH_TERM_BOOST * 0.5) * SAID)
    assert prior("tests/test_cache.py") == pytest.approx(TEST_PRIOR * (1.0 + FUSED_PATH_TERM_BOOST * 0.5))
    assert prior("examples/__init__.py") == pytest.approx(EXAMPLE_PRIOR * REEXPORT_PRIOR)


def test_file_prior_for_a_question_about_tests_keeps_test_files_whole() -> None:
    prior = _prior("which tests cover the cache", Ranking())  # keywords tests, cover, cache
    assert prior("tests/test_cache.py") == pytest.approx((1.0 + FUSED_PATH_TERM_BOOST * 2 / 3) * SAID)
    assert prior("tests/test_retry.py") == pytest.approx(1.0 + FUSED_PATH_TERM_BOOST / 3)  # `tests` folder only
    assert _prior("which tests cover the cache", Ranking(), named=False)("tests/test_cache.py") == 1.0


def test_file_prior_not_named_ignores_the_question_words() -> None:
    prior = _prior(CACHE_QUESTION, Ranking(), named=False)
    assert prior("store/cache.py") == 1.0
    assert prior("tests/test_cache.py") == pytest.approx(TEST_PRIOR)
    assert prior("pkg/__init__.py") == pytest.approx(REEXPORT_PRIOR)


def test_file_prior_is_none_when_neither_switch_can_act() -> None:
    question = parse_query(CACHE_QUESTION)
    assert file_prior(question, Ranking(path_priors=False, path_terms=False)) is None
    assert file_prior(question, Ranking(path_priors=False), named=False) is None  # names are all it had
    assert file_prior(question, Ranking(path_terms=False), named=False) is not None


def test_file_prior_with_path_terms_off_keeps_the_path_priors() -> None:
    prior = _prior(CACHE_QUESTION, Ranking(path_terms=False))
    assert prior("store/cache.py") == 1.0
    assert prior("tests/test_cache.py") == pytest.approx(TEST_PRIOR)
    assert prior("types/cache.d.ts") == pytest.approx(TYPE_STUB_PRIOR)


def test_file_prior_with_path_priors_off_keeps_the_name_lift() -> None:
    prior = _prior(CACHE_QUESTION, Ranking(path_priors=False))
    assert prior("tests/test_cache.py") == pytest.approx(1.0 + FUSED_PATH_TERM_BOOST * 0.5)
    assert prior("tests/test_retry.py") == 1.0
    assert prior("examples/compat/__init__.py") == 1.0


def test_file_prior_of_a_question_without_keywords_is_the_path_prior() -> None:
    prior = _prior("how is it to be", Ranking())  # stop words and short words only
    assert prior("pkg/how.py") == 1.0
    assert prior("tests/test_how.py") == pytest.approx(TEST_PRIOR)


@pytest.mark.parametrize("path", ["README.md", "docs/retry.md", "docs/guide.rst", "NOTES.txt"])
def test_documentation_is_lowered_unless_the_question_is_about_documentation(path: str) -> None:
    assert path_prior(path, "how does retry work") == pytest.approx(DOC_PRIOR)
    assert path_prior(path, "where do the docs explain retry") == 1.0
    assert path_prior(path, "retry README") == 1.0


# --- prose_prior ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("path", "factor"),
    [
        ("AGENTS.md", PROSE_PRIOR),
        ("sub/CLAUDE.md", PROSE_PRIOR),
        ("GEMINI.md", PROSE_PRIOR),
        (".cursorrules", PROSE_PRIOR),
        (".github/copilot-instructions.md", PROSE_PRIOR),
        (".github/ISSUE_TEMPLATE/bug_report.md", PROSE_PRIOR),
        (".github/workflows/ci.yml", PROSE_PRIOR),
        ("CHANGELOG.md", PROSE_PRIOR),
        ("HISTORY.rst", PROSE_PRIOR),
        ("NEWS", PROSE_PRIOR),
        ("LICENSE", PROSE_PRIOR),
        ("LICENSE-MIT", PROSE_PRIOR),
        ("django/conf/locale/it/LC_MESSAGES/django.po", PROSE_PRIOR),
        ("locale/messages.pot", PROSE_PRIOR),
        ("PKG-INFO", PROSE_PRIOR),
        ("docs/man/django-admin.1", PROSE_PRIOR),
        ("README.md", DOC_PRIOR),
        ("docs/guide.rst", DOC_PRIOR),
        ("nvm.sh", 1.0),
        ("src/history.py", 1.0),  # code named like a changelog is code
        ("pkg/changes.go", 1.0),
        ("licenses/mod.rs", 1.0),
    ],
)
def test_prose_prior_lowers_prose_below_docs_and_leaves_code(path: str, factor: float) -> None:
    prior = prose_prior(parse_query("how does nvm download a tarball"), Ranking())
    assert prior is not None
    assert prior(path) == pytest.approx(factor)
    assert path_prior(path, "how does nvm download a tarball") == pytest.approx(factor)


def test_prose_prior_is_off_for_a_docs_question_and_with_path_priors_off() -> None:
    prior = prose_prior(parse_query("where is the license documented"), Ranking())
    assert prior is not None and prior("LICENSE") == 1.0 and prior("AGENTS.md") == 1.0
    assert prose_prior(parse_query("how does retry work"), Ranking(path_priors=False)) is None


@pytest.mark.parametrize(
    ("path", "factor"),
    [
        ("lib/url.h", TYPE_STUB_PRIOR),  # lib/url.c is indexed: the header only declares
        ("src/format.hpp", 1.0),  # a header-only library: its headers are the code
        ("lib/url.c", 1.0),
    ],
)
def test_a_header_beside_its_source_is_a_declaration(path: str, factor: float) -> None:
    indexed = {"lib/url.h", "lib/url.c", "src/format.hpp"}
    question = parse_query("how does curl parse a url")
    prior = file_prior(question, Ranking(path_terms=False), indexed=indexed.__contains__)
    assert prior is not None and prior(path) == pytest.approx(factor)


def test_an_acronym_alone_is_a_name() -> None:
    assert stated_names("URL").whole == {"URL"}


def test_a_name_defined_in_more_files_than_the_limit_is_generic() -> None:
    """A namespace every file opens, a method every class overrides; a class and its extensions is not."""
    paths = {"toString": [f"src/C{i}.java" for i in range(GENERIC_NAME_FILES + 1)],
             "Application": [f"Sources/Application+{i}.swift" for i in range(GENERIC_NAME_FILES)] * 3}
    assert generic_names(["toString", "Application", "Absent"], lambda name: paths.get(name, [])) == {"toString"}


def test_a_generic_embedded_name_boosts_only_the_definition_in_its_home_file(
    lexer_class: Chunk, named_class: Chunk, usage: Chunk
) -> None:
    query = "why does the Tokenizer drop tabs"
    everywhere = with_generic(stated_names(query), lambda name: [f"m{i}.py" for i in range(GENERIC_NAME_FILES + 1)])
    assert everywhere.generic == {"Tokenizer"}
    scored = [(usage, 10.0), (lexer_class, 2.0), (named_class, 2.0)]
    ranked = _scores(boost_chunks(scored, parse_query(query), Ranking(), stated=everywhere))
    assert ranked["text/lexer.py"] == pytest.approx(2.0)
    assert ranked["text/tokenizer.py"] > 2.0 + 10.0 * DEFINITION_BOOST * EMBEDDED_NAME_SCALE


@pytest.mark.parametrize(("qualified", "test"), [
    ("tests.two_path_extractors", True), ("routing.tests.nested", True), ("test.it_works", True),
    ("tests", False), ("Router.route", False), ("latest.value", False), (None, False),
])
def test_a_test_module_inside_a_source_file_is_told_by_the_qualified_name(qualified: str | None, test: bool) -> None:
    assert is_test_symbol(qualified) is test


def test_file_agreement_is_for_fused_understanding_questions_with_the_switch_on(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "retry.py").write_text("def retry(call, attempts=3):\n    return call()\n")
    opened = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=False)
    try:
        opened.refresh()
        snapshot, query = opened.snapshot(), parse_query("how does retry work")

        def agreement(intent: str, ranking: Ranking | None = None, direct: bool = False) -> float:
            return fusion_features(snapshot, query, ranking or Ranking(), intent, direct=direct).agreement

        assert agreement(UNDERSTAND_CODE) == FILE_AGREEMENT > 0
        assert agreement(UNDERSTAND_CODE, direct=True) == 0.0  # one retriever agrees with nobody
        assert agreement(UNDERSTAND_CODE, Ranking(file_agreement=False)) == 0.0
        assert agreement(FIND_DEFINITION) == agreement(FIND_REFERENCES) == 0.0
    finally:
        opened.close()


def test_a_name_inside_a_sentence_ranks_its_files_by_the_topic(tmp_path: Path) -> None:
    """DESIGN §2 rule 8 (`ostream integration for writing to std::ostream`): find_definition, with the topic
    features of an understanding question (question words in file names, file agreement, copies spread); a
    question that is the name alone (rule 5) and the switch off keep the plain definition ranking."""
    root = tmp_path / "repo"
    (root / "fmt").mkdir(parents=True)
    (root / "fmt" / "os.h").write_text("namespace fmt {\nclass ostream {\n public:\n  void flush();\n};\n}\n")
    (root / "fmt" / "ostream.h").write_text(
        "#include <ostream>\nnamespace fmt {\nvoid print(std::ostream& os, const char* text);\n}\n")
    opened = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=False)
    try:
        opened.refresh()
        snapshot = opened.snapshot()
        known = lambda name: bool(snapshot.symbols.definitions(name))  # noqa: E731
        sentence = parse_query("ostream integration for writing to std::ostream", known=known)
        alone = parse_query("std::ostream", known=known)
        assert sentence.classification.rule == "8:identifier-in-query" and sentence.intent == FIND_DEFINITION
        assert alone.intent == FIND_DEFINITION and alone.classification.rule != sentence.classification.rule

        def features(query: ParsedQuery, ranking: Ranking | None = None) -> FusionFeatures:
            return fusion_features(snapshot, query, ranking or Ranking(), FIND_DEFINITION, direct=False)

        topic, plain, off = features(sentence), features(alone), features(sentence, Ranking(sentence_names=False))
    finally:
        opened.close()
    assert asks_around_a_name(sentence, FIND_DEFINITION) and not asks_around_a_name(alone, FIND_DEFINITION)
    assert not asks_around_a_name(sentence, UNDERSTAND_CODE)
    assert topic.agreement == FILE_AGREEMENT and topic.coherence > 0 and topic.copies is not None
    assert topic.prior is not None and topic.prior("fmt/ostream.h") > topic.prior("fmt/os.h") == 1.0
    assert topic.names == off.names == {"ostream"}  # the definition is lifted either way
    for kept in (plain, off):
        assert kept.agreement == kept.coherence == 0.0 and kept.copies is None
        assert kept.prior is not None and kept.prior("fmt/ostream.h") == kept.prior("fmt/os.h") == 1.0


# --- priors per intent ---------------------------------------------------------------------------


def test_a_definition_question_lowers_tests_but_not_a_header_beside_its_source(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "status.h").write_text("class Status {\n public:\n  int code() const;\n};\n")
    (root / "status.cc").write_text('#include "status.h"\nint Status::code() const { return 0; }\n')
    (root / "tests" / "status_test.cc").write_text('#include "status.h"\nvoid check() { Status().code(); }\n')
    opened = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=False)
    try:
        opened.refresh()
        snapshot, query = opened.snapshot(), parse_query("Status error propagation")

        def prior(intent: str) -> Callable[[str], float]:
            found = fusion_features(snapshot, query, Ranking(), intent, direct=False).prior
            assert found is not None
            return found

        definition, understanding, references = prior(FIND_DEFINITION), prior(UNDERSTAND_CODE), prior(FIND_REFERENCES)
    finally:
        opened.close()
    assert definition("tests/status_test.cc") == pytest.approx(TEST_PRIOR)  # a name no symbol has: not its tests
    assert definition("status.h") == 1.0  # a C++ class is defined in its header
    assert understanding("status.h") < understanding("status.cc")  # "how" is answered in the source
    assert references("tests/status_test.cc") == 1.0  # a use in a test is a use


# --- Layout: what the repository's file names say -------------------------------------------------
# A logging library: every handler is `XHandler.php`, one file is about rotation.
HANDLERS = [f"src/Handler/{name}Handler.php" for name in ("Stream", "Syslog", "Slack", "Mail", "Null", "Buffer",
                                                           "Loggly", "Redis")] + [
    "src/Handler/RotatingFileHandler.php", "src/Logger.php", "src/Formatter/LineFormatter.php",
    "src/Formatter/JsonFormatter.php"]


def test_rarity_is_one_for_a_word_one_stem_says_and_falls_with_the_stems_that_say_it() -> None:
    words = layout({path: None for path in HANDLERS})
    assert words.files_saying("rotating") == 1 and words.rarity("rotating") == 1.0
    assert words.rarity("absent") == 1.0  # no stem says it: it takes nothing from the files that say the others
    assert words.files_saying("handlers") == 9  # `handler` in nine stems, by the shared prefix
    assert 0.0 < words.rarity("handlers") < words.rarity("formatter") < words.rarity("rotating")
    assert words.files_saying("src") == 0  # a folder is not a stem: every file under it would say it
    everywhere = layout({f"pkg/mod{i}_util.py": None for i in range(5)})
    assert everywhere.rarity("util") == 0.0


def test_a_rare_path_word_lifts_more_than_a_common_one() -> None:
    """"rotating file handler for log rotation": without rarity `LogglyHandler.php` (says `log`, by its
    stemmed `loggly`, and `handler`) is lifted as much as `RotatingFileHandler.php` is for `handler` and
    `rotating`; with it, the word one file's name says outweighs the word nine say."""
    question = parse_query("rotating file handler for log rotation by date")
    words = layout({path: None for path in HANDLERS})
    plain = file_prior(question, Ranking(said_files=False))
    rare = file_prior(question, Ranking(said_files=False), rarity=words.rarity)
    assert plain is not None and rare is not None
    rotating, stream = "src/Handler/RotatingFileHandler.php", "src/Handler/StreamHandler.php"
    assert rare(rotating) / rare(stream) > plain(rotating) / plain(stream)
    assert rare(stream) < plain(stream)  # `handler` alone says little here
    assert rare("src/Logger.php") > 1.0  # `log`: Logger and, by its stem, Loggly: two of twelve


@pytest.mark.parametrize(
    ("path", "folder"),
    [
        ("packages/zod/src/v3/types.ts", "v3"),  # v4 sits beside it
        ("packages/zod/src/v3/helpers/util.ts", "v3"),
        ("packages/zod/src/v4/classic/schemas.ts", None),  # the latest
        ("pydantic/v1/main.py", None),  # a lone version folder may be the current code
        ("k8s/apis/apps/v1beta1/types.go", None),  # an API stage is no copy of a library
        ("lib/index.ts", None),
    ],
)
def test_a_version_folder_beside_a_later_one_is_superseded(path: str, folder: str | None) -> None:
    files = layout({p: None for p in ("packages/zod/src/v3/types.ts", "packages/zod/src/v3/helpers/util.ts",
                                      "packages/zod/src/v4/classic/schemas.ts", "pydantic/v1/main.py",
                                      "k8s/apis/apps/v1beta1/types.go", "k8s/apis/apps/v1/types.go",
                                      "lib/index.ts")})
    assert files.superseded(path) == folder


def test_a_superseded_file_is_lowered_unless_the_question_names_its_version() -> None:
    files = layout({p: None for p in ("src/v3/types.ts", "src/v4/core/schemas.ts")})
    for intent_named in (True, False):  # understanding and definition questions alike
        prior = file_prior(parse_query("how ZodType parses input"), Ranking(path_terms=False), named=intent_named,
                           superseded=files.superseded)
        assert prior is not None
        assert prior("src/v3/types.ts") == pytest.approx(LEGACY_VERSION_PRIOR)
        assert prior("src/v4/core/schemas.ts") == 1.0
    asked = file_prior(parse_query("v3 compatibility error types"), Ranking(path_terms=False),
                       superseded=files.superseded)
    assert asked is not None and asked("src/v3/types.ts") == 1.0
    off = file_prior(parse_query("how ZodType parses input"), Ranking(path_terms=False, path_priors=False),
                     named=False, superseded=files.superseded)
    assert off is None
    assert names_folder("the V3 API", "v3") and not names_folder("v30 release", "v3")


def test_a_layout_is_built_once_for_the_same_paths_and_again_for_new_ones() -> None:
    """Every edit makes a new `Snapshot.files`; one that keeps the paths reuses the layout (it depends on
    the paths alone), one that adds a file gets a layout that sees it."""
    first = {"zod/v3/types.ts": 1, "zod/v4/types.ts": 2, "src/SqlMapper.cs": 3}
    edited = dict(first)
    edited["src/SqlMapper.cs"] = 4
    assert layout(edited) is layout(first)
    grown = {**first, "zod/v5/types.ts": 5}
    assert layout(grown) is not layout(first)
    assert layout(grown).superseded("zod/v4/types.ts") == "v4"
    assert layout(first).superseded("zod/v4/types.ts") is None
    assert layout(grown).files_saying("types") == 3


# Two flavours of one module in sibling folders (zod's `v4/classic/` and `v4/mini/`), the core they share, and
# two folders that share only generic file names (fastapi's `openapi/` and `dependencies/`).
FLAVOURS = [f"src/v4/{flavour}/{name}.ts" for flavour in ("classic", "mini")
            for name in ("checks", "coerce", "index", "parse", "schemas")] + [
    "src/v4/classic/compat.ts", "src/v4/core/api.ts", "src/v4/core/schemas.ts", "src/v4/core/util.ts",
    "src/schemas.ts", "lib/classic/schemas.ts", "lib/classic/index.ts", "lib/classic/parse.ts",
    "app/openapi/__init__.py", "app/openapi/utils.py", "app/openapi/models.py", "app/openapi/docs.py",
    "app/dependencies/__init__.py", "app/dependencies/utils.py", "app/dependencies/models.py"]


@pytest.mark.parametrize(
    ("path", "other", "twin"),
    [
        ("src/v4/mini/schemas.ts", "src/v4/classic/schemas.ts", True),  # 5 of 6 file names in common
        ("src/v4/classic/schemas.ts", "src/v4/mini/schemas.ts", True),
        ("src/v4/core/schemas.ts", "src/v4/classic/schemas.ts", False),  # core holds other files
        ("src/v4/mini/parse.ts", "src/v4/classic/schemas.ts", False),  # another name
        ("src/schemas.ts", "src/v4/classic/schemas.ts", False),  # not siblings
        ("lib/classic/schemas.ts", "src/v4/classic/schemas.ts", False),
        ("src/v4/mini/schemas.ts", "src/v4/mini/schemas.ts", False),
        ("app/dependencies/utils.py", "app/openapi/utils.py", True),  # generic names: the names decide (fusion)
    ],
)
def test_a_sibling_folder_holding_mostly_the_same_file_names_is_a_twin(path: str, other: str, twin: bool) -> None:
    assert layout({p: None for p in FLAVOURS}).twin(path, other) is twin


def test_a_flavour_in_a_twin_folder_is_spread_below_its_twin(tmp_path: Path) -> None:
    """Real files: mini's `schemas.ts` repeats most of classic's names under other class names (Jaccard under
    COPY_OVERLAP), so only the twin folders make it a copy, and core's `api.ts` takes its place."""
    root = tmp_path / "repo"
    functions = ("string", "number", "union", "optional", "record")
    for flavour, prefix in (("classic", "Zod"), ("mini", "ZodMini")):
        folder = root / "v4" / flavour
        folder.mkdir(parents=True)
        for name in ("checks", "index", "parse"):
            (folder / f"{name}.ts").write_text(f"export const {flavour}_{name} = 1;\n")
        classes = "".join(f"export class {prefix}{fn.title()} {{ kind = '{fn}'; }}\n" for fn in functions)
        extra = "".join(f"export class {prefix}{fn.title()}Extra {{}}\n" for fn in functions) if flavour == "classic" \
            else ""
        calls = "".join(f"export function {fn}(params) {{ return new {prefix}{fn.title()}(params); }}\n"
                        for fn in functions)
        (folder / "schemas.ts").write_text(classes + extra + calls)
    (root / "v4" / "core").mkdir()
    (root / "v4" / "core" / "api.ts").write_text(
        "".join(f"export function _{fn}(Class, params) {{ return new Class(params); }}\n" for fn in functions))
    opened = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=False)
    try:
        opened.refresh()
        snapshot, query = opened.snapshot(), parse_query("union schema types")
        features = fusion_features(snapshot, query, Ranking(), UNDERSTAND_CODE, direct=False)
        off = fusion_features(snapshot, query, Ranking(twin_folders=False), UNDERSTAND_CODE, direct=False)
        assert features.copies is not None and features.twin is not None and off.twin is None
        classic, mini = features.copies("v4/classic/schemas.ts"), features.copies("v4/mini/schemas.ts")
        assert len(classic & mini) == len(functions) < COPY_OVERLAP * len(classic | mini)  # no copy by names alone
        ranked = {"semantic": [Hit(path, Span(0, 0, 1, 0), 1.0, "union", "function", "", "typescript")
                               for path in ("v4/classic/schemas.ts", "v4/mini/schemas.ts", "v4/core/api.ts")]}

        def order(chosen: FusionFeatures) -> list[str]:
            return [r.path for r in fuse(ranked, {"semantic": 1.0}, 10, lambda hit: 0.0, copies=chosen.copies,
                                         twin=chosen.twin)]

        assert order(features) == ["v4/classic/schemas.ts", "v4/core/api.ts", "v4/mini/schemas.ts"]
        assert order(off) == ["v4/classic/schemas.ts", "v4/mini/schemas.ts", "v4/core/api.ts"]
    finally:
        opened.close()
