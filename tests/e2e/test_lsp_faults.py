"""Hostile bytes on the server's stdin: framing errors, huge lengths, bad JSON, batches, odd ids.

Each case writes raw bytes to a real `python -m fourfold.lsp` process (no LSP client library
in between, so nothing tidies the input up), then checks two things: what came back is a proper
JSON-RPC answer without stack frames, and a valid request sent afterwards is answered, so the
server neither died nor went deaf. Regression tests for issue 12 (items 5, 8, 9 and 10).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pytest

# Bound on every wait for an answer: far above any answer time, so only a deaf server reaches it.
ANSWER_S = 60.0
SECRET = "pa-FOURFOLD-test-secret-3f9c1d77e0"


class RawServer:
    """A server subprocess and a thread collecting every message it writes to stdout."""

    def __init__(self, root: Path, index_dir: Path, *args: str, env: dict[str, str] | None = None,
                 tcp_port: int | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "fourfold.lsp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env={**os.environ, **(env or {})}, start_new_session=True)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.output: BinaryIO = self.process.stdout
        self.write: Callable[[bytes], object] = self.process.stdin.write
        self.socket: socket.socket | None = None
        if tcp_port is not None:
            self.socket = connect(tcp_port, self.process)
            self.output, self.write = self.socket.makefile("rb"), self.socket.sendall
        self.messages: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        self.arrived = threading.Condition()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self.root, self.index_dir = root, index_dir
        self.next_id = 0
        self.capabilities: dict[str, Any] = {}
        self.configuration: dict[str, Any] = {}
        self.writing = threading.Lock()  # the test and the reader thread (answering requests) both write

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)

    def _read(self) -> None:
        """Parse the server's (well-formed) output: Content-Length header, blank line, body."""
        stream = self.output
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line == b"\r\n" and length is not None:
                    break
            body = stream.read(length)
            message = json.loads(body)
            if "method" in message and "id" in message:
                self._answer(message)
            with self.arrived:
                self.raw.append(body)
                self.messages.append(message)
                self.arrived.notify_all()

    def _answer(self, request: dict[str, Any]) -> None:
        """Requests from the server, answered as an editor would (settings from `configuration`)."""
        result = [self.configuration] if request["method"] == "workspace/configuration" else None
        self.send({"jsonrpc": "2.0", "id": request["id"], "result": result})

    def send_bytes(self, data: bytes) -> None:
        with self.writing:
            self.write(data)
            if self.socket is None:
                assert self.process.stdin is not None
                self.process.stdin.flush()

    def send(self, message: dict[str, Any] | str | bytes) -> None:
        body = message if isinstance(message, bytes) else (
            message.encode() if isinstance(message, str) else json.dumps(message).encode())
        self.send_bytes(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def wait(self, predicate: Callable[[dict[str, Any]], bool], after: int = 0) -> dict[str, Any]:
        """The first message at index >= `after` that satisfies `predicate`; fails after ANSWER_S."""
        with self.arrived:
            found: list[dict[str, Any]] = []

            def seen() -> bool:
                found[:] = [m for m in self.messages[after:] if predicate(m)][:1]
                return bool(found) or self.process.poll() is not None

            self.arrived.wait_for(seen, ANSWER_S)
        assert found, f"no such message within {ANSWER_S} s (exit {self.process.poll()}); " \
                      f"got {self.messages[after:]}; stderr {b''.join(self.stderr[-20:])!r}"
        return found[0]

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        self.next_id += 1
        msg_id = self.next_id
        after = len(self.messages)
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == msg_id and "method" not in m, after)

    def start(self, options: dict[str, Any] | None = None) -> None:
        """initialize + initialized, then wait until the folder is indexed."""
        after = len(self.messages)
        answer = self.request("initialize", {
            "processId": None, "rootUri": self.root.as_uri(), "capabilities": self.capabilities,
            "initializationOptions": {"indexDir": str(self.index_dir), "semanticBackend": "none",
                                      **(options or {})}})
        assert "result" in answer, answer
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        status = self.wait(lambda m: m.get("method") == "fourfold/indexStatus"
                           and m["params"].get("phase") in ("indexed", "error"), after)
        assert status["params"]["phase"] == "indexed", status

    def alive(self) -> None:
        """A valid request after a fault is answered, with the symbol it must find."""
        answer = self.request("workspace/symbol", {"query": "parse_config"})
        assert [symbol["name"] for symbol in answer["result"]][:1] == ["parse_config"], answer

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                self.request("shutdown")
                self.send({"jsonrpc": "2.0", "method": "exit"})
                self.process.wait(timeout=10)
            except (AssertionError, OSError, subprocess.TimeoutExpired):
                pass
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        if self.socket is not None:
            self.socket.close()


