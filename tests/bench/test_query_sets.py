"""Our public query sets (bench/queries): enough queries, every intent, real phrasings, honest gold.

The committed JSONL must parse with `fourfold eval`'s own reader, keep its promises (150+ queries,
Italian and Vietnamese phrasings, unanswerable ones, questions that do not name the answer) and,
when the corpora are fetched, be exactly what the generator scripts derive from them.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from fourfold.engine.model.profiles import INTENTS
from fourfold.lsp.evaluation import EvalQuery, load_queries

BENCH = Path(__file__).resolve().parents[2] / "bench"
QUERIES = BENCH / "queries"
# set name -> (generator module, corpus folder)
SETS = {
    "django": ("make_django_queries", "django-5.1.4"),
    "rich": ("make_rich_queries", "rich-13.9.4"),
    "rxjs": ("make_rxjs_queries", "rxjs-7.8.1"),
}
VIETNAMESE = re.compile(r"[ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹđơư]")
ITALIAN = re.compile(r"\b(dove|chi chiama|cosa|come|perché|spiega|impatto|usi di)\b")
WORD = re.compile(r"[a-z0-9_]+")


def queries(name: str) -> list[EvalQuery]:
    return load_queries(QUERIES / f"{name}.jsonl")


@pytest.fixture
def bench_on_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The generators import each other as scripts do (bench/ first on sys.path)."""
    monkeypatch.syspath_prepend(str(BENCH))
    yield
    for module in [name for name in sys.modules if name.startswith("make_")]:
        del sys.modules[module]


def test_at_least_150_queries_of_our_own_over_three_corpora() -> None:
    counts = {name: len(queries(name)) for name in SETS}
    assert sum(counts.values()) >= 150
    assert all(count >= 35 for count in counts.values()), counts


@pytest.mark.parametrize("name", list(SETS))
def test_every_intent_is_labelled_and_answerable(name: str) -> None:
    answerable = Counter(q.intent for q in queries(name) if q.answerable)
    assert set(answerable) == set(INTENTS)


@pytest.mark.parametrize("name", list(SETS))
def test_a_share_is_unanswerable_with_empty_gold(name: str) -> None:
    unanswerable = [q for q in queries(name) if not q.answerable]
    assert len(unanswerable) >= 5
    assert all(not q.gold for q in unanswerable)
    assert all(q.gold for q in queries(name) if q.answerable)


@pytest.mark.parametrize("name", list(SETS))
def test_italian_and_vietnamese_phrasings_are_present(name: str) -> None:
    texts = [q.query for q in queries(name)]
    assert sum(1 for text in texts if VIETNAMESE.search(text)) >= 3
    assert sum(1 for text in texts if ITALIAN.search(text)) >= 5


@pytest.mark.parametrize("name", list(SETS))
def test_questions_do_not_name_their_answer_files(name: str) -> None:
    """A question spelling its answer's file name tests string matching, not search. A plain English
    word that happens to be a file name ("engine") may appear, as long as another gold file is unnamed."""
    for query in queries(name):
        if query.intent != "understand_code" or not query.answerable:
            continue
        words = set(WORD.findall(query.query.lower()))
        stems = {Path(gold.path).stem.lower().strip("_") for gold in query.gold}
        assert stems - words, query.id
        assert not words & {stem for stem in stems if "_" in stem}, query.id


# Django is left out: its generator parses 2,800 files and greps them (tens of seconds); run it by hand.
@pytest.mark.parametrize("name", ["rich", "rxjs"])
def test_generator_reproduces_the_committed_set(name: str, bench_on_path: None) -> None:
    module_name, folder = SETS[name]
    corpus = BENCH / "corpora" / folder
    if not corpus.is_dir():
        pytest.fail(f"corpus not fetched: run bench/fetch_{name}.sh (scripts/test does)")
    module = importlib.import_module(module_name)
    rows = module.build(corpus)
    committed = [json.loads(line) for line in (QUERIES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows == committed


@pytest.mark.parametrize("name", list(SETS))
def test_gold_lines_exist_in_the_corpus(name: str) -> None:
    corpus = BENCH / "corpora" / SETS[name][1]
    if not corpus.is_dir():
        pytest.fail(f"corpus not fetched: run bench/fetch_{name}.sh (scripts/test does)")
    for query in queries(name):
        for gold in query.gold:
            path = corpus / gold.path
            assert path.is_file(), (query.id, gold.path)
            if gold.line is not None:
                assert 1 <= gold.line <= len(path.read_text(encoding="utf-8").splitlines()), (query.id, gold)


def test_semble_rest_rows_sit_inside_their_repos_benchmark_root() -> None:
    """The held-out semble set: every row parses as semble's format and names a listed repository, whose
    benchmark root holds every gold path (else `fourfold eval` would count it missing), with the counts
    the repos file promises."""
    rows = queries("semble-rest")
    repos = {item["name"]: item for item in
             json.loads((QUERIES / "semble-rest-repos.json").read_text(encoding="utf-8"))["repos"]}
    assert len({row.id for row in rows}) == len(rows)
    assert len({repos[row.repo]["language"] for row in rows if row.repo}) >= 8
    for row in rows:
        assert row.semble and row.repo in repos and row.gold, row.id
        assert row.language == repos[row.repo]["language"], row.id
        root = repos[row.repo]["benchmark_root"]
        assert all(gold.path.startswith(f"{root}/" if root else "") for gold in row.gold), row.id
    assert Counter(row.repo for row in rows) == {name: item["queries_kept"] for name, item in repos.items()}
