"""`fourfold` CLI: every intent answered on the polyglot fixture, the JSON contract, and clear errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fourfold.lsp.cli import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "polyglot"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("ws") / "polyglot"
    shutil.copytree(FIXTURE, root)
    index = tmp_path_factory.mktemp("index")
    assert main(["index", str(root), "--index-dir", str(index), "--backend", "none"]) == 0
    return root, index


def search(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path], query: str, *flags: str) -> dict:
    root, index = workspace
    capsys.readouterr()
    code = main(["search", query, "--root", str(root), "--index-dir", str(index), "--backend", "none", "--json",
                 *flags])
    assert code == 0
    return json.loads(capsys.readouterr().out)


# (query, intent, strategy, expected (path, 1-based line) somewhere in the top 3)
KNOWN_ANSWERS = [
    ("def load_settings", "find_definition", "direct", ("inventory/config.py", 29)),
    ("where is parseConfig defined", "find_definition", "direct", ("web/src/config.js", 4)),
    ("InventoryService", "find_definition", "rrf", ("inventory/service.py", 10)),
    ("who calls load_settings", "find_references", "direct", ("inventory/service.py", 14)),
    ("callers of backoff_delay", "find_references", "direct", ("inventory/retry.py", 27)),
    ("chi chiama parse_line", "find_references", "direct", ("inventory/config.py", 36)),
    ("what depends on load_settings", "impact_analysis", "direct", ("inventory/service.py", 13)),
    # impact at the line of use (issue 14): retry calls backoff_delay on line 27
    ("what breaks if backoff_delay changes", "impact_analysis", "direct", ("inventory/retry.py", 27)),
    ('"connection refused by warehouse"', "exact_match", "direct", ("inventory/service.py", 33)),
    ("RetryError", "exact_match", "direct", ("inventory/retry.py", 6)),
    ("re:gave up after \\{\\w+\\}", "exact_match", "direct", ("inventory/retry.py", 10)),
    ("how does the retry backoff work", "understand_code", "rrf", ("inventory/retry.py", 14)),
    ("explain how stock is reserved for orders", "understand_code", "rrf", ("inventory/service.py", 20)),
    ("functions similar to retry with exponential backoff", "find_similar", "rrf", ("inventory/retry.py", 19)),
    # the backoff in the web client is the seed (issue 14: left out); its likes are the other retries
    ("code like the exponential backoff in the web client", "find_similar", "rrf", ("inventory/retry.py", 19)),
]
# Answers expected lower than the top 3, and why. `stock` names php/src/StockReport.php, whose path lift
# (+25 %, measured +0.02 NDCG@10 on semble's 244 queries) and the centrality of web/src/*.ts outweigh a
# BM25 first place in this 20-file fixture, where every text rank is close.
DEEPER = {"explain how stock is reserved for orders": 5}


@pytest.mark.parametrize(("query", "intent", "strategy", "expected"), KNOWN_ANSWERS)
def test_known_answers(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path], query: str, intent: str,
                       strategy: str, expected: tuple[str, int]) -> None:
    result = search(capsys, workspace, query)
    assert (result["intent"], result["fusion_strategy"]) == (intent, strategy)
    path, line = expected
    top = result["results"][: DEEPER.get(query, 3)]
    assert any(r["path"] == path and any(_covers(span, line) for span in [r["range"], *r["matches"]]) for r in top), [
        (r["path"], r["range"]["start"]["line"] + 1) for r in top]


def _covers(span: dict, line: int) -> bool:
    """The eval rule: the range contains the line, or starts within 3 lines of it (1-based line)."""
    start, end = span["start"]["line"] + 1, span["end"]["line"] + 1
    return start <= line <= end or abs(start - line) <= 3


def test_json_is_the_design_contract(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    result = search(capsys, workspace, "how does retry work", "--preset", "thorough")
    assert set(result) >= {"query", "intent", "confidence", "fusion_strategy", "preset", "k", "modalities", "results",
                           "timings_ms"}
    assert result["preset"] == "thorough" and result["k"] == 60
    assert set(result["modalities"]) == {"semantic", "text", "structural", "graph"}
    assert result["modalities"]["semantic"]["ran"] is False  # backend none: its weight is dropped
    assert result["modalities"]["graph"]["ran"] is True
    row = result["results"][0]
    assert set(row) >= {"uri", "path", "range", "symbol", "kind", "container", "language", "snippet", "score",
                        "contributions", "ranks", "boost", "demoted", "matches", "defines", "prior", "coherence"}
    assert row["uri"].startswith("file://") and row["uri"].endswith(row["path"])
    demotion = 0.5 if row["demoted"] else 1.0
    explained = (sum(row["contributions"].values()) + row["coherence"]) * row["prior"] * demotion
    assert abs(explained - row["score"]) < 1e-5
    assert 1.0 <= row["boost"] <= 1.5


def test_filters_by_path_and_language(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    by_language = search(capsys, workspace, "retry", "--languages", "go")
    assert by_language["results"] and {r["language"] for r in by_language["results"]} == {"go"}
    by_path = search(capsys, workspace, "retry", "--paths", "web/**")
    assert by_path["results"] and all(r["path"].startswith("web/") for r in by_path["results"])


def test_pinned_modes_and_intent(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    result = search(capsys, workspace, "load_settings", "--modes", "text", "--intent", "find_references")
    assert result["intent"] == "find_references" and result["confidence"] == 1.0
    assert [m for m, r in result["modalities"].items() if r["ran"]] == ["text"]


def test_search_sees_edits_on_disk(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    root, _ = workspace
    target = root / "inventory" / "models.py"
    original = target.read_text()
    target.write_text(original + "\n\ndef restock_from_supplier(item):\n    return item\n")
    try:
        result = search(capsys, workspace, "restock_from_supplier")
        assert result["results"][0]["path"] == "inventory/models.py"
    finally:
        target.write_text(original)
    assert search(capsys, workspace, "restock_from_supplier")["results"] == []


def test_terminal_output(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    assert main(["search", "where is parseConfig defined", "--root", str(root), "--index-dir", str(index),
                 "--backend", "none"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("find_definition (0.90, rule 4b:where-defined) · direct")
    assert "web/src/config.js:4  parseConfig" in "\n".join(out)


def test_missing_root_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["search", "x", "--root", str(tmp_path / "nope")]) == 2
    assert "does not exist or is not a folder" in capsys.readouterr().err


def test_invalid_regex_reports_its_position(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    assert main(["search", "re:load_(settings", "--root", str(root), "--index-dir", str(index),
                 "--backend", "none"]) == 2
    err = capsys.readouterr().err
    assert "invalid query" in err and "position" in err


def test_console_script_runs(workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    script = Path(sys.executable).parent / "fourfold"
    out = subprocess.run([str(script), "status", "--root", str(root), "--index-dir", str(index), "--backend", "none"],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    status = json.loads(out)
    assert status["files"] == sum(1 for p in root.rglob("*") if p.is_file())
    assert status["symbols"] > 100


def test_local_embeddings_take_part(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    index = str(tmp_path / "index")
    assert main(["search", "how does the retry backoff work", "--root", str(FIXTURE), "--index-dir", index,
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["modalities"]["semantic"]["ran"] is True and result["modalities"]["semantic"]["hits"] > 0
    assert any("semantic" in row["contributions"] for row in result["results"][:3])
    assert main(["status", "--root", str(FIXTURE), "--index-dir", index]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["backend"] == "local" and status["embedded"] == status["chunks"] > 0
