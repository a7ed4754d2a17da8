"""A real headless Neovim (its built-in LSP client) on the languages fixture of issue 13: Ctrl+T's
equivalent (`workspace/symbol`) and go-to-definition land on the definition's name when the name is
used above its definition, in Kotlin, Haskell, a shebang Bash script and Python.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import SERVER_COMMAND
from test_neovim import NVIM, RUN_TIMEOUT_S, SCRIPT

pytestmark = [pytest.mark.e2e]
FIXTURE = Path(__file__).parent.parent / "fixtures" / "languages"
# (file, name, line of the use above the definition, line of the definition's name): 0-based.
USED_BEFORE_DEFINED = [
    ("client.kt", "makeClient", 5, 36),
    ("Types.hs", "double", 7, 26),
    ("nvm-exec", "nvm_exec_run", 4, 7),
    ("report.py", "render", 4, 8),
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
    xdg = tmp / "xdg"
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(xdg / "config"), "XDG_DATA_HOME": str(xdg / "data"),
        "XDG_STATE_HOME": str(xdg / "state"), "XDG_CACHE_HOME": str(xdg / "cache"),
        "FOURFOLD_CMD_JSON": json.dumps(SERVER_COMMAND), "FOURFOLD_ROOT": str(root), "FOURFOLD_OUT": str(out),
        "FOURFOLD_REQUESTS_JSON": json.dumps(requests),
        "FOURFOLD_INIT_OPTIONS_JSON": json.dumps({"indexDir": str(tmp / "index"), "semanticBackend": "none"}),
    }
    completed = subprocess.run(
        [str(NVIM), "--headless", "-n", "-i", "NONE", "-u", "NONE", "-c", f"luafile {SCRIPT}"],
        env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)
    assert out.exists(), completed.stderr
    result = json.loads(out.read_text())
    assert completed.returncode == 0, (result.get("error"), result.get("responses"), completed.stderr[-2000:])
    return {"root": root, **result}


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
