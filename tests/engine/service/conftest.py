"""What the service tests share: a fresh copy of the polyglot fixture tree, on disk, per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

POLYGLOT = Path(__file__).resolve().parents[2] / "fixtures" / "polyglot"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the polyglot fixture (Python, Go, TypeScript, Rust...) that a test may edit."""
    root = tmp_path / "repo"
    shutil.copytree(POLYGLOT, root)
    return root
