"""The warm index behind `fourfold mcp` and the CLI daemon: an unchanged disk costs stats, a change a refresh."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.lsp.warm import WarmIndex

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "polyglot"


@pytest.fixture
def warm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[WarmIndex, list[int]]:
    root = tmp_path / "polyglot"
    shutil.copytree(FIXTURE, root)
    (tmp_path / ".git").mkdir()  # the root is a folder of a repository, whose ignore files apply to it
    refreshes: list[int] = []
    real = Workspace.refresh

    def counting(self: Workspace, *args: object, **kwargs: object) -> object:
        refreshes.append(1)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Workspace, "refresh", counting)
    index = WarmIndex(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"))
    index.start()
    assert index.wait_indexed(120)
    refreshes.clear()
    yield index, refreshes
    index.close()


def test_an_unchanged_disk_is_not_walked_again(warm: tuple[WarmIndex, list[int]]) -> None:
    index, refreshes = warm
    assert index.sync() == [] and index.sync() == []
    assert refreshes == []


@pytest.mark.parametrize("change", ["edit", "create in a new folder", "delete", "ignore file",
                                    "ignore file above the root"])
def test_every_kind_of_change_is_noticed(warm: tuple[WarmIndex, list[int]], change: str) -> None:
    index, refreshes = warm
    root = index.workspace().root
    if change == "edit":
        (root / "inventory" / "retry.py").write_text("def rewritten_retry():\n    return 1\n")
    elif change == "create in a new folder":
        (root / "inventory" / "fresh" / "deep").mkdir(parents=True)
        (root / "inventory" / "fresh" / "deep" / "new.py").write_text("def freshly_made():\n    pass\n")
    elif change == "delete":
        (root / "inventory" / "retry.py").unlink()
    elif change == "ignore file":
        (root / ".gitignore").write_text("inventory/retry.py\n")
    else:
        (root.parent / ".gitignore").write_text("polyglot/inventory/retry.py\n")
    notes = index.sync()
    assert refreshes == [1] and notes and "re-indexed" in notes[0]
    assert index.sync() == [] and refreshes == [1]  # and once only
    found = index.workspace().search(SearchRequest("rewritten_retry" if change == "edit" else "freshly_made"))
    paths = {result.path for result in found.results}
    if change == "edit":
        assert "inventory/retry.py" in paths
    elif change == "create in a new folder":
        assert "inventory/fresh/deep/new.py" in paths
    else:
        assert "inventory/retry.py" not in index.workspace().snapshot().files
