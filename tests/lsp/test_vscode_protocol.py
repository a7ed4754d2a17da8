"""The VS Code client's types (vscode-client/src/protocol.ts) declare every field a real answer carries.

Real `fourfold search --json` answers on the polyglot fixture, one per intent plus a missing name and
a find_similar seed, are walked key by key against the interface fields parsed out of protocol.ts: a
field the engine adds without its TypeScript declaration fails here, not in a user's panel.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from fourfold.lsp.cli import main

REPO = Path(__file__).resolve().parents[2]
PROTOCOL = REPO / "vscode-client" / "src" / "protocol.ts"
FIXTURE = REPO / "tests" / "fixtures" / "polyglot"
QUERIES = [
    "where is parseConfig defined",
    "where is parseConfg defined",  # a missing name: notes and approximate rows
    "who calls load_settings",  # resolved callers
    "what depends on load_settings",  # impact rows with their path (via)
    '"connection refused by warehouse"',
    "how does the retry backoff work",
    "functions similar to retry with exponential backoff",  # the seed
]


def interfaces(source: str) -> dict[str, set[str]]:
    """Field names of each `export interface Name { ... }` of a TypeScript file."""
    found: dict[str, set[str]] = {}
    for match in re.finditer(r"^export interface (\w+) \{\n(.*?)^\}", source, re.MULTILINE | re.DOTALL):
        found[match.group(1)] = set(re.findall(r"^  (\w+)\??:", match.group(2), re.MULTILINE))
    return found


def test_interfaces_parses_fields() -> None:
    parsed = interfaces("export interface A {\n  x: number;\n  /** doc */\n  y?: string | null;\n  z: { q: 1 };\n}\n")
    assert parsed == {"A": {"x", "y", "z"}}


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


def test_every_key_of_a_real_answer_is_declared(answers: list[dict[str, Any]]) -> None:
    declared = interfaces(PROTOCOL.read_text(encoding="utf-8"))
    missing: set[str] = set()

    def check(kind: str, value: dict[str, Any]) -> None:
        missing.update(f"{kind}.{key}" for key in value.keys() - declared[kind])

    for answer in answers:
        check("SearchAnswer", answer)
        for report in answer["modalities"].values():
            check("ModalityReport", report)
        for row in answer["results"]:
            check("SearchResult", row)
            for span in [row["range"], *row["matches"]]:
                check("Range", span)
                check("Position", span["start"])
        if answer["seed"] is not None:
            check("Seed", answer["seed"])
    assert not missing, f"fields of real answers that vscode-client/src/protocol.ts does not declare: {sorted(missing)}"


def test_the_answers_cover_the_new_fields(answers: list[dict[str, Any]]) -> None:
    """The walk above means something only if the answers carry the fields issue 14 added."""
    rows = [row for answer in answers for row in answer["results"]]
    assert any(row["approximate"] for row in rows)
    assert any("resolved" in row for row in rows)
    assert any(row["via"] for row in rows)
    assert any(row["match_lines"] for row in rows)
    assert any(answer["seed"] is not None for answer in answers)
    assert all({"rule", "target", "notes", "index", "partial"} <= answer.keys() for answer in answers)