def connect(port: int, process: subprocess.Popen[bytes]) -> socket.socket:
    """A connection to a server that is still starting (it listens once its imports are done)."""
    deadline = time.monotonic() + ANSWER_S
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=ANSWER_S)
        except ConnectionRefusedError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "config.py").write_text("def parse_config(path):\n    return path\n", encoding="utf-8")
    (root / "big.py").write_text("def small_on_disk():\n    return 1\n", encoding="utf-8")
    return root


def start_server(tmp: Path, *args: str, env: dict[str, str] | None = None,
                 options: dict[str, Any] | None = None,
                 configuration: dict[str, Any] | None = None, tcp_port: int | None = None) -> RawServer:
    server = RawServer(make_repo(tmp / "repo"), tmp / "index", *args, env=env, tcp_port=tcp_port)
    if configuration is not None:
        server.capabilities = {"workspace": {"configuration": True}}
        server.configuration = configuration
    try:
        server.start(options)
    except BaseException:
        server.stop()
        raise
    return server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    """One server for the framing cases: each must leave it able to answer the next."""
    running = start_server(tmp_path_factory.mktemp("faults"))
    yield running
    running.stop()


def assert_clean(messages: list[dict[str, Any]], raw: list[bytes]) -> None:
    """Replies are JSON-RPC errors with a code and a message, and never carry stack frames."""
    for body in raw:
        assert b"Traceback" not in body and b'File \\"' not in body and b"traceback" not in body, body
    for message in messages:
        if "error" in message:
            assert isinstance(message["error"]["code"], int) and message["error"]["message"], message


HEADERS = {
    "missing Content-Length": b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
    "non-numeric Content-Length": b"Content-Length: twelve\r\n\r\n{\"jsonrpc\": 1}",
    "negative Content-Length": b"Content-Length: -5\r\n\r\n{}",
    "too short Content-Length": b'Content-Length: 10\r\n\r\n{"jsonrpc": "2.0", "id": 99, "method": "shutdown"}',
    "not a header at all": b"hello there\r\n\r\n",
    "garbage without an end": b"\x00\xff" * 5000,
}


@pytest.mark.parametrize("data", HEADERS.values(), ids=HEADERS.keys())
def test_a_bad_header_is_answered_and_the_server_resyncs(server: RawServer, data: bytes) -> None:
    after = len(server.messages)
    server.send_bytes(data)
    server.alive()
    errors = [m for m in server.messages[after:] if "error" in m]
    assert errors and errors[0]["id"] is None and errors[0]["error"]["code"] == -32700, server.messages[after:]
    assert_clean(server.messages[after:], server.raw[after:])


def test_an_absurd_content_length_is_refused_before_reading(server: RawServer) -> None:
    after = len(server.messages)
    server.send_bytes(b"Content-Length: 100000000000\r\n\r\n{}")
    server.alive()
    (error,) = [m for m in server.messages[after:] if "error" in m]
    assert error["error"]["code"] == -32700 and "limit" in error["error"]["message"]
    assert server.process.poll() is None


@pytest.mark.parametrize(("body", "code"), [
    ("{not json", -32700),
    ('{"jsonrpc": "2.0", "id": 1, "method": ', -32700),
    (b"\xff\xfe{}", -32700),
    ("[" * 100_000, -32700),
    ('[{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}]', -32600),
    ("[]", -32600),
    ("42", -32600),
    ('{"jsonrpc": "2.0", "id": {"a": 1}, "method": "workspace/symbol", "params": {"query": "x"}}', -32600),
    ('{"jsonrpc": "2.0", "id": [1], "method": "workspace/symbol", "params": {"query": "x"}}', -32600),
    ('{"jsonrpc": "2.0", "id": 7}', -32600),
    ('{"jsonrpc": "1.0", "id": 8, "method": "workspace/symbol", "params": {"query": "x"}}', -32600),
], ids=["unterminated", "truncated", "not UTF-8", "nested too deep", "batch", "empty batch", "number",
        "object id", "array id", "no method or result", "wrong version"])
def test_a_malformed_message_gets_a_clean_error(server: RawServer, body: str | bytes, code: int) -> None:
    after = len(server.messages)
    server.send(body)
    error = server.wait(lambda m: "error" in m, after)
    assert error["error"]["code"] == code, error
    assert error["id"] in (None, 7, 8), error  # the id is echoed when it could be read
    server.alive()
    assert_clean(server.messages[after:], server.raw[after:])


def test_a_lone_surrogate_in_a_query_is_invalid_params_without_frames(server: RawServer) -> None:
    after = len(server.messages)
    server.send('{"jsonrpc": "2.0", "id": "s1", "method": "workspace/symbol", "params": {"query": "a\\ud800b"}}')
    error = server.wait(lambda m: m.get("id") == "s1", after)
    assert error["error"]["code"] == -32602 and "surrogate" in error["error"]["message"], error
    server.send('{"jsonrpc": "2.0", "id": "s2", "method": "workspace/executeCommand", "params": '
                '{"command": "fourfold.search", "arguments": [{"query": "\\udc00"}]}}')
    error = server.wait(lambda m: m.get("id") == "s2", after)
    assert error["error"]["code"] == -32602, error
    server.alive()
    assert_clean(server.messages[after:], server.raw[after:])


