"""`fourfold eval` from the command line: argument wiring, the printed table and the JSON report."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from fourfold.lsp.eval_cli import add_eval_parser
from fourfold.lsp.evaluation import ablations

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
INTENTS = ("find_definition", "find_references", "understand_code", "find_similar", "impact_analysis", "exact_match")


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="fourfold")
    add_eval_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.run(args))


def test_eval_prints_table_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    code = run(["eval", str(FIXTURES / "queries" / "polyglot.jsonl"), "--root", str(FIXTURES / "polyglot"),
                "--index-dir", str(tmp_path / "index"), "--preset", "default,thorough", "--json", str(out)])
    assert code == 0
    table = capsys.readouterr().out
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| intent | system | n | MRR@10")
    for intent in (*INTENTS, "overall"):
        assert f"| {intent} | fourfold default |" in table
        assert f"| {intent} | fourfold thorough |" in table
    report = json.loads(out.read_text())
    overall = {row["system"]: row for row in report["rows"] if row["group"] == "overall"}
    assert overall["fourfold default"]["queries"] == 9
    assert 0.0 <= overall["fourfold default"]["mrr"] <= 1.0
    assert {q["id"] for q in report["queries"]} >= {"def-load-settings", "unanswerable-graphql"}


def test_eval_with_baseline_puts_baselines_in_the_same_table(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["eval", str(FIXTURES / "queries" / "polyglot.jsonl"), "--root", str(FIXTURES / "polyglot"),
                "--index-dir", str(tmp_path / "index"), "--baseline"])
    assert code == 0
    table = capsys.readouterr().out
    for system in ("text", "structural", "graph", "bm25"):
        assert f"| overall | {system} |" in table
    assert "| overall | semantic |" not in table  # backend none: no semantic baseline


def _mini_set(tmp_path: Path, root: str, name: str) -> Path:
    """One repository `mini` whose benchmark root is `root`, and a one-query semble-format set `name`."""
    repo = tmp_path / "corpora" / "mini" / root
    repo.mkdir(parents=True)
    (repo / "retry.py").write_text("def retry_with_backoff(operation):\n    return operation()\n")
    queries = tmp_path / name
    queries.write_text(json.dumps({"id": "mini-0", "repo": "mini", "query": "retry_with_backoff",
                                   "category": "symbol",
                                   "gold": [{"path": f"{root}/retry.py", "start_line": None, "end_line": None,
                                             "kind": "relevant"}]}) + "\n")
    return queries


def test_semble_file_gets_per_repo_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    queries = _mini_set(tmp_path, "src", "queries.jsonl")
    (tmp_path / "repos.json").write_text(json.dumps({"repos": [{"name": "mini", "benchmark_root": "src"}]}))
    code = run(["eval", str(queries), "--root", str(tmp_path / "corpora"), "--index-dir", str(tmp_path / "index")])
    assert code == 0
    out = capsys.readouterr().out
    assert "| mini | 1.000 |" in out
    assert "| **mean** | 1.000 |" in out


def test_a_query_file_reads_its_own_repos_file_before_the_shared_one(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    queries = _mini_set(tmp_path, "lib", "held-out.jsonl")
    # The shared file names another root; held-out-repos.json, the set's own, must win.
    (tmp_path / "semble_repos.json").write_text(json.dumps({"repos": [{"name": "mini", "benchmark_root": "src"}]}))
    (tmp_path / "held-out-repos.json").write_text(json.dumps({"repos": [{"name": "mini", "benchmark_root": "lib"}]}))
    code = run(["eval", str(queries), "--root", str(tmp_path / "corpora"), "--index-dir", str(tmp_path / "index")])
    assert code == 0
    assert "| mini | 1.000 |" in capsys.readouterr().out


def test_bad_preset_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["eval", str(FIXTURES / "queries" / "polyglot.jsonl"), "--root", str(tmp_path), "--preset", "fast"])
    assert code == 2
    assert "--preset" in capsys.readouterr().err


def test_unreadable_query_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    assert run(["eval", str(bad), "--root", str(tmp_path)]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err


def test_ablations_print_a_table_of_deltas_against_the_full_engine(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["eval", str(FIXTURES / "queries" / "polyglot.jsonl"), "--root", str(FIXTURES / "polyglot"),
                "--index-dir", str(tmp_path / "index"), "--backend", "none", "--ablations"])
    assert code == 0
    out = capsys.readouterr().out
    main, _, table = out.partition("\nAblations\n")
    assert table, "no Ablations table"
    assert "-text" not in main and "k=60" not in main  # variants stay out of the main table
    rows = [line for line in table.splitlines() if line.startswith("| fourfold")]
    full = re.fullmatch(r"\| fourfold default \| full engine \| (\d\.\d{3}) \| — \|", rows[0])
    assert full, rows[0]
    variants = {}
    for row in rows[1:]:
        match = re.fullmatch(r"\| fourfold default \| (.+?) \| (\d\.\d{3}) \| ([+-]\d\.\d{3}) \|", row)
        assert match, row
        variants[match[1]] = (float(match[2]), float(match[3]))
    assert list(variants) == list(ablations())
    assert {"-text", "-definitions", "-path_priors", "float vectors", "k=40", "k=60"} <= set(variants)
    for score, delta in variants.values():
        assert delta == pytest.approx(score - float(full[1]), abs=0.0015)
    assert variants["-semantic"][1] == 0.0  # backend none: there is no semantic modality to remove
    assert variants["-text"][1] < 0  # the fixture's literal queries need the text modality


def test_an_unknown_backend_in_the_list_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["eval", str(FIXTURES / "queries" / "polyglot.jsonl"), "--root", str(FIXTURES / "polyglot"),
                "--backend", "none,openai"])
    assert code == 2
    err = capsys.readouterr().err
    assert "--backend" in err and "'none,openai'" in err
