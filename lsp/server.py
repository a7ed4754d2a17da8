"""The Fourfold language server: the engine behind Ctrl+T, go-to-definition and `fourfold.search`.

An editor starts it on stdio (`fourfold serve`, `python -m fourfold.lsp`); it indexes every open
workspace folder in the background with progress in the status bar, keeps the index in step with
saves and unsaved buffers, and answers searches from the engine. Each handler is one straight
path: params -> one engine call in a worker thread (the event loop never blocks, so cancelling
a slow search frees the next keystroke at once) -> LSP result in the client's position encoding.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import sys
import threading
import uuid
from collections.abc import Awaitable, Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from fourfold.engine import (
    QueryError,
    SearchError,
    SearchRequest,
    Settings,
    Workspace,
    WorkspaceError,
    parse_settings,
)

from . import convert
from .folders import Change, Folder, Updates, apply_change, folder_of, merged_status
from .framing import FrameReader, FramingError
from .positions import from_client
from .protocol import FourfoldProtocol
from .redaction import REDACTOR

log = logging.getLogger(__name__)
T = TypeVar("T")

NAME = "fourfold"
SEARCH_COMMAND = "fourfold.search"
STATUS_COMMAND = "fourfold.indexStatus"
REINDEX_COMMAND = "fourfold.reindex"
# Sent whenever a folder's index changes state, so clients (and tests) can wait instead of polling.
STATUS_NOTIFICATION = "fourfold/indexStatus"
CONFIG_SECTION = "fourfold"
WATCHER_ID = "fourfold-watched-files"
# Ctrl+T shows about a dozen rows; 50 leaves room to scroll while every row still costs its
# conversion and its share of the JSON on each keystroke (jedi-language-server sends 20). The empty
# query lists the hubs of the code base.
WORKSPACE_SYMBOL_LIMIT = 50
CENTRAL_SYMBOL_LIMIT = 50


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

    def _client_supports(self, *path: str) -> bool:
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

    # --- settings -------------------------------------------------------------------------
    async def load_settings(self, pushed: Any = None) -> bool:
        """Settings from initializationOptions, then the `fourfold` section; True when they changed."""
        options = self.init_options.get(CONFIG_SECTION, self.init_options)
        settings, errors = parse_settings(options if isinstance(options, Mapping) else {})
        section = pushed
        if self._client_supports("workspace", "configuration"):
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

    async def run_search(self, request: SearchRequest) -> dict[str, Any]:
        """`fourfold.search` over every open folder; several folders are merged by score."""
        pairs = await self.opened()
        if not pairs:
            raise JsonRpcInvalidRequest(self._no_index_message())
        encoding = self.encoding
        jobs = [asyncio.to_thread(_search_folder, folder, space, request, encoding)
                for folder, space in pairs]
        answers = await asyncio.gather(*jobs)
        return convert.merge_answers(list(answers), request.limit)

    def _no_index_message(self) -> str:
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


def _search_folder(folder: Folder, workspace: Workspace, request: SearchRequest,
                   encoding: str) -> dict[str, Any]:
    answer = workspace.search_dict(request)
    rows = convert.result_rows(workspace, answer["results"], encoding)
    return {**answer, "results": [{**row, "folder": folder.uri} for row in rows]}


class Progress:
    """One `$/progress` bar (begin, reports at each new percent, end); silent for clients without it."""

    def __init__(self, server: FourfoldServer, token: str | None) -> None:
        self.server = server
        self.token = token
        self.percent = -1

    @classmethod
    async def start(cls, server: FourfoldServer, title: str, message: str) -> Progress:
        if not server._client_supports("window", "work_done_progress"):
            return cls(server, None)
        token = f"fourfold-{uuid.uuid4().hex}"
        try:
            await server.work_done_progress.create_async(token)
        except Exception as error:
            log.info("client refused a progress token: %s", error)
            return cls(server, None)
        server.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=title, message=message, percentage=0, cancellable=False))
        return cls(server, token)

    def counter(self, verb: str | Callable[[], str], unit: str) -> Callable[[int, int], None]:
        """A (done, total) callback for worker threads: reports hop onto the event loop.

        A callable `verb` names the current stage (embedding runs `local`, then a slower model)."""
        def report(done: int, total: int) -> None:
            percent = 100 * done // max(total, 1)
            if self.token is None or percent == self.percent:
                return
            self.percent = percent
            message = f"{verb() if callable(verb) else verb} {done:,} / {total:,} {unit}"
            value = types.WorkDoneProgressReport(message=message, percentage=percent)
            self.server.call_soon(self.server.work_done_progress.report, self.token, value)
        return report

    def end(self, message: str) -> None:
        if self.token is not None:
            self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))


def _embedding_stage(workspace: Workspace) -> Callable[[], str]:
    """"Embedding (local)", then "Embedding (minilm)": which model the progress bar is counting for."""
    def verb() -> str:
        pending = workspace.status()["semantic_progress"]
        return f"Embedding ({pending['backend']})" if pending else "Embedding"
    return verb


async def _off_loop(function: Callable[..., T], *args: Any) -> T:
    return await asyncio.to_thread(function, *args)


# A UTF-16 surrogate left alone (JSON allows "\ud800"): no file can contain it, and the engine's
# UTF-8 encoders would fail on it with a traceback.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _search_request(values: Mapping[str, Any]) -> SearchRequest:
    for key, value in values.items():
        for text in value if isinstance(value, list) else [value]:
            found = LONE_SURROGATE.search(text) if isinstance(text, str) else None
            if found is not None:
                raise JsonRpcInvalidParams(f"{key!r} is not valid Unicode: a lone surrogate "
                                           f"U+{ord(found.group()):04X} at position {found.start()}")
    try:
        return SearchRequest.from_mapping(values)
    except SearchError as error:
        raise JsonRpcInvalidParams(str(error)) from error


def _one_object(args: tuple[Any, ...], command: str, example: str) -> Mapping[str, Any]:
    if len(args) > 1 or (args and not isinstance(args[0], Mapping)):
        raise JsonRpcInvalidParams(f"{command} takes one object argument, e.g. [{example}]")
    return args[0] if args else {}


# --- lifecycle ----------------------------------------------------------------------------------
def initialize(ls: FourfoldServer, params: types.InitializeParams) -> None:
    ls.loop = asyncio.get_running_loop()
    options = params.initialization_options
    ls.init_options = options if isinstance(options, Mapping) else {}
    folders = params.workspace_folders or []
    if folders:
        for item in folders:
            ls.add_folder(item.uri, item.name)
    elif params.root_uri or params.root_path:
        ls.add_folder(params.root_uri or Path(params.root_path or ".").as_uri(), "")


async def initialized(ls: FourfoldServer, params: types.InitializedParams) -> None:
    """Read settings, watch files, then index every folder in the background."""
    await ls.load_settings()
    if ls._client_supports("workspace", "did_change_watched_files", "dynamic_registration"):
        await _watch_files(ls)
    for folder in ls.folders:
        await ls.open_folder(folder)
    if not ls.folders:
        ls.show("no workspace folder is open; Fourfold has nothing to index", types.MessageType.Info)


async def _watch_files(ls: FourfoldServer) -> None:
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern="**/*")])
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
            id=WATCHER_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options)]))
    except Exception as error:
        log.warning("the client did not accept a file watcher (%s); saves still arrive via didSave", error)


async def shutdown(ls: FourfoldServer, params: None) -> None:
    """Flush and close every index before `exit` (the process must not be killed mid-write)."""
    await asyncio.gather(*(ls.close_folder(folder) for folder in ls.folders))


async def did_change_workspace_folders(ls: FourfoldServer,
                                       params: types.DidChangeWorkspaceFoldersParams) -> None:
    for removed in params.event.removed:
        for folder in [f for f in ls.folders if f.uri == removed.uri]:
            ls.folders.remove(folder)
            await ls.close_folder(folder)
    for added in params.event.added:
        await ls.open_folder(ls.add_folder(added.uri, added.name))


async def did_change_configuration(ls: FourfoldServer, params: types.DidChangeConfigurationParams) -> None:
    """Re-read settings; a change re-opens every index with them (unchanged files are not re-parsed)."""
    pushed = params.settings.get(CONFIG_SECTION) if isinstance(params.settings, Mapping) else None
    if not await ls.load_settings(pushed):
        return
    for folder in ls.folders:
        await ls.close_folder(folder)
        await ls.open_folder(folder)


# --- files and buffers ----------------------------------------------------------------------------
def did_change_watched_files(ls: FourfoldServer, params: types.DidChangeWatchedFilesParams) -> None:
    for event in params.changes:
        _enqueue(ls, event.uri, Change("disk"))


def did_rename_files(ls: FourfoldServer, params: types.RenameFilesParams) -> None:
    for item in params.files:
        _enqueue(ls, item.old_uri, Change("disk"))
        _enqueue(ls, item.new_uri, Change("disk"))


def did_open(ls: FourfoldServer, params: types.DidOpenTextDocumentParams) -> None:
    _enqueue(ls, params.text_document.uri, Change("open", params.text_document.text))


def did_change(ls: FourfoldServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    _enqueue(ls, uri, Change("buffer", ls.workspace.get_text_document(uri).source))


def did_close(ls: FourfoldServer, params: types.DidCloseTextDocumentParams) -> None:
    _enqueue(ls, params.text_document.uri, Change("close"))


def _enqueue(ls: FourfoldServer, uri: str, change: Change) -> None:
    located = ls.locate(uri)
    if located is None:
        log.debug("ignored a change outside every folder: %s", uri)
        return
    folder, _, relative = located
    if change.text is not None:
        limit = ls.settings.max_file_size
        size = _size_over(change.text, limit)
        if size is not None:
            # maxFileSize holds for buffers as for files: indexing a 10 MB buffer would keep every
            # search waiting behind it for minutes. The index keeps what is on disk instead.
            reason = f"open buffer of {size:,} bytes is over maxFileSize ({limit:,} bytes): not indexed"
            if folder.skipped_buffers.get(relative) != reason:
                log.warning("%s: %s", relative, reason)
            folder.skipped_buffers[relative] = reason
            change = Change("close")
        else:
            folder.skipped_buffers.pop(relative, None)
    elif change.kind == "close":
        folder.skipped_buffers.pop(relative, None)
    if folder.updates is not None:
        folder.updates.put(relative, change)


def _size_over(text: str, limit: int) -> int | None:
    """The UTF-8 size of `text` when it is over `limit`, else None (short texts are not encoded)."""
    if 4 * len(text) <= limit:
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    return size if size > limit else None


# --- search -------------------------------------------------------------------------------------
async def workspace_symbol(ls: FourfoldServer,
                           params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
    """Ctrl+T: the fused engine; the empty query lists the most central symbols. Partial while indexing."""
    async with ls.symbol_gate:
        return await _to_completion(_workspace_symbol(ls, params.query.strip()))


async def _workspace_symbol(ls: FourfoldServer, query: str) -> list[types.WorkspaceSymbol]:
    if not query:
        pairs = await ls.opened()
        encoding = ls.encoding
        found = await asyncio.gather(*(_off_loop(_central, workspace, encoding) for _, workspace in pairs))
        return [symbol for symbols in found for symbol in symbols][:WORKSPACE_SYMBOL_LIMIT]
    request = _search_request({"query": query, "limit": WORKSPACE_SYMBOL_LIMIT})
    try:
        answer = await ls.run_search(request)
    except JsonRpcInvalidRequest:
        return []
    except QueryError as error:
        raise JsonRpcInvalidParams(f"invalid query: {error}") from error
    partial = bool(answer.get("partial"))
    symbols = [convert.workspace_symbol(row) for row in answer["results"]]
    if partial:
        for symbol in symbols:
            symbol.data = {"partial": True}
    return symbols


async def _to_completion(work: Awaitable[T]) -> T:
    """Await `work`; when the request is cancelled, still hold on until its worker thread is done.

    A thread cannot be stopped: letting go at once would start the next keystroke's search beside
    the abandoned one, and a fast typist would pile up searches that all share one GIL.
    """
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await asyncio.wait([task])
        if not task.cancelled():
            task.exception()  # retrieved: nobody is waiting for an abandoned answer
        raise


def _central(workspace: Workspace, encoding: str) -> list[types.WorkspaceSymbol]:
    lines = convert.line_source(workspace)
    return [convert.symbol_entry(workspace, symbol, lines, encoding)
            for symbol in workspace.central_symbols(CENTRAL_SYMBOL_LIMIT)]


async def search_command(ls: FourfoldServer, *args: Any) -> dict[str, Any]:
    """`fourfold.search` (DESIGN §7), plus "index" and "partial" so a client can say the list may grow."""
    values = _one_object(args, SEARCH_COMMAND, '{"query": "parse config"}')
    request = _search_request(values)
    try:
        return await ls.run_search(request)
    except QueryError as error:
        raise JsonRpcInvalidParams(f"invalid query: {error}") from error


async def status_command(ls: FourfoldServer, *args: Any) -> dict[str, Any]:
    return merged_status(ls.folders)


async def reindex_command(ls: FourfoldServer, *args: Any) -> dict[str, Any]:
    """Restart indexing of every folder (`full`: from scratch); returns at once, progress follows."""
    values = _one_object(args, REINDEX_COMMAND, '{"full": true}')
    unknown = set(values) - {"full"}
    if unknown:
        raise JsonRpcInvalidParams(f"unknown argument(s) {', '.join(sorted(unknown))} for {REINDEX_COMMAND}")
    full = values.get("full", False)
    if not isinstance(full, bool):
        raise JsonRpcInvalidParams('"full" must be true or false')
    for folder in ls.folders:
        if folder.workspace is None:
            await ls.open_folder(folder)
            continue
        folder.cancel.set()
        if folder.indexing is not None:
            await asyncio.gather(folder.indexing, return_exceptions=True)
        ls.start_indexing(folder, full)
    return {"started": True, "full": full, "folders": [folder.uri for folder in ls.folders]}


# --- navigation ---------------------------------------------------------------------------------
async def _position(ls: FourfoldServer, uri: str,
                    position: types.Position) -> tuple[Workspace, str, int, int] | None:
    """Engine coordinates (code point column) of a client position, after pending edits are applied."""
    located = ls.locate(uri)
    if located is None:
        return None
    folder, workspace, relative = located
    if folder.updates is not None:
        await folder.updates.settled()
    line = convert.line_source(workspace).line(relative, position.line)
    return workspace, relative, position.line, from_client(line, position.character, ls.encoding)


async def definition(ls: FourfoldServer, params: types.DefinitionParams) -> list[types.Location]:
    target = await _position(ls, params.text_document.uri, params.position)
    if target is None:
        return []
    workspace, path, line, col = target
    encoding = ls.encoding
    return await _off_loop(lambda: convert.hit_locations(workspace, workspace.definitions_at(path, line, col),
                                                         encoding))


async def references(ls: FourfoldServer, params: types.ReferenceParams) -> list[types.Location]:
    target = await _position(ls, params.text_document.uri, params.position)
    if target is None:
        return []
    workspace, path, line, col = target
    encoding = ls.encoding

    def find() -> list[types.Location]:
        hits = workspace.references_at(path, line, col)
        if params.context.include_declaration:
            hits = workspace.definitions_at(path, line, col) + hits
        return convert.hit_locations(workspace, hits, encoding)

    return await _off_loop(find)


async def prepare_call_hierarchy(ls: FourfoldServer,
                                 params: types.CallHierarchyPrepareParams) -> list[types.CallHierarchyItem]:
    target = await _position(ls, params.text_document.uri, params.position)
    if target is None:
        return []
    workspace, path, line, col = target
    encoding = ls.encoding

    def prepare() -> list[types.CallHierarchyItem]:
        symbol = workspace.symbol_at(path, line, col)
        if symbol is None:
            return []
        return [convert.call_item(workspace, symbol, convert.line_source(workspace), encoding)]

    return await _off_loop(prepare)


def _item_symbol(ls: FourfoldServer, item: types.CallHierarchyItem) -> tuple[Workspace, Any] | None:
    located = ls.locate(item.uri)
    data = item.data
    if located is None:
        return None
    _, workspace, relative = located
    line = getattr(data, "line", None) if not isinstance(data, Mapping) else data.get("line")
    col = getattr(data, "col", None) if not isinstance(data, Mapping) else data.get("col")
    if not isinstance(line, int) or not isinstance(col, int):
        line, col = item.selection_range.start.line, item.selection_range.start.character
        col = from_client(convert.line_source(workspace).line(relative, line), col, ls.encoding)
    symbol = workspace.symbol_at(relative, line, col)
    return None if symbol is None else (workspace, symbol)


IncomingCalls = list[types.CallHierarchyIncomingCall]


async def incoming_calls(ls: FourfoldServer, params: types.CallHierarchyIncomingCallsParams) -> IncomingCalls:
    encoding = ls.encoding

    def calls() -> list[types.CallHierarchyIncomingCall]:
        found = _item_symbol(ls, params.item)
        if found is None:
            return []
        workspace, symbol = found
        return convert.incoming(workspace, workspace.incoming_calls(symbol), encoding)

    return await _off_loop(calls)


OutgoingCalls = list[types.CallHierarchyOutgoingCall]


async def outgoing_calls(ls: FourfoldServer, params: types.CallHierarchyOutgoingCallsParams) -> OutgoingCalls:
    encoding = ls.encoding

    def calls() -> list[types.CallHierarchyOutgoingCall]:
        found = _item_symbol(ls, params.item)
        if found is None:
            return []
        workspace, symbol = found
        return convert.outgoing(workspace, symbol, workspace.outgoing_calls(symbol), encoding)

    return await _off_loop(calls)


def build_server() -> FourfoldServer:
    """A server with every handler registered (a fresh one per process or test)."""
    server = FourfoldServer()
    server.feature(types.INITIALIZE)(initialize)
    server.feature(types.INITIALIZED)(initialized)
    server.feature(types.SHUTDOWN)(shutdown)
    server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(did_change_workspace_folders)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
    server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(did_change_watched_files)
    server.feature(types.WORKSPACE_DID_RENAME_FILES, types.FileOperationRegistrationOptions(
        filters=[types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*"))]))(did_rename_files)
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(did_close)
    server.feature(types.WORKSPACE_SYMBOL)(workspace_symbol)
    server.feature(types.TEXT_DOCUMENT_DEFINITION)(definition)
    server.feature(types.TEXT_DOCUMENT_REFERENCES)(references)
    server.feature(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)(prepare_call_hierarchy)
    server.feature(types.CALL_HIERARCHY_INCOMING_CALLS)(incoming_calls)
    server.feature(types.CALL_HIERARCHY_OUTGOING_CALLS)(outgoing_calls)
    server.command(SEARCH_COMMAND)(search_command)
    server.command(STATUS_COMMAND)(status_command)
    server.command(REINDEX_COMMAND)(reindex_command)
    return server


def _configure_logging(log_file: str | None, verbosity: int) -> None:
    level = logging.WARNING - 10 * min(verbosity, 2)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    REDACTOR.remember_environment()
    for handler in handlers:  # on the handlers, so records of every logger (pygls's too) pass it
        handler.addFilter(REDACTOR)
    logging.basicConfig(level=level, handlers=handlers, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # pygls logs every message body at INFO: only at -vvv.
    logging.getLogger("pygls").setLevel(logging.DEBUG if verbosity >= 3 else logging.WARNING)


def run(tcp_port: int | None = None, log_file: str | None = None, verbosity: int = 0) -> int:
    """Serve on stdio (or TCP for debugging) until the client says `exit`; the exit code is LSP's."""
    _configure_logging(log_file, verbosity)
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
