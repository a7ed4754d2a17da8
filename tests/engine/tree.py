"""A tiny repository on disk, indexed for real (shared by the engine tests that build one from a dict).

Not a stand-in: the files are written to a temporary folder and indexed by a real Workspace, text and
structure only (no embedding model), in the calling thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from fourfold.engine import Settings, Workspace


def indexed_workspace(root: Path, files: Mapping[str, str], index_dir: Path) -> Workspace:
    """`files` (relative path -> text) written under `root`, then indexed; the caller closes it."""
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    workspace = Workspace(root, Settings(index_dir=str(index_dir), semantic_backend="none"), background=False)
    workspace.refresh()
    return workspace
