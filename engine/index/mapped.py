"""Named numpy arrays in one file beside the index, memory-mapped by a restart and read in place.

What a restart needs from a large derived part is often a few pages of it: the stored centrality of
4x Django is 45 MB (node ids, the transition matrix, the scores), yet the first answer reads only the
scores of the few nodes its fusion boost asks about; the transition matrix is read only when an edit
asks for a new ranking. Kept as a SQLite blob, every start copied all of it out of SQLite's overflow
pages (0.12 CPU-s at 4x Django) and then out of its `.npz` (0.03 s more). In a file of its own it is
mapped, and a page is read when a search touches it.

The file is trusted as `saved.SavedIndex` trusts its own: the store's `derived` entry names it
(`POINTER`, then JSON: file name, size, digest of the payload); the payload must hash to that digest
(xxh3 over the mapping: a few ms for 45 MB in the page cache), and every array must lie inside it.
It is written atomically: a temporary file beside it, fsync, rename; the caller writes the entry
after, so a killed save leaves a file the old entry does not name, which is refused, never half read.

Layout: `MAGIC`, an 8-byte little-endian header length, a JSON header (the payload's digest, and where
each array lies in the payload: offset, bytes, dtype, shape), padded so the payload starts 64-byte
aligned, then the arrays, each 64-byte aligned, read with `np.frombuffer` without copies.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import xxhash

__all__ = ["POINTER", "DamagedMapped", "map_named", "open_arrays", "write_arrays", "write_atomically"]

MAGIC = b"FFARRAY1"
# What the store's entry holds: this, then JSON naming the file beside the index, its size and digest.
POINTER = b"FFMAPPED"
_LENGTH_BYTES = 8
_ALIGN = 64  # bytes: every array starts at a multiple of this within the payload


class DamagedMapped(ValueError):
    """A mapped file (or the entry naming it) that does not read back whole; the part is computed again."""


def write_arrays(path: Path, arrays: Mapping[str, np.ndarray]) -> bytes:
    """Write `arrays` to `path` atomically and return the entry that names it (for `open_arrays`)."""
    layout: dict[str, list[object]] = {}
    pieces: list[bytes | memoryview] = []
    digest = xxhash.xxh3_128()
    offset = 0
    for name, value in arrays.items():
        array = np.ascontiguousarray(value)
        padding = b"\0" * (-offset % _ALIGN)
        data = memoryview(array.reshape(-1).view(np.uint8).data)
        layout[name] = [offset + len(padding), data.nbytes, array.dtype.str, list(array.shape)]
        for piece in (padding, data):
            pieces.append(piece)
            digest.update(piece)
        offset += len(padding) + data.nbytes
    header = json.dumps({"digest": digest.hexdigest(), "parts": layout}).encode()
    header += b" " * (-(len(MAGIC) + _LENGTH_BYTES + len(header)) % _ALIGN)
    pieces = [MAGIC, len(header).to_bytes(_LENGTH_BYTES, "little"), header, *pieces]
    write_atomically(path, pieces)
    size = sum(len(piece) if isinstance(piece, bytes) else piece.nbytes for piece in pieces)
    return POINTER + json.dumps({"file": path.name, "size": size, "digest": digest.hexdigest()}).encode()


def open_arrays(folder: Path, pointer: bytes, check: bool = True) -> dict[str, np.ndarray]:
    """The arrays of the file in `folder` that `pointer` names, read-only views of its mapping. Raises
    DamagedMapped when the entry does not decode, or the file is missing, cut, garbled or another one.
    `check` False skips hashing the payload, for the file this process has just written (`write_arrays`
    hashed those very bytes): hashing reads every page, which a search then need not have in memory."""
    blob, digest, name = map_named(folder, pointer, POINTER, DamagedMapped)
    if bytes(blob[: len(MAGIC)]) != MAGIC:
        raise DamagedMapped(f"file {name} has no header")
    length = int.from_bytes(blob[len(MAGIC) : len(MAGIC) + _LENGTH_BYTES], "little")
    start = len(MAGIC) + _LENGTH_BYTES + length
    try:
        header = json.loads(bytes(blob[len(MAGIC) + _LENGTH_BYTES : start]))
        parts = header["parts"]
        if not isinstance(parts, dict):
            raise TypeError("parts is not a mapping")
    except (ValueError, UnicodeError, KeyError, TypeError) as error:
        raise DamagedMapped(f"file {name} header does not decode: {error}") from None
    payload = blob[start:]
    if header.get("digest") != digest or (check and xxhash.xxh3_128_hexdigest(payload) != digest):
        raise DamagedMapped(f"file {name} does not match its entry's digest")
    return {part: _array(payload, where) for part, where in parts.items()}


def _array(payload: memoryview, where: object) -> np.ndarray:
    if not (isinstance(where, list) and len(where) == 4 and isinstance(where[3], list)):
        raise DamagedMapped("layout does not decode")
    offset, size, dtype, shape = where
    try:
        kind = np.dtype(dtype)
    except TypeError as error:
        raise DamagedMapped(f"layout names no dtype: {error}") from None
    if not (isinstance(offset, int) and isinstance(size, int) and offset >= 0 and offset + size <= len(payload)
            and kind.itemsize and size % kind.itemsize == 0 and all(isinstance(n, int) and n >= 0 for n in shape)
            and int(np.prod(shape, dtype=np.int64)) * kind.itemsize == size):
        raise DamagedMapped("layout points outside the file")
    return np.frombuffer(payload, dtype=kind, count=size // kind.itemsize, offset=offset).reshape(shape)


def write_atomically(path: Path, pieces: Sequence[bytes | memoryview]) -> None:
    """Write `pieces` to `path` atomically: a temporary file beside it, synced, renamed into place, and
    the rename made durable (POSIX; elsewhere a folder cannot be opened, and need not be)."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with temporary.open("wb") as stream:
            for piece in pieces:
                stream.write(piece)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    with contextlib.suppress(OSError):
        handle = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def map_named(folder: Path, pointer: bytes, prefix: bytes, damaged: type[ValueError],
              what: str = "") -> tuple[memoryview, str, str]:
    """The file in `folder` that a store entry (`prefix`, then JSON: file name, size, digest) names,
    memory-mapped, with the digest its payload must have and its name. Raises `damaged` (its messages
    start with `what`) when the entry does not decode or name a plain file name, or the file is missing
    or not the size the entry says: whoever reads the file checks the digest."""
    try:
        named = json.loads(pointer[len(prefix):])
        name, size, digest = named["file"], named["size"], named["digest"]
    except (ValueError, UnicodeError, KeyError, TypeError) as error:
        raise damaged(f"{what}entry does not decode: {type(error).__name__}: {error}") from None
    if not (pointer.startswith(prefix) and isinstance(name, str) and "/" not in name and "\\" not in name
            and isinstance(size, int) and isinstance(digest, str)):
        raise damaged(f"{what}entry does not name a file")
    try:
        with (folder / name).open("rb") as stream:
            if os.fstat(stream.fileno()).st_size != size or size == 0:
                raise damaged(f"{what}file {name} is not the size its entry says")
            mapped = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as error:
        raise damaged(f"{what}file {name} does not read: {error.strerror or error}") from None
    return memoryview(mapped), digest, name
