"""Headless Neovim as the editor: its built-in LSP client talks to `python -m fourfold.lsp`.

This is the client Neovim users run, not a simulation of it: Neovim spawns the server, negotiates
capabilities, receives our notifications, and the answers are read back from the JSON it writes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import EMOJI_FILE, EMOJI_SOURCE, SERVER_COMMAND, copy_fixture

# Debian's package (0.7.2 on bookworm), the oldest client we support; another nvim on PATH is a fallback.
DEBIAN_NVIM = Path("/usr/bin/nvim")
NVIM = str(DEBIAN_NVIM) if DEBIAN_NVIM.exists() else shutil.which("nvim")
pytestmark = [pytest.mark.e2e]
SCRIPT = Path(__file__).parent / "nvim" / "search.lua"
RUN_TIMEOUT_S = 120


def command(name: str, *arguments: Any) -> dict[str, Any]:
    return {"method": "workspace/executeCommand", "params": {"command": name, "arguments": list(arguments)}}


def run_requests(root: Path, tmp: Path, out: Path, requests: list[dict[str, Any]]) -> dict[str, Any]:
    """Start a real headless Neovim on `root` with the server attached, send `requests` in order and
    return its JSON record of the answers (shared by the Neovim tests)."""
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


@pytest.fixture(scope="module")
def neovim_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("neovim")
    root = copy_fixture(tmp)
    out = tmp / "out.json"
    requests = [
        {"method": "workspace/symbol", "params": {"query": "load_settings"}},
        {"method": "workspace/symbol", "params": {"query": "launchRocket"}},
        command("fourfold.search", {"query": "how does retry work", "limit": 5}),
        command("fourfold.indexStatus"),
    ]
    return run_requests(root, tmp, out, requests)


def test_neovim_sees_the_server_and_its_commands(neovim_run: dict[str, Any]) -> None:
    assert neovim_run["server_name"] == "fourfold"
    assert set(neovim_run["commands"]) == {"fourfold.search", "fourfold.indexStatus", "fourfold.reindex"}
    assert neovim_run["statuses"][-1]["ready"] is True


def test_neovim_workspace_symbol(neovim_run: dict[str, Any]) -> None:
    symbols = neovim_run["responses"][0]["result"]
    assert symbols[0]["name"] == "load_settings"
    assert symbols[0]["location"]["uri"].endswith("/inventory/config.py")


def test_neovim_gets_utf16_columns(neovim_run: dict[str, Any]) -> None:
    symbols = neovim_run["responses"][1]["result"]
    match = next(s for s in symbols if s["location"]["uri"].endswith(EMOJI_FILE))
    line = EMOJI_SOURCE.rstrip("\n")
    prefix = line[: line.index("launchRocket")]
    # Neovim 0.7 offers no positionEncodings, so LSP's default UTF-16 applies.
    assert match["location"]["range"]["start"]["character"] == len(prefix.encode("utf-16-le")) // 2


def test_neovim_search_command(neovim_run: dict[str, Any]) -> None:
    result = neovim_run["responses"][2]["result"]
    assert result["intent"] == "understand_code"
    assert 0 < len(result["results"]) <= 5
    assert result["index"]["ready"] is True
    status = neovim_run["responses"][3]["result"]
    assert status["state"] == "ready" and status["files"] > 10
