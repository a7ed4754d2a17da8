"""JSON-RPC manners pygls leaves to the server: every bad request gets an answer a person can act on.

Without this, a request with malformed params is dropped without a reply (the editor waits
forever), a request before `initialize` reaches handlers that have no workspace yet, and an
unknown command id gets a terse message. Here each is answered with the proper JSON-RPC error and
the server keeps running.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import cattrs
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage

log = logging.getLogger(__name__)

# How much of a validation failure goes into an error message (the first problems are the useful ones).
MAX_PROBLEMS = 3


def _problems(error: BaseException) -> str:
    if isinstance(error, cattrs.ClassValidationError):
        return "; ".join(cattrs.transform_error(error)[:MAX_PROBLEMS])
    return str(error) or type(error).__name__


@dataclass(frozen=True)
class Rejected:
    """A message whose params did not fit its method: already answered (request) or dropped (notification)."""

    method: str


class FourfoldProtocol(LanguageServerProtocol):
    """The LSP protocol with the error replies a robust server owes its client."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_received = False

    def structure_message(self, data: dict[str, Any]) -> Any:
        """Parse one message; a request whose params do not fit its method gets InvalidParams back.

        pygls would raise here, logging two tracebacks and leaving the request unanswered; a
        `Rejected` marker instead is skipped by `handle_message` after one log line.
        """
        if "jsonrpc" not in data or "method" not in data:
            return super().structure_message(data)
        method = data["method"]
        fallback = JsonRPCRequestMessage if "id" in data else JsonRPCNotification
        try:
            return self._converter.structure(data, self.get_message_type(method) or fallback)
        except Exception as error:
            message = f"invalid params for {method}: {_problems(error)}"
            log.warning("%s", message)
            if "id" in data:
                self._send_response(data["id"], error=types.ResponseError(
                    code=JsonRpcInvalidParams.CODE, message=message))
            return Rejected(method)

    def handle_message(self, message: Any) -> None:
        if not isinstance(message, Rejected):
            super().handle_message(message)

    def _send_handler_result(self, future: Future[Any], *, msg_id: Any) -> None:
        """Answer a request; a deliberate JSON-RPC error (bad arguments) is one log line, not a traceback."""
        error = None if future.cancelled() else future.exception()
        if isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError):
            self._request_futures.pop(msg_id, None)
            log.info("request %s answered with error %s: %s", msg_id, error.code, error.message)
            self._send_response(msg_id, error=error.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> None:
        if method_name == types.INITIALIZE:
            self.initialize_received = True
        elif not self.initialize_received:
            log.warning("%s before initialize: answered ServerNotInitialized", method_name)
            self._send_response(msg_id, error=types.ResponseError(
                code=JsonRpcServerNotInitialized.CODE,
                message=f"{method_name} before initialize: send the initialize request first",
            ))
            return
        super()._handle_request(msg_id, method_name, params)

    def _handle_notification(self, method_name: str, params: Any) -> None:
        if not self.initialize_received and method_name != types.EXIT:
            log.warning("%s before initialize: ignored", method_name)
            return
        super()._handle_notification(method_name, params)

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams) -> Generator[Any, Any, Any]:
        if params.command not in self.fm.commands:
            known = ", ".join(sorted(self.fm.commands))
            raise JsonRpcInvalidParams(f"unknown command {params.command!r}; this server provides {known}")
        return (yield from super().lsp_workspace__execute_command(params))
