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

Layout: `MAGIC`, padding to 64 bytes, the payload (the arrays, each 64-byte aligned, read with
`np.frombuffer` without copies), a JSON header (the payload's digest, and where each array lies in the
payload: offset, bytes, dtype, shape), and last the header's offset in the file as 8 little-endian bytes.
The header comes last so a writer can stream an array whose size it learns only at the end (the text
positions' blob, file by file) without holding it: `ArrayWriter`. Files written before that (`OLD_MAGIC`)
had the header first (its length after the magic, the payload after it) and still read.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import xxhash

__all__ = ["POINTER", "ArrayWriter", "DamagedMapped", "map_named", "open_arrays", "verify", "write_arrays",
           "write_atomically"]

MAGIC = b"FFARRAY2"
OLD_MAGIC = b"FFARRAY1"  # the header-first layout
# What the store's entry holds: this, then JSON naming the file beside the index, its size and digest.
POINTER = b"FFMAPPED"
_LENGTH_BYTES = 8
_ALIGN = 64  # bytes: every array starts at a multiple of this within the payload
HASH_PIECE = 16 << 20  # bytes hashed between dropping the pages just read (`_hashes_to`)
_DROP: int | None = getattr(mmap, "MADV_DONTNEED", None)  # not on Windows: the pages stay mapped there


class DamagedMapped(ValueError):
    """A mapped file (or the entry naming it) that does not read back whole; the part is computed again."""


def write_arrays(path: Path, arrays: Mapping[str, np.ndarray] | Iterable[tuple[str, np.ndarray]]) -> bytes:
    """Write `arrays` to `path` atomically and return the entry that names it (for `open_arrays`); given as
    (name, array) pairs, each is written as it comes and not held after."""
    with ArrayWriter(path) as writer:
        for name, value in arrays.items() if isinstance(arrays, Mapping) else arrays:
            writer.add(name, value)
        return writer.commit()


class ArrayWriter:
    """Writes named arrays to a temporary file beside `path` one after another, an array either whole
    (`add`) or in pieces (`begin`, `extend`, `end`), so what it holds is one piece at a time; `commit`
    writes the header, syncs and renames the file into place, and returns the entry that names it. Used
    as a context manager: leaving it without a commit removes the temporary file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        self._stream = self._temporary.open("w+b")  # read too: `read_back`
        self._stream.write(MAGIC + b"\0" * (_ALIGN - len(MAGIC)))
        self._digest = xxhash.xxh3_128()
        self._size = 0  # payload bytes written so far
        self._layout: dict[str, list[object]] = {}
        self._open: tuple[str, np.dtype] | None = None  # the array `begin` started, and its dtype
        self._open_at = 0

    def __enter__(self) -> ArrayWriter:
        return self

    def __exit__(self, *raised: object) -> None:
        if not self._stream.closed:
            self._stream.close()
        self._temporary.unlink(missing_ok=True)

    def add(self, name: str, value: np.ndarray) -> None:
        """Write a whole array."""
        array = np.ascontiguousarray(value)
        self.begin(name, array.dtype)
        self.extend(memoryview(array.reshape(-1).view(np.uint8).data))
        self.end(list(array.shape))

    def begin(self, name: str, dtype: np.dtype | type) -> None:
        """Start an array written in pieces (one-dimensional unless `end` says its shape)."""
        if self._open is not None or name in self._layout:
            raise ValueError(f"array {name} begun twice, or inside another")
        self._write(b"\0" * (-self._size % _ALIGN))
        self._open, self._open_at = (name, np.dtype(dtype)), self._size

    def extend(self, piece: bytes | memoryview) -> None:
        """Append bytes to the array `begin` started."""
        if self._open is None:
            raise ValueError("no array begun")
        self._write(piece)

    def end(self, shape: list[int] | None = None) -> int:
        """Close the array `begin` started; returns its length in items."""
        if self._open is None:
            raise ValueError("no array begun")
        (name, dtype), size = self._open, self._size - self._open_at
        if size % dtype.itemsize:
            raise ValueError(f"array {name} is not a whole number of {dtype} items")
        self._layout[name] = [self._open_at, size, dtype.str, shape if shape is not None else [size // dtype.itemsize]]
        self._open = None
        return size // dtype.itemsize

    def read_back(self, name: str, start: int, stop: int) -> bytes:
        """Bytes `start:stop` of an array already written (ended), read from the file, not held."""
        offset, size = self._layout[name][:2]
        assert isinstance(offset, int) and isinstance(size, int) and 0 <= start <= stop <= size
        self._stream.flush()
        return os.pread(self._stream.fileno(), stop - start, _ALIGN + offset + start)

    def commit(self) -> bytes:
        """Write the header, make the file durable in place, and return its entry."""
        if self._open is not None:
            raise ValueError(f"array {self._open[0]} not ended")
        digest = self._digest.hexdigest()
        header_at = _ALIGN + self._size
        header = json.dumps({"digest": digest, "parts": self._layout}).encode()
        self._stream.write(header + header_at.to_bytes(_LENGTH_BYTES, "little"))
        self._stream.flush()
        os.fsync(self._stream.fileno())
        self._stream.close()
        os.replace(self._temporary, self.path)
        _sync_folder(self.path.parent)
        size = header_at + len(header) + _LENGTH_BYTES
        return POINTER + json.dumps({"file": self.path.name, "size": size, "digest": digest}).encode()

    def _write(self, piece: bytes | memoryview) -> None:
        self._stream.write(piece)
        self._digest.update(piece)
        self._size += len(piece) if isinstance(piece, bytes) else piece.nbytes


def open_arrays(folder: Path, pointer: bytes, check: bool = True) -> dict[str, np.ndarray]:
    """The arrays of the file in `folder` that `pointer` names, read-only views of its mapping. Raises
    DamagedMapped when the entry does not decode, or the file is missing, cut, garbled or another one.
    `check` False skips hashing the payload (the caller does it later, `verify`, or has just written
    those very bytes): hashing reads every page, which a search then need not have in memory."""
    header, payload, name = _opened(folder, pointer)
    parts = header["parts"]
    assert isinstance(parts, dict)  # `_opened` refuses a header without them
    if header.get("digest") != _digest_of(pointer) or (check and not _hashes_to(payload, pointer)):
        raise DamagedMapped(f"file {name} does not match its entry's digest")
    return {part: _array(payload, where) for part, where in parts.items()}


def verify(arrays: Mapping[str, np.ndarray], pointer: bytes) -> bool:
    """Whether the payload that `open_arrays(..., check=False)` views lie in hashes to the digest `pointer`
    names: the check postponed until the arrays are first needed (it reads every page)."""
    payload = _payload_of(arrays)
    return payload is not None and _hashes_to(payload, pointer)


def _payload_of(arrays: Mapping[str, np.ndarray]) -> memoryview | None:
    """The mapping's payload that `open_arrays`'s views were cut from (`np.frombuffer` keeps it as a base)."""
    for array in arrays.values():
        base = array.base
        while isinstance(base, np.ndarray):
            base = base.base
        if isinstance(base, memoryview):
            return base
    return None


def _hashes_to(payload: memoryview, pointer: bytes) -> bool:
    """Whether `payload` hashes to the digest `pointer` names. Hashed HASH_PIECE bytes at a time, each
    piece's pages then dropped from this process (`MADV_DONTNEED`: a read-only file mapping's pages stay
    in the page cache and are faulted back when a search reads them), so a check does not leave the whole
    file resident in the process: 4x Django's text positions are ~600 MB, of which a search reads a few."""
    hasher = xxhash.xxh3_128()
    mapping = payload.obj if isinstance(payload.obj, mmap.mmap) and _DROP is not None else None
    base = np.frombuffer(mapping, dtype=np.uint8).ctypes.data if mapping is not None else 0
    for start in range(0, len(payload), HASH_PIECE):
        piece = payload[start : start + HASH_PIECE]
        hasher.update(piece)
        if mapping is not None and _DROP is not None and piece:
            begin = np.frombuffer(piece, dtype=np.uint8).ctypes.data - base
            first = begin - begin % mmap.PAGESIZE
            with contextlib.suppress(OSError):
                mapping.madvise(_DROP, first, begin + len(piece) - first)
    return hasher.hexdigest() == _digest_of(pointer)