def test_arguments_of_the_wrong_shape_get_clean_errors(server: RawServer) -> None:
    after = len(server.messages)
    for position, arguments in enumerate([[{"query": "x", "limit": "many"}], [{"query": "x", "paths": 3}],
                                          [{"query": ["x"]}], ["x", "y"]]):
        server.send({"jsonrpc": "2.0", "id": f"e{position}", "method": "workspace/executeCommand",
                     "params": {"command": "fourfold.search", "arguments": arguments}})
        answer = server.wait(lambda m, p=position: m.get("id") == f"e{p}", after)
        assert "error" in answer, answer
    server.alive()
    assert_clean(server.messages[after:], server.raw[after:])


def test_a_huge_open_buffer_is_skipped_and_the_server_keeps_answering(server: RawServer) -> None:
    uri = (server.root / "big.py").as_uri()
    text = "def buried_in_the_buffer():\n    return 1\n" + "x = 1\n" * 1_750_000  # about 10 MB
    after = len(server.messages)
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": text}}})
    server.alive()  # answered although the 10 MB message came first
    status = server.request("workspace/executeCommand", {"command": "fourfold.indexStatus", "arguments": []})
    (skipped,) = status["result"]["skipped_buffers"]
    assert skipped["path"] == "big.py" and "maxFileSize" in skipped["reason"], skipped
    found = server.request("workspace/symbol", {"query": "buried_in_the_buffer"})["result"]
    assert "buried_in_the_buffer" not in [symbol["name"] for symbol in found]
    server.send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})
    status = server.request("workspace/executeCommand", {"command": "fourfold.indexStatus", "arguments": []})
    assert status["result"]["skipped_buffers"] == []
    assert_clean(server.messages[after:], server.raw[after:])


def test_requests_after_shutdown_are_refused_and_exit_ends_the_server(tmp_path: Path) -> None:
    running = start_server(tmp_path)
    try:
        assert "result" in running.request("shutdown")
        answer = running.request("workspace/symbol", {"query": "parse_config"})
        assert answer["error"]["code"] == -32600 and "shutdown" in answer["error"]["message"], answer
        running.send({"jsonrpc": "2.0", "method": "exit"})
        assert running.process.wait(timeout=ANSWER_S) == 0  # stdin is still open: exit alone ends it
        assert_clean(running.messages, running.raw)
    finally:
        running.stop()


def test_the_api_key_never_reaches_the_log_at_any_verbosity(tmp_path: Path) -> None:
    """At -vvv pygls logs whole messages; the key sent in settings and in the environment is scrubbed."""
    log_file = tmp_path / "server.log"
    running = start_server(tmp_path, "-vvv", "--log-file", str(log_file),
                           env={"VOYAGE_API_KEY": SECRET + "-env"},
                           options={"voyageApiKey": SECRET, "voyage": {"apiKey": SECRET}},
                           configuration={"semantic": {"backend": "none"}, "voyageApiKey": SECRET + "-conf"})
    try:
        running.send({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
                      "params": {"settings": {"fourfold": {"semantic": {"backend": "none"},
                                                           "voyage.apiKey": SECRET + "-2"}}}})
        running.send(f'{{"jsonrpc": "2.0", "id": "k", "method": "workspace/symbol", "params": '
                     f'{{"query": "apiKey={SECRET}-3"}}}}')  # a key pasted in a query, logged by pygls
        running.wait(lambda m: m.get("id") == "k")
        running.request("workspace/executeCommand", {"command": "fourfold.search",
                                                     "arguments": [{"query": f"{SECRET}-env"}]})
        running.alive()
    finally:
        running.stop()
    text = log_file.read_text(encoding="utf-8") + b"".join(running.stderr).decode("utf-8", "replace")
    assert "Sending data" in text and "[redacted]" in text  # -vvv did log message bodies
    assert SECRET not in text


def test_tcp_uses_the_same_framing_reader(tmp_path: Path) -> None:
    """`--tcp` (debugging) survives the same bad headers and absurd lengths as stdio, and exit ends it."""
    port = free_port()
    running = start_server(tmp_path, "--tcp", str(port), tcp_port=port)
    try:
        after = len(running.messages)
        running.send_bytes(b"Content-Length: 100000000000\r\n\r\n" + HEADERS["non-numeric Content-Length"])
        running.alive()
        errors = [m for m in running.messages[after:] if "error" in m]
        assert [error["error"]["code"] for error in errors] == [-32700, -32700], errors
        assert "result" in running.request("shutdown")
        running.send({"jsonrpc": "2.0", "method": "exit"})
        assert running.process.wait(timeout=ANSWER_S) == 0
        assert_clean(running.messages, running.raw)
    finally:
        running.stop()
