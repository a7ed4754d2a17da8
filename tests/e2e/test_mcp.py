"""`fourfold mcp` driven by the MCP SDK's own client over stdio, as Claude Code or Cursor would drive it.

Each test starts the real server as a subprocess on its own copy of the polyglot fixture and its own
index folder: initialize, list the tools, call every tool, make every kind of mistake an agent makes
(the server must answer each with an error result and stay up), and edit a file while it runs.
Waits are on the server's own `status` answer, bounded, never on a fixed sleep.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "polyglot"
TOOLS = {"search", "definition", "references", "callers", "impact", "similar", "grep", "status"}
# Bounds on starting the server and on indexing the fixture, so a broken server fails instead of hanging.
READY_S = 120.0

pytestmark = pytest.mark.e2e


@pytest.fixture
def root(tmp_path: Path) -> Path:
    copy = tmp_path / "polyglot"
    shutil.copytree(FIXTURE, copy)
    return copy


@asynccontextmanager
async def session(root: Path, *extra: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "fourfold.lsp.cli", "mcp", "--root", str(root), "--index-dir", str(root.parent / "index"),
        "--backend", "none", *extra])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        with anyio.fail_after(READY_S):
            await client.initialize()
            await _ready(client)
        yield client


async def _ready(client: ClientSession) -> None:
    """Ask `status` until the first index is done (the server answers at once, from what it has)."""
    while not json.loads(await text(client, "status", {}))["ready"]:
        await anyio.sleep(0.1)


async def text(client: ClientSession, tool: str, arguments: dict) -> str:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


async def error(client: ClientSession, tool: str, arguments: dict) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


def lines(answer: str) -> list[str]:
    """The result lines of an answer: `N. path:line ...`."""
    return [line for line in answer.splitlines() if line[:1].isdigit()]


def grep_lines(answer: str) -> list[str]:
    """The listed lines of a `grep` answer: `path:line: text` (the first line is its summary)."""
    return [line for line in answer.splitlines()[1:] if not line.startswith(("note:", "+"))]


def lines_holding(root: Path, needle: str) -> set[str]:
    """`path:line` of every line of the tree holding `needle` in any case: what grep must list."""
    return {f"{path.relative_to(root).as_posix()}:{number}" for path in root.rglob("*") if path.is_file()
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
            if needle in line.lower()}


async def test_every_tool_answers_on_a_real_repository(root: Path) -> None:
    async with session(root) as client:
        listed = await client.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS
        for tool in listed.tools:
            assert tool.annotations is not None and tool.annotations.read_only_hint is True
            assert len(tool.description or "") > 60  # it says when to use the tool, not just its name
        search_tool = next(tool for tool in listed.tools if tool.name == "search")
        assert "before grep" in (search_tool.description or "").lower()
        assert set(search_tool.input_schema["properties"]) >= {"query", "intent", "modes", "paths", "languages",
                                                                 "limit", "preset", "max_tokens"}

        answer = await text(client, "search", {"query": "how does the retry backoff work"})
        assert answer.splitlines()[0].startswith("understand_code")
        assert any("inventory/retry.py:" in line for line in lines(answer)[:3]), answer
        assert all("[" in line and "#" in line for line in lines(answer))  # why it ranked: modality and rank

        definition = await text(client, "definition", {"symbol": "load_settings"})
        assert lines(definition)[0].startswith("1. inventory/config.py:29  load_settings"), definition

        callers = await text(client, "callers", {"symbol": "load_settings"})
        assert any(line.split()[1].startswith("inventory/service.py:") for line in lines(callers)), callers

        references = await text(client, "references", {"symbol": "backoff_delay"})
        assert any("inventory/retry.py:" in line for line in lines(references)), references

        impact = await text(client, "impact", {"symbol": "load_settings"})
        assert impact.splitlines()[0].startswith("impact_analysis")
        assert any("inventory/service.py:" in line for line in lines(impact)), impact

        similar = await text(client, "similar", {"query": "retry with exponential backoff"})
        assert similar.splitlines()[0].startswith("find_similar") and lines(similar), similar

        go_only = await text(client, "search", {"query": "retry", "languages": ["go"], "paths": ["go/**"]})
        assert lines(go_only) and all(line.split()[1].startswith("go/") for line in lines(go_only)), go_only

        listed_lines = grep_lines(await text(client, "grep", {"pattern": "connection refused"}))
        assert {line.split(": ", 1)[0] for line in listed_lines} == lines_holding(root, "connection refused")
        # Each line says the definition it is part of: here the closure inside InventoryService.connect.
        assert "inventory/service.py:34: raise ConnectionError(\"connection refused by warehouse\") from error" \
            "  (in InventoryService.connect.attempt)" in listed_lines
        capitalised = {"pattern": "Connection refused", "limit": 1000, "max_tokens": 50_000}
        sensitive = grep_lines(await text(client, "grep", capitalised))
        folded = grep_lines(await text(client, "grep", {**capitalised, "ignore_case": True}))
        assert {line.split(": ", 1)[0] for line in folded} == lines_holding(root, "connection refused")
        assert len(sensitive) < len(folded)
        go_grep = await text(client, "grep", {"pattern": "/func \\w+\\(/", "paths": ["go/**"]})
        assert grep_lines(go_grep) and all(line.startswith("go/") for line in grep_lines(go_grep)), go_grep

        status = json.loads(await text(client, "status", {}))
        assert status["ready"] is True and status["files"] > 20 and status["symbols"] > 100
        assert status["backend"] == "none"


async def test_answers_fit_the_token_budget_and_say_so(root: Path) -> None:
    async with session(root) as client:
        full = await text(client, "search", {"query": "retry", "limit": 50, "max_tokens": 20_000})
        small = await text(client, "search", {"query": "retry", "limit": 50, "max_tokens": 200})
        assert len(small) <= 200 * 4 + 200  # the cut notice may run past the budget by its own length
        assert len(lines(small)) < len(lines(full))
        assert "more result(s) cut to stay within max_tokens=200" in small
        every = await text(client, "grep", {"pattern": "retry", "limit": 1000, "max_tokens": 50_000})
        assert "more matching line" not in every and len(grep_lines(every)) == len(lines_holding(root, "retry"))
        capped = await text(client, "grep", {"pattern": "retry", "limit": 3})
        assert len(grep_lines(capped)) == 3
        assert capped.splitlines()[-1].startswith(f"+{len(grep_lines(every)) - 3} more matching line(s) not shown")
        budget = await text(client, "grep", {"pattern": "retry", "limit": 1000, "max_tokens": 200})
        assert 0 < len(grep_lines(budget)) < len(grep_lines(every)) and len(budget) <= 200 * 4 + 200


async def test_mistakes_get_clear_errors_and_the_server_stays_up(root: Path) -> None:
    async with session(root) as client:
        assert "blank" in await error(client, "search", {"query": "   "})
        assert "limit" in await error(client, "search", {"query": "retry", "limit": "many"})
        assert "must be one of" in await error(client, "search", {"query": "retry", "intent": "guess"})
        assert "query" in await error(client, "search", {})
        assert "invalid query at position" in await error(client, "search", {"query": "re:load_(settings"})
        assert "invalid pattern at position 8" in await error(client, "grep", {"pattern": "re:load_(settings"})
        assert "blank" in await error(client, "grep", {"pattern": " "})
        assert "no indexed file is in cobol" in await text(client, "grep", {"pattern": "retry",
                                                                             "languages": ["cobol"]})
        assert "nope" in await error(client, "nope", {})
        unknown = await text(client, "search", {"query": "retry", "languages": ["cobol"]})
        assert "no results" in unknown and "no indexed file is in cobol" in unknown
        assert json.loads(await text(client, "status", {}))["ready"] is True  # still serving


async def test_a_file_edited_while_the_server_runs_is_found(root: Path) -> None:
    async with session(root) as client:
        assert not lines(await text(client, "definition", {"symbol": "restock_from_supplier"}))
        target = root / "inventory" / "models.py"
        target.write_text(target.read_text() + "\n\ndef restock_from_supplier(item):\n    return item\n")
        (root / "inventory" / "audit.py").write_text("def audit_stock_levels(store):\n    return store\n")

        edited = await text(client, "definition", {"symbol": "restock_from_supplier"})
        assert lines(edited)[0].startswith("1. inventory/models.py:"), edited
        created = await text(client, "definition", {"symbol": "audit_stock_levels"})
        assert lines(created)[0].startswith("1. inventory/audit.py:1  audit_stock_levels"), created
        assert grep_lines(await text(client, "grep", {"pattern": "audit_stock_levels"})) == [
            "inventory/audit.py:1: def audit_stock_levels(store):  (in audit_stock_levels)"]

        (root / "inventory" / "audit.py").unlink()
        assert not lines(await text(client, "definition", {"symbol": "audit_stock_levels"}))
