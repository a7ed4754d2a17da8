"""Re-record the real answers the extension's unit tests read (test/fixtures/*.json).

Run after the answer changes (with the TypeScript regenerated), from the repository root:

    .venv/bin/python vscode-client/test/record_fixtures.py

Each is the engine's own `fourfold search --json` object (backend none) on tests/fixtures/polyglot,
and "who calls tick" on a repo of 15 call sites in two files (busy.py 12, calm.py 3, as in
tests/lsp/test_cli.py); the temporary folders' URIs are rewritten to file:///w/... so the files do
not change with the machine. tests/lsp/test_typescript.py checks them against the engine's records.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from fourfold.engine import SearchRequest, Settings, Workspace

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "vscode-client" / "test" / "fixtures"
POLYGLOT = {
    "definition": SearchRequest("where is parseConfig defined"),
    "absent": SearchRequest("where is parseConfg defined"),
    "fused": SearchRequest("retry", preset="thorough"),
}


def calls(root: Path) -> None:
    (root / "clock.py").write_text("def tick(step):\n    return step + 1\n")
    (root / "busy.py").write_text("from clock import tick\n\n\ndef run():\n"
                                  + "".join(f"    value_{n} = tick({n})\n" for n in range(12)))
    (root / "calm.py").write_text("import clock\n\n\ndef other():\n"
                                  + "".join(f"    clock.tick({n})\n" for n in range(3)))


def record(root: Path, index: Path, requests: dict[str, SearchRequest], name: str) -> None:
    workspace = Workspace(root, Settings(index_dir=str(index), semantic_backend="none"), background=False)
    try:
        workspace.refresh()
        for label, request in requests.items():
            text = json.dumps(workspace.search_dict(request), indent=2, ensure_ascii=False)
            text = text.replace(workspace.root.as_uri(), f"file:///w/{name}")
            (OUT / f"{label}.json").write_text(text + "\n", encoding="utf-8")
    finally:
        workspace.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        shutil.copytree(REPO / "tests" / "fixtures" / "polyglot", base / "polyglot")
        record(base / "polyglot", base / "index-polyglot", POLYGLOT, "polyglot")
        (base / "calls").mkdir()
        calls(base / "calls")
        record(base / "calls", base / "index-calls", {"callers": SearchRequest("who calls tick")}, "calls")


if __name__ == "__main__":
    main()
