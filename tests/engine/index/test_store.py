"""The on-disk index: round trips, schema checks, corruption and a process killed mid-write."""

from __future__ import annotations

import pickle
import signal
import sqlite3
import subprocess
import sys
import zlib
from dataclasses import replace
from pathlib import Path

from fourfold.engine.index.store import (
    INDEX_FILE,
    SCHEMA_VERSION,
    IndexStore,
    StoredFile,
    StoredParsed,
    decode_parsed,
    default_index_dir,
    encode_parsed,
)
from fourfold.engine.model.records import Chunk, FileRecord, ParsedFile, Reference, Span, Symbol


def stored(path: str, version: int = 1) -> StoredFile:
    span = Span(0, 0, 2, 0)
    symbol = Symbol("load", "function", path, span, Span(0, 4, 0, 8), None, "load", "def load():", "Doc.", "python")
    reference = Reference("open", "call", path, Span(1, 4, 1, 8), "load")
    chunk = Chunk(path, span, "definition", "load", "text", "abc", "python")
    parsed = ParsedFile((symbol,), (reference,), ("os.path",), (chunk,))
    return StoredFile(FileRecord(path, 10 * version, version, f"d{version}", "python"), b"grams", parsed)


def test_round_trip(tmp_path: Path) -> None:
    store = IndexStore(tmp_path)
    store.write([stored("a.py"), stored("b.py")])
    store.write([stored("a.py", 2)], deletions=["b.py"])
    store.close()
    loaded = list(IndexStore(tmp_path).load())
    assert [item.record.path for item in loaded] == ["a.py"]
    assert loaded[0] == stored("a.py", 2)


def test_a_row_is_the_records_then_their_chunks_and_a_whole_pickle_still_reads(tmp_path: Path) -> None:
    # A worker's pickle of the records without chunks is the row's first part (pickled once, not twice).
    parsed = stored("a.py").parsed
    head = pickle.dumps(replace(parsed, chunks=()), protocol=pickle.HIGHEST_PROTOCOL)
    encoded = encode_parsed(parsed, head)
    assert zlib.decompress(encoded).startswith(head)
    assert encoded == encode_parsed(parsed) and decode_parsed(encoded) == parsed
    assert decode_parsed(encode_parsed(replace(parsed, chunks=()))) == replace(parsed, chunks=())
    assert decode_parsed(zlib.compress(pickle.dumps(parsed))) == parsed  # a row written before this format
    store = IndexStore(tmp_path)
    store.write([StoredFile(stored("a.py").record, b"grams", parsed, encoded), stored("b.py")])
    with store._transaction() as db:  # more after the chunks, or chunks twice: refused, not half read
        db.execute("UPDATE files SET parsed = ? WHERE path = 'b.py'",
                   (zlib.compress(zlib.decompress(encoded) + pickle.dumps(parsed.chunks)),))
    store.close()
    assert [item.parsed for item in IndexStore(tmp_path).load()] == [parsed]


def test_a_row_read_without_its_chunks_is_its_records_and_nothing_is_kept() -> None:
    """What a bulk build reads (`StoredParsed.unkept(chunks=False)`): the records before the chunks only."""
    parsed = stored("a.py").parsed
    blob = encode_parsed(parsed)
    assert decode_parsed(blob, chunks=False) == replace(parsed, chunks=()) != parsed
    assert decode_parsed(blob) == parsed
    rows = StoredParsed({"a.py": blob, "b.py": encode_parsed(stored("b.py").parsed)})
    lean = rows.unkept(chunks=False)
    assert list(lean) == ["a.py", "b.py"] and "a.py" in lean and "c.py" not in lean
    assert lean["a.py"] == replace(parsed, chunks=()) and rows.kept == 0 and rows.decoded == 1
    assert rows["a.py"] == parsed and rows.kept == 1  # read whole, and kept, when asked so
    assert rows.unkept(chunks=False)["a.py"] is rows["a.py"]  # a row kept decoded is read as it is


def test_default_index_dir_is_outside_the_workspace_and_per_root(tmp_path: Path) -> None:
    first, second = default_index_dir(tmp_path / "one"), default_index_dir(tmp_path / "two")
    assert first != second and not first.is_relative_to(tmp_path)
    assert first.name.startswith("one-")


def test_old_schema_is_rebuilt(tmp_path: Path) -> None:
    IndexStore(tmp_path).write([stored("a.py")])
    db = sqlite3.connect(tmp_path / INDEX_FILE)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    db.close()
    store = IndexStore(tmp_path)
    assert store.rebuilt_reason is not None and "schema" in store.rebuilt_reason
    assert list(store.load()) == []


def test_garbage_and_truncated_files_are_rebuilt(tmp_path: Path) -> None:
    (tmp_path / INDEX_FILE).write_bytes(b"this is not a database" * 100)
    store = IndexStore(tmp_path)
    assert store.rebuilt_reason and "damaged" in store.rebuilt_reason
    store.write([stored(f"f{i}.py") for i in range(200)])
    store.close()
    data = (tmp_path / INDEX_FILE).read_bytes()
    (tmp_path / INDEX_FILE).write_bytes(data[: len(data) // 3])
    reopened = IndexStore(tmp_path)
    assert reopened.rebuilt_reason is not None
    assert list(reopened.load()) == []
    reopened.write([stored("again.py")])
    assert [item.record.path for item in reopened.load()] == ["again.py"]


WRITER = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from test_store import stored
from fourfold.engine.index.store import IndexStore
store = IndexStore(Path(sys.argv[1]))
batch = 0
while True:
    store.write([stored(f"batch{batch}_{i}.py") for i in range(250)])
    batch += 1
    if batch == 2:
        print("written", flush=True)
"""


def test_process_killed_mid_write_keeps_whole_batches(tmp_path: Path) -> None:
    for _ in range(3):
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(Path(__file__).parent)],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdout.readline().strip() == "written"
        child.send_signal(signal.SIGKILL)
        child.wait()
        store = IndexStore(tmp_path)
        assert store.rebuilt_reason is None
        paths = [item.record.path for item in store.load()]
        batches = {path.split("_")[0] for path in paths}
        assert len(paths) == 250 * len(batches) and len(batches) >= 2
        store.close()


def test_rows_that_do_not_decode_are_skipped(tmp_path: Path) -> None:
    # Payloads are pickles now (issue 2): damaged ones, or a pickle of something else, are dropped.
    store = IndexStore(tmp_path)
    store.write([stored("good.py"), stored("garbage.py"), stored("other.py"), stored("cut.py")])
    with store._transaction() as db:
        db.execute("UPDATE files SET parsed = ? WHERE path = 'garbage.py'", (b"not zlib",))
        db.execute("UPDATE files SET parsed = ? WHERE path = 'other.py'", (zlib.compress(pickle.dumps([1, 2])),))
        whole = encode_parsed(stored("cut.py").parsed)
        db.execute("UPDATE files SET parsed = ? WHERE path = 'cut.py'", (zlib.compress(zlib.decompress(whole)[:40]),))
    assert [item.record.path for item in store.load()] == ["good.py"]
    assert store.load()[0] == stored("good.py")
