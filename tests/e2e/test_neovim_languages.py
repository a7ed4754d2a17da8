"""A real headless Neovim (its built-in LSP client) on the languages fixture of issue 13: Ctrl+T's
equivalent (`workspace/symbol`) and go-to-definition land on the definition's name when the name is
used above its definition, in Kotlin, Haskell, a shebang Bash script, Python, R, Erlang, Rust, Ruby and a Vue
component's script.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from test_neovim import run_requests

pytestmark = [pytest.mark.e2e]
FIXTURE = Path(__file__).parent.parent / "fixtures" / "languages"
# (file, name, line of the use above the definition, line of the definition's name): 0-based.
USED_BEFORE_DEFINED = [
    ("client.kt", "makeClient", 5, 36),
    ("Types.hs", "double", 7, 26),
    ("nvm-exec", "nvm_exec_run", 4, 7),
    ("report.py", "render", 4, 8),
    ("stats.R", "column_summary", 7, 13),
    ("kv_store.erl", "normalize", 20, 35),
    ("TodoList.vue", "isOpen", 11, 18),
    ("spawn.rs", "spawn_worker", 4, 16),
    ("paths.rb", "normalize_path", 5, 11),
]


def column(root: Path, path: str, line: int, name: str) -> int:
    return (root / path).read_text(encoding="utf-8").split("\n")[line].index(name)


@pytest.fixture(scope="module")
def neovim_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("neovim-languages")
    root = tmp / "languages"
    shutil.copytree(FIXTURE, root)
    out = tmp / "out.json"
    requests: list[dict[str, Any]] = []
    for path, name, use, _ in USED_BEFORE_DEFINED:
        requests.append({"method": "workspace/symbol", "params": {"query": name}})
        requests.append({"method": "textDocument/definition", "params": {
            "textDocument": {"uri": (root / path).as_uri()},
            "position": {"line": use, "character": column(root, path, use, name) + 1}}})
    return run_requests(root, tmp, out, requests)


@pytest.mark.parametrize("index", range(len(USED_BEFORE_DEFINED)))
def test_neovim_lands_on_the_definition_not_on_the_use_above(neovim_run: dict[str, Any], index: int) -> None:
    path, name, _, definition = USED_BEFORE_DEFINED[index]
    root: Path = neovim_run["root"]
    expected = {"line": definition, "character": column(root, path, definition, name)}
    symbols = neovim_run["responses"][2 * index]["result"]
    entry = next(s for s in symbols if s["location"]["uri"] == (root / path).as_uri())
    assert entry["name"] == name and entry["location"]["range"]["start"] == expected
    locations = neovim_run["responses"][2 * index + 1]["result"]
    assert locations[0]["uri"] == (root / path).as_uri()
    assert locations[0]["range"]["start"] == expected
