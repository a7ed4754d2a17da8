"""The one logging set-up of every Fourfold process (the language server, the CLI, the daemon, MCP).

Logs go to stderr (stdout is the JSON-RPC channel of a stdio server) and, when asked, to a file;
the redactor sits on every handler, so no record of any logger (pygls's too) carries the Voyage key.
"""

from __future__ import annotations

import logging
import sys

from .redaction import REDACTOR

# A server's log is read afterwards, next to the editor's: it needs the time of each record.
SERVER_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# A command's log is read as it runs, next to its output.
COMMAND_FORMAT = "%(levelname)s %(name)s: %(message)s"


def configure(verbosity: int, log_file: str | None = None, server: bool = False) -> None:
    """WARNING, then INFO (-v) and DEBUG (-vv); pygls logs every message body at INFO, so only at -vvv."""
    level = logging.WARNING - 10 * min(verbosity, 2)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    REDACTOR.remember_environment()
    for handler in handlers:  # on the handlers, so records of every logger (pygls's too) pass it
        handler.addFilter(REDACTOR)
    logging.basicConfig(level=level, handlers=handlers, force=True,
                        format=SERVER_FORMAT if server else COMMAND_FORMAT)
    logging.getLogger("pygls").setLevel(logging.DEBUG if verbosity >= 3 else logging.WARNING)
