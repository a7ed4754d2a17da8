"""JSON-RPC manners pygls leaves to the server: every bad request gets an answer a person can act on.

Without this, a request with malformed params is dropped without a reply (the editor waits
forever), a request before `initialize` reaches handlers that have no workspace yet, invalid
JSON, a batch or a request after `shutdown` get no reply at all, an object as a request id or a
crash in a handler sends pygls's stack frames to the client, and an unknown command id gets a
terse message. Here each is answered with the proper JSON-RPC error (a message, never a
traceback) and the server keeps running.
"""

from __future__ import annotations

import json
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
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCProtocol, JsonRPCRequestMessage

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


def _valid_id(value: Any) -> bool:
    """JSON-RPC ids are strings, integers or null (pygls would crash on anything else)."""
    return value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class FourfoldProtocol(LanguageServerProtocol):
    """The LSP protocol with the error replies a robust server owes its client."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_received = False
        self.exit_received = False

    def reply_error(self, msg_id: str | int | None, code: int, message: str) -> None:
        """Send a JSON-RPC error (id null when the request could not be read far enough to know it)."""
        self._send_data({"jsonrpc": self.VERSION, "id": msg_id, "error": {"code": code, "message": message}})

    def receive(self, body: bytes) -> None:
        """One message body off the wire: checked for shape, then handled; never raises.

        Replaces pygls's `json.loads(body, object_hook=structure_message)`, which sent nothing back
        for invalid JSON or a batch and crashed on an id that is not a string or a number.
        """
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as error:  # JSONDecodeError, bad UTF-8, nesting too deep
            log.warning("invalid JSON from the client: %s", error)
            self.reply_error(None, JsonRpcParseError.CODE, f"invalid JSON: {error}")
            return
        problem = _shape_problem(data)
        if problem is not None:
            log.warning("invalid request from the client: %s", problem)
            msg_id = data.get("id") if isinstance(data, dict) and _valid_id(data.get("id")) else None
            self.reply_error(msg_id, JsonRpcInvalidRequest.CODE, problem)
            return
        try:
            self.handle_message(self.structure_message(data))
        except Exception as error:
            log.exception("handling a %s message failed", data.get("method", "response"))
            if "method" in data and data.get("id") is not None:
                self.reply_error(data["id"], JsonRpcInternalError.CODE, _one_line(error))

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
        if isinstance(message, Rejected):
            return
        method = getattr(message, "method", None)
        if method == types.EXIT:
            self.exit_received = True
        elif self._shutdown and method is not None and hasattr(message, "id"):
            log.warning("%s after shutdown: answered InvalidRequest", method)
            self.reply_error(message.id, JsonRpcInvalidRequest.CODE,
                             f"{method} after shutdown: the server only accepts exit now")
            return
        super().handle_message(message)

    def _send_response(self, msg_id: Any, result: Any = None, error: types.ResponseError | None = None) -> None:
        """Every error reply without pygls's `data.traceback`: stack frames stay in the server's log."""
        if error is not None and isinstance(error.data, dict) and "traceback" in error.data:
            rest = {key: value for key, value in error.data.items() if key != "traceback"}
            lines = error.message.strip().splitlines()  # format_exception_only: the last line is the error
            error = types.ResponseError(code=error.code, message=lines[-1] if lines else "internal error",
                                        data=rest or None)
        super()._send_response(msg_id, result, error)

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


def _shape_problem(data: Any) -> str | None:
    """Why a parsed message is not a JSON-RPC request, notification or response; None when it is."""
    if isinstance(data, list):
        return "batches (JSON arrays) are not part of LSP: send each message in its own frame"
    if not isinstance(data, dict):
        return f"a message must be a JSON object, not {type(data).__name__}"
    if data.get("jsonrpc") != JsonRPCProtocol.VERSION:
        return 'a message must carry "jsonrpc": "2.0"'
    if "id" in data and not _valid_id(data["id"]):
        return f"a request id must be a string or an integer, not {type(data['id']).__name__}"
    if "method" in data:
        return None if isinstance(data["method"], str) else '"method" must be a string'
    if "id" in data and ("result" in data or "error" in data):
        return None
    return 'a message needs a "method" (request, notification) or an "id" with "result" or "error" (response)'


def _one_line(error: BaseException) -> str:
    """A person's message for an unexpected failure: the exception's own words, no frames."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
