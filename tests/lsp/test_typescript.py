"""The VS Code client's answer types cannot drift from the engine's: they are generated, and checked.

vscode-client/src/answer.ts must be exactly what `python -m fourfold.lsp.typescript` writes from the
engine's records, and real answers (`fourfold search --json` on the polyglot fixture, one per
intent plus a missing name, a find_similar seed and a pasted traceback) must match those records key
by key and type by type, as must the recorded answers the extension's unit tests read. A field the
engine adds, renames or drops fails here, not in a user's panel.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from fourfold.engine import Span
from fourfold.engine.model.settings import BACKENDS
from fourfold.engine.search.answer import optional
from fourfold.lsp import typescript
from fourfold.lsp.cli import main
from fourfold.lsp.typescript import generate, problems, ts_type

REPO = Path(__file__).resolve().parents[2]
GENERATED = REPO / "vscode-client" / "src" / "answer.ts"
RECORDED = REPO / "vscode-client" / "test" / "fixtures"
FIXTURE = REPO / "tests" / "fixtures" / "polyglot"
TRACEBACK = """Traceback (most recent call last):
  File "inventory/service.py", line 14, in __init__
    self.settings = settings or load_settings()
  File "inventory/config.py", line 3, in load_settings
    raise ValueError("no settings")
ValueError: no settings

Loading settings fails when the warehouse config is missing; the service should fall back to defaults."""
QUERIES = [
    "where is parseConfig defined",
    "where is parseConfg defined",  # a missing name: notes and approximate rows
    "who calls load_settings",  # resolved callers
    "what depends on load_settings",  # impact rows with their path (via)
    '"connection refused by warehouse"',
    "how does the retry backoff work",
    "functions similar to retry with exponential backoff",  # the seed
    TRACEBACK,  # decomposed: the parts
]


def test_the_committed_typescript_is_the_generated_one() -> None:
    assert GENERATED.read_text(encoding="utf-8") == generate(), (
        "vscode-client/src/answer.ts is stale: run `python -m fourfold.lsp.typescript > vscode-client/src/answer.ts`")


@dataclass(frozen=True)
class Sample:
    """A record shaped like the answer's, to see each Python type become its TypeScript type."""

    name: str
    span: Span = field(metadata={"wire": "range"})
    # Said in a comment, carried into the TypeScript.
    count: int | None = None
    names: tuple[str, ...] = ()
    weights: dict[str, float] = field(default_factory=dict, metadata={"keys": "Modality"})
    note: str | None = field(default=None, metadata=optional())


def test_python_types_become_typescript_types(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(typescript.NAMES, Sample, "Sample")
    assert typescript.interface(Sample) == (
        "/** A record shaped like the answer's, to see each Python type become its TypeScript type. */\n"
        "export interface Sample {\n"
        "  name: string;\n"
        "  range: Range;\n"
        "  /** Said in a comment, carried into the TypeScript. */\n"
        "  count: number | null;\n"
        "  names: string[];\n"
        "  weights: Partial<Record<Modality, number>>;\n"
        "  note?: string;\n"
        "}\n")
    assert ts_type(dict[str, int]) == "Record<string, number>"
    assert ts_type(list[str | None]) == "(string | null)[]"
    with pytest.raises(TypeError):
        ts_type(set[str])


def test_problems_names_every_way_an_answer_can_stray(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(typescript.NAMES, Sample, "Sample")
    good = {"name": "a", "range": {"start": {"line": 0, "character": 1}, "end": {"line": 0, "character": 2}},
            "count": None, "names": ["x"], "weights": {"text": 0.5}}
    assert problems(good, Sample, "s") == []
    assert problems({**good, "note": "said"}, Sample, "s") == []
    assert problems({**good, "extra": 1}, Sample, "s") == ["s.extra: not declared in Sample"]
    assert problems({k: v for k, v in good.items() if k != "names"}, Sample, "s") == ["s.names: missing"]
    assert problems({**good, "count": "3"}, Sample, "s") == ["s.count: expected int, got '3'"]
    assert problems({**good, "count": True}, Sample, "s") == ["s.count: expected int, got a boolean"]
    assert problems({**good, "names": [1]}, Sample, "s") == ["s.names[0]: expected str, got 1"]
    assert problems({**good, "range": {"start": {"line": 0}}}, Sample, "s")[0].startswith("s.range: not a Range")


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    root = tmp_path_factory.mktemp("ws") / "polyglot"
    shutil.copytree(FIXTURE, root)
    index = tmp_path_factory.mktemp("index")
    capture = tmp_path_factory.mktemp("out") / "answer.json"
    found = []
    for query in QUERIES:
        with pytest.MonkeyPatch.context() as patch, capture.open("w", encoding="utf-8") as out:
            patch.setattr("sys.stdout", out)
            assert main(["search", query, "--root", str(root), "--index-dir", str(index), "--backend", "none",
                         "--json", "--no-daemon", "--no-progress"]) == 0
        found.append(json.loads(capture.read_text(encoding="utf-8")))
    return found


def test_real_answers_match_the_records(answers: list[dict[str, Any]]) -> None:
    found = [problem for answer in answers for problem in problems(answer)]
    assert found == [], found


def test_the_answers_cover_every_field(answers: list[dict[str, Any]]) -> None:
    """The check above means something only if the answers carry the fields that are sometimes absent."""
    rows = [row for answer in answers for row in answer["results"]]
    assert any(row["approximate"] for row in rows)
    assert any("resolved" in row for row in rows)
    assert any(row["via"] for row in rows)
    assert any(row["match_lines"] for row in rows)
    assert any(answer["seed"] is not None for answer in answers)
    assert any(answer.get("decomposition") for answer in answers)


@pytest.mark.parametrize("name", ["definition", "fused", "absent", "callers"])
def test_the_extensions_recorded_answers_match_the_records(name: str) -> None:
    recorded = json.loads((RECORDED / f"{name}.json").read_text(encoding="utf-8"))
    assert problems(recorded) == [], "re-record them: .venv/bin/python vscode-client/test/record_fixtures.py"


def test_the_extensions_backend_setting_offers_every_engine_backend() -> None:
    manifest = json.loads((REPO / "vscode-client" / "package.json").read_text())
    setting = manifest["contributes"]["configuration"]["properties"]["fourfold.semantic.backend"]
    assert set(setting["enum"]) == set(BACKENDS) - {"wordllama"}  # `wordllama` is another name for `local`
    assert len(setting["enumDescriptions"]) == len(setting["enum"])
