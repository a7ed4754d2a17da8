"""Named arrays in a memory-mapped file beside the index (`index.mapped`): what is written reads back
the same, in place, and a file or entry that is not the one written is refused, never half read."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import xxhash

from fourfold.engine.index.mapped import POINTER, ArrayWriter, DamagedMapped, open_arrays, verify, write_arrays

ARRAYS = {
    "names": np.frombuffer(b"alpha\nbeta", dtype=np.uint8),
    "starts": np.array([0, 6, 11], dtype=np.int64),
    "scores": np.array([0.25, 1.5], dtype=np.float64),
    "dangling": np.array([True, False]),
    "grid": np.arange(6, dtype=np.int32).reshape(2, 3),
    "none": np.zeros(0, dtype=np.int64),
}


def test_arrays_read_back_as_written_and_in_place(tmp_path: Path) -> None:
    pointer = write_arrays(tmp_path / "part", ARRAYS)
    assert pointer.startswith(POINTER)
    back = open_arrays(tmp_path, pointer)
    assert back.keys() == ARRAYS.keys()
    for name, array in ARRAYS.items():
        assert back[name].dtype == array.dtype and back[name].shape == array.shape
        assert back[name].tolist() == array.tolist()
    assert not back["scores"].flags.writeable  # a view of the mapping, not a copy
    assert list(tmp_path.iterdir()) == [tmp_path / "part"]  # no temporary left behind


def test_a_file_rewritten_under_a_reader_leaves_the_reader_its_own(tmp_path: Path) -> None:
    old = open_arrays(tmp_path, write_arrays(tmp_path / "part", ARRAYS))
    write_arrays(tmp_path / "part", {**ARRAYS, "scores": np.array([9.0, 9.0])})
    assert old["scores"].tolist() == [0.25, 1.5]


@pytest.mark.parametrize("damage", ["flipped", "cut", "missing", "other file", "entry garbled", "entry outside"])
def test_a_file_that_is_not_the_one_written_is_refused(tmp_path: Path, damage: str) -> None:
    pointer = write_arrays(tmp_path / "part", ARRAYS)
    path = tmp_path / "part"
    data = bytearray(path.read_bytes())
    if damage == "flipped":
        data[-3] ^= 0xFF
        path.write_bytes(bytes(data))
    elif damage == "cut":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif damage == "missing":
        path.unlink()
    elif damage == "other file":
        write_arrays(path, {"scores": np.array([1.0])})
    elif damage == "entry garbled":
        pointer = pointer[:-5]
    else:
        named = json.loads(pointer[len(POINTER):])
        pointer = POINTER + json.dumps({**named, "file": "../part"}).encode()
    with pytest.raises(DamagedMapped):
        open_arrays(tmp_path, pointer)


def test_a_flipped_payload_byte_is_refused_and_verify_finds_it_later(tmp_path: Path) -> None:
    pointer = write_arrays(tmp_path / "part", ARRAYS)
    path = tmp_path / "part"
    data = bytearray(path.read_bytes())
    data[64 + 1] ^= 0xFF  # inside the first array: the header and its offset are intact
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedMapped, match="digest"):
        open_arrays(tmp_path, pointer)
    unchecked = open_arrays(tmp_path, pointer, check=False)
    assert not verify(unchecked, pointer)
    assert verify(open_arrays(tmp_path, write_arrays(path, ARRAYS), check=False), write_arrays(path, ARRAYS))


def test_an_array_written_in_pieces_reads_back_whole_and_while_written(tmp_path: Path) -> None:
    with ArrayWriter(tmp_path / "part") as writer:
        writer.begin("text", np.uint8)
        for piece in (b"alpha\n", b"", b"beta\n"):
            writer.extend(piece)
        assert writer.end() == 11
        assert writer.read_back("text", 6, 10) == b"beta"
        writer.add("grid", ARRAYS["grid"])
        pointer = writer.commit()
    back = open_arrays(tmp_path, pointer)
    assert back["text"].tobytes() == b"alpha\nbeta\n" and back["grid"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert back["grid"].ctypes.data % 64 == 0  # aligned in the mapping
    assert list(tmp_path.iterdir()) == [tmp_path / "part"]


def test_a_writer_left_without_a_commit_leaves_nothing_and_the_old_file_stays(tmp_path: Path) -> None:
    pointer = write_arrays(tmp_path / "part", ARRAYS)
    with pytest.raises(RuntimeError), ArrayWriter(tmp_path / "part") as writer:
        writer.add("scores", np.array([9.0]))
        raise RuntimeError("killed mid-write")
    assert list(tmp_path.iterdir()) == [tmp_path / "part"]
    assert open_arrays(tmp_path, pointer)["scores"].tolist() == [0.25, 1.5]


def test_a_file_in_the_header_first_layout_still_reads(tmp_path: Path) -> None:
    """Indexes saved before the header moved to the end name files that start with their header."""
    payload = b"".join([np.array([1, 2, 3], dtype=np.int64).tobytes()])
    digest = xxhash.xxh3_128_hexdigest(payload)
    header = json.dumps({"digest": digest, "parts": {"ids": [0, 24, "<i8", [3]]}}).encode()
    header += b" " * (-(8 + 8 + len(header)) % 64)
    data = b"FFARRAY1" + len(header).to_bytes(8, "little") + header + payload
    (tmp_path / "old").write_bytes(data)
    pointer = POINTER + json.dumps({"file": "old", "size": len(data), "digest": digest}).encode()
    assert open_arrays(tmp_path, pointer)["ids"].tolist() == [1, 2, 3]
