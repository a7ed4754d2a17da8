"""Files and buffers: saves, creations, deletions, renames and unsaved edits reach the index.

Each notification only enqueues a change for its folder (folders.Updates coalesces and applies
them off the event loop), so typing never waits for indexing, and the next search reads what is
on screen.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from .folders import Change
from .server import FourfoldServer

log = logging.getLogger(__name__)


def register(server: FourfoldServer) -> None:
    server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(did_change_watched_files)
    server.feature(types.WORKSPACE_DID_RENAME_FILES, types.FileOperationRegistrationOptions(
        filters=[types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*"))]))(did_rename_files)
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(did_close)


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
