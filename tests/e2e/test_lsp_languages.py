"""End to end over the LSP wire for the languages of issue 13: Ctrl+T and go-to-definition land on
the definition's name when the name is used above its definition, in Kotlin, Swift, Haskell, Lua,
Bash (a script without an extension, told by its shebang), R, Erlang, Clojure, Elm, Vue and Svelte
and the rest of `tests/fixtures/languages`.

Parametrised over recorded VS Code (UTF-16) and Neovim 0.11 (UTF-8) capabilities.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from conftest import CLIENTS, SERVER, SHUTDOWN_S, WAIT_S, FourfoldClient, initialize_params, kill_server
from lsprotocol import types

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]
FIXTURE = Path(__file__).parent.parent / "fixtures" / "languages"

# (file, name, line of the use above the definition, line of the definition's name): 0-based.
USED_BEFORE_DEFINED = [
    ("client.kt", "makeClient", 5, 36),
    ("app.swift", "configure", 4, 36),
    ("Types.hs", "double", 7, 26),
    ("config.lua", "merge", 7, 11),
    ("nvm-exec", "nvm_exec_run", 4, 7),
    ("report.py", "render", 4, 8),
    ("spawn.rs", "spawn_worker", 4, 16),
    ("paths.rb", "normalize_path", 5, 11),
    # Grammars from tree-sitter-language-pack; Vue's and Svelte's from their `<script>` blocks.
    ("stats.R", "column_summary", 7, 13),
    ("kv_store.erl", "normalize", 20, 35),
    ("ring.clj", "route", 13, 19),
    ("Counter.elm", "clamp", 18, 38),
    ("TodoList.vue", "isOpen", 11, 18),
    ("Counter.svelte", "reset", 7, 18),
]


@pytest_lsp.fixture(scope="module", params=CLIENTS, config=SERVER)
async def client(lsp_client: FourfoldClient, request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp(f"languages-{request.param}")
    lsp_client.root = tmp / "languages"
    shutil.copytree(FIXTURE, lsp_client.root)
    try:
        params = initialize_params(request.param, lsp_client.root, tmp / "index")
        result = await asyncio.wait_for(lsp_client.initialize_session(params), WAIT_S)
        encoding = result.capabilities.position_encoding or "utf-16"
        lsp_client.encoding = str(getattr(encoding, "value", encoding))
        status = await lsp_client.wait_status(lambda s: s["phase"] in ("indexed", "error"))
        assert status["phase"] == "indexed", status
        yield
        await asyncio.wait_for(lsp_client.shutdown_session(), SHUTDOWN_S)
    finally:
        kill_server(lsp_client)


def name_column(client: FourfoldClient, path: str, line: int, name: str) -> int:
    return (client.root / path).read_text(encoding="utf-8").split("\n")[line].index(name)


@pytest.mark.parametrize(("path", "name", "use", "definition"), USED_BEFORE_DEFINED)
async def test_ctrl_t_lands_on_the_definition_not_on_the_use_above(
    client: FourfoldClient, path: str, name: str, use: int, definition: int
) -> None:
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=name))
    uri = (client.root / path).as_uri()
    entry = next(s for s in symbols if isinstance(s.location, types.Location) and s.location.uri == uri)
    assert entry.name == name
    start = entry.location.range.start  # type: ignore[union-attr]
    assert (start.line, start.character) == (definition, name_column(client, path, definition, name))


@pytest.mark.parametrize(("path", "name", "use", "definition"), USED_BEFORE_DEFINED)
async def test_go_to_definition_from_the_use_lands_on_the_name(
    client: FourfoldClient, path: str, name: str, use: int, definition: int
) -> None:
    uri = (client.root / path).as_uri()
    position = types.Position(use, name_column(client, path, use, name) + 1)
    locations = await client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position))
    assert isinstance(locations, list) and locations
    first = locations[0]
    assert isinstance(first, types.Location) and first.uri == uri
    assert (first.range.start.line, first.range.start.character) == (
        definition, name_column(client, path, definition, name))
