"""The framing reader, the protocol's error replies and the log redactor, without a process.

Table-driven: a byte stream goes in (delivered in awkward pieces, as pipes do), and the frames
that come out are compared, so each framing rule is one row. The subprocess versions of these
cases are in tests/e2e/test_lsp_faults.py.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from lsprotocol import types

from fourfold.lsp.framing import MAX_HEADER, FrameReader, FramingError
from fourfold.lsp.redaction import REDACTED, Redactor
from fourfold.lsp.server import FourfoldServer


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class Stream:
    """`read(n)` over fixed bytes in pieces of at most `piece` bytes; counts the bytes handed out."""

    def __init__(self, data: bytes, piece: int) -> None:
        self.data, self.piece, self.position = data, piece, 0

    async def read(self, size: int) -> bytes:
        chunk = self.data[self.position : self.position + min(size, self.piece)]
        self.position += len(chunk)
        return chunk


async def frames(data: bytes, piece: int = 7, max_body: int = 1 << 20) -> list[bytes | str]:
    reader = FrameReader(Stream(data, piece).read, max_body=max_body)
    out: list[bytes | str] = []
    while (item := await reader.next()) is not None:
        out.append(f"error: {item.message}" if isinstance(item, FramingError) else item)
    return out


GOOD = b'{"jsonrpc": "2.0", "method": "x"}'
CASES: dict[str, tuple[bytes, list[str]]] = {
    "two messages": (frame(GOOD) + frame(b"{}"), ["GOOD", "{}"]),
    "Content-Type and any case": (b"content-length: 2\r\nContent-Type: x\r\n\r\n{}", ["{}"]),
    "blank lines between": (frame(GOOD) + b"\r\n\r\n" + frame(GOOD), ["GOOD", "GOOD"]),
    "missing length": (b"Content-Type: x\r\n\r\n{}" + frame(GOOD), ["error: header without", "GOOD"]),
    "non-numeric": (b"Content-Length: ten\r\n\r\n{}" + frame(GOOD), ["error: Content-Length must", "GOOD"]),
    "negative": (b"Content-Length: -2\r\n\r\n{}" + frame(GOOD), ["error: Content-Length must", "GOOD"]),
    "too short": (b"Content-Length: 3\r\n\r\n{}}}}" + frame(GOOD), ["{}}", "error: not a header", "GOOD"]),
    "junk glued to a header": (b"xyz" + frame(GOOD), ["error: header without", "GOOD"]),
    "junk line before a header": (b"}\r\n" + frame(GOOD), ["error: not a header", "GOOD"]),
    "over the limit": (b"Content-Length: 100000000000\r\n\r\n{}" + frame(GOOD), ["error: Content-Length 100", "GOOD"]),
    "endless header": (b"A" * (MAX_HEADER + 10) + b"\n" + frame(GOOD), ["error: ", "GOOD"]),
    "endless junk": (b"\x00" * (3 * MAX_HEADER), ["error: no end of header"]),
    "ends in a header": (frame(GOOD) + b"Content-Len", ["GOOD", "error: the stream ended inside a header"]),
    "ends in a body": (b"Content-Length: 50\r\n\r\n{}", ["error: the stream ended inside a body (2 of 50"]),
}


@pytest.mark.parametrize("piece", [1, 7, 1 << 16])
@pytest.mark.parametrize(("data", "expected"), CASES.values(), ids=CASES.keys())
async def test_frames_and_resynchronisation(data: bytes, expected: list[str], piece: int) -> None:
    got = await frames(data, piece)
    assert len(got) == len(expected), got
    for item, want in zip(got, expected, strict=True):
        if want.startswith("error: "):
            assert isinstance(item, str) and item.startswith(want), (item, want)
        else:
            assert item == (GOOD if want == "GOOD" else want.encode())


async def test_a_refused_length_reads_nothing_of_its_body() -> None:
    stream = Stream(b"Content-Length: 100000000000\r\n\r\n", 1 << 16)
    reader = FrameReader(stream.read, max_body=1 << 20)
    assert isinstance(await reader.next(), FramingError)
    assert await reader.next() is None
    assert stream.position == len(stream.data)  # what was there was read; nothing was allocated for 10^11


class Capture:
    """A writer that keeps what the protocol sends."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.sent.append(data)

    def close(self) -> None:
        pass

    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(data.split(b"\r\n\r\n", 1)[1]) for data in self.sent]


def test_a_crashing_handler_answers_internal_error_without_frames() -> None:
    server = FourfoldServer()

    def explode(ls: FourfoldServer, params: Any) -> None:
        raise KeyError("no such thing")

    server.feature(types.WORKSPACE_SYMBOL)(explode)
    writer = Capture()
    server.protocol.set_writer(writer)
    server.protocol.initialize_received = True
    server.protocol.receive(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "workspace/symbol",
                                        "params": {"query": "x"}}).encode())
    (answer,) = writer.messages()
    assert answer["id"] == 3 and answer["error"]["code"] == -32603
    assert "no such thing" in answer["error"]["message"]
    assert "traceback" not in json.dumps(answer).lower() and 'File "' not in json.dumps(answer)


@pytest.mark.parametrize("line", [
    '"apiKey": "sk-live-12345"', "voyageApiKey='sk-live-12345'", "VOYAGE_API_KEY=sk-live-12345",
    "Authorization: Bearer sk-live-12345", "{'voyage': {'apiKey': 'sk-live-12345'}}",
])
def test_named_secrets_are_redacted(line: str) -> None:
    redacted = Redactor().redact(line)
    assert "sk-live-12345" not in redacted and REDACTED in redacted


def test_known_secrets_are_redacted_anywhere_also_escaped() -> None:
    redactor = Redactor()
    redactor.scan(b'{"params": {"initializationOptions": {"voyage": {"apiKey": "k\\"ey-\\u00e9-123"}}}}')
    record = logging.LogRecord("pygls", logging.INFO, __file__, 1, "sending %s", ('{"q": "k\\"ey-\\u00e9-123"}',),
                               None)
    assert redactor.filter(record)
    assert "123" not in record.getMessage() and REDACTED in record.getMessage()
    assert redactor.redact("said k\"ey-é-123 twice: k\"ey-é-123") == f"said {REDACTED} twice: {REDACTED}"
    redactor.remember("abc")  # too short to be a key: left alone
    assert redactor.redact("abc") == "abc"
