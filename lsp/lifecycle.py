"""Starting, configuring, re-indexing and stopping: the requests that open and close folders' indexes.

`initialize` records the folders, `initialized` reads the settings and starts indexing every
folder in the background (progress in the status bar), a settings change re-opens the indexes with
the new settings, `fourfold.reindex` starts over, and `shutdown` closes every index before `exit`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from .arguments import one_object
from .folders import merged_status
from .server import CONFIG_SECTION, FourfoldServer

log = logging.getLogger(__name__)

STATUS_COMMAND = "fourfold.indexStatus"
REINDEX_COMMAND = "fourfold.reindex"
WATCHER_ID = "fourfold-watched-files"


def register(server: FourfoldServer) -> None:
    server.feature(types.INITIALIZE)(initialize)
    server.feature(types.INITIALIZED)(initialized)
    server.feature(types.SHUTDOWN)(shutdown)
    server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(did_change_workspace_folders)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
    server.command(STATUS_COMMAND)(status_command)
    server.command(REINDEX_COMMAND)(reindex_command)


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
    if ls.client_supports("workspace", "did_change_watched_files", "dynamic_registration"):
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


async def status_command(ls: FourfoldServer, *args: Any) -> dict[str, Any]:
    return merged_status(ls.folders)


async def reindex_command(ls: FourfoldServer, *args: Any) -> dict[str, Any]:
    """Restart indexing of every folder (`full`: from scratch); returns at once, progress follows."""
    values = one_object(args, REINDEX_COMMAND, '{"full": true}')
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
