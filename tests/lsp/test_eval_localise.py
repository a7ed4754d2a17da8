"""`fourfold eval --localise`: the localisation benchmark's metrics, baseline and wiring, on corpora made here."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from fourfold.engine import Settings, Workspace
from fourfold.lsp.eval_cli import add_eval_parser
from fourfold.lsp.eval_localise import (
    BM25_SYSTEM,
    Answer,
    FileBM25,
    Instance,
    LocaliseOptions,
    groups_of,
    is_instances_file,
    load_instances,
    release_named,
    run_localise,
    score,
    select,
    summarise,
)

GOLD = Instance("demo-1", "acme/demo", "1.0", "text", ("demo/core.py",), (("demo/core.py", "Parser.parse"),))


@pytest.mark.parametrize(("files", "hits", "all_gold"), [
    (("demo/core.py", "demo/util.py"), {1: True, 5: True, 10: True}, True),
    (("a.py", "b.py", "demo/core.py"), {1: False, 5: True, 10: True}, True),
    ((*(f"x{i}.py" for i in range(6)), "demo/core.py"), {1: False, 5: False, 10: True}, True),
    ((*(f"x{i}.py" for i in range(10)), "demo/core.py"), {1: False, 5: False, 10: False}, False),
    ((), {1: False, 5: False, 10: False}, False),
])
def test_file_hits_at_k(files: tuple[str, ...], hits: dict[int, bool], all_gold: bool) -> None:
    result = score(Answer(GOLD, "s", files, None, 1.0))
    assert result.hits == hits
    assert result.all_gold is all_gold
    assert result.function is None  # no function answer: not scored


def test_all_gold_needs_every_file_and_function_hits_match_qualified_names() -> None:
    two = Instance("demo-2", "acme/demo", "1.0", "t", ("a.py", "b.py"), (("b.py", "Parser.parse"),))
    one_of_two = score(Answer(two, "s", ("a.py", "c.py"), (("b.py", "parse"),), 1.0))
    assert one_of_two.hits[1] and not one_of_two.all_gold
    assert one_of_two.function is False  # a bare `parse` is not `Parser.parse`
    both = score(Answer(two, "s", ("a.py", "b.py"), (("a.py", "f"), ("b.py", "mod.Parser.parse")), 1.0))
    assert both.all_gold and both.function is True
    wrong_file = score(Answer(two, "s", ("b.py",), (("a.py", "Parser.parse"),), 1.0))
    assert wrong_file.function is False


def test_top_file_that_is_no_code_is_counted() -> None:
    assert score(Answer(GOLD, "s", ("CHANGES.rst", "demo/core.py"), None, 1.0)).non_code_top
    assert score(Answer(GOLD, "s", (".github/workflows/ci.yml",), None, 1.0)).non_code_top
    assert not score(Answer(GOLD, "s", ("demo/core.py",), None, 1.0)).non_code_top


def test_summary_rows_per_group_and_system() -> None:
    other = Instance("other-1", "psf/requests", "2.0", "t", ("requests/api.py",))
    answers = [Answer(GOLD, "engine", ("demo/core.py",), (), 2.0), Answer(other, "engine", ("x.py",), (), 4.0),
               Answer(GOLD, "bm25", ("x.py",), None, 1.0), Answer(other, "bm25", ("requests/api.py",), None, 1.0)]
    rows = {(row.group, row.system): row for row in summarise(answers, groups_of([GOLD, other]))}
    assert rows[("overall", "engine")].hit_at[1] == 0.5
    assert rows[("overall", "engine")].instances == 2
    assert rows[("tune half", "bm25")].hit_at[1] == 1.0  # requests is in the tuning half
    assert rows[("held-out half", "engine")].hit_at[1] == 1.0
    assert rows[("acme/demo", "engine")].p50_ms == 2.0
    assert rows[("overall", "bm25")].function_at_10 is None


def test_whole_file_bm25_ranks_by_words_and_path() -> None:
    bm25 = FileBM25({"pkg/parser.py": "def parse_header(line):\n    return line.split(':')\n",
                     "pkg/writer.py": "def write_rows(rows):\n    for row in rows: print(row)\n",
                     "pkg/empty.py": ""})
    assert bm25.search("the header parser splits wrongly")[0] == "pkg/parser.py"
    assert bm25.search("writing rows")[0] == "pkg/writer.py"
    assert bm25.search("zebra") == ()


def test_select_spreads_a_capped_repository_evenly() -> None:
    many = [Instance(f"big-{i}", "acme/big", "1.0", "t", ("a.py",)) for i in range(10)]
    chosen = select([*many, GOLD], None, 3)
    assert [i.id for i in chosen] == ["big-0", "big-3", "big-6", "demo-1"]
    assert [i.id for i in select([*many, GOLD], "demo", None)] == ["demo-1"]


def test_a_gold_method_is_named_as_the_searched_release_names_it(tmp_path: Path) -> None:
    """The gold names are the base commit's; the corpus is the release before, where a method may sit in
    another class of the same file. The one method of that name in the file stands for it; a name the file
    lacks, or holds twice, stays a miss."""
    (tmp_path / "m.py").write_text("class MatrixBase:\n    def is_upper(self):\n        return True\n\n"
                                   "    def shape(self):\n        return 1\n\n\n"
                                   "class Sparse:\n    def shape(self):\n        return 2\n")
    workspace = Workspace(tmp_path, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"),
                          background=False)
    try:
        workspace.refresh()
        gold = (("m.py", "MatrixProperties.is_upper"), ("m.py", "MatrixProperties.shape"), ("m.py", "Gone.f"),
                ("m.py", "MatrixBase.is_upper"))
        named, notes = release_named(Instance("i-1", "acme/m", "1.0", "t", ("m.py",), gold), workspace.snapshot())
    finally:
        workspace.close()
    assert named.gold_functions == (("m.py", "MatrixBase.is_upper"), *gold[1:])
    assert notes == ["i-1: m.py::MatrixProperties.is_upper -> MatrixBase.is_upper"]
    assert score(Answer(named, "s", ("m.py",), (("m.py", "MatrixBase.is_upper"),), 1.0)).function is True


def _corpora(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "corpora"
    core = root / "demo-1.0" / "demo"
    core.mkdir(parents=True)
    (core / "core.py").write_text("class Parser:\n    def parse(self, text):\n        return text.split(',')\n")
    (core / "writer.py").write_text("def write_csv(rows):\n    return '\\n'.join(rows)\n")
    (root / "demo-1.0" / "CHANGES.rst").write_text("Parser.parse splits text on commas\n" * 10)
    instances = tmp_path / "instances.jsonl"
    rows = [
        {"instance_id": "demo-1", "repo": "acme/demo", "release_before": "1.0", "base_commit": "x",
         "problem_statement": "Parser.parse splits on commas inside quotes\n\n```python\n>>> from demo.core "
                              "import Parser\n>>> Parser().parse('a,\"b,c\"')\n```\n" + "It should not. " * 30,
         "gold_files": ["demo/core.py"], "gold_functions": [{"file": "demo/core.py", "span": "Parser.parse",
                                                            "name": "parse"}]},
        {"instance_id": "demo-2", "repo": "acme/demo", "release_before": "1.0", "problem_statement": "csv writer",
         "gold_files": ["demo/gone.py"], "gold_functions": []},
        {"instance_id": "lost-1", "repo": "acme/lost", "release_before": "9.9", "problem_statement": "anything",
         "gold_files": ["lost/a.py"], "gold_functions": []},
    ]
    instances.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return root, instances


def test_run_reports_missing_gold_and_skipped_corpora(tmp_path: Path) -> None:
    root, path = _corpora(tmp_path)
    instances = load_instances(path)
    report = run_localise(instances, root, Settings(semantic_backend="none"), LocaliseOptions(),
                          tmp_path / "index")
    assert report.missing_gold == ["demo-2: demo-1.0/demo/gone.py"]
    assert report.skipped == [f"lost-1: no folder {root / 'lost-9.9'}"]
    first = {a.system: a for a in report.answers if a.instance.id == "demo-1"}
    assert set(first) == {"fourfold default", BM25_SYSTEM}
    assert first["fourfold default"].files[0] == "demo/core.py"
    assert first["fourfold default"].strategy == "decomposed"
    # the engine's own function ranking: the method the issue calls, before its class
    assert (first["fourfold default"].functions or ())[:2] == (("demo/core.py", "Parser.parse"),
                                                                ("demo/core.py", "Parser"))
    assert "CHANGES.rst" not in first[BM25_SYSTEM].files  # the baseline reads code files
    overall = {row.system: row for row in report.rows if row.group == "overall"}
    assert overall["fourfold default"].instances == 2  # the skipped one is not counted
    assert overall["fourfold default"].hit_at[1] == 0.5  # demo-2's gold file is absent: a miss


def test_eval_command_recognises_a_localisation_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, path = _corpora(tmp_path)
    assert is_instances_file(path)
    parser = argparse.ArgumentParser(prog="fourfold")
    add_eval_parser(parser.add_subparsers(dest="command", required=True))
    out = tmp_path / "report.json"
    args = parser.parse_args(["eval", str(path), "--root", str(root), "--index-dir", str(tmp_path / "index"),
                              "--repos", "demo", "--json", str(out)])
    assert args.run(args) == 0
    table = capsys.readouterr().out
    assert "| overall | fourfold default | 2 |" in table
    assert f"| overall | {BM25_SYSTEM} | 2 |" in table
    report = json.loads(out.read_text())
    engine = next(a for a in report["answers"] if a["id"] == "demo-1" and a["system"] == "fourfold default")
    assert engine["files"][0] == "demo/core.py"
    assert {part["source"] for part in engine["decomposition"]} >= {"prose", "module", "identifier"}