def _digest_of(pointer: bytes) -> object:
    try:
        return json.loads(pointer[len(POINTER):]).get("digest")
    except (ValueError, UnicodeError, AttributeError):
        return None


def _opened(folder: Path, pointer: bytes) -> tuple[dict[str, object], memoryview, str]:
    """The decoded header, the payload and the file's name of the file `pointer` names, in either layout."""
    blob, _, name = map_named(folder, pointer, POINTER, DamagedMapped)
    magic = bytes(blob[: len(MAGIC)])
    if magic == MAGIC and len(blob) >= _ALIGN + _LENGTH_BYTES:
        header_at = int.from_bytes(blob[-_LENGTH_BYTES:], "little")
        if not _ALIGN <= header_at <= len(blob) - _LENGTH_BYTES:
            raise DamagedMapped(f"file {name} header lies outside it")
        raw, payload = blob[header_at:-_LENGTH_BYTES], blob[_ALIGN:header_at]
    elif magic == OLD_MAGIC:
        length = int.from_bytes(blob[len(MAGIC) : len(MAGIC) + _LENGTH_BYTES], "little")
        start = len(MAGIC) + _LENGTH_BYTES + length
        raw, payload = blob[len(MAGIC) + _LENGTH_BYTES : start], blob[start:]
    else:
        raise DamagedMapped(f"file {name} has no header")
    try:
        header = json.loads(bytes(raw))
        if not isinstance(header, dict) or not isinstance(header.get("parts"), dict):
            raise TypeError("parts is not a mapping")
    except (ValueError, UnicodeError, TypeError) as error:
        raise DamagedMapped(f"file {name} header does not decode: {error}") from None
    return header, payload, name


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
    the rename made durable."""
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
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (POSIX; elsewhere a folder cannot be opened, and need not be)."""
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
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
