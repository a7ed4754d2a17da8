"""The Fourfold language server: the engine behind Ctrl+T, go-to-definition and `fourfold.search`.

An editor starts it on stdio (`fourfold serve`, `python -m fourfold.lsp`); it indexes every open
workspace folder in the background with progress in the status bar, keeps the index in step with
saves and unsaved buffers, and answers searches from the engine. This module holds the server's
state (folders, settings, indexing tasks) and its transport; the handlers live one module per
feature, each a thin translation (params -> one engine call in a worker thread -> LSP result):

    lifecycle.py   initialize, initialized, shutdown, folders and settings changes, fourfold.indexStatus|reindex
    sync.py        file events and unsaved buffers into the index
    search.py      workspace/symbol (Ctrl+T) and fourfold.search
    navigation.py  definition, references, call hierarchy
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcParseError
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from fourfold.engine import Settings, Workspace, WorkspaceError, parse_settings

from . import logs
from .folders import Change, Folder, Updates, apply_change, folder_of
from .framing import FrameReader, FramingError
from .progress import Progress
from .protocol import FourfoldProtocol
from .redaction import REDACTOR

log = logging.getLogger(__name__)
T = TypeVar("T")

NAME = "fourfold"
# Sent whenever a folder's index changes state, so clients (and tests) can wait instead of polling.
STATUS_NOTIFICATION = "fourfold/indexStatus"
# The settings section of initializationOptions and workspace/configuration.
CONFIG_SECTION = "fourfold"


def _version() -> str:
    try:
        return metadata.version(NAME)
    except metadata.PackageNotFoundError:
        return "0"


class FourfoldServer(LanguageServer):
    """pygls server holding the open folders, the settings and the background indexing tasks."""

    protocol: FourfoldProtocol

    def __init__(self) -> None:
        super().__init__(NAME, _version(), protocol_cls=FourfoldProtocol)
        self.folders: list[Folder] = []
        self.settings = Settings()
        self.init_options: Mapping[str, Any] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        # Ctrl+T sends a request per keystroke and cancels the previous one: one search runs at a
        # time, so a request cancelled while it waits here never starts (the latest keystroke wins).
        self.symbol_gate = asyncio.Lock()

    # --- client facts ---------------------------------------------------------------------
    @property
    def encoding(self) -> str:
        value = self.workspace.position_encoding or types.PositionEncodingKind.Utf16
        return str(getattr(value, "value", value))

    def client_supports(self, *path: str) -> bool:
        value: Any = self.client_capabilities
        for name in path:
            value = getattr(value, name, None)
        return bool(value)

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve on stdio through Fourfold's framing reader (`framing.py`) instead of pygls's."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(self._serve(FrameReader(_reader(stdin or sys.stdin.buffer))))
        except BrokenPipeError:
            log.error("the client closed the connection; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """Serve TCP clients (debugging) through the same framing reader as stdio."""
        self._stop_event = threading.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)
            await self._serve(FrameReader(reader.read))
            self.shutdown()

        async def serve() -> None:
            server = await asyncio.start_server(connection, host, port)
            self._server = server
            log.info("serving on %s:%s", host, port)
            async with server:
                await server.serve_forever()

        with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt, SystemExit):
            asyncio.run(serve())
        self.shutdown()

    async def _serve(self, reader: FrameReader) -> None:
        """Read and dispatch messages until `exit` or the end of stdin; framing errors are answered."""
        while self._stop_event is not None and not self._stop_event.is_set():
            frame = await reader.next()
            if frame is None:
                if not self.protocol.exit_received:
                    log.warning("the client closed stdin without exit; shutting down")
                break
            if isinstance(frame, FramingError):
                log.warning("framing error, skipped to the next Content-Length header: %s", frame.message)
                self.protocol.reply_error(None, JsonRpcParseError.CODE, f"framing error: {frame.message}")
                continue
            REDACTOR.scan(frame)
            self.protocol.receive(frame)
            if self.protocol.exit_received:
                break
        if reader.skipped:
            log.warning("skipped %d bytes of the input that were not a message", reader.skipped)
        for folder in self.folders:  # threads still indexing must not hold the exit up
            folder.cancel.set()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Malformed messages were already answered; log them instead of popping up a dialog."""
        log.warning("protocol error (%s): %s", getattr(source, "__name__", source), error)

    def show(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        log.warning("%s", message)
        self.window_show_message(types.ShowMessageParams(type=kind, message=f"Fourfold: {message}"))

    def call_soon(self, callback: Callable[..., None], *args: Any) -> None:
        """Run `callback` on the event loop from a worker thread (the transport is not thread-safe)."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(callback, *args)

    async def off_loop(self, function: Callable[..., T], *args: Any) -> T:
        """Run a blocking engine call in a worker thread, so the event loop keeps reading messages."""
        return await asyncio.to_thread(function, *args)

    # --- settings -------------------------------------------------------------------------
    async def load_settings(self, pushed: Any = None) -> bool:
        """Settings from initializationOptions, then the `fourfold` section; True when they changed."""
        options = self.init_options.get(CONFIG_SECTION, self.init_options)
        settings, errors = parse_settings(options if isinstance(options, Mapping) else {})
        section = pushed
        if self.client_supports("workspace", "configuration"):
            try:
                answer = await self.workspace_configuration_async(types.ConfigurationParams(
                    items=[types.ConfigurationItem(section=CONFIG_SECTION)]))
                section = answer[0] if answer else None
            except Exception as error:  # a client that fails the request still gets a server
                log.warning("workspace/configuration failed: %s", error)
        if isinstance(section, Mapping):
            settings, more = parse_settings(section, settings)
            errors += more
        REDACTOR.remember(settings.voyage_api_key)
        for problem in errors:
            self.show(problem)
        changed = settings != self.settings
        self.settings = settings
        return changed

    # --- folders --------------------------------------------------------------------------
    def add_folder(self, uri: str, name: str) -> Folder:
        path = Path(to_fs_path(uri) or uri)
        folder = Folder(uri=uri, name=name or path.name, path=path.resolve())
        self.folders.append(folder)
        return folder

    async def open_folder(self, folder: Folder) -> None:
        """Open the folder's index (loading a stored one can take a moment) and start indexing it."""
        try:
            workspace = await asyncio.to_thread(Workspace, folder.path, self.settings)
        except WorkspaceError as error:
            folder.error = str(error)
            self.show(f"cannot index {folder.name}: {error}", types.MessageType.Error)
            self.notify_status(folder, "error")
            return
        folder.workspace, folder.error = workspace, None
        folder.updates = Updates(lambda batch: self._apply(workspace, batch),
                                 lambda count: self.notify_status(folder, "updated"))
        self.start_indexing(folder)

    @staticmethod
    def _apply(workspace: Workspace, batch: dict[str, Change]) -> None:
        for path, change in batch.items():
            apply_change(workspace, path, change)

    async def close_folder(self, folder: Folder) -> None:
        folder.cancel.set()
        if folder.indexing is not None:
            await asyncio.gather(folder.indexing, return_exceptions=True)
        if folder.updates is not None:
            await folder.updates.settled()
        if folder.workspace is not None:
            await asyncio.to_thread(folder.workspace.close)
            folder.workspace = None

    def start_indexing(self, folder: Folder, full: bool = False) -> None:
        folder.cancel = threading.Event()
        folder.indexing = asyncio.get_running_loop().create_task(self._index(folder, full))

    async def _index(self, folder: Folder, full: bool) -> None:
        """Refresh the folder's index, then embed its chunks, each with progress; notify when done."""
        workspace = folder.workspace
        if workspace is None:
            return
        progress = await Progress.start(self, "Fourfold", self._label(folder, "Indexing"))
        try:
            if full:
                stats = await asyncio.to_thread(workspace.refresh, progress.counter("Indexing", "files"),
                                                folder.cancel, full=True)
            else:
                stats = await asyncio.to_thread(workspace.refresh, progress.counter("Indexing", "files"),
                                                folder.cancel)
            progress.end(f"Indexed {stats.scanned:,} files in {stats.seconds:.1f} s")
        except Exception as error:
            log.exception("indexing %s failed", folder.path)
            progress.end("Indexing failed")
            self.show(f"indexing {folder.name} failed: {error}", types.MessageType.Error)
            self.notify_status(folder, "error")
            return
        self.notify_status(folder, "indexed")
        if self.settings.semantic_backend == "none" or folder.cancel.is_set():
            return
        progress = await Progress.start(self, "Fourfold", self._label(folder, "Embedding"))
        try:
            counter = progress.counter(_embedding_stage(workspace), "chunks")
            count = await asyncio.to_thread(workspace.embed_pending, counter, folder.cancel)
            progress.end(f"Embedded {count:,} chunks")
        except Exception as error:  # semantic search degrades; text, structure and graph keep working
            log.exception("embedding %s failed", folder.path)
            progress.end("Embedding failed")
            self.show(f"embeddings for {folder.name} failed ({error}); semantic search is off")
        self.notify_status(folder, "embedded")

    def _label(self, folder: Folder, verb: str) -> str:
        return f"{verb} {folder.name}" if len(self.folders) > 1 else verb

    def notify_status(self, folder: Folder, phase: str) -> None:
        self.protocol.notify(STATUS_NOTIFICATION, {**folder.status(), "phase": phase})

    async def opened(self) -> list[tuple[Folder, Workspace]]:
        """Folders with an index, after edits already sent to ready ones are applied."""
        pairs = [(folder, folder.workspace) for folder in self.folders if folder.workspace is not None]
        await asyncio.gather(*(folder.updates.settled() for folder, workspace in pairs
                               if folder.updates is not None and workspace.ready))
        return pairs

    def locate(self, uri: str) -> tuple[Folder, Workspace, str] | None:
        """The folder, index and root-relative path of a document, or None outside every folder."""
        fs_path = to_fs_path(uri)
        if fs_path is None:
            return None
        path = Path(fs_path).absolute()
        folder = folder_of(self.folders, path)
        if folder is None or folder.workspace is None:
            return None
        relative = folder.workspace.relative(path)
        return None if relative is None else (folder, folder.workspace, relative)

    def no_index_message(self) -> str:
        errors = [f"{folder.name}: {folder.error}" for folder in self.folders if folder.error]
        if errors:
            return "no folder could be indexed (" + "; ".join(errors) + ")"
        return "no workspace folder is open; open a folder (rootUri or workspaceFolders) to search it"

    def shutdown(self) -> None:
        """Stop indexing and close every index, also when the client vanished without `shutdown`."""
        for folder in self.folders:
            folder.cancel.set()
            if folder.workspace is not None:
                folder.workspace.close()
                folder.workspace = None
        super().shutdown()


def _embedding_stage(workspace: Workspace) -> Callable[[], str]:
    """"Embedding (local)", then "Embedding (minilm)": which model the progress bar is counting for."""
    def verb() -> str:
        pending = workspace.status()["semantic_progress"]
        return f"Embedding ({pending['backend']})" if pending else "Embedding"
    return verb


def build_server() -> FourfoldServer:
    """A server with every feature's handlers registered (a fresh one per process or test)."""
    # The features import this module for the server's type (pygls reads handlers' annotations at
    # runtime), so they are imported here, once it is loaded.
    from . import lifecycle, navigation, search, sync

    server = FourfoldServer()
    for feature in (lifecycle, sync, search, navigation):
        feature.register(server)
    return server


def run(tcp_port: int | None = None, log_file: str | None = None, verbosity: int = 0) -> int:
    """Serve on stdio (or TCP for debugging) until the client says `exit`; the exit code is LSP's."""
    logs.configure(verbosity, log_file, server=True)
    server = build_server()
    if tcp_port is not None:
        server.start_tcp("127.0.0.1", tcp_port)
    else:
        server.start_io(sys.stdin.buffer, _private_stdout())
    return 0 if server.protocol._shutdown or not server.protocol.exit_received else 1


def _reader(stream: BinaryIO) -> Callable[[int], Awaitable[bytes]]:
    """`read(n)` for the framing reader: each read in a daemon thread of its own.

    Not the shared pool: with every worker busy searching, the server would stop reading. And a
    daemon: a read blocked on a client that never closes stdin must not keep the process alive
    after `exit`.
    """
    read = getattr(stream, "read1", stream.read)

    def read_chunk(size: int) -> asyncio.Future[bytes]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bytes] = loop.create_future()

        def settle(data: bytes) -> None:
            if not future.done():
                future.set_result(data)

        def work() -> None:
            try:
                data = read(size)
            except (OSError, ValueError) as error:  # stdin closed under us: the end of the stream
                log.info("reading stdin failed: %s", error)
                data = b""
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(settle, data)

        threading.Thread(target=work, name="fourfold-stdin", daemon=True).start()
        return future

    return read_chunk


def _private_stdout() -> BinaryIO:
    """The JSON-RPC channel on a private copy of stdout; stdout itself then goes to stderr.

    Anything else that writes to stdout (a stray print(), a C library, a parser process the engine
    spawns, which inherits file descriptor 1) lands in the log instead of corrupting the stream.
    """
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return channel
