"""A real LSP client (pytest-lsp) driving `python -m fourfold.lsp` as a subprocess.

Each capability set (recorded from VS Code and Neovim) gets its own server, its own copy of the
polyglot fixture and its own index folder, indexed once per module. Tests wait on the server's
`fourfold/indexStatus` notifications (never on a clock), so they are as fast as the indexer.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import shutil
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import register_lsp_features

HERE = Path(__file__).parent
FIXTURE = HERE.parent / "fixtures" / "polyglot"
CAPABILITIES = HERE / "capabilities"
CLIENTS = ("vscode", "neovim")
STATUS = "fourfold/indexStatus"
# Bounds on every wait (starting and indexing, one test, stopping), so a broken server fails the test
# instead of hanging the suite.
WAIT_S = 60.0
TEST_S = 60.0
SHUTDOWN_S = 10.0
# A file whose definition sits after non-ASCII text on the same line: columns differ per encoding.
EMOJI_FILE = "web/launch.js"
EMOJI_SOURCE = 'const banner = "🚀 café"; function launchRocket(count) { return count + 1; }\n'


def plain(value: Any) -> Any:
    """pygls hands unknown notifications over as namedtuples; tests want JSON values."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


class FourfoldClient(LanguageClient):
    """The pytest-lsp client plus a record of `fourfold/indexStatus` notifications to wait on."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.statuses: list[dict[str, Any]] = []
        self.status_arrived = asyncio.Event()
        self.root: Path = Path()
        self.encoding = "utf-16"
        self.registrations: list[types.Registration] = []

    def record_registrations(self, params: types.RegistrationParams) -> None:
        """`client/registerCapability`: accepted and kept, as an editor would (pytest-lsp lacks it)."""
        self.registrations.extend(params.registrations)

    def record_status(self, params: Any) -> None:
        self.statuses.append(plain(params))
        self.status_arrived.set()

    async def wait_status(self, predicate: Callable[[dict[str, Any]], bool],
                          after: int = 0) -> dict[str, Any]:
        """The first status notification at index >= `after` that satisfies `predicate`."""
        async def scan() -> dict[str, Any]:
            seen = after
            while True:
                for status in self.statuses[seen:]:
                    if predicate(status):
                        return status
                seen = max(seen, len(self.statuses))
                self.status_arrived.clear()
                await self.status_arrived.wait()
        return await asyncio.wait_for(scan(), WAIT_S)

    async def command(self, name: str, *arguments: Any) -> Any:
        return await self.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments)))

    async def search(self, query: str, **options: Any) -> dict[str, Any]:
        return await self.command("fourfold.search", {"query": query, **options})

    async def raw_request(self, method: str, params: Any) -> Any:
        """Send params as they are, bypassing the typed converter (to send what an editor must not)."""
        msg_id = f"raw-{uuid.uuid4().hex}"
        future: Future[Any] = Future()
        self.protocol._request_futures[msg_id] = future
        self.protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return await asyncio.wrap_future(future)


def make_client() -> FourfoldClient:
    client = FourfoldClient(converter_factory=default_converter)
    register_lsp_features(client)
    client.feature(STATUS)(lambda ls, params: ls.record_status(params))
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda ls, params: ls.record_registrations(params))
    client.feature(types.CLIENT_UNREGISTER_CAPABILITY)(lambda ls, params: None)
    return client


def capabilities(name: str) -> types.ClientCapabilities:
    recorded = json.loads((CAPABILITIES / f"{name}.json").read_text())
    return get_converter().structure(recorded, types.InitializeParams).capabilities


SERVER_COMMAND = [sys.executable, "-m", "fourfold.lsp", "-v"]
SERVER = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client)


def copy_fixture(target: Path) -> Path:
    root = target / "polyglot"
    shutil.copytree(FIXTURE, root)
    (root / EMOJI_FILE).write_text(EMOJI_SOURCE, encoding="utf-8")
    return root


def initialize_params(name: str, root: Path, index_dir: Path,
                      backend: str = "none") -> types.InitializeParams:
    return types.InitializeParams(
        capabilities=capabilities(name),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        initialization_options={"indexDir": str(index_dir), "semantic": {"backend": backend}},
    )


async def start(client: FourfoldClient, name: str, tmp: Path, backend: str = "none") -> None:
    """Initialize on a fresh copy of the fixture and wait until its index is ready."""
    client.root = copy_fixture(tmp)
    result = await client.initialize_session(initialize_params(name, client.root, tmp / "index", backend))
    encoding = result.capabilities.position_encoding or "utf-16"
    client.encoding = str(getattr(encoding, "value", encoding))
    status = await client.wait_status(lambda s: s["phase"] in ("indexed", "error"))
    assert status["phase"] == "indexed", status


def kill_server(client: FourfoldClient) -> None:
    """End a server that did not stop by itself, so the fixture's own wait for it returns."""
    server = client._server
    if server is not None and server.returncode is None:
        server.kill()


@contextlib.asynccontextmanager
async def session(client: FourfoldClient, name: str, tmp: Path,
                  backend: str = "none") -> AsyncIterator[FourfoldClient]:
    """A started, indexed server for the duration of the block; bounded start and stop.

    A server that hangs while starting or stopping is killed and the fixture fails, instead of the
    fixture (and CI) waiting for it forever.
    """
    try:
        await asyncio.wait_for(start(client, name, tmp, backend), WAIT_S)
        yield client
        await asyncio.wait_for(client.shutdown_session(), SHUTDOWN_S)
    finally:
        kill_server(client)


def bounded(test: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """The test coroutine with a deadline: a hang becomes a TimeoutError, the suite moves on."""
    @functools.wraps(test)
    async def run(*args: Any, **kwargs: Any) -> Any:
        return await asyncio.wait_for(test(*args, **kwargs), TEST_S)
    return run


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if isinstance(item, pytest.Function) and item.path.is_relative_to(HERE) \
                and inspect.iscoroutinefunction(item.obj):
            item.obj = bounded(item.obj)
