"""What the train/ script tests share: importing a script the way train/build_model.py imports it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

TRAIN = Path(__file__).resolve().parents[2] / "train"


@pytest.fixture
def train_module(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], ModuleType]]:
    """A loader of train/ scripts (train/ first on sys.path, as build_model.py runs); the scripts it
    loaded are forgotten after the test, so another test imports them afresh."""
    monkeypatch.syspath_prepend(str(TRAIN))
    loaded: list[str] = []

    def load(name: str) -> ModuleType:
        loaded.append(name)
        return importlib.import_module(name)

    yield load
    for name in loaded:
        sys.modules.pop(name, None)
