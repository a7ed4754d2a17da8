"""bench/lsp_faults.py runs end to end on a few hazards, and its figures come from what it saw.

The full catalogue (70-odd hazards, a minute or two) is the benchmark's; here three of its kinds
(a framing error, a swallowed probe, a malformed request) keep the script from rotting.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "lsp_faults.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fourfold_bench_lsp_faults", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


faults = load()


def test_a_few_hazards_are_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "rows.json"
    assert faults.main(["--only", "negative length", "--only", "too long", "--only", "id: an object",
                        "--probe-s", "5", "--json", str(report)]) == 0
    rows = {row["hazard"]: row for row in json.loads(report.read_text())}
    assert rows["header: negative length"]["codes"] == [-32700] and rows["header: negative length"]["lost"] == 0
    assert rows["id: an object"]["codes"] == [-32600]
    assert rows["header: length too long by 10"]["lost"] == 1  # the first probe became the rest of the body
    assert rows["request after shutdown"]["codes"] == [-32600]
    assert all(row["clean"] and row["recovered"] and not row["crashed"] for row in rows.values())
    out = capsys.readouterr().out
    assert f"{len(rows)} hazards: {len(rows)} answered as owed" in out
