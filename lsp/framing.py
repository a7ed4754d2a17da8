"""LSP base-protocol framing (`Content-Length` headers) that survives a client getting it wrong.

pygls's reader trusts every header: one header it cannot parse (no Content-Length, a negative or
non-numeric one) makes it read the next body as a header line, and from then on every message is
swallowed, so the editor sees a live but silent server. A Content-Length of 10^11 is handed to
`read()`, which ends the process with `MemoryError`. This reader instead reports each framing
error (the server logs it and answers with a JSON-RPC error), skips to the next `Content-Length:`
header and goes on; a length above `MAX_BODY` is refused before a byte of it is buffered.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

# The largest message body accepted. An editor sends whole files in didOpen; 64 MiB is far above
# any source file an index would take (maxFileSize defaults to 1 MiB) and far below what the
# machine can hold.
MAX_BODY = 64 * 1024 * 1024
# The largest header block: real ones are two short lines; more is garbage.
MAX_HEADER = 8 * 1024
# Bytes asked of the stream per read while looking for a header.
CHUNK = 64 * 1024
# Bytes asked per read of a body (it is read in a few large pieces, never more than it declared).
BODY_CHUNK = 4 * 1024 * 1024

HEADER_START = re.compile(rb"content-length:", re.IGNORECASE)
HEADER_END = b"\r\n\r\n"
FIELD = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*")
DIGITS = re.compile(rb"[0-9]{1,20}")


@dataclass(frozen=True)
class FramingError:
    """A header that could not be used; the reader has skipped it and resumes at the next one."""

    message: str


Frame = bytes | FramingError


class FrameReader:
    """Message bodies from a byte stream (`read(n)` returns up to n bytes, b"" at the end)."""

    def __init__(self, read: Callable[[int], Awaitable[bytes]], max_body: int = MAX_BODY) -> None:
        self._read = read
        self._max_body = max_body
        self._buffer = bytearray()
        self._eof = False
        self._resync = False
        self.skipped = 0  # bytes thrown away while looking for a header, for the log

    async def _fill(self, size: int = CHUNK) -> bool:
        if self._eof:
            return False
        chunk = await self._read(size)
        if not chunk:
            self._eof = True
            return False
        self._buffer += chunk
        return True

    async def _find_header(self) -> bool:
        """Drop bytes up to the next `Content-Length:` (after a framing error); False at the end."""
        start = 1
        while True:
            found = HEADER_START.search(self._buffer, start)
            if found:
                self.skipped += found.start()
                del self._buffer[: found.start()]
                return True
            keep = len(HEADER_START.pattern) - 1  # a header may straddle two reads
            cut = max(0, len(self._buffer) - keep)
            self.skipped += cut
            del self._buffer[:cut]
            start = 0
            if not await self._fill():
                return False

    async def next(self) -> Frame | None:
        """The next body, a `FramingError` for a header that was skipped, or None when the stream ends."""
        if self._resync:
            self._resync = False
            if not await self._find_header():
                return None
        while True:
            # Blank lines between messages are tolerated (some clients end a body with a newline).
            stripped = self._buffer.lstrip(b"\r\n")
            if len(stripped) != len(self._buffer):
                self._buffer = bytearray(stripped)
            end = self._buffer.find(HEADER_END)
            if end >= 0:
                break
            if len(self._buffer) > MAX_HEADER:
                return self._fail(f"no end of header within {MAX_HEADER} bytes")
            if not await self._fill():
                if self._buffer.strip():
                    return self._fail("the stream ended inside a header")
                return None
        length, problem = _content_length(bytes(self._buffer[:end]))
        if problem is not None:
            return self._fail(problem)
        if length > self._max_body:
            return self._fail(f"Content-Length {length} is over the {self._max_body // (1024 * 1024)} MiB limit"
                              " (refused, nothing was read)")
        del self._buffer[: end + len(HEADER_END)]
        while len(self._buffer) < length:
            if not await self._fill(min(length - len(self._buffer), BODY_CHUNK)):
                got = len(self._buffer)
                self._buffer.clear()
                return FramingError(f"the stream ended inside a body ({got} of {length} bytes)")
        body = bytes(self._buffer[:length])
        del self._buffer[:length]
        return body

    def _fail(self, message: str) -> FramingError:
        self._resync = True
        return FramingError(message)


def _content_length(block: bytes) -> tuple[int, str | None]:
    """The Content-Length of a header block, or a message saying what is wrong with the block."""
    length: int | None = None
    for line in block.split(b"\r\n"):
        field = FIELD.fullmatch(line)
        if field is None:
            return 0, f"not a header line: {_show(line)}"
        name, value = field.groups()
        if name.lower() != b"content-length":
            continue  # Content-Type and unknown headers: the body is UTF-8 JSON either way
        if DIGITS.fullmatch(value) is None:
            return 0, f"Content-Length must be a non-negative number of bytes, not {_show(value)}"
        length = int(value)
    if length is None:
        return 0, "header without Content-Length"
    return length, None


def _show(data: bytes, limit: int = 60) -> str:
    text = data[:limit].decode("ascii", "backslashreplace")
    return repr(text + ("..." if len(data) > limit else ""))
