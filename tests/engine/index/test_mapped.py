"""Named arrays in a memory-mapped file beside the index (`index.mapped`): what is written reads back
the same, in place, and a file or entry that is not the one written is refused, never half read."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fourfold.engine.index.mapped import POINTER, DamagedMapped, open_arrays, write_arrays

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
