"""Issue 15: a refresh with nothing changed re-reads nothing, also the files it refuses (binary, minified).

Before, every refresh re-read and re-refused them (about 1,400 files on Django, per CLI call), because
only indexed files were remembered by (size, mtime).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fourfold.engine.index.indexjob as indexjob_module
from fourfold.engine import Settings, Workspace


def test_refused_files_are_read_again_only_when_they_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("def handler(event):\n    return event\n")
    (root / "logo.png").write_bytes(b"\x89PNG\x00\x00" * 10)
    (root / "bundle.min.js").write_text("var a=1;" * 400)
    reads: list[str] = []
    real = indexjob_module.read_file

    def counting(root_: Path, relative: str, *rest: int) -> tuple:
        reads.append(relative)
        return real(root_, relative, *rest)

    monkeypatch.setattr(indexjob_module, "read_file", counting)
    workspace = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=False)
    try:
        workspace.refresh()
        assert sorted(reads) == ["app.py", "bundle.min.js", "logo.png"]
        assert set(workspace.snapshot().skipped) == {"bundle.min.js", "logo.png"}

        reads.clear()
        stats = workspace.refresh()
        assert reads == [] and stats.indexed == 0 and stats.unchanged == 3
        assert set(workspace.snapshot().skipped) == {"bundle.min.js", "logo.png"}  # still reported as skipped

        (root / "logo.png").write_bytes(b"\x89PNG\x00\x00" * 11)
        workspace.refresh()
        assert reads == ["logo.png"]

        reads.clear()
        (root / "bundle.min.js").write_text("def now_readable():\n    pass\n")
        workspace.refresh()
        assert reads == ["bundle.min.js"]
        assert "bundle.min.js" in workspace.snapshot().files and "bundle.min.js" not in workspace.snapshot().skipped
    finally:
        workspace.close()
