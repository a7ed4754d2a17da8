"""Impact and references at the line of use, with their path and whether they resolve (issue 14)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tree import indexed_workspace

from fourfold.engine import SearchRequest, Settings, Workspace

FILES = {
    "pkg/lib.py": "def target():\n    return 1\n",
    "pkg/user.py": "from pkg.lib import target\n\n\ndef caller():\n    x = 2\n    return target() + x\n",
    "pkg/imports_only.py": "import os\nfrom pkg.lib import target\n\nVALUE = os.sep\n",
    "other/guess.py": "def unrelated(obj):\n    return obj.target()\n",
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    opened = indexed_workspace(tmp_path_factory.mktemp("uses"), FILES, tmp_path_factory.mktemp("index"))
    yield opened
    opened.close()


def _rows(workspace: Workspace, query: str) -> dict[str, dict]:
    return {row["path"]: row for row in workspace.search_dict(SearchRequest(query))["results"]}


def test_impact_points_at_the_use_and_at_the_import_line(workspace: Workspace) -> None:
    rows = _rows(workspace, "what depends on target")
    assert rows["pkg/user.py"]["range"]["start"]["line"] == 5  # `return target() + x`, not `def caller`
    assert rows["pkg/user.py"]["via"] == ["caller", "target"]
    assert rows["pkg/imports_only.py"]["range"]["start"]["line"] == 1  # `from pkg.lib import target`


def test_callers_that_resolve_come_before_name_only_matches(workspace: Workspace) -> None:
    response = workspace.search_dict(SearchRequest("who calls target"))
    rows = [(row["path"], row.get("resolved")) for row in response["results"]]
    assert rows[0] == ("pkg/user.py", True)
    assert ("other/guess.py", False) in rows
    assert rows.index(("other/guess.py", False)) > 0
    assert all(row["via"] for row in response["results"])


def test_a_module_named_like_the_function_is_not_an_import_of_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`import { captureError } from './util/errorContext'` imports a module, not the function errorContext."""
    (tmp_path / "util").mkdir()
    (tmp_path / "util/errorContext.ts").write_text("export function errorContext(cb: () => void) { cb(); }\n"
                                                   "export function captureError(e: unknown) { return e; }\n")
    (tmp_path / "Subject.ts").write_text("import { errorContext } from './util/errorContext';\n\n"
                                         "export function next() {\n  errorContext(() => {});\n}\n")
    (tmp_path / "Subscriber.ts").write_text("import { captureError } from './util/errorContext';\n\n"
                                            "export function fail(e: unknown) {\n  return captureError(e);\n}\n")
    opened = Workspace(tmp_path, Settings(index_dir=str(tmp_path / ".index"), semantic_backend="none"),
                       background=False)
    try:
        opened.refresh()
        paths = {hit.path for hit in opened.snapshot().graph.impact("errorContext")}
        assert "Subject.ts" in paths and "Subscriber.ts" not in paths
    finally:
        opened.close()
