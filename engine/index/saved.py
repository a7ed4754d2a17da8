"""What a restart opens instead of rebuilding: the trigram postings and the symbol table, as built.

Without it, every start of the language server and every one-shot CLI search decoded every row,
unpacked every file's trigrams and built the postings and the symbol table again: about 3.5 CPU-s
for Django before the first answer. With it, a start reads one blob from the store's `derived`
table and leaves each file's own records (references, chunks) encoded until something asks for
them (`store.StoredParsed`).

The blob is trusted only when everything it was built from is exactly what the rows hold now:
  - the store's `fingerprint` of the rows (paths and file digests) is the entry's key;
  - `rows` inside it is `store.payload_digest` of the rows' bytes, so a row garbled on disk (which
    the eager load would have caught while decoding it) sends the start down the eager path;
  - the blob's own xxh3 digest and a check that its arrays fit together catch a damaged blob.
Anything else is not an error a user sees: the index is opened the slow way, said in `repairs`
when the entry was damaged, and stored again after the next refresh.

Layout: `MAGIC`, an 8-byte little-endian header length, a JSON header (the payload's digest, the
rows' digest, and where each part lies in the payload: offset, bytes, dtype), then the parts. The
arrays are read in place with `np.frombuffer`, without copies; xxh3 checks 40 MB in a few
milliseconds, where the CRC of an `.npz` costs tens.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import xxhash

from .symbols import SymbolTable
from .trigram import DamagedTrigrams, TrigramIndex

__all__ = ["DamagedSaved", "SavedIndex"]

MAGIC = b"FFSAVED2"
# What earlier versions wrote (the symbol table as a pickle): not damage, only another format; built again.
_OLDER = (b"FFSAVED1",)
_LENGTH_BYTES = 8
_ALIGN = 64  # bytes: every part starts at a multiple of this within the payload
_TRIGRAM_PARTS = ("grams", "offsets", "docs", "doc_set")
_SYMBOL_PARTS = ("layout", "pool", "pool_offsets", "texts", "spans", "base", "lower_of", "sorted_lower", "masks",
                 "overlay", *(f"{name}_{part}" for name in ("exact", "lower", "words", "scoped", "files")
                              for part in ("keys", "offsets", "positions")))
_PARTS = (*_TRIGRAM_PARTS, "ids", "paths", *(f"symbols.{name}" for name in _SYMBOL_PARTS))


class DamagedSaved(ValueError):
    """A stored blob that does not read back whole (the index is opened from the rows instead).
    `damaged` is False for a blob of an earlier format, which is only stale (nothing to repair)."""

    def __init__(self, message: str, damaged: bool = True) -> None:
        super().__init__(message)
        self.damaged = damaged


@dataclass(frozen=True)
class SavedIndex:
    """The built indexes of one set of rows: `doc_ids` (path -> trigram doc id) as the snapshot had them."""

    rows: str
    doc_ids: dict[str, int]
    trigrams: TrigramIndex
    symbols: SymbolTable

    def encode(self) -> bytes:
        paths = list(self.doc_ids)
        parts: dict[str, np.ndarray] = {
            **self.trigrams.arrays(),
            "ids": np.fromiter(self.doc_ids.values(), dtype=np.int64, count=len(paths)),
            "paths": np.frombuffer("\n".join(paths).encode("utf-8", "surrogatepass"), dtype=np.uint8),
            **{f"symbols.{name}": array for name, array in self.symbols.arrays().items()},
        }
        layout: dict[str, list[object]] = {}
        chunks: list[bytes] = []
        digest = xxhash.xxh3_128()
        offset = 0
        for name in _PARTS:
            array = np.ascontiguousarray(parts[name])
            padding = b"\0" * (-offset % _ALIGN)  # each part starts aligned, so it is read in place
            data = array.tobytes()
            layout[name] = [offset + len(padding), len(data), array.dtype.str, list(array.shape)]
            for piece in (padding, data):
                chunks.append(piece)
                digest.update(piece)
            offset += len(padding) + len(data)
        header = json.dumps({"digest": digest.hexdigest(), "rows": self.rows, "parts": layout}).encode()
        return b"".join([MAGIC, len(header).to_bytes(_LENGTH_BYTES, "little"), header, *chunks])

    @classmethod
    def decode(cls, blob: bytes) -> SavedIndex:
        header, start = _header(blob)
        payload = memoryview(blob)[start:]
        try:
            if xxhash.xxh3_128_hexdigest(payload) != header["digest"]:
                raise DamagedSaved("stored index does not match its digest")
            layout = header["parts"]
            if not isinstance(layout, dict):
                raise DamagedSaved("stored index layout does not decode")
            arrays = {name: _array(payload, layout[name]) for name in _PARTS}
            paths_text = arrays.pop("paths").tobytes().decode("utf-8", "surrogatepass")
            paths = paths_text.split("\n") if paths_text else []
            ids = arrays.pop("ids")
            if ids.dtype != np.int64 or ids.shape != (len(paths),):
                raise DamagedSaved("stored doc ids do not fit the stored paths")
            trigrams = TrigramIndex.from_arrays({name: arrays[name] for name in _TRIGRAM_PARTS})
            symbols = SymbolTable.from_arrays({name: arrays[f"symbols.{name}"] for name in _SYMBOL_PARTS})
        except DamagedSaved:
            raise
        except (DamagedTrigrams, KeyError, TypeError, ValueError, UnicodeError, EOFError, AttributeError,
                ImportError, IndexError) as error:
            raise DamagedSaved(f"stored index does not decode: {type(error).__name__}: {error}") from None
        return cls(str(header["rows"]), dict(zip(paths, ids.tolist(), strict=True)), trigrams, symbols)


def _header(blob: bytes) -> tuple[dict[str, object], int]:
    if blob[: len(MAGIC)] in _OLDER:
        raise DamagedSaved("stored index is of an earlier format", damaged=False)
    if blob[: len(MAGIC)] != MAGIC:
        raise DamagedSaved("stored index has no header")
    length_end = len(MAGIC) + _LENGTH_BYTES
    length = int.from_bytes(blob[len(MAGIC) : length_end], "little")
    try:
        header = json.loads(blob[length_end : length_end + length])
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
