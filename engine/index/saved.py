"""What a restart opens instead of rebuilding: the trigram postings and the symbol table, as built.

Without it, every start of the language server and every one-shot CLI search decoded every row,
unpacked every file's trigrams and built the postings and the symbol table again: about 3.5 CPU-s
for Django before the first answer. With it, a start maps one file and leaves each file's own
records (references, chunks) encoded until something asks for them (`store.StoredParsed`).

Where it lives: a file beside `index.sqlite` (`store.SAVED_FILE`), memory-mapped at a restart, so a
search touches pages rather than a 35 MB copy read out of SQLite; the store's `derived` entry
`index.saved` only names it (`POINTER`, then JSON: file name, size, digest of the payload). The file
is written atomically (a temporary file beside it, fsync, rename, then the entry), so a killed save
leaves the old file or a new one the old entry does not name, never half a file that is read.

The file is trusted only when everything it was built from is exactly what the rows hold now:
  - the store's `fingerprint` of the rows (paths and file digests) is the entry's key;
  - its size and payload digest are the entry's (a file of another index, or of an unfinished save,
    is refused), and the payload hashes to that digest (xxh3 over the mapped file: ~3 ms for Django);
  - `rows` inside it is `store.payload_digest` of the rows' bytes, so a row garbled on disk (which
    the eager load would have caught while decoding it) sends the start down the eager path;
  - its arrays fit together (offsets, shapes, ids within range).
Anything else is not an error a user sees: the index is opened the slow way, said in `repairs`
when the file or entry was damaged, and saved again after the next refresh.

Layout: `MAGIC`, an 8-byte little-endian header length, a JSON header (the payload's digest, the
rows' digest, and where each part lies in the payload: offset, bytes, dtype, shape), padded so the
payload starts 64-byte aligned, then the parts, each 64-byte aligned. The arrays are read in place
with `np.frombuffer`, without copies. The symbol table is arrays too (`SymbolTable.arrays`).
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import xxhash

from .mapped import map_named, write_atomically
from .symbols import LOOKUPS, SymbolTable
from .trigram import DamagedTrigrams, TrigramIndex

__all__ = ["DamagedSaved", "SavedIndex"]

MAGIC = b"FFSAVED3"
# What earlier versions wrote (1: the symbol table as a pickle; 2: no chunk counts): not damage, only
# another format; built again.
_OLDER = (b"FFSAVED1", b"FFSAVED2")
# What the store's entry holds: this, then JSON naming the file beside the index, its size and digest.
POINTER = b"FFSAVEDF"
_LENGTH_BYTES = 8
# A temporary file older than this beside the saved file was left by a killed save (a save takes seconds).
STALE_TEMPORARY_S = 600.0
_ALIGN = 64  # bytes: every part starts at a multiple of this within the payload
_TRIGRAM_PARTS = ("grams", "offsets", "docs", "doc_set")
_SYMBOL_PARTS = ("layout", "pool", "pool_offsets", "texts", "spans", "base", "lower_of", "sorted_lower", "masks",
                 "overlay", *(f"{name}_{part}" for name in (*LOOKUPS, "files")
                              for part in ("keys", "offsets", "positions")))
_PARTS = (*_TRIGRAM_PARTS, "ids", "paths", "chunks", *(f"symbols.{name}" for name in _SYMBOL_PARTS))


class DamagedSaved(ValueError):
    """A stored blob that does not read back whole (the index is opened from the rows instead).
    `damaged` is False for a blob of an earlier format, which is only stale (nothing to repair)."""

    def __init__(self, message: str, damaged: bool = True) -> None:
        super().__init__(message)
        self.damaged = damaged


@dataclass(frozen=True)
class SavedIndex:
    """The built indexes of one set of rows: `doc_ids` (path -> trigram doc id) as the snapshot had them,
    and `chunk_counts`, each file's number of chunks (what BM25's positions and status count over, so a
    restart lists chunks without decoding the rows), for the same paths in the same order."""

    rows: str
    doc_ids: dict[str, int]
    trigrams: TrigramIndex
    symbols: SymbolTable
    chunk_counts: dict[str, int]

    def encode(self) -> bytes:
        """The whole blob in memory (what `write` puts in its file, piece by piece)."""
        return b"".join(self._pieces()[1])

    def _pieces(self) -> tuple[str, list[bytes | memoryview]]:
        """The payload's digest and the blob as pieces: magic, header length, header, then each part.
        A part is a view of its array's memory, not a copy: the file is written from the arrays as they
        are (copying them all first had been a fifth of a cold index's peak RSS on Django)."""
        paths = list(self.doc_ids)
        parts: dict[str, np.ndarray] = {
            **self.trigrams.arrays(),
            "ids": np.fromiter(self.doc_ids.values(), dtype=np.int64, count=len(paths)),
            "paths": np.frombuffer("\n".join(paths).encode("utf-8", "surrogatepass"), dtype=np.uint8),
            "chunks": np.fromiter(map(self.chunk_counts.__getitem__, paths), dtype=np.int64, count=len(paths)),
            **{f"symbols.{name}": array for name, array in self.symbols.arrays().items()},
        }
        layout: dict[str, list[object]] = {}
        chunks: list[bytes | memoryview] = []
        digest = xxhash.xxh3_128()
        offset = 0
        for name in _PARTS:
            array = np.ascontiguousarray(parts[name])
            padding = b"\0" * (-offset % _ALIGN)  # each part starts aligned, so it is read in place
            data = array.reshape(-1).view(np.uint8).data
            layout[name] = [offset + len(padding), len(data), array.dtype.str, list(array.shape)]
            for piece in (padding, data):
                chunks.append(piece)
                digest.update(piece)
            offset += len(padding) + len(data)
        header = json.dumps({"digest": digest.hexdigest(), "rows": self.rows, "parts": layout}).encode()
        header += b" " * (-(len(MAGIC) + _LENGTH_BYTES + len(header)) % _ALIGN)  # the payload starts aligned too
        return digest.hexdigest(), [MAGIC, len(header).to_bytes(_LENGTH_BYTES, "little"), header, *chunks]

    def write(self, path: Path) -> bytes:
        """Write the blob to `path` atomically (a temporary file beside it, synced, then renamed into place)
        and return what the store keeps to find and check it (`open`): the file's name, size and digest.

        The store's entry is written after the file: a process killed in between leaves a file the old
        entry does not name (its digest differs), which `open` refuses and the next save replaces.
        """
        digest, pieces = self._pieces()
        _remove_stale_temporaries(path)
        write_atomically(path, pieces)
        size = sum(len(piece) for piece in pieces)
        return POINTER + json.dumps({"file": path.name, "size": size, "digest": digest}).encode()

    @classmethod
    def open(cls, folder: Path, pointer: bytes, check: bool = True) -> SavedIndex:
        """The saved indexes in the file `pointer` (as `write` returned it) names, memory-mapped: a restart
        reads the pages a search touches instead of copying the whole blob out of SQLite (35 MB for Django,
        ~0.08 CPU-s). Raises DamagedSaved when the file is missing, cut, garbled, or not the one the
        pointer was written for (a file of another index, or one written by a save that did not finish).
        `check` False skips hashing the payload, for the process that has just written it: hashing reads
        every page into this process, and a build that reopens what it wrote to free its own copy (4x
        Django: ~150 MB) would hold them again."""
        blob, digest, _ = map_named(folder, pointer, POINTER, DamagedSaved, "stored index ")
        saved = cls.decode(blob, digest, check)
        return saved

    @classmethod
    def decode(cls, blob: bytes | memoryview, digest: str | None = None, check: bool = True) -> SavedIndex:
        """The indexes of a blob `encode` or `write` made; `digest`, when given, is the one its entry kept
        (a file that reads whole but is not the one the entry was written with is refused too)."""
        header, start = _header(blob)
        payload = memoryview(blob)[start:]
        try:
            if check and xxhash.xxh3_128_hexdigest(payload) != header["digest"]:
                raise DamagedSaved("stored index does not match its digest")
            if digest is not None and digest != header["digest"]:
                raise DamagedSaved("stored index file is not the one its entry names")
            layout = header["parts"]
            if not isinstance(layout, dict):
                raise DamagedSaved("stored index layout does not decode")
            arrays = {name: _array(payload, layout[name]) for name in _PARTS}
            paths_text = arrays.pop("paths").tobytes().decode("utf-8", "surrogatepass")
            paths = paths_text.split("\n") if paths_text else []
            ids = arrays.pop("ids")
            if ids.dtype != np.int64 or ids.shape != (len(paths),):
                raise DamagedSaved("stored doc ids do not fit the stored paths")
            chunks = arrays.pop("chunks")
            if chunks.dtype != np.int64 or chunks.shape != (len(paths),) or (chunks < 0).any():
                raise DamagedSaved("stored chunk counts do not fit the stored paths")
            trigrams = TrigramIndex.from_arrays({name: arrays[name] for name in _TRIGRAM_PARTS})
            symbols = SymbolTable.from_arrays({name: arrays[f"symbols.{name}"] for name in _SYMBOL_PARTS})
        except DamagedSaved:
            raise
        except (DamagedTrigrams, KeyError, TypeError, ValueError, UnicodeError, EOFError, AttributeError,
                ImportError, IndexError) as error:
            raise DamagedSaved(f"stored index does not decode: {type(error).__name__}: {error}") from None
        return cls(str(header["rows"]), dict(zip(paths, ids.tolist(), strict=True)), trigrams, symbols,
                   dict(zip(paths, chunks.tolist(), strict=True)))


def _remove_stale_temporaries(path: Path) -> None:
    """Temporary files a killed save left beside `path` (one still being written is younger than this)."""
    now = time.time()
    for stale in path.parent.glob(f"{path.name}.*.tmp"):
        with contextlib.suppress(OSError):
            if now - stale.stat().st_mtime > STALE_TEMPORARY_S:
                stale.unlink()


def _header(blob: bytes | memoryview) -> tuple[dict[str, object], int]:
    if bytes(blob[: len(MAGIC)]) in _OLDER:
        raise DamagedSaved("stored index is of an earlier format", damaged=False)
    if bytes(blob[: len(MAGIC)]) != MAGIC:
        raise DamagedSaved("stored index has no header")
    length_end = len(MAGIC) + _LENGTH_BYTES
    length = int.from_bytes(blob[len(MAGIC) : length_end], "little")
    try:
        header = json.loads(bytes(blob[length_end : length_end + length]))
    except (ValueError, UnicodeError) as error:
        raise DamagedSaved(f"stored index header does not decode: {error}") from None
    if not isinstance(header, dict):
        raise DamagedSaved("stored index header is not a mapping")
    return header, length_end + length


def _array(payload: memoryview, where: object) -> np.ndarray:
    if not (isinstance(where, list) and len(where) == 4 and isinstance(where[3], list)):
        raise DamagedSaved("stored index layout does not decode")
    offset, size, dtype, shape = where
    kind = np.dtype(dtype)
    if not (isinstance(offset, int) and isinstance(size, int) and offset >= 0 and offset + size <= len(payload)
            and kind.itemsize and size % kind.itemsize == 0 and all(isinstance(n, int) and n >= 0 for n in shape)
            and int(np.prod(shape, dtype=np.int64)) * kind.itemsize == size):
        raise DamagedSaved("stored index layout points outside the blob")
    return np.frombuffer(payload, dtype=kind, count=size // kind.itemsize, offset=offset).reshape(shape)
