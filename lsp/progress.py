"""The one `$/progress` helper: a bar in the editor's status line while a folder is indexed or embedded.

Silent for clients that do not support work-done progress (or refuse a token): indexing goes on and
the `fourfold/indexStatus` notification still says when it is done.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from .server import FourfoldServer

log = logging.getLogger(__name__)


class Progress:
    """One `$/progress` bar (begin, reports at each new percent, end); silent for clients without it."""

    def __init__(self, server: FourfoldServer, token: str | None) -> None:
        self.server = server
        self.token = token
        self.percent = -1

    @classmethod
    async def start(cls, server: FourfoldServer, title: str, message: str) -> Progress:
        if not server.client_supports("window", "work_done_progress"):
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
